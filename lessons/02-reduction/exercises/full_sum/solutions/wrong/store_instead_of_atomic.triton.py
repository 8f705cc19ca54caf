# BUG: each program stores its total to out[0] instead of adding it with an
# atomic: the programs overwrite one another and only one total survives.
import triton
import triton.language as tl


@triton.jit
def full_sum(in_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    step = tl.num_programs(0) * BLOCK
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    for start in range(pid * BLOCK, n, step):
        offs = start + tl.arange(0, BLOCK)
        acc += tl.load(in_ptr + offs, mask=offs < n, other=0.0)
    tl.store(out_ptr, tl.sum(acc, axis=0))


def launch_full_sum(N):
    BLOCK = 1024
    return {"grid": (min(triton.cdiv(N, BLOCK), 1024),), "BLOCK": BLOCK, "num_warps": 4}
