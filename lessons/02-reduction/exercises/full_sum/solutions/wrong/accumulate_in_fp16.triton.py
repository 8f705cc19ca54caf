# BUG: the running sums are kept in float16 to save registers. float16 has an
# 11-bit significand: every value loses digits on the way in (up to 5e-4 of it,
# far above the tolerance), and once a sum passes 2048 an added value near 1 is
# rounded away altogether.
import triton
import triton.language as tl


@triton.jit
def full_sum(in_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    step = tl.num_programs(0) * BLOCK
    acc = tl.zeros((BLOCK,), dtype=tl.float16)
    for start in range(pid * BLOCK, n, step):
        offs = start + tl.arange(0, BLOCK)
        acc += tl.load(in_ptr + offs, mask=offs < n, other=0.0).to(tl.float16)
    tl.atomic_add(out_ptr, tl.sum(acc, axis=0).to(tl.float32))


def launch_full_sum(N):
    BLOCK = 1024
    return {"grid": (min(triton.cdiv(N, BLOCK), 1024),), "BLOCK": BLOCK, "num_warps": 4}
