# BUG: the masked lanes load 0, so x - mean is -mean there, and (-mean)^2 is added
# to the variance once for every lane past the end of the row.
import triton
import triton.language as tl


@triton.jit
def layernorm(x_ptr, w_ptr, b_ptr, y_ptr, rows, cols, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    cs = tl.arange(0, BLOCK)
    mask = cs < cols
    x = tl.load(x_ptr + row * cols + cs, mask=mask, other=0.0)
    mean = tl.sum(x, axis=0) / cols
    d = x - mean
    rstd = 1.0 / tl.sqrt(tl.sum(d * d, axis=0) / cols + eps)
    w = tl.load(w_ptr + cs, mask=mask)
    b = tl.load(b_ptr + cs, mask=mask)
    tl.store(y_ptr + row * cols + cs, d * rstd * w + b, mask=mask)


def launch_layernorm(rows, cols):
    block = triton.next_power_of_2(cols)
    return {"grid": (rows,), "BLOCK": block, "num_warps": 4 if block <= 1024 else 8 if block <= 4096 else 16}
