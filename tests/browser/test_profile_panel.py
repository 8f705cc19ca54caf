"""The Performance panel (#16) in a real Chromium, in Korean and English: what a
learner reads in it. End to end: two attempts judged by the real server (the
emulator backend), the second one's "previous attempt" column served by the
server. Fed documents: the estimate with the model's accuracy, the roofline
chart (uPlot, log-log) and the bandwidth bars, the change column, and the line a
pass without a profile gets (profiling off or unavailable)."""

from __future__ import annotations

import copy
import re
from pathlib import Path

import pytest

from kernels import contract as result_doc

from .test_judging import CORRECT, open_lesson, type_kernel, wait_for_verdict

pytestmark = pytest.mark.browser

# Each thread handles 8 neighbouring elements: a warp's loads and stores are 32
# bytes apart per lane, 32 sectors per request where 4 would do; still correct.
CHUNKED = """extern "C" __global__ void add_one(const float* in, float* out, int N) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    for (int k = 0; k < 8; k++) {
        int i = t * 8 + k;
        if (i < N) out[i] = in[i] + 1.0f;
    }
}
"""


def _kernel(store_sectors: float, registers: int = 24, lanes: float = 100.0) -> dict:
    from kernels.profile import doc as prof

    metrics = {k: None for k in prof.METRIC_KEYS} | {
        "global_load_sectors_per_request": 4.0, "global_load_ideal_sectors_per_request": 4.0,
        "global_store_sectors_per_request": store_sectors, "global_store_ideal_sectors_per_request": 4.0,
        "warp_execution_efficiency_pct": lanes, "global_lanes_active_pct": lanes, "atomics": 0}
    res = {"registers_per_thread": registers, "static_shared_bytes": 0, "stack_frame_bytes": 0, "spill_bytes": 0}
    return prof.kernel_entry("add_one", (4, 1, 1), (256, 1, 1), 0, res, metrics)


def _profile(store_sectors: float, *, ms: float | None = None, flops: bool = True, **kernel: object) -> dict:
    """A valid profile object (checked by the judge's validator), then the estimate
    and roofline keys of /work/coord/profile-fields.md where `ms` is given."""
    from kernels.profile import doc as prof
    from kernels.profile.findings import findings

    kernels = [_kernel(store_sectors, **kernel)]
    doc = result_doc.build(exercise="fixture.add_one", backend="emu", verdict="accepted", message="all 4 tests passed",
                           timings_note="emu", profile=prof.build("emulator", "n=1000", kernels, findings(kernels)))
    assert result_doc.validate(doc) == []
    profile = doc["profile"]
    if ms is not None:
        size = 1 << 24
        nbytes, nflops = 8.0 * size, (1.0 * size if flops else None)

        def point(who: str, kind: str, t: float) -> dict:
            return {"who": who, "kind": kind, "time_ms": t, "bytes": nbytes, "flops": nflops,
                    "intensity": nflops / nbytes if flops else None, "gbs": nbytes / t / 1e6,
                    "gflops": nflops / t / 1e6 if flops else None}

        profile["estimate"] = {
            "label": "estimate", "gpu": "H100", "case": str(size), "counted_case": "n=1000", "scale": size / 1000,
            "scaled_by": "bytes", "time_ms": ms, "bound": "dram",
            "terms_ms": {"launch": 0.004, "dram": ms, "l2": 0.01, "shared": 0.0, "issue": 0.01, "compute": 0.0},
            "accuracy": {"median_abs_error_pct": 31.5, "spearman": 0.92, "kernels": 87}}
        profile["roofline"] = {
            "gpu": "H100", "case": str(size), "bandwidth_gbs": 3000.0, "compute_gflops": 51000.0,
            "tensor_gflops": 989000.0,
            "points": [point("attempt", "estimate", ms), point("reference", "measured", 0.048),
                       point("framework", "measured", 0.06)]}
        assert result_doc.validate(doc) == []
    return profile


def _submission(profile: dict | None, previous: dict | None, verdict: str = "accepted") -> dict:
    """What GET /api/submissions/<id> answers (app/api/submissions.py, SubmissionOut)."""
    result = result_doc.build(exercise="fixture.add_one", backend="emu", verdict=verdict,
                              message="all 4 tests passed", timings_note="emu", profile=profile)
    return {"id": 9, "verdict": verdict, "mode": "submit", "result": result,
            "previous_profile": None if previous is None else
            {"submission_id": 7, "mode": "submit", "finished_at": "2026-11-24T10:00:00Z", "profile": previous}}


