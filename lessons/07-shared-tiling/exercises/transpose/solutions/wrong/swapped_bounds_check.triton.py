# BUG: the mask compares the row indices with cols and the column indices with
# rows. Square matrices pass; on a tall or wide one the edge tiles either drop
# elements or read and write outside the matrix.
import triton
import triton.language as tl


@triton.jit
def transpose(in_ptr, out_ptr, rows, cols, TILE: tl.constexpr):
    r = tl.program_id(1) * TILE + tl.arange(0, TILE)  # rows of in = columns of out
    c = tl.program_id(0) * TILE + tl.arange(0, TILE)  # columns of in = rows of out
    mask = (r[:, None] < cols) & (c[None, :] < rows)
    tile = tl.load(in_ptr + r[:, None].to(tl.int64) * cols + c[None, :], mask=mask)
    tl.store(out_ptr + c[:, None].to(tl.int64) * rows + r[None, :], tl.trans(tile), mask=tl.trans(mask))


def launch_transpose(rows, cols):
    TILE = 64
    return {"grid": (triton.cdiv(cols, TILE), triton.cdiv(rows, TILE)), "TILE": TILE, "num_warps": 4}
