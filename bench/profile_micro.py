"""Microbenchmarks that set constants of the emulator's time model (#16), apart from the
lesson kernels the model is evaluated on (kernels/profile/model.py, docs/benchmarks.md
"Profiling (#16)"). On a GPU:

    PYTHONPATH=. python3 bench/profile_micro.py          # prints one JSON object

* launch_s: an empty kernel, one block of 32 threads (CUDA events, median);
* block_s: an empty kernel with many blocks: (time - launch) ÷ (blocks per SM), for blocks
  of 32, 128, 256 and 1024 threads — the cost of starting a block on an SM;
* atomic_same_address_s: every warp's lane 0 adds to ONE float (as a per-block partial sum
  into a total does): time ÷ atomics;
* copy_bps: a float4 copy of 1 GiB (read + written);
* shuffle_s: one warp per SM, a chain of 4,096 __shfl_up_sync each adding to the value it got
  (a warp scan's step): time ÷ steps; also with 8 blocks of 256 threads per SM (a scan's occupancy);
* barrier_s: one block of 256 threads per SM, 4,096 __syncthreads() in a row, each after a
  shared store and before a shared load (a block scan's step): time ÷ barriers; also with 8
  blocks per SM.
"""

from __future__ import annotations

import json
import statistics
import sys

import cupy as cp

SRC = r"""
extern "C" __global__ void empty() {}
extern "C" __global__ void same_address(float* out) { if ((threadIdx.x & 31) == 0) atomicAdd(out, 1.0f); }
extern "C" __global__ void shuffle_chain(int* out, int steps) {
  int v = threadIdx.x;
  for (int i = 0; i < steps; ++i) {
    const int up = __shfl_up_sync(0xffffffffu, v, 1);
    if ((threadIdx.x & 31) >= 1) v += up;
  }
  if (v == 0x7fffffff) out[0] = v;  // keeps the chain
}
extern "C" __global__ void barrier_chain(int* out, int steps) {
  __shared__ int s[256];
  int v = threadIdx.x;
  for (int i = 0; i < steps; ++i) {
    s[threadIdx.x] = v;
    __syncthreads();
    v += s[(threadIdx.x + 1) & 255];
    __syncthreads();
  }
  if (v == 0x7fffffff) out[0] = v;
}
extern "C" __global__ void copy4(const float4* __restrict__ a, float4* __restrict__ b, long long n) {
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x)
    b[i] = a[i];
}
"""


def timed(fn, reps: int = 21) -> float:
    fn()
    cp.cuda.Device().synchronize()
    times = []
    for _ in range(reps):
        start, stop = cp.cuda.Event(), cp.cuda.Event()
        start.record()
        fn()
        stop.record()
        stop.synchronize()
        times.append(cp.cuda.get_elapsed_time(start, stop) * 1e-3)
    return statistics.median(times)


def main() -> int:
    mod = cp.RawModule(code=SRC)
    empty, same, copy4, shuffle, barrier = (mod.get_function(n) for n in ("empty", "same_address", "copy4",
                                                                         "shuffle_chain", "barrier_chain"))
    sms = cp.cuda.Device().attributes["MultiProcessorCount"]
    out = {"gpu": cp.cuda.runtime.getDeviceProperties(0)["name"].decode(), "sms": sms}
    launch = timed(lambda: empty((1,), (32,), ()))
    out["launch_s"] = launch
    blocks = 1 << 20
    out["block_s"] = {}
    for threads in (32, 128, 256, 1024):
        t = timed(lambda: empty((blocks,), (threads,), ()))
        out["block_s"][threads] = (t - launch) / (blocks / sms)
    acc = cp.zeros(1, cp.float32)
    for threads in (32, 256):
        t = timed(lambda: same((blocks,), (threads,), (acc,)))
        out[f"atomic_same_address_s_{threads}"] = t / (blocks * threads // 32)
    n = (1 << 30) // 16
    a, b = cp.ones(n * 4, cp.float32), cp.empty(n * 4, cp.float32)
    t = timed(lambda: copy4((sms * 16,), (256,), (a, b, cp.int64(n))))
    out["copy_bps"] = 2 * (1 << 30) / t
    sink, steps = cp.zeros(1, cp.int32), 4096
    for per_sm in (1, 8):
        t = timed(lambda: shuffle((sms * per_sm,), (32 if per_sm == 1 else 256,), (sink, cp.int32(steps))))
        out[f"shuffle_s_{per_sm}_blocks"] = (t - launch) / steps
        t = timed(lambda: barrier((sms * per_sm,), (256,), (sink, cp.int32(steps))))
        out[f"barrier_s_{per_sm}_blocks"] = (t - launch) / (2 * steps)  # two barriers a step
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
