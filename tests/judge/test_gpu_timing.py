"""The timing method itself, on a real GPU."""

import pytest

pytestmark = pytest.mark.gpu


def test_copy_bandwidth_is_plausible():
    from kernels.timing import copy_bandwidth_gbps

    assert 200 < copy_bandwidth_gbps(256 << 20) < 10000


def test_measure_converges_and_is_consistent():
    import cupy

    from kernels.timing import L2Flusher, measure

    x = cupy.ones(1 << 26, dtype=cupy.float32)
    flush = L2Flusher(cupy.cuda.runtime.getDeviceProperties(0)["l2CacheSize"])
    first = measure(lambda rep: x.sum(), flush)
    second = measure(lambda rep: x.sum(), flush)
    assert first.rse < 0.005 and first.reps >= 10
    assert abs(first.median_ms - second.median_ms) / first.median_ms < 0.05
    assert first.best_ms <= first.median_ms
