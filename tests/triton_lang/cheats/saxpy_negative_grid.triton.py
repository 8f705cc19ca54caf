# CHEAT: a negative grid, hoping for an unsigned wrap to a huge launch or a skipped one
# VERDICT: compile_error
import triton
import triton.language as tl


@triton.jit
def saxpy(x_ptr, y_ptr, a, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(y_ptr + offs, a * tl.load(x_ptr + offs, mask=mask) + tl.load(y_ptr + offs, mask=mask), mask=mask)



def launch_saxpy(N):
    return {"grid": (-1, 1, 1), "BLOCK": 1024}
