"""The interpreter server's wire format and the trusted side's reading of its answers (#29):
no server needed. What the server sends is the learner's to forge: parameters are checked."""

from __future__ import annotations

import io
import json

import pytest

from kernels.emu.protocol import (ARG_BUFFER, ARG_FLOAT, MODE_ADVERSARIAL, MODE_JSON, WireBuffer, WireDiag,
                                  WireLaunch, WireResponse, decode_body, encode_request, encode_response, float_bits,
                                  read_request)
from kernels.triton import interp_messages

NAMES = {"x", "y"}


def test_a_request_with_json_reads_back_as_sent():
    data = bytes(range(48))
    args = ((ARG_BUFFER, 0), (ARG_FLOAT, float_bits(2.5)))
    sent = encode_request([WireBuffer("x", data, 16, 16, 4)], [WireLaunch("saxpy", (3, 1, 1), (128, 1, 1), 0, args)],
                          adversarial=True, extra_json='{"launches": [{"kernel": "saxpy"}]}')
    request = read_request(io.BytesIO(sent))
    assert request.mode == MODE_ADVERSARIAL | MODE_JSON
    assert request.buffers == [("x", bytearray(data), 16, 16, 4)]
    assert request.launches[0].kernel == "saxpy" and tuple(request.launches[0].grid) == (3, 1, 1)
    assert request.launches[0].args == ((ARG_BUFFER, 0), (ARG_FLOAT, float_bits(2.5)))
    assert json.loads(request.extra_json) == {"launches": [{"kernel": "saxpy"}]}


def test_a_request_without_json_is_the_emulators_and_a_short_one_is_refused():
    sent = encode_request([], [], adversarial=False)
    assert read_request(io.BytesIO(sent)).extra_json is None
    assert read_request(io.BytesIO(b"")) is None
    with pytest.raises((EOFError, ValueError)):
        read_request(io.BytesIO(sent[:-2]))


def test_a_response_decodes_as_the_runtimes_does():
    response = WireResponse("out-of-bounds read", '{"a": 1}', 7, 0, [WireDiag("race", 3, 0, "{}")], "printed",
                            [b"\x01\x02\x03\x04"])
    raw = encode_response(response)
    decoded = decode_body(memoryview(raw)[12:])
    assert (decoded.fault_name, decoded.fault_message, decoded.fault_line) == ("out-of-bounds read", '{"a": 1}', 7)
    assert decoded.diagnostics[0].kind == "race" and decoded.output == "printed"
    assert bytes(decoded.buffers[0]) == b"\x01\x02\x03\x04"


OOB = {"access": "read", "name": "x", "index": 1000, "last": 999, "program": [0, 0, 0], "line": 9}


def test_a_finding_is_worded_with_its_code_and_parameters():
    [found] = interp_messages.diagnostics([WireDiag("out_of_bounds", 9, 0, json.dumps(OOB))], NAMES)
    assert found.message.code == "triton_out_of_bounds" and found.line == 9
    assert found.message.params["program"] == "(0, 0, 0)"
    assert "buffer 'x' at element 1000, valid elements are 0..999, by program (0, 0, 0) (line 9)" in found.message


@pytest.mark.parametrize("forged", [
    "not json", "[]", json.dumps({**OOB, "name": "secret"}), json.dumps({**OOB, "program": [0, 0]}),
    json.dumps({**OOB, "line": -1}), json.dumps({**OOB, "index": "1"}), json.dumps({**OOB, "access": "exec"}),
    json.dumps({**OOB, "program": [True, 0, 0]}), json.dumps({**OOB, "index": 10 ** 40}), "[" * 100000,
])
def test_a_forged_finding_is_dropped(forged):
    assert interp_messages.diagnostics([WireDiag("out_of_bounds", 9, 0, forged)], NAMES) == []


def test_a_finding_of_an_unknown_kind_is_dropped():
    assert interp_messages.diagnostics([WireDiag("internal", 0, 0, json.dumps(OOB))], NAMES) == []


@pytest.mark.parametrize("name, message, kind", [
    ("out-of-bounds write", json.dumps({**OOB, "access": "write"}), "runtime_error"),
    ("time limit exceeded", json.dumps({"detail": "3 of 9 programs ran"}), "time_limit_exceeded"),
    ("needs_gpu", json.dumps({"feature": "tl.inline_asm_elementwise"}), "rejected"),
    ("python error", json.dumps({"line": 4, "detail": "TypeError: no"}), "runtime_error"),
    ("internal", "{}", "runtime_error"),  # a fault the server never gives: still the learner's
    ("needs_gpu", json.dumps({"feature": "anything I like"}), "runtime_error"),
    ("python error", "{", "runtime_error"),
])
def test_every_fault_the_server_names_is_the_learners_verdict(name, message, kind):
    fault = interp_messages.fault(WireResponse(name, message, 0, 0), NAMES, 10.0)
    assert fault is not None and fault.kind == kind
