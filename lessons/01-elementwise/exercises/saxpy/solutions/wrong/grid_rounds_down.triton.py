# BUG: the grid is N // BLOCK programs, rounded down: the last N % BLOCK elements
# belong to no program and keep their old y (and N < BLOCK launches nothing).
import triton
import triton.language as tl


@triton.jit
def saxpy(x_ptr, y_ptr, a, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(y_ptr + offs, a * x + y, mask=mask)


def launch_saxpy(N):
    BLOCK = 1024
    return {"grid": (max(N // BLOCK, 1),), "BLOCK": BLOCK, "num_warps": 4}
