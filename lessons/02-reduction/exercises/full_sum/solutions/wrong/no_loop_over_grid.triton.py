# BUG (partial sum): the grid is capped at 1024 programs but each program sums
# only its first block, so elements past 1024 * BLOCK are never added.
import triton
import triton.language as tl


@triton.jit
def full_sum(in_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(in_ptr + offs, mask=offs < n, other=0.0)
    tl.atomic_add(out_ptr, tl.sum(x, axis=0))


def launch_full_sum(N):
    BLOCK = 1024
    return {"grid": (min(triton.cdiv(N, BLOCK), 1024),), "BLOCK": BLOCK, "num_warps": 4}
