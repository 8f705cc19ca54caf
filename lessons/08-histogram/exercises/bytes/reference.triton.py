# Byte histogram in Triton: bins[v] += the number of bytes equal to v in data[0..N).
# A fixed grid of programs sweeps the data BLOCK bytes at a time, counting into a
# private 256-bin histogram (tl.histogram), and adds it to `bins` once at the end
# with one atomic per bin and program. bins starts at 0.
# tl.histogram counts with warp votes (eight per byte for 256 bins): about 75
# instructions a byte, against a few for the CUDA reference's shared-memory
# atomics, which Triton does not offer. Expect this one several times slower.
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
    tl.atomic_add(bins_ptr + b, counts.to(tl.uint32), mask=counts > 0, sem="relaxed")


def launch_histogram(N):
    # 8192 bytes a step (32 per thread: two 16-byte loads); at most 528 programs
    # (4 per SM of a 132-SM GPU), so the merge costs at most 528 * 256 atomics
    BLOCK = 8192
    return {"grid": (min(triton.cdiv(N, BLOCK), 528),), "BLOCK": BLOCK, "num_warps": 8}
