# BUG: the masked load uses other=0.0 instead of -inf. The lanes past the end of
# the row then count as x = 0: each adds exp(0 - max) to the sum, which is huge
# for a row of negative values (and may raise the max above the real one).
import triton
import triton.language as tl


@triton.jit
def softmax(x_ptr, y_ptr, rows, cols, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    cs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * cols + cs, mask=cs < cols, other=0.0)
    e = tl.exp(x - tl.max(x, axis=0))
    tl.store(y_ptr + row * cols + cs, e / tl.sum(e, axis=0), mask=cs < cols)


def launch_softmax(rows, cols):
    block = triton.next_power_of_2(cols)
    return {"grid": (rows,), "BLOCK": block, "num_warps": 4 if block <= 1024 else 8 if block <= 4096 else 16}
