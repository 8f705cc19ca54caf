# SAXPY in Triton: y[i] = a * x[i] + y[i] for every i in [0, n).
# One program per BLOCK elements: the grid covers the whole array, and a mask
# must keep the last, partial block inside it.
import triton
import triton.language as tl


@triton.jit
def saxpy(x_ptr, y_ptr, a, n, BLOCK: tl.constexpr):
    # BEGIN FILL-IN
    # TODO: the offsets of this program's BLOCK elements (tl.program_id, tl.arange),
    #       a mask for the ones inside the array, then load x and y and store a * x + y.
    pass
    # END FILL-IN


def launch_saxpy(N):
    # 2048 floats a program, 8 warps: 8 floats (two 16-byte loads) per thread and array
    BLOCK = 2048
    return {"grid": (triton.cdiv(N, BLOCK),), "BLOCK": BLOCK, "num_warps": 8}
