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


def test_a_slow_launch_is_not_timed_behind_the_gate():
    # The host takes 2 ms to launch a ~10 µs kernel (a busy Python launcher): ungated,
    # the flush ends, the start event is stamped and the device waits for the launch,
    # so the call times the host; behind the gate it times the kernel alone.
    import time

    import cupy

    from kernels.timing import L2Flusher, measure

    x = cupy.ones(1 << 20, dtype=cupy.float32)
    y = cupy.empty_like(x)
    flush = L2Flusher(cupy.cuda.runtime.getDeviceProperties(0)["l2CacheSize"])

    def slow_launch(rep: int) -> None:
        time.sleep(0.002)
        cupy.multiply(x, 2.0, out=y)

    quick = measure(lambda rep: cupy.multiply(x, 2.0, out=y), flush, gate=True)
    ungated = measure(slow_launch, flush, cap_s=0.5)
    gated = measure(slow_launch, flush, gate=True, cap_s=0.5)
    assert ungated.median_ms > 1.5  # the host's 2 ms is in the ungated time
    assert gated.median_ms < 0.5 and gated.median_ms < 2 * quick.median_ms + 0.01
    assert float(y[0].get()) == 2.0


def test_a_gate_the_host_never_opens_lets_the_stream_go():
    import cupy

    from kernels.timing import GATE_TIMEOUT_NS, LaunchGate

    gate = LaunchGate()
    stream = cupy.cuda.get_current_stream()
    gate.close(stream)  # never opened: the kernel gives up after its timeout
    x = cupy.zeros(4, dtype=cupy.float32) + 1
    stream.synchronize()
    assert float(x.sum().get()) == 4.0 and GATE_TIMEOUT_NS <= 1_000_000_000