FEED = """(sub) => {
    const section = document.querySelector('.exercise');
    const panel = new KDojoResults.Panel(section.querySelector('.results'));
    panel.reset();
    panel.final(sub, null, {});
}"""


@pytest.mark.parametrize("lang", ["ko", "en"])
def test_the_panel_shows_the_estimate_roofline_metrics_and_previous_attempt(page, lang: str, artifacts: Path) -> None:
    open_lesson(page, lang)
    # the previous attempt's stores were strided (32 sectors, 0.5 ms estimated), this one's coalesced
    page.evaluate(FEED, _submission(_profile(4.0, ms=0.0571, registers=16), _profile(32.0, ms=0.5)))
    panel = page.locator(".exercise .profile")
    assert panel.is_visible()
    row = panel.locator("tr[data-metric='store_sectors']")
    assert row.locator("td.now").inner_text() == "4" and row.locator("td.previous").inner_text() == "32"
    assert row.locator("td.ideal").inner_text() == "4"
    change = row.locator("td.change")
    assert change.inner_text() == "−28" and "better" in change.get_attribute("class")
    registers = panel.locator("tr[data-metric='registers']")
    assert registers.locator("td.now").inner_text() == "16" and registers.locator("td.previous").inner_text() == "24"
    assert registers.locator("td.change").inner_text() == "−8"  # fewer registers: neither better nor worse
    assert "better" not in registers.locator("td.change").get_attribute("class")
    assert panel.locator(".profile-previous-note").get_attribute("data-submission") == "7"
    # the roofline: a uPlot chart with its legend, and its points in words
    figure = panel.locator("figure.roofline[data-kind='roofline']")
    assert figure.locator("canvas").count() >= 1 and figure.locator(".uplot").bounding_box()["height"] > 200
    legend = figure.locator(".u-legend").inner_text()
    points = figure.locator(".roofline-points").inner_text()
    estimate = panel.locator(".profile-estimate").inner_text()
    text = panel.inner_text()
    if lang == "ko":
        assert "성능 분석" in text and "이전 제출" in text and "변화" in text and "눈에 띄는 문제가 없습니다" in text
        assert "추정치" in estimate and "H100에서 약 0.0571 ms (입력 16777216)" in estimate
        assert "병목: DRAM 대역폭" in estimate and "이전 제출 0.5 ms 대비 −89%" in estimate
        assert "잰 값이 아니라 H100 모델로 계산한 추정입니다" in estimate
        assert "레슨 커널 87개를 실제 H100에서 재어 비교했을 때 오차의 중앙값은 31.5%, 순위 상관은 0.92입니다." in estimate  # not "0.92였습니다"
        assert "루프라인 (H100, 입력 16777216)" in figure.locator("figcaption").inner_text()
        assert "FP32 한계 (51,000 GFLOP/s, 3,000 GB/s)" in legend and "텐서 코어 한계" in legend
        assert "이번 제출 (추정)" in legend and "참고 답안 (측정)" in legend and "프레임워크 (측정)" in legend
        assert "이전 제출 (추정)" in legend
        assert "이번 제출 (추정): 0.125 FLOP/바이트, 294 GFLOP/s, 0.0571 ms" in points
        assert "sectors" not in text and "Performance" not in text and "estimate" not in text
    else:
        assert "Performance" in text and "previous attempt" in text and "change" in text and "nothing stands out" in text
        assert "Estimate" in estimate and "about 0.0571 ms on an H100 (input 16777216)" in estimate
        assert "bound by DRAM bandwidth" in estimate and "−89% against the previous attempt's 0.5 ms" in estimate
        assert "Not a measurement: a model of the H100 computed it." in estimate
        assert "Against 87 lesson kernels timed on a real H100, its median error was 31.5% (rank correlation 0.92)" in estimate
        assert "Roofline on an H100, input 16777216" in figure.locator("figcaption").inner_text()
        assert "FP32 ceiling (51,000 GFLOP/s, 3,000 GB/s)" in legend and "Tensor-core ceiling" in legend
        assert "this attempt (estimate)" in legend and "reference solution (measured)" in legend
        assert "this attempt (estimate): 0.125 FLOP/byte, 294 GFLOP/s, 0.0571 ms" in points
    panel.screenshot(path=str(artifacts / f"profile-panel-{lang}.png"))


