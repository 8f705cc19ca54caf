# Fused residual add + RMSNorm over each row (bf16 in and out, fp32 inside):
#   h = x + residual              (write h back into residual, as bf16)
#   out = h / sqrt(mean(h^2) + eps) * weight
# One program per row. launch_fused_add_rmsnorm holds rows of up to 16,384
# columns whole in one block (ONE_PASS); longer rows are walked in BLOCK-wide
# chunks. VEC: cols is a multiple of 8, so every row starts on 16 bytes (the
# kernel writes cols and the mask so that the compiler can see it).
import triton
import triton.language as tl


@triton.jit
def fused_add_rmsnorm(x_ptr, res_ptr, w_ptr, out_ptr, rows, cols, eps,
                      BLOCK: tl.constexpr, ONE_PASS: tl.constexpr, VEC: tl.constexpr):
    # BEGIN FILL-IN
    # A placeholder: it writes h back to residual but copies h to out without
    # normalising. Compute the sum of h * h over the row in float32, then
    # out = h * rsqrt(sum / cols + eps) * weight.
    row = tl.program_id(0)
    base = row.to(tl.int64) * cols
    for start in range(0, cols, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        mask = offs < cols
        h = tl.load(x_ptr + base + offs, mask=mask).to(tl.float32) + \
            tl.load(res_ptr + base + offs, mask=mask).to(tl.float32)
        tl.store(res_ptr + base + offs, h.to(tl.bfloat16), mask=mask)
        tl.store(out_ptr + base + offs, h.to(tl.bfloat16), mask=mask)
    # END FILL-IN

def launch_fused_add_rmsnorm(rows, cols):
    block = triton.next_power_of_2(cols)
    one_pass = block <= 16384
    if not one_pass:
        block = 4096
    num_warps = 4 if block <= 2048 else (8 if block <= 4096 else 16)
    return {"grid": (rows,), "BLOCK": block, "ONE_PASS": one_pass, "VEC": cols % 8 == 0,
            "num_warps": num_warps}
