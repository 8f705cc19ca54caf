# Full sum in Triton: out[0] = in[0] + ... + in[N-1], out[0] starting at 0.
# A fixed grid of programs sweeps the array BLOCK elements at a time (a grid-stride
# loop over blocks), adding into a vector of BLOCK float32 accumulators; each program
# then reduces its vector with tl.sum and adds it to out[0] with one atomic.
import triton
import triton.language as tl


@triton.jit
def full_sum(in_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    step = tl.num_programs(0) * BLOCK
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    # whole blocks without a mask: the compiler may then use 16-byte loads, which
    # a mask against an n of unknown alignment would forbid
    for start in range(pid * BLOCK, n - BLOCK + 1, step):
        acc += tl.load(in_ptr + start + tl.arange(0, BLOCK))
    if pid == 0:  # the last, partial block (0 to BLOCK - 1 elements), masked
        offs = n // BLOCK * BLOCK + tl.arange(0, BLOCK)
        acc += tl.load(in_ptr + offs, mask=offs < n, other=0.0)
    tl.atomic_add(out_ptr, tl.sum(acc, axis=0))


def launch_full_sum(N):
    # 8192 floats a step with 8 warps (32 per thread: eight 16-byte loads in flight);
    # at most 1056 programs (8 per SM of a 132-SM GPU), so out[0] sees few atomics
    BLOCK = 8192
    return {"grid": (min(triton.cdiv(N, BLOCK), 1056),), "BLOCK": BLOCK, "num_warps": 8}
