# BUG: var = E[x^2] - mean^2 in float32. With means of 50-60 and a spread of
# about 0.5, the two terms are near 3000 and agree in almost all their digits:
# what is left of the variance is mostly rounding error.
import triton
import triton.language as tl


@triton.jit
def layernorm(x_ptr, w_ptr, b_ptr, y_ptr, rows, cols, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    cs = tl.arange(0, BLOCK)
    mask = cs < cols
    x = tl.load(x_ptr + row * cols + cs, mask=mask, other=0.0)
    mean = tl.sum(x, axis=0) / cols
    var = tl.maximum(tl.sum(x * x, axis=0) / cols - mean * mean, 0.0)
    rstd = 1.0 / tl.sqrt(var + eps)
    w = tl.load(w_ptr + cs, mask=mask)
    b = tl.load(b_ptr + cs, mask=mask)
    tl.store(y_ptr + row * cols + cs, (x - mean) * rstd * w + b, mask=mask)


def launch_layernorm(rows, cols):
    block = triton.next_power_of_2(cols)
    return {"grid": (rows,), "BLOCK": block, "num_warps": 4 if block <= 1024 else 8 if block <= 4096 else 16}
