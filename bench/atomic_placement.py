"""Does block_sum's time at N = 2^28 depend on where its one output lives?

Times the reduction.block_sum reference (CUDA events, L2 flushed, median of 15)
with its output at 103 offsets of a 16 MiB buffer, then one offset 10 times.
Run on the GPU machine from the repository root:

    python3 bench/atomic_placement.py

The answer (an H100, 2026-11-23) is in docs/benchmarks.md, "Judge".
"""
import cupy as cp, numpy as np
src = open('lessons/02-reduction/exercises/block_sum/reference.cu').read()
k = cp.RawModule(code=src, options=("-std=c++17",)).get_function("block_sum")
n = 1 << 28
x = cp.random.default_rng(1).random(n, dtype=cp.float32)
pool = cp.zeros(1 << 22, dtype=cp.float32)  # 16 MiB: outputs at many offsets
flush = cp.empty(1 << 26, dtype=cp.float32)
start, end = cp.cuda.Event(), cp.cuda.Event()
def t(off):
    out = pool[off:off + 1]
    ms = []
    for _ in range(15):
        flush.fill(0); out.fill(0)
        start.record(); k((n // 256,), (256,), (x, out, np.int32(n)), shared_mem=32); end.record(); end.synchronize()
        ms.append(cp.cuda.get_elapsed_time(start, end))
    return float(np.median(ms))
offs = [i * 1024 for i in range(0, 4096, 64)] + [i * 32 for i in range(1, 40)]
res = [(o * 4, t(o)) for o in offs]
vals = np.array([r[1] for r in res])
print("min %.4f  median %.4f  max %.4f  cv %.2f%%" % (vals.min(), np.median(vals), vals.max(), 100 * vals.std() / vals.mean()))
for o, v in sorted(res, key=lambda r: r[1])[:5] + sorted(res, key=lambda r: r[1])[-5:]: print(f"byte offset {o:>9}: {v:.4f} ms")
# same address repeated, to see run-to-run noise at one address
same = [t(0) for _ in range(10)]
print("offset 0 repeated: min %.4f max %.4f cv %.2f%%" % (min(same), max(same), 100 * np.std(same) / np.mean(same)))
