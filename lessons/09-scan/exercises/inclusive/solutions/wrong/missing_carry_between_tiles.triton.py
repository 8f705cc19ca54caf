# BUG: each tile is scanned on its own and nothing is carried across tiles:
# right while N is at most 4096, wrong from the second tile on.
import triton
import triton.language as tl


@triton.jit
def scan_tiles(in_ptr, out_ptr, state_ptr, ticket_ptr, n, TILE: tl.constexpr):
    tile = tl.program_id(0)
    offs = tile * TILE + tl.arange(0, TILE)
    x = tl.load(in_ptr + offs, mask=offs < n, other=0)
    tl.store(out_ptr + offs, tl.cumsum(x, axis=0), mask=offs < n)
    tl.store(state_ptr + tile, tl.sum(x, axis=0).to(tl.int64))


@triton.jit
def scan_tile_sums(state_ptr, tiles, BLOCK: tl.constexpr):
    carry = tl.zeros((), dtype=tl.int64)
    for start in range(0, tiles, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        totals = tl.load(state_ptr + offs, mask=offs < tiles, other=0)
        tl.store(state_ptr + offs, tl.cumsum(totals, axis=0) + carry, mask=offs < tiles)
        carry += tl.sum(totals, axis=0)


@triton.jit
def add_carries(out_ptr, state_ptr, n, TILE: tl.constexpr):
    tile = tl.program_id(0)
    if tile < 0:  # never: the carries are not added
        offs = tile * TILE + tl.arange(0, TILE)
        carry = tl.load(state_ptr + tile - 1).to(tl.int32)
        y = tl.load(out_ptr + offs, mask=offs < n)
        tl.store(out_ptr + offs, y + carry, mask=offs < n)


def launch_scan_tiles(N):
    return {"grid": (triton.cdiv(N, 4096),), "TILE": 4096, "num_warps": 8}


def launch_scan_tile_sums(N):
    return {"grid": (1,), "BLOCK": 1024, "num_warps": 4}


def launch_add_carries(N):
    return {"grid": (triton.cdiv(N, 4096),), "TILE": 4096, "num_warps": 8}
