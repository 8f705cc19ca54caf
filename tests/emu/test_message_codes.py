"""The emulator's sentences carry message codes (#28): each dedicated bad kernel's
diagnostic is read back into its code and parameters, a fault's sentence keeps
its code on the test, and a sentence of no known shape stays plain text."""

from __future__ import annotations

import numpy as np
import pytest

from kernels.emu.messages import coded
from kernels.contract import MESSAGE_CODES, Message
from tests.emu.harness import kernel_file, launch
from tests.emu.test_diagnostics import CASES, CHECKED

F32 = np.float32

# (file, the diagnostic's kind, its code)
CODED = {
    "divergent_barrier_skipped.cu": ("divergent_barrier", "divergent_barrier"),
    "divergent_barrier_sites.cu": ("divergent_barrier", "divergent_barrier_places"),
    "mask_absent_lanes.cu": ("warp_mask", "warp_mask"),
    "shuffle_source_outside_mask.cu": ("shuffle_source", "shuffle_source"),
    "race_missing_barrier.cu": ("race", "race"),
    "race_between_blocks.cu": ("race", "race"),
    "race_macro_shared.cu": ("race", "race"),
    "uninit_macro_shared.cu": ("uninitialised_read", "uninitialised_read"),
    "oob_global_read.cu": ("out_of_bounds", "out_of_bounds"),
    "oob_shared_write.cu": ("out_of_bounds", "out_of_bounds"),
    "oob_dynamic_shared.cu": ("out_of_bounds", "out_of_bounds_dynamic"),
}
_HOW = {c[0]: (c[1], False) for c in CASES} | {c[0]: (c[1], True) for c in CHECKED}


@pytest.mark.parametrize("name", list(CODED))
def test_each_bad_kernels_diagnostic_has_its_code_and_line(name: str) -> None:
    how, checked = _HOW[name]
    kind, code = CODED[name]
    got = launch(kernel_file(name), "k", how["grid"], how["block"], how["args"], shared=how.get("shared", 0),
                 variant="check" if checked else "fast", adversarial=checked)
    found = next(d for d in got.diagnostics if d.kind == kind)
    message = found.message
    assert isinstance(message, Message) and message.code == code, message
    assert set(message.params) == set(MESSAGE_CODES[code])
    assert all(isinstance(v, (str, int)) for v in message.params.values())
    if "line" in message.params:  # a barrier reached from two places names both; the diagnostic, the second
        assert found.line in (message.params["line"], message.params.get("other_line")), message.params
    assert found.to_dict()["message_code"] == code and found.to_dict()["message"] == str(message)


def test_a_race_names_its_region_threads_and_scope() -> None:
    text = ("data race on shared memory array 'tile' element 3: thread 3 of block 0 writes it (line 8) while "
            "thread 2 of block 0 read it (an unknown line) with no __syncthreads()/__syncwarp() in between: a "
            "missing barrier")
    msg = coded(text)
    assert msg == text and msg.code == "race"
    assert msg.params == {"region": "shared", "name": "tile", "index": 3, "offset": -1, "thread": 3, "block": 0,
                          "access": "write", "line": 8, "other_thread": 2, "other_block": 0,
                          "other_access": "read", "other_line": 0, "scope": "block"}
    grid = coded("data race on buffer 'out' element 0: thread 0 of block 1 writes it (line 4) while thread 0 of "
                 "block 0 wrote it (line 4); different blocks are never ordered inside a launch: use an atomic")
    assert grid.params["region"] == "buffer" and grid.params["scope"] == "grid"


@pytest.mark.parametrize("text", [
    "data race on shared memory array 'tile' element 3: something else entirely",
    "printf output: data race on buffer 'x'",
    "out-of-bounds read of 4 bytes: buffer 'in' at element 1" + "9" * 40 + ", valid elements are 0..0 "
    "(thread 0 of block 0, line 3)",
    "",
])
def test_a_sentence_of_no_known_shape_stays_plain(text: str) -> None:
    got = coded(text)
    if isinstance(got, Message):  # a number too long for an int stays a string, never an error
        assert all(isinstance(v, (str, int)) and not (isinstance(v, int) and abs(v) > 10 ** 18)
                   for v in got.params.values())
    else:
        assert got == text and type(got) is str