@pytest.mark.parametrize("lang", ["ko", "en"])
def test_without_a_flop_model_bars_stand_in_for_the_roofline(page, lang: str) -> None:
    open_lesson(page, lang)
    page.evaluate(FEED, _submission(_profile(4.0, ms=0.0571, flops=False), None))
    figure = page.locator(".exercise .profile figure.roofline[data-kind='bandwidth']")
    assert figure.locator("canvas").count() == 0
    attempt = figure.locator(".roofline-bar[data-who='attempt']")
    # 8 bytes × 2^24 in 0.0571 ms and 0.048 ms, against 3,000 GB/s
    assert attempt.locator(".bench-ms").inner_text() == "2,350 GB/s (78%)"
    assert figure.locator(".roofline-bar[data-who='reference'] .bench-ms").inner_text() == "2,800 GB/s (93%)"
    label = attempt.locator(".bench-label").inner_text()
    assert label == ("이번 제출 (추정)" if lang == "ko" else "this attempt (estimate)")
    caption = figure.locator("figcaption").inner_text()
    assert ("DRAM 한계 3,000 GB/s" in caption) if lang == "ko" else ("against the 3,000 GB/s DRAM ceiling" in caption)
    # no previous attempt: no previous or change column
    assert page.locator(".exercise .profile td.previous").count() == 0
    assert page.locator(".exercise .profile .profile-previous-note").count() == 0


@pytest.mark.parametrize("lang", ["ko", "en"])
def test_an_estimate_of_inline_ptx_tensor_code_says_what_it_counted(page, lang: str) -> None:
    open_lesson(page, lang)
    profile = _profile(4.0, ms=0.0571)
    profile["estimate"]["note"] = ("inline-PTX tensor-core code: the emulator counted its fallback path, so only "
                                   "DRAM, tensor compute, block starts and atomics bound this estimate")
    page.evaluate(FEED, _submission(profile, None))
    note = page.locator(".exercise .profile .profile-estimate .estimate-note").inner_text()
    if lang == "ko":
        assert "에뮬레이터가 대체 경로로 셉니다" in note and "fallback" not in note
    else:
        assert "the emulator counted its fallback path" in note
    page.evaluate(FEED, _submission(_profile(4.0, ms=0.0571), None))  # no note: no line
    assert page.locator(".exercise .profile .estimate-note").count() == 0


@pytest.mark.parametrize("lang", ["ko", "en"])
def test_caveats_say_what_the_counts_are_of_in_the_readers_language(page, lang: str, artifacts: Path) -> None:
    open_lesson(page, lang)
    profile = _profile(4.0, ms=0.0571) | {"caveats": ["inline_ptx_fallback", "truncated"]}
    doc = _submission(profile, None)
    assert result_doc.validate(doc["result"]) == []
    page.evaluate(FEED, doc)
    items = page.locator(".exercise .profile .profile-caveats li")
    assert [items.nth(i).get_attribute("data-caveat") for i in range(items.count())] == [
        "inline_ptx_fallback", "truncated"]
    ptx, truncated = items.nth(0).inner_text(), items.nth(1).inner_text()
    if lang == "ko":
        assert "인라인 PTX" in ptx and "진단은 내지 않습니다" in ptx and "한도" in truncated
        assert not re.search(r"[A-Za-z]{4,}", ptx.replace("PTX", "") + truncated)  # no English left
    else:
        assert "inline PTX" in ptx and "no finding about memory access" in ptx and "first part" in truncated
    # the list stands before the metrics it qualifies
    assert page.evaluate("""() => {
        const c = document.querySelector('.exercise .profile .profile-caveats');
        const t = document.querySelector('.exercise .profile .profile-metrics');
        return !!(c.compareDocumentPosition(t) & Node.DOCUMENT_POSITION_FOLLOWING);
    }""")
    page.locator(".exercise .profile").screenshot(path=str(artifacts / f"profile-caveats-{lang}.png"))
    page.evaluate(FEED, _submission(_profile(4.0, ms=0.0571), None))  # none: no list
    assert page.locator(".exercise .profile .profile-caveats").count() == 0


