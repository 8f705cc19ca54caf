# CHEAT: imports numpy to do the arithmetic on the host instead of in a kernel
# VERDICT: rejected
import numpy as np
import triton
import triton.language as tl


@triton.jit
def saxpy(x_ptr, y_ptr, a, n, BLOCK: tl.constexpr):
    pass


def launch_saxpy(N):
    np.zeros(N)
    return {"grid": 1, "BLOCK": 64}