def test_a_faults_coded_sentence_is_the_tests_message_without_a_doubled_name() -> None:
    from kernels.targets.base import RuntimeFault
    from kernels.cases import _fault_message

    race = coded("data race on buffer 'out' element 0: thread 0 of block 1 writes it (line 4) while thread 0 "
                 "of block 0 wrote it (line 4); different blocks are never ordered inside a launch: use an atomic")
    message = _fault_message(RuntimeFault("wrong_answer", "data race", race))
    assert message == race and not message.startswith("data race: ") and message.code == "race"
    segv = Message("segmentation fault (line 4): a read of address 0x10, which is no buffer's memory", "segfault",
                   line=4, access="read", address="0x10")
    message = _fault_message(RuntimeFault("runtime_error", "invalid memory access", segv))
    assert message == "invalid memory access: " + segv and message.code == "segfault"
    plain = _fault_message(RuntimeFault("runtime_error", "trap", "__trap() was called"))
    assert plain.code == "fault" and plain.params == {"name": "trap", "detail": "__trap() was called"}


# The runtime's rarer sentences (#28), as kernels/emu/runtime/*.cpp writes them (the language
# test judges a kernel for each that a learner's kernel can reach; these a launch plan makes).
RARE = {
    "k: grid and block dimensions must be at least 1": "launch_dims_zero",
    "k: a block has 2048 threads; the maximum is 1024": "launch_threads",
    "k: block dimensions exceed (1024, 1024, 64)": "launch_block_dims",
    "k: grid dimensions exceed (2^31-1, 65535, 65535)": "launch_grid_dims",
    "k: dynamic shared memory of 300000 bytes exceeds the 227 KB a block may use": "launch_shared",
    "k: the launch plan passes a different number of arguments than the kernel takes": "launch_args",
    "the emulator could not allocate a thread stack": "emu_no_memory",
    "the emulator could not allocate shared memory": "emu_no_memory",
    "the program's answer named a fault the runtime does not give": "output_corrupted",
    "tiled_partition(group, n): the emulator supports n = 1, 2, 4, 8, 16 or 32 (thread (3,0,0) of block (0,0,0))":
        "tile_size",
    "this_grid().sync() needs a cooperative launch (cudaLaunchCooperativeKernel); the judge launches kernels "
    "normally, so a grid-wide barrier cannot work: split the kernel in two launches or use atomics (thread (0,0,0) "
    "of block (1,0,0))": "grid_sync",
    "__syncwarp on line 7 (mask 0xffffffff) waits for lanes that are at a different warp collective":
        "warp_mask_elsewhere",
    "misaligned 8-byte write at address 0x7f10, an unknown line: a 8-byte access needs an address that is a "
    "multiple of 8": "misaligned",
}


@pytest.mark.parametrize("text", list(RARE))
def test_the_runtimes_rarer_sentences_have_codes(text: str) -> None:
    message = coded(text)
    assert isinstance(message, Message) and message.code == RARE[text], text
    assert set(message.params) == set(MESSAGE_CODES[message.code])
    assert all(isinstance(v, (str, int)) for v in message.params.values())


def test_each_rarer_sentence_is_still_written_by_the_runtime() -> None:
    """The shapes follow the runtime's words: each sentence's fixed part is in its source."""
    from pathlib import Path

    runtime = Path(__file__).resolve().parents[2] / "kernels" / "emu" / "runtime"
    source = "\n".join(p.read_text() for p in runtime.glob("*.[ch]*"))
    for fixed in ("grid and block dimensions must be at least 1", "the maximum is 1024",
                  "block dimensions exceed (1024, 1024, 64)", "grid dimensions exceed (2^31-1, 65535, 65535)",
                  "exceeds the 227 KB a block may use",
                  "the launch plan passes a different number of arguments than the kernel takes",
                  "the emulator could not allocate a thread stack", "the emulator could not allocate shared memory",
                  "the emulator supports n = 1, 2, 4, 8, 16 or 32", "split the kernel in two launches or use atomics",
                  "waits for lanes that are at a different warp collective",
                  "-byte access needs an address that is a multiple of ",
                  "every thread wrote the same value, so the result cannot ", "(a warning; one writer would do)",
                  "with no barrier in between: the read sees the value before or after the update",
                  "; every lane named in the mask must call the same one", " disagree on the mask of ",
                  ", which does not include that lane", " must be a power of two no larger than 32",
                  "device-side assert failed: ", "__trap() called", "a GPU refuses to launch it"):
        assert fixed in source, fixed
