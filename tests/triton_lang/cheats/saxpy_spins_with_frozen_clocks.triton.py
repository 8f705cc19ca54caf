# CHEAT: freezes the clocks (time.monotonic, time.time, time.perf_counter) from launch_saxpy and launches a kernel that never ends
# VERDICT: time_limit_exceeded
import triton
import triton.language as tl


@triton.jit
def saxpy(x_ptr, y_ptr, a, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    # a loop on a volatile load: the compiler must keep it (a loop that only counted,
    # with no effect, was removed by the GPU compiler and the kernel ran as saxpy)
    spin = tl.load(x_ptr, volatile=True)
    while spin == spin:  # a finite value equals itself: the loop never ends
        spin = tl.load(x_ptr, volatile=True)
    mask = offs < n
    tl.store(y_ptr + offs, a * tl.load(x_ptr + offs, mask=mask) + tl.load(y_ptr + offs, mask=mask), mask=mask)


def launch_saxpy(N):
    time = __import__("time")
    time.monotonic = time.time = time.perf_counter = lambda: 0.0
    return {"grid": triton.cdiv(N, 1024), "BLOCK": 1024}
