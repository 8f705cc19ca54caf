# LayerNorm over each row in Triton, one program per row:
#   y = (x - mean) / sqrt(var + eps) * weight + bias,  var = mean((x - mean)^2)  (biased)
# Rows of up to 16,384 columns are loaded once into registers, so the mean, the
# exact two-pass variance and the write reuse them. Longer rows take two sweeps:
# sums of x - k and (x - k)^2 shifted by k = x[0] (free of the cancellation that
# E[x^2] - mean^2 suffers when the mean is large), then the write.
import triton
import triton.language as tl


# FILL-IN: helper functions, if you want them


@triton.jit
def layernorm(x_ptr, w_ptr, b_ptr, y_ptr, rows, cols, eps, BLOCK: tl.constexpr, ONE_SWEEP: tl.constexpr):
    # BEGIN FILL-IN
    row = tl.program_id(0).to(tl.int64)
    cs = tl.arange(0, BLOCK)
    # TODO: the row's mean, then its variance from (x - mean)^2 (masked lanes must add
    #       nothing), then (x - mean) / sqrt(var + eps) * weight + bias. When ONE_SWEEP
    #       is False the row is longer than BLOCK: loop over it.
    # This placeholder copies the row without normalising it.
    for start in range(0, cols, BLOCK):
        mask = start + cs < cols
        x = tl.load(x_ptr + row * cols + start + cs, mask=mask)
        tl.store(y_ptr + row * cols + start + cs, x, mask=mask)
    # END FILL-IN

def launch_layernorm(rows, cols):
    if cols <= 16384:
        # at least 1024 columns a block: short rows share one binary, masked lanes cost no traffic
        block = max(1024, triton.next_power_of_2(cols))
        warps = 4 if block <= 1024 else 8 if block <= 4096 else 16
        return {"grid": (rows,), "BLOCK": block, "ONE_SWEEP": True, "num_warps": warps}
    return {"grid": (rows,), "BLOCK": 4096, "ONE_SWEEP": False, "num_warps": 16}
