# Three sweeps over the row for every size, BLOCK columns at a time: the mean, the
# exact variance from (x - mean)^2, then the write. Right for any row length; it
# reads the row three times.
import triton
import triton.language as tl


@triton.jit
def layernorm(x_ptr, w_ptr, b_ptr, y_ptr, rows, cols, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    x_row = x_ptr + row * cols
    cs = tl.arange(0, BLOCK)
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    for start in range(0, cols, BLOCK):
        acc += tl.load(x_row + start + cs, mask=start + cs < cols, other=0.0)
    mean = tl.div_rn(tl.sum(acc, axis=0), cols.to(tl.float32))  # exact: Triton's / is approximate
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    for start in range(0, cols, BLOCK):
        mask = start + cs < cols
        d = tl.where(mask, tl.load(x_row + start + cs, mask=mask, other=0.0) - mean, 0.0)
        acc += d * d
    rstd = 1.0 / tl.sqrt(tl.sum(acc, axis=0) / cols + eps)
    for start in range(0, cols, BLOCK):
        mask = start + cs < cols
        x = tl.load(x_row + start + cs, mask=mask, other=0.0)
        w = tl.load(w_ptr + start + cs, mask=mask)
        b = tl.load(b_ptr + start + cs, mask=mask)
        tl.store(y_ptr + row * cols + start + cs, (x - mean) * rstd * w + b, mask=mask)


def launch_layernorm(rows, cols):
    return {"grid": (rows,), "BLOCK": 1024, "num_warps": 4}
