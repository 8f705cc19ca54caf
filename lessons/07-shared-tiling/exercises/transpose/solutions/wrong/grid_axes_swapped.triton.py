# BUG: the grid gives axis 0 the tiles of the rows and axis 1 the tiles of the
# columns, while the kernel reads them the other way round: on non-square
# matrices some tiles are never transposed and others are outside the matrix.
import triton
import triton.language as tl


@triton.jit
def transpose(in_ptr, out_ptr, rows, cols, TILE: tl.constexpr):
    r = tl.program_id(1) * TILE + tl.arange(0, TILE)  # rows of in = columns of out
    c = tl.program_id(0) * TILE + tl.arange(0, TILE)  # columns of in = rows of out
    mask = (r[:, None] < rows) & (c[None, :] < cols)
    tile = tl.load(in_ptr + r[:, None].to(tl.int64) * cols + c[None, :], mask=mask)
    tl.store(out_ptr + c[:, None].to(tl.int64) * rows + r[None, :], tl.trans(tile), mask=tl.trans(mask))


def launch_transpose(rows, cols):
    TILE = 64
    return {"grid": (triton.cdiv(rows, TILE), triton.cdiv(cols, TILE)), "TILE": TILE, "num_warps": 4}
