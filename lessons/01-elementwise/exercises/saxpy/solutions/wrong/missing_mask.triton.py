# BUG: no mask. The last program loads and stores a whole BLOCK even when fewer
# elements are left, so it writes past the end of y whenever N is not a
# multiple of BLOCK.
import triton
import triton.language as tl


@triton.jit
def saxpy(x_ptr, y_ptr, a, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    y = tl.load(y_ptr + offs)
    tl.store(y_ptr + offs, a * x + y)


def launch_saxpy(N):
    BLOCK = 1024
    return {"grid": (triton.cdiv(N, BLOCK),), "BLOCK": BLOCK, "num_warps": 4}
