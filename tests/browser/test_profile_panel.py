"""The Performance panel (#16) in a real Chromium, in Korean and English: the
metrics table, the previous attempt beside this one, the findings translated
with their lesson links. A profiled result document is fed to the panel."""

from __future__ import annotations

import copy
from pathlib import Path

import pytest

from kernels import result as result_doc

from .test_judging import open_lesson

pytestmark = pytest.mark.browser


def _kernel(store_sectors: float, findings: bool) -> dict:
    from kernels import profile as prof

    metrics = {k: None for k in prof.METRIC_KEYS} | {
        "global_load_sectors_per_request": 4.0, "global_load_ideal_sectors_per_request": 4.0,
        "global_store_sectors_per_request": store_sectors, "global_store_ideal_sectors_per_request": 4.0,
        "warp_execution_efficiency_pct": 100.0, "global_lanes_active_pct": 100.0, "atomics": 0}
    res = {"registers_per_thread": 24, "static_shared_bytes": 0, "stack_frame_bytes": 0, "spill_bytes": 0}
    return prof.kernel_entry("add_one", (4, 1, 1), (256, 1, 1), 0, res, metrics)


def _result(store_sectors: float) -> dict:
    from kernels import profile as prof
    from kernels.profile_findings import findings

    kernels = [_kernel(store_sectors, True)]
    doc = result_doc.build(exercise="fixture.add_one", backend="emu", verdict="accepted", message="all 4 tests passed",
                           timings_note="emu", profile=prof.build("emulator", "n=1000", kernels, findings(kernels)))
    assert result_doc.validate(doc) == []
    return doc


FEED_TWICE = """(args) => {
    const section = document.querySelector('.exercise');
    const panel = new KDojoResults.Panel(section.querySelector('.results'));
    for (const result of [args.first, args.second]) {
        panel.reset();
        panel.final({verdict: 'accepted', mode: 'submit', result}, null, {});
    }
}"""


@pytest.mark.parametrize("lang", ["ko", "en"])
def test_the_performance_panel_in_the_readers_language(page, lang: str, artifacts: Path) -> None:
    open_lesson(page, lang)
    # the first attempt's stores were strided (32 sectors), the second's coalesced
    page.evaluate(FEED_TWICE, {"first": _result(32.0), "second": copy.deepcopy(_result(4.0))})
    panel = page.locator(".exercise .profile")
    assert panel.is_visible()
    row = panel.locator("tr[data-metric='store_sectors']")
    assert row.locator("td.now").inner_text() == "4" and row.locator("td.previous").inner_text() == "32"
    assert panel.locator("tr[data-metric='registers'] td.now").inner_text() == "24"
    text = panel.inner_text()
    if lang == "ko":
        assert "성능 분석" in text and "이전 제출" in text and "눈에 띄는 문제가 없습니다" in text
        assert "sectors" not in text and "Performance" not in text
    else:
        assert "Performance" in text and "previous attempt" in text and "nothing stands out" in text
    panel.screenshot(path=str(artifacts / f"profile-panel-{lang}.png"))


@pytest.mark.parametrize("lang", ["ko", "en"])
def test_a_finding_is_translated_and_links_to_its_lesson(page, lang: str) -> None:
    open_lesson(page, lang)
    strided = _result(32.0)
    page.evaluate(FEED_TWICE, {"first": strided, "second": strided})
    finding = page.locator(".exercise .profile .profile-findings li[data-code='profile_uncoalesced']")
    text = finding.inner_text()
    assert finding.locator("a").get_attribute("href") == "/lessons/coalescing"
    if lang == "ko":
        assert "전역 메모리 접근(쓰기) 한 번에 32바이트 섹터 32개를 건드립니다. 4개면 충분합니다" in text, text
        assert "store" not in text
    else:
        assert "each global store touches 32 sectors of 32 bytes where 4 would do" in text, text
