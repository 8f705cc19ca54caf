"""GPU timing: CUDA events, L2 flush, adaptive repetitions (design.md "Timing method").

Each timed call is: reset (outputs to their initial values) → L2 flush
(write 2× the L2 size) → start event → the work → end event. With `gate`, the
flush, the events and the work are held on the device behind a gate kernel until
the host has enqueued all of them (nvbench's blocking kernel): otherwise a call
whose flush ends before the host has launched the work times the host's launch
(a 9 µs RoPE kernel measured 68 µs in some runs on an H200). After a warm-up
call the calls run in batches; we stop once the relative standard error of
the median (kernels/stats.py) is below `target_rse` (0.5%) with at least `min_reps` samples, or
when the time cap is spent. One synchronisation per batch, as triton's
do_bench does, so the host never sits between the events.
"""

from __future__ import annotations

import functools
import time
from typing import Any, Callable

import numpy as np

from kernels.stats import Summary, summarize


class L2Flusher:
    """Writes 2× the L2 size so no timed call finds its inputs cached."""

    def __init__(self, l2_bytes: int) -> None:
        import cupy

        self.buffer = cupy.empty(max(2 * l2_bytes, 1 << 20) // 4, dtype=cupy.int32)

    def __call__(self) -> None:
        self.buffer.fill(0)


GATE_TIMEOUT_NS = 100_000_000  # a gate the host never opens (our bug) opens itself after 0.1 s
_GATE_SOURCE = r"""
extern "C" __global__ void kdojo_gate(const volatile long long* opened, long long ticket, long long timeout_ns) {
    unsigned long long start, now;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
    do {
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
    } while (*opened < ticket && now - start < (unsigned long long)timeout_ns);
}
"""


class LaunchGate:
    """A one-thread kernel that holds its stream until the host opens it: `close(stream)`
    enqueues gate number k, `open()` lets every gate up to k through. The counter lives
    in pinned host memory the kernel reads (unified addressing: the host pointer is the
    device's); counting up, never back to 0, so a gate cannot miss its opening."""

    def __init__(self) -> None:
        import cupy

        self._kernel = cupy.RawKernel(_GATE_SOURCE, "kdojo_gate")
        self._memory = cupy.cuda.alloc_pinned_memory(8)
        self._opened = np.frombuffer(self._memory, dtype=np.int64, count=1)
        self._opened[0] = 0
        self._ticket = 0

    def close(self, stream: Any) -> None:
        self._ticket += 1
        self._kernel((1,), (1,), (self._memory.ptr, np.int64(self._ticket), np.int64(GATE_TIMEOUT_NS)),
                     stream=stream)

    def open(self) -> None:
        self._opened[0] = self._ticket


@functools.cache
def launch_gate() -> LaunchGate:
    """The process's gate (one pinned word, one kernel, made when first asked)."""
    return LaunchGate()


def measure(work: Callable[[int], Any], flush: Callable[[], None], *,
            reset: Callable[[int], None] | None = None,
            after: Callable[[int], None] | None = None,
            target_rse: float = 0.005, min_reps: int = 10, max_reps: int = 2000,
            cap_s: float = 2.0, gate: bool = False) -> Summary:
    """Time `work(rep)` (rep = 0, 1, … lets callers give each call fresh inputs;
    the untimed warm-up call is rep -1, so no timed call repeats its inputs).

    `reset(rep)` runs before the flush, `after(rep)` after the end event (the
    benchmark verifies each timed output there); neither is timed. With `after`,
    the time cap is also checked after every call: verification may be slow.
    `gate`: hold each call's flush, events and work behind a LaunchGate until they are
    all enqueued (only for work that never waits on the device itself: kernel launches).
    """
    import cupy

    stream = cupy.cuda.get_current_stream()
    started = time.perf_counter()
    if reset:
        reset(-1)
    work(-1)  # warm-up: first-launch costs, and the estimate of one call
    stream.synchronize()
    times_ms: list[float] = []
    # slow calls (a naive baseline: tens of ms) start with the minimum batch
    batch = min_reps if time.perf_counter() - started > 0.01 else 5
    rep = 0
    held = launch_gate() if gate else None
    while True:
        events = []
        for _ in range(batch):
            if reset:
                reset(rep)
            if held:
                held.close(stream)
            try:
                flush()
                begin, end = cupy.cuda.Event(), cupy.cuda.Event()
                begin.record(stream)
                work(rep)
                end.record(stream)
            finally:
                if held:
                    held.open()
            events.append((begin, end))
            rep += 1
            if after:
                after(rep - 1)
                if time.perf_counter() - started > cap_s:
                    break
        end.synchronize()
        times_ms += [cupy.cuda.get_elapsed_time(b, e) for b, e in events]
        summary = summarize(times_ms)
        elapsed = time.perf_counter() - started
        if (len(times_ms) >= min_reps and summary.rse < target_rse) or elapsed > cap_s \
                or len(times_ms) >= max_reps:
            return summary
        per_call_s = max(elapsed / (len(times_ms) + 1), 1e-6)
        batch = int(min(max(len(times_ms), 5), max(1, (cap_s - elapsed) / per_call_s), 200))


def copy_bandwidth_gbps(nbytes: int = 1 << 30, flush: Callable[[], None] | None = None) -> float:
    """Device-to-device copy bandwidth (bytes read + written per second, in GB/s):
    the practical peak this GPU reaches. Measured once per judge."""
    import cupy

    free, _ = cupy.cuda.runtime.memGetInfo()
    nbytes = min(nbytes, free // 4)
    src = cupy.ones(nbytes // 4, dtype=cupy.float32)
    dst = cupy.empty_like(src)

    def work(_rep: int) -> None:
        cupy.cuda.runtime.memcpyAsync(dst.data.ptr, src.data.ptr, src.nbytes,
                                      cupy.cuda.runtime.memcpyDeviceToDevice,
                                      cupy.cuda.get_current_stream().ptr)

    summary = measure(work, flush or (lambda: None), min_reps=10, cap_s=1.0, gate=True)
    del src, dst
    return 2 * nbytes / (summary.median_ms * 1e-3) / 1e9
