# CHEAT: launches the largest grid the format allows (2^31-1 × 65535 × 65535 programs, all but the first few doing nothing) to tie up the judge
# VERDICT: time_limit_exceeded
import triton
import triton.language as tl


@triton.jit
def saxpy(x_ptr, y_ptr, a, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    if (pid < tl.cdiv(n, BLOCK)) & (tl.program_id(1) == 0) & (tl.program_id(2) == 0):
        offs = pid * BLOCK + tl.arange(0, BLOCK)
        mask = offs < n
        tl.store(y_ptr + offs, a * tl.load(x_ptr + offs, mask=mask) + tl.load(y_ptr + offs, mask=mask), mask=mask)


def launch_saxpy(N):
    return {"grid": (2**31 - 1, 65535, 65535), "BLOCK": 1024}
