# The tile is read already transposed: the program loads in[r, c] at the position
# [c, r] of its block (reading down columns of `in`), so no tl.trans is needed.
# Correct, but the loads are not coalesced along the rows of `in` unless the
# compiler rearranges them.
import triton
import triton.language as tl


@triton.jit
def transpose(in_ptr, out_ptr, rows, cols, TILE: tl.constexpr):
    c = tl.program_id(0) * TILE + tl.arange(0, TILE)  # rows of out
    r = tl.program_id(1) * TILE + tl.arange(0, TILE)  # columns of out
    mask = (c[:, None] < cols) & (r[None, :] < rows)
    tile = tl.load(in_ptr + r[None, :] * cols + c[:, None], mask=mask)
    tl.store(out_ptr + c[:, None] * rows + r[None, :], tile, mask=mask)


def launch_transpose(rows, cols):
    return {"grid": (triton.cdiv(cols, 64), triton.cdiv(rows, 64)), "TILE": 64, "num_warps": 4}
