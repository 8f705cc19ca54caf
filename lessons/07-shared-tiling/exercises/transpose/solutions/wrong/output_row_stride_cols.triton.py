# BUG: the rows of `out` are taken to be `cols` long, like the rows of `in`. out is
# cols x rows, so its row stride is rows: every non-square matrix lands in the
# wrong places.
import triton
import triton.language as tl


@triton.jit
def transpose(in_ptr, out_ptr, rows, cols, TILE: tl.constexpr):
    r = tl.program_id(1) * TILE + tl.arange(0, TILE)  # rows of in = columns of out
    c = tl.program_id(0) * TILE + tl.arange(0, TILE)  # columns of in = rows of out
    mask = (r[:, None] < rows) & (c[None, :] < cols)
    tile = tl.load(in_ptr + r[:, None].to(tl.int64) * cols + c[None, :], mask=mask)
    tl.store(out_ptr + c[:, None].to(tl.int64) * cols + r[None, :], tl.trans(tile), mask=tl.trans(mask))


def launch_transpose(rows, cols):
    TILE = 64
    return {"grid": (triton.cdiv(cols, TILE), triton.cdiv(rows, TILE)), "TILE": TILE, "num_warps": 4}
