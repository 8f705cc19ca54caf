# SAXPY in Triton: y[i] = a * x[i] + y[i] for every i in [0, n).
# One program per BLOCK elements: the grid covers the whole array, and the mask
# keeps the last, partial block inside it.
import triton
import triton.language as tl


@triton.jit
def saxpy(x_ptr, y_ptr, a, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(y_ptr + offs, a * x + y, mask=mask)


def launch_saxpy(N):
    # 2048 floats a program, 8 warps: 8 floats (two 16-byte loads) per thread and array
    BLOCK = 2048
    return {"grid": (triton.cdiv(N, BLOCK),), "BLOCK": BLOCK, "num_warps": 8}
