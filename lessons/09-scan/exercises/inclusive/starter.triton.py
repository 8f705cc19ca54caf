# Inclusive prefix sum in Triton: out[i] = in[0] + in[1] + ... + in[i].
# Plan: scan_tiles, then scan_tile_sums, then add_carries, each with the grid its
# launch function returns. A tile is 4096 elements (TILE); state (one 64-bit word
# per tile) and ticket (one int) start at 0 and are yours.
# Three phases: (1) scan each tile, write its total to state, (2) scan the tile
# totals, (3) add the totals of earlier tiles to each tile. Or a single pass
# (decoupled look-back) in scan_tiles, leaving the other two empty.
import triton
import triton.language as tl

# FILL-IN: constants and helper functions, if you want them


@triton.jit
def scan_tiles(in_ptr, out_ptr, state_ptr, ticket_ptr, n, TILE: tl.constexpr):
    # BEGIN FILL-IN
    # TODO: the prefix sums of this program's tile, and what the later phases need.
    pass
    # END FILL-IN


@triton.jit
def scan_tile_sums(state_ptr, tiles):
    # BEGIN FILL-IN
    # TODO: (three phases) the tile totals in state become their prefix sums.
    pass
    # END FILL-IN


@triton.jit
def add_carries(out_ptr, state_ptr, n):
    # BEGIN FILL-IN
    # TODO: (three phases) every element of tile t gets the total of tiles 0..t-1.
    pass
    # END FILL-IN


def launch_scan_tiles(N):
    # TILE is fixed by the plan: `state` has one word per 4096 elements
    return {"grid": (triton.cdiv(N, 4096),), "TILE": 4096, "num_warps": 8}


def launch_scan_tile_sums(N):
    # BEGIN FILL-IN
    return {"grid": (1,), "num_warps": 1}
    # END FILL-IN


def launch_add_carries(N):
    # BEGIN FILL-IN
    return {"grid": (triton.cdiv(N, 4096),), "num_warps": 8}
    # END FILL-IN