# gemm-epilogue.fp32's reference as the emulator profiled it (kdojo judge --json): a flop
# model and no byte model, so no intensity: GFLOP/s bars against the FP32 ceiling
GEMM_ROOFLINE = {
    "gpu": "H100", "case": "4096x4096x4096 bias_kind=1 act=2 alpha=1.0 beta=0.0", "bandwidth_gbs": 3000.0,
    "compute_gflops": 66900.0, "tensor_gflops": 989000.0,
    "points": [{"who": "attempt", "kind": "estimate", "time_ms": 9.117639, "bytes": None, "flops": 137438953472.0,
                "intensity": None, "gbs": None, "gflops": 15074.0},
               {"who": "reference", "kind": "measured", "time_ms": 3.23478, "bytes": None, "flops": 137438953472.0,
                "intensity": None, "gbs": None, "gflops": 42487.9},
               {"who": "framework", "kind": "measured", "time_ms": 3.54544, "bytes": None, "flops": 137438953472.0,
                "intensity": None, "gbs": None, "gflops": 38765.0}]}


@pytest.mark.parametrize("lang", ["ko", "en"])
def test_without_a_byte_model_bars_show_gflops_against_the_compute_ceiling(page, lang: str) -> None:
    open_lesson(page, lang)
    profile = _profile(4.0, ms=9.117639) | {"roofline": GEMM_ROOFLINE}
    page.evaluate(FEED, _submission(profile, None))
    figure = page.locator(".exercise .profile figure.roofline[data-kind='compute']")
    assert figure.locator("canvas").count() == 0
    assert figure.locator(".roofline-bar[data-who='attempt'] .bench-ms").inner_text() == "15,100 GFLOP/s (23%)"
    assert figure.locator(".roofline-bar[data-who='reference'] .bench-ms").inner_text() == "42,500 GFLOP/s (64%)"
    assert figure.locator(".roofline-bar[data-who='framework'] .bench-ms").inner_text() == "38,800 GFLOP/s (58%)"
    caption = figure.locator("figcaption").inner_text()
    assert ("FP32 한계 66,900 GFLOP/s 대비" in caption) if lang == "ko" else ("against the 66,900 GFLOP/s FP32 ceiling" in caption)


@pytest.mark.parametrize("lang", ["ko", "en"])
def test_a_finding_is_translated_and_links_to_its_lesson(page, lang: str) -> None:
    open_lesson(page, lang)
    page.evaluate(FEED, _submission(_profile(32.0), None))
    finding = page.locator(".exercise .profile .profile-findings li[data-code='profile_uncoalesced']")
    text = finding.inner_text()
    assert finding.locator("a").get_attribute("href") == "/lessons/coalescing"
    # no estimate or roofline in the document (an older one, or ncu without a byte model): none shown, no error
    assert page.locator(".exercise .profile .profile-estimate, .exercise .profile figure.roofline").count() == 0
    if lang == "ko":
        assert "전역 메모리 접근(쓰기) 한 번에 32바이트 섹터 32개를 건드립니다. 4개면 충분합니다" in text, text
        assert "store" not in text
    else:
        assert "each global store touches 32 sectors of 32 bytes where 4 would do" in text, text


@pytest.mark.parametrize("state, ko, en", [
    ("on", "성능 분석기가 이번 제출의 결과를 내지 못했습니다", "The profiler gave no result for this attempt"),
    ("off", "이 서버에서는 성능 분석이 꺼져 있습니다", "Profiling is switched off on this server"),
    ("off_exercise", "이 연습에서는 성능 분석이 꺼져 있습니다", "Profiling is switched off for this exercise"),
    ("unavailable", "GPU 작업자에 Nsight Compute(ncu)가 없습니다", "its GPU worker has no Nsight Compute (ncu)"),
])
def test_a_pass_without_a_profile_says_why(page, state: str, ko: str, en: str) -> None:
    for lang, expected in (("ko", ko), ("en", en)):
        open_lesson(page, lang)
        assert page.locator(".exercise").get_attribute("data-profiling") == "on"  # the emulator profiles
        page.evaluate("(state) => { document.querySelector('.exercise').dataset.profiling = state; }", state)
        page.evaluate(FEED, _submission(None, None))
        line = page.locator(".exercise .profile .profile-off")
        assert line.get_attribute("data-state") == state and expected in line.inner_text()
        # a failed attempt has no profile by design: nothing is said
        page.evaluate(FEED, _submission(None, None, verdict="wrong_answer"))
        assert page.locator(".exercise .profile").is_hidden()


