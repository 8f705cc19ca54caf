# One program per BLOCK elements and no loop: each program sums its block and adds it
# to out[0] with an atomic. Simpler than a fixed grid, at the cost of N / BLOCK
# atomics on one address.
import triton
import triton.language as tl


@triton.jit
def full_sum(in_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(in_ptr + offs, mask=offs < n, other=0.0)
    tl.atomic_add(out_ptr, tl.sum(x, axis=0))


def launch_full_sum(N):
    BLOCK = 8192
    return {"grid": (triton.cdiv(N, BLOCK),), "BLOCK": BLOCK, "num_warps": 8}
