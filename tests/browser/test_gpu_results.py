"""On a machine with a CUDA GPU (and Chromium): a submission judged on the GPU
shows timings and one chart per benchmark size in the results panel, and its
profile (#16) after the verdict where the worker has `ncu`."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from .conftest import FIXTURE_LESSONS, serving
from .test_judging import CORRECT, open_lesson, type_kernel, wait_for_verdict
from .test_profile_panel import WATCH, assert_profile_after_verdict

pytestmark = [pytest.mark.browser, pytest.mark.gpu]


@pytest.fixture(scope="module")
def gpu_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with serving(FIXTURE_LESSONS, tmp_path_factory.mktemp("gpu"), judge_backend="cuda") as base_url:
        yield base_url


def test_gpu_submission_shows_benchmark_charts(browser, gpu_server: str, artifacts: Path) -> None:
    context = browser.new_context(base_url=gpu_server, viewport={"width": 1200, "height": 900})
    page = context.new_page()
    page.set_default_timeout(60_000)
    try:
        open_lesson(page, "en")
        type_kernel(page, CORRECT)
        page.evaluate(WATCH)
        page.keyboard.press("Control+Enter")
        assert wait_for_verdict(page) == "accepted"
        # #16: with ncu on the worker the profile streams in after the verdict; without, the panel says why
        profiler = httpx.get(gpu_server + "/api/status", timeout=10).json()["profiler"]
        performance = page.locator(".exercise .profile")
        if profiler["enabled"]:
            assert_profile_after_verdict(page)
            assert "measured on the GPU by Nsight Compute" in performance.locator(".profile-source").inner_text()
            assert performance.locator(".profile-estimate").count() == 0  # measured, not estimated
            assert performance.locator("table.profile-metrics tr[data-metric='dram'] td.now").inner_text().endswith("%")
        else:
            assert performance.locator(".profile-off").get_attribute("data-state") == "unavailable"
        bench = page.locator(".exercise .bench")
        assert "timings are not available" not in bench.inner_text()
        chart = bench.locator("figure.bench-size")
        assert chart.count() == 1  # the fixture benchmarks one size
        kinds = [r.get_attribute("class") for r in chart.first.locator(".bench-row").all()]
        assert kinds[0] == "bench-row yours" and "bench-row framework" in kinds and "bench-row limit" in kinds
        assert "GB/s" in chart.first.inner_text() and "% of peak bandwidth" in chart.first.inner_text()
        page.screenshot(path=str(artifacts / "lesson-gpu.png"), full_page=True)
    finally:
        context.close()
