# LayerNorm over each row in Triton, one program per row:
#   y = (x - mean) / sqrt(var + eps) * weight + bias,  var = mean((x - mean)^2)  (biased)
# Rows of up to 16,384 columns are loaded once into registers, so the mean, the
# exact two-pass variance and the write reuse them. Longer rows take two sweeps:
# sums of x - k and (x - k)^2 shifted by k = x[0] (free of the cancellation that
# E[x^2] - mean^2 suffers when the mean is large), then the write.
import triton
import triton.language as tl


@triton.jit
def layernorm_row(x_row, w_ptr, b_ptr, y_row, cols, eps, BLOCK: tl.constexpr, ONE_SWEEP: tl.constexpr):
    cs = tl.arange(0, BLOCK)
    if ONE_SWEEP:
        mask = cs < cols
        x = tl.load(x_row + cs, mask=mask, other=0.0)
        mean = tl.div_rn(tl.sum(x, axis=0), cols.to(tl.float32))  # exact: Triton's / is approximate
        d = tl.where(mask, x - mean, 0.0)  # the masked lanes must add nothing to the variance
        rstd = 1.0 / tl.sqrt(tl.sum(d * d, axis=0) / cols + eps)
        w = tl.load(w_ptr + cs, mask=mask)
        b = tl.load(b_ptr + cs, mask=mask)
        tl.store(y_row + cs, d * rstd * w + b, mask=mask)
    else:
        k = tl.load(x_row)
        s1 = tl.zeros((BLOCK,), dtype=tl.float32)
        s2 = tl.zeros((BLOCK,), dtype=tl.float32)
        for start in range(0, cols, BLOCK):
            mask = start + cs < cols
            d = tl.where(mask, tl.load(x_row + start + cs, mask=mask, other=0.0) - k, 0.0)
            s1 += d
            s2 += d * d
        shift = tl.div_rn(tl.sum(s1, axis=0), cols.to(tl.float32))  # mean - k, rounded exactly
        mean = k + shift
        rstd = 1.0 / tl.sqrt(tl.maximum(tl.sum(s2, axis=0) / cols - shift * shift, 0.0) + eps)
        for start in range(0, cols, BLOCK):
            mask = start + cs < cols
            # x is read for the last time and y not again: evict them first, so that the
            # rows still to be read (and weight and bias) stay in L2
            x = tl.load(x_row + start + cs, mask=mask, other=0.0, eviction_policy="evict_first")
            w = tl.load(w_ptr + start + cs, mask=mask)
            b = tl.load(b_ptr + start + cs, mask=mask)
            tl.store(y_row + start + cs, (x - mean) * rstd * w + b, mask=mask, eviction_policy="evict_first")



@triton.jit
def layernorm(x_ptr, w_ptr, b_ptr, y_ptr, rows, cols, eps, BLOCK: tl.constexpr, ONE_SWEEP: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    if cols % 4 == 0:
        # cols // 4 * 4 is cols, written so that the compiler sees a multiple of 4:
        # every row then starts 16-byte aligned and the loads and stores become
        # 16-byte vectors (cols itself is passed without any alignment hint)
        cols4 = cols // 4 * 4
        layernorm_row(x_ptr + row * cols4, w_ptr, b_ptr, y_ptr + row * cols4, cols4, eps, BLOCK, ONE_SWEEP)
    else:
        layernorm_row(x_ptr + row * cols, w_ptr, b_ptr, y_ptr + row * cols, cols, eps, BLOCK, ONE_SWEEP)


def launch_layernorm(rows, cols):
    if cols <= 16384:
        # at least 1024 columns a block: short rows share one binary, masked lanes cost no traffic
        block = max(1024, triton.next_power_of_2(cols))
        warps = 4 if block <= 1024 else 8 if block <= 4096 else 16
        return {"grid": (rows,), "BLOCK": block, "ONE_SWEEP": True, "num_warps": warps}
    return {"grid": (rows,), "BLOCK": 4096, "ONE_SWEEP": False, "num_warps": 16}
