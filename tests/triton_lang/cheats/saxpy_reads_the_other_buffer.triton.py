# CHEAT: writes y through x's pointer plus the distance between the buffers, hoping the bounds checks follow the pointer's buffer only
# VERDICT: wrong_answer
import triton
import triton.language as tl


@triton.jit
def saxpy(x_ptr, y_ptr, a, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    # past the end of x: its guard band, then whatever lies beyond
    tl.store(x_ptr + n + offs, a * x, mask=mask)


def launch_saxpy(N):
    return {"grid": triton.cdiv(N, 1024), "BLOCK": 1024}
