"""What device printf costs when every thread prints, on a CUDA GPU (#12).

A correct kernel that prints from every thread must still finish within the
judge's per-case limit. This script times such a kernel (one printf per
thread, then a store) at several sizes and printf FIFO sizes, plain and
behind the judge's per-launch printf budget (kernels/nvrtc_headers/
kdojo_printf.h: the first calls print, the rest return at once), so the
cost and the remedy are measured in one run.

Run on the GPU machine from the repository root:
    python3 bench/printf_cost.py            # FIFO 64 KiB (the judge's) and 1 MiB (CUDA's default)
Prints one line per (variant, FIFO, N): milliseconds for one launch, output
redirected to /dev/null by the script itself. The FIFO size can only be set
before a process's first printf launch, so each size runs in its own process.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

SOURCE = r"""
extern "C" __global__ void each_prints(const float* in, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = i < n ? in[i] : 0.0f;
    printf("thread %d of block %d: v = %f\n", threadIdx.x, blockIdx.x, v);
    if (i < n) out[i] = 2.0f * v;
}
"""


def _module(budgeted: bool):
    import cupy

    from kernels.targets.cuda import device_arch
    from kernels.nvrtc import compile_program

    props = cupy.cuda.runtime.getDeviceProperties(0)
    options = ["-std=c++17", f"--gpu-architecture={device_arch(props['major'], props['minor'])}"]
    if not budgeted:
        options.append("-DKDOJO_NO_PRINTF_BUDGET")
    out = compile_program(SOURCE, "printf_cost.cu", options)
    if not out.ok:
        raise SystemExit(out.log)
    path = ROOT / ".printf_cost.cubin"
    path.write_bytes(out.cubin)
    try:
        module = cupy.RawModule(path=str(path))
        module.get_function("each_prints")  # loads the file (cupy loads lazily)
        return module
    finally:
        path.unlink()


def _time_once(module, n: int) -> float:
    import cupy

    from kernels.targets.cuda import reset_printf_budget

    a = cupy.arange(n, dtype=cupy.float32)
    b = cupy.empty_like(a)
    reset_printf_budget(module)  # a no-op for the plain build
    cupy.cuda.Device().synchronize()
    start = time.perf_counter()
    module.get_function("each_prints")(((n + 255) // 256,), (256,), (a, b, cupy.int32(n)))
    cupy.cuda.Device().synchronize()
    elapsed = time.perf_counter() - start
    assert bool((b == 2 * a).all()), "wrong result"
    return elapsed * 1e3


def run_one_fifo(fifo_bytes: int) -> None:
    import cupy

    cupy.cuda.runtime.deviceSetLimit(cupy.cuda.runtime.cudaLimitPrintfFifoSize, fifo_bytes)
    devnull = os.open(os.devnull, os.O_WRONLY)
    saved = os.dup(1)
    for budgeted in (True, False):
        module = _module(budgeted)
        for n in (1 << 12, 1 << 14, 1 << 16, 1 << 18, 1 << 20):
            os.dup2(devnull, 1)  # the device's printf output reaches fd 1 at each sync
            try:
                ms = _time_once(module, n)
            finally:
                os.dup2(saved, 1)
            print(f"{'budget' if budgeted else 'plain':6s} fifo={fifo_bytes >> 10:5d} KiB "
                  f"n={n:8d}  {ms:10.2f} ms", flush=True)
            if ms > 15_000:
                break  # larger sizes only take longer


def main(argv: list[str]) -> int:
    if argv:
        run_one_fifo(int(argv[0]) << 10)
        return 0
    for kib in (64, 1024):
        subprocess.run([sys.executable, __file__, str(kib)], check=False, timeout=240)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
