# BUG: the private histogram is stored to `bins` instead of added with atomics:
# every program overwrites the counts of the others, and only one program's
# counts survive.
import triton
import triton.language as tl


@triton.jit
def histogram(data_ptr, bins_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    step = tl.num_programs(0) * BLOCK
    counts = tl.zeros((256,), dtype=tl.int32)
    # whole blocks without a mask (16-byte loads), then the partial last block
    for start in range(pid * BLOCK, n - BLOCK + 1, step):
        x = tl.load(data_ptr + start + tl.arange(0, BLOCK), eviction_policy="evict_first")
        counts += tl.histogram(x.to(tl.int32), 256)
    if pid == 0:
        offs = n // BLOCK * BLOCK + tl.arange(0, BLOCK)
        x = tl.load(data_ptr + offs, mask=offs < n, other=0)
        counts += tl.histogram(x.to(tl.int32), 256, mask=offs < n)
    b = tl.arange(0, 256)
    tl.store(bins_ptr + b, counts.to(tl.uint32))


def launch_histogram(N):
    # 8192 bytes a step (32 per thread: two 16-byte loads); at most 528 programs
    # (4 per SM of a 132-SM GPU), so the merge costs at most 528 * 256 atomics
    BLOCK = 8192
    return {"grid": (min(triton.cdiv(N, BLOCK), 528),), "BLOCK": BLOCK, "num_warps": 8}
