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
    # The whole row in registers: one read of x and residual, one write of
    # residual and out. Long rows: a first pass adds, writes h back and sums the
    # squares; a second reads the residual back and normalises.
    row = tl.program_id(0)
    if VEC:
        cols = (cols // 8) * 8  # the same value, seen by the compiler as a multiple of 8
    base = row.to(tl.int64) * cols
    if ONE_PASS:
        offs = tl.arange(0, BLOCK)
        mask = offs < cols
        if VEC:
            mask = (offs // 8) < (cols // 8)  # 8 neighbours share their bit: 16-byte accesses
        x = tl.load(x_ptr + base + offs, mask=mask, other=0.0).to(tl.float32)
        r = tl.load(res_ptr + base + offs, mask=mask, other=0.0).to(tl.float32)
        h = x + r
        tl.store(res_ptr + base + offs, h.to(tl.bfloat16), mask=mask)
        rstd = tl.rsqrt(tl.sum(h * h, axis=0) / cols + eps)
        w = tl.load(w_ptr + offs, mask=mask, other=0.0).to(tl.float32)
        tl.store(out_ptr + base + offs, (h * rstd * w).to(tl.bfloat16), mask=mask)
    else:
        acc = tl.zeros([BLOCK], dtype=tl.float32)
        for start in range(0, cols, BLOCK):
            offs = start + tl.arange(0, BLOCK)
            mask = offs < cols
            x = tl.load(x_ptr + base + offs, mask=mask, other=0.0).to(tl.float32)
            r = tl.load(res_ptr + base + offs, mask=mask, other=0.0).to(tl.float32)
            h = x + r
            tl.store(res_ptr + base + offs, h.to(tl.bfloat16), mask=mask)
            acc += h * h
        rstd = tl.rsqrt(tl.sum(acc, axis=0) / cols + eps)
        tl.debug_barrier()  # the residual written above is read back below
        for start in range(0, cols, BLOCK):
            offs = start + tl.arange(0, BLOCK)
            mask = offs < cols
            h = tl.load(res_ptr + base + offs, mask=mask, other=0.0).to(tl.float32)
            w = tl.load(w_ptr + offs, mask=mask, other=0.0).to(tl.float32)
            tl.store(out_ptr + base + offs, (h * rstd * w).to(tl.bfloat16), mask=mask)


def launch_fused_add_rmsnorm(rows, cols):
    block = triton.next_power_of_2(cols)
    one_pass = block <= 16384
    if not one_pass:
        block = 4096
    num_warps = 4 if block <= 2048 else (8 if block <= 4096 else 16)
    return {"grid": (rows,), "BLOCK": block, "ONE_PASS": one_pass, "VEC": cols % 8 == 0,
            "num_warps": num_warps}
