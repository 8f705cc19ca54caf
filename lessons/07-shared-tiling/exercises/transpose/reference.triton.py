# Transpose in Triton: out[c * rows + r] = in[r * cols + c], in is rows x cols.
# One program per TILE x TILE tile: it loads the tile along the rows of `in`
# (coalesced), and stores tl.trans of it along the rows of `out` (coalesced too).
# Between the two, the compiler moves the tile through shared memory, with a
# layout that avoids bank conflicts: the padding of the CUDA version is its job.
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
    return {"grid": (triton.cdiv(cols, TILE), triton.cdiv(rows, TILE)), "TILE": TILE, "num_warps": 4}
