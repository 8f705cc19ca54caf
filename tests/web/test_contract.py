"""The judge → web contract (#29): one enum of stream events for the pipeline, the
supervisor, the web and the page script, and a valid v1 document for the web's
internal_error fallback."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from app.pages.context import shared_page_data
from app.services import judging
from app.services.events import judge_event_to_stage
from kernels import contract
from kernels.contract import STORED_FROM_JUDGE, STREAMED, Event

REPO = Path(__file__).resolve().parents[2]
SCRIPTS = sorted((REPO / "static" / "js").glob("*.js"))
EVENT_NAMES = {event.value for event in Event}


def test_the_page_reads_every_stream_event_from_the_contract():
    used: set[str] = set()
    for script in SCRIPTS:
        text = script.read_text()
        used |= set(re.findall(r"\bE\.(\w+)", text))
        # an event name written out by hand (a listener or a stage) is a name the enum does not govern
        literal = re.findall(r"""(?:addEventListener|\.stage)\(\s*["'](\w+)["']|kind === ["'](\w+)["']""", text)
        assert not [name for pair in literal for name in pair if name in EVENT_NAMES], script.name
    assert used, "the page script reads no event from K.page.events"
    assert used <= set(contract.page_events()), sorted(used - set(contract.page_events()))


def test_the_page_data_carries_the_events():
    from app.content import load_catalog

    catalog = load_catalog(REPO / "lessons")
    events, text = shared_page_data("en", catalog)["events"]
    assert events == {e.value: e.value for e in STREAMED}
    assert '"tested": "tested"' in text


def test_the_events_are_one_vocabulary():
    assert all(e.private for e in Event if e.value.startswith("_")) and not Event.DONE.private
    assert not any(e.private for e in STREAMED)
    assert set(STORED_FROM_JUDGE) < set(STREAMED)
    for event in Event:
        mapped = judge_event_to_stage({"stage": event.value, "index": 0})
        assert (mapped is not None) == (event in STORED_FROM_JUDGE), event
        if mapped is not None:
            assert type(mapped[0]) is str and mapped == (event.value, {"index": 0})


def test_an_event_outside_the_contract_is_not_stored():
    from app.services.events import add_event

    with pytest.raises(ValueError, match="not an event of the stream"):
        add_event(None, 1, "benchmarked")  # type: ignore[arg-type]


def test_the_fallback_internal_error_is_a_valid_document():
    doc = judging.internal_error_result("reduction.block_sum", "The judge failed (OSError); this is our fault, not yours.")
    assert contract.validate(doc) == []
    assert (doc["verdict"], doc["message_code"], doc["backend"], doc["language"]) == \
        ("internal_error", "internal", None, "cuda")
    on_gpu = judging.internal_error_result("reduction.block_sum", "lost", backend="cuda", language="triton")
    assert contract.validate(on_gpu) == [] and on_gpu["language"] == "triton"
    # a null backend is only for a judgement that reached no target
    assert contract.validate({**doc, "verdict": "accepted"}) == ["backend must be cuda or emu (null only for an internal_error)"]
    with pytest.raises(ValueError):
        contract.build(exercise="a.b", backend=None, verdict="accepted", message="ok")
