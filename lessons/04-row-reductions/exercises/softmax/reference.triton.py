# Row softmax in Triton, one program per row.
# Rows of up to 16,384 columns are loaded once into registers (BLOCK >= cols): the
# max, the sum and the write all reuse them. Longer rows take two sweeps of BLOCK
# columns: an online max and sum (the sum rescaled whenever the max grows), then
# the write, which reads the row again (from L2, where the first sweep left it).
import triton
import triton.language as tl


@triton.jit
def softmax_row(x_row, y_row, cols, BLOCK: tl.constexpr, ONE_SWEEP: tl.constexpr):
    cs = tl.arange(0, BLOCK)
    if ONE_SWEEP:
        x = tl.load(x_row + cs, mask=cs < cols, other=-float("inf"))
        e = tl.exp(x - tl.max(x, axis=0))  # the max keeps exp from overflowing
        tl.store(y_row + cs, e / tl.sum(e, axis=0), mask=cs < cols)
    else:
        # per-lane running max and sum; cols > BLOCK, so the first sweep gives every
        # lane a real value and no lane ever computes -inf - (-inf)
        m = tl.full((BLOCK,), -float("inf"), tl.float32)
        s = tl.zeros((BLOCK,), dtype=tl.float32)
        for start in range(0, cols, BLOCK):
            x = tl.load(x_row + start + cs, mask=start + cs < cols, other=-float("inf"))
            m_new = tl.maximum(m, x)
            s = s * tl.exp(m - m_new) + tl.exp(x - m_new)
            m = m_new
        row_max = tl.max(m, axis=0)
        inv = 1.0 / tl.sum(s * tl.exp(m - row_max), axis=0)
        for start in range(0, cols, BLOCK):
            mask = start + cs < cols
            x = tl.load(x_row + start + cs, mask=mask, other=0.0, eviction_policy="evict_first")
            tl.store(y_row + start + cs, tl.exp(x - row_max) * inv, mask=mask, eviction_policy="evict_first")


@triton.jit
def softmax(x_ptr, y_ptr, rows, cols, BLOCK: tl.constexpr, ONE_SWEEP: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    if cols % 4 == 0:
        # cols // 4 * 4 is cols, written so that the compiler sees a multiple of 4:
        # every row then starts 16-byte aligned and the loads and stores become
        # 16-byte vectors (cols itself is passed without any alignment hint)
        cols4 = cols // 4 * 4
        softmax_row(x_ptr + row * cols4, y_ptr + row * cols4, cols4, BLOCK, ONE_SWEEP)
    else:
        softmax_row(x_ptr + row * cols, y_ptr + row * cols, cols, BLOCK, ONE_SWEEP)


def launch_softmax(rows, cols):
    if cols <= 16384:
        # at least 1024 columns a block: short rows share one binary, masked lanes cost no traffic
        block = max(1024, triton.next_power_of_2(cols))
        warps = 4 if block <= 1024 else 8 if block <= 4096 else 16
        return {"grid": (rows,), "BLOCK": block, "ONE_SWEEP": True, "num_warps": warps}
    return {"grid": (rows,), "BLOCK": 4096, "ONE_SWEEP": False, "num_warps": 16}