# Records, in order, when the verdict shows, each stage starts and the Performance
# part shows: the profile must stream in after the verdict.
WATCH = """() => {
    window.kdojoSeen = [];
    const results = document.querySelector('.exercise .results');
    const seen = (what) => { if (!window.kdojoSeen.includes(what)) window.kdojoSeen.push(what); };
    new MutationObserver(() => {
        for (const name of ['verdict', 'profile']) {
            const node = results.querySelector('.' + name);
            if (!node.hidden && node.textContent) seen(name);
        }
        const active = results.querySelector('.stages li.active');
        if (active) seen('stage:' + active.dataset.stage);
    }).observe(results, {subtree: true, childList: true, attributes: true, characterData: true});
}"""


def assert_profile_after_verdict(page) -> None:  # noqa: ANN001
    seen = page.evaluate("() => window.kdojoSeen")
    assert "verdict" in seen and "stage:profiling" in seen and "profile" in seen, seen
    assert seen.index("verdict") < seen.index("stage:profiling") < seen.index("profile"), seen


def test_two_judged_attempts_the_second_beside_the_first_in_both_languages(page, artifacts: Path) -> None:
    """The real path: the emulator profiles each pass, the page shows the verdict,
    then the "profiling" stage, then the profile; the second attempt's previous
    column comes from the server."""
    open_lesson(page, "ko")
    type_kernel(page, CHUNKED)
    page.evaluate(WATCH)
    page.keyboard.press("Control+Enter")
    assert wait_for_verdict(page) == "accepted"
    assert_profile_after_verdict(page)
    stages = page.locator(".exercise .stages li").evaluate_all("items => items.map((li) => li.dataset.stage)")
    assert "profiling" in stages and stages.index("profiling") < stages.index("done"), stages
    assert page.locator(".exercise .stages li[data-stage='profiling'] .stage-name").inner_text() == "성능 분석 중"
    panel = page.locator(".exercise .profile")
    assert "에뮬레이터가 센 값입니다 (입력 n=1048576)" in panel.locator(".profile-source").inner_text()
    assert panel.locator("td.previous").count() == 0  # the first pass: nothing to compare with
    finding = panel.locator(".profile-findings li[data-code='profile_uncoalesced']")
    assert "32바이트 섹터" in finding.inner_text() and finding.locator("a").get_attribute("href") == "/lessons/coalescing"
    # the estimate, labelled as one, and the bandwidth bars (the fixture has a byte model, no flop model)
    assert panel.locator(".profile-estimate .estimate-label").inner_text() == "추정치"
    assert re.search(r"H100에서 약 [\d.]+ ms \(입력 n=1048576\)", panel.locator(".profile-estimate").inner_text())
    assert panel.locator(".profile-estimate .estimate-accuracy").inner_text().startswith("잰 값이 아니라")
    assert panel.locator("figure.roofline[data-kind='bandwidth'] .roofline-bar[data-who='attempt']").count() == 1
    first_loads = float(panel.locator("tr[data-metric='load_sectors'] td.now").inner_text())
    assert first_loads > 16, first_loads

    open_lesson(page, "en")  # the same browser (its anonymous id), now in English
    type_kernel(page, CORRECT)
    page.keyboard.press("Control+Enter")
    assert wait_for_verdict(page) == "accepted"
    panel = page.locator(".exercise .profile")
    assert "counted by the emulator (input n=1048576)" in panel.locator(".profile-source").inner_text()
    row = panel.locator("tr[data-metric='load_sectors']")
    assert row.locator("td.now").inner_text() == row.locator("td.ideal").inner_text()  # coalesced, at the benchmark size
    assert float(row.locator("td.previous").inner_text()) == first_loads
    assert re.fullmatch(r"−\d+(\.\d+)?", row.locator("td.change").inner_text())
    assert "better" in row.locator("td.change").get_attribute("class")
    estimate = panel.locator(".profile-estimate").inner_text()
    assert re.search(r"about [\d.]+ ms on an H100 \(input n=1048576\)", estimate), estimate
    assert re.search(r"[−+]\d+% against the previous attempt's [\d.]+ ms", estimate), estimate
    bars = panel.locator("figure.roofline[data-kind='bandwidth']")
    assert bars.locator(".roofline-bar[data-who='previous'] .bench-label").inner_text() == "previous attempt (estimate)"
    head = panel.locator("table.profile-metrics thead").inner_text()
    assert "this attempt" in head and "previous attempt" in head and "change" in head
    assert panel.locator(".profile-findings").count() == 0 and "nothing stands out" in panel.inner_text()
    panel.screenshot(path=str(artifacts / "profile-panel-judged-en.png"))
