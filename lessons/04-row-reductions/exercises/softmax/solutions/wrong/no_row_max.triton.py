# BUG: exp(x) without subtracting the row max. Mathematically the same softmax,
# but exp overflows float32 to inf above x = 88.7, and inf / inf is NaN.
import triton
import triton.language as tl


@triton.jit
def softmax(x_ptr, y_ptr, rows, cols, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    cs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * cols + cs, mask=cs < cols, other=-float("inf"))
    e = tl.exp(x)
    tl.store(y_ptr + row * cols + cs, e / tl.sum(e, axis=0), mask=cs < cols)


def launch_softmax(rows, cols):
    block = triton.next_power_of_2(cols)
    return {"grid": (rows,), "BLOCK": block, "num_warps": 4 if block <= 1024 else 8 if block <= 4096 else 16}
