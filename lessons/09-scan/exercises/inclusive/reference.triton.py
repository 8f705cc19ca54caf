# Inclusive prefix sum in Triton: out[i] = in[0] + in[1] + ... + in[i].
# The plan has three launches; this solution is a single pass (decoupled
# look-back), so scan_tiles does all the work and the other two do nothing.
# A program takes its tile number from `ticket` (the order programs start, so a
# tile only ever waits for tiles whose programs are already running), scans its
# 4096 elements with tl.cumsum, publishes its total in state[tile], then reads the
# states before it, 32 at a time, back to the nearest tile that published a full
# prefix. Each state is one 64-bit word: the status in the high half (0 nothing
# yet, 1 the tile's own total, 2 the total of the tile and every tile before it)
# and the value in the low half, so status and value change together.
import triton
import triton.language as tl

AGGREGATE = tl.constexpr(1)  # the tile's own total is published
PREFIX = tl.constexpr(2)     # the total of the tile and every tile before it is published
WINDOW = tl.constexpr(32)    # states read at once while looking back


@triton.jit
def scan_tiles(in_ptr, out_ptr, state_ptr, ticket_ptr, n, TILE: tl.constexpr):
    tile = tl.atomic_add(ticket_ptr, 1)
    offs = tile * TILE + tl.arange(0, TILE)
    full = tile * TILE + TILE <= n  # whole tiles need no mask, so they get 16-byte loads and stores
    if full:
        x = tl.load(in_ptr + offs, eviction_policy="evict_first")
    else:
        x = tl.load(in_ptr + offs, mask=offs < n, other=0)
    scanned = tl.cumsum(x, axis=0)
    total = tl.sum(x, axis=0)
    before = total * 0  # the sum of every tile before this one
    if tile > 0:
        tl.atomic_xchg(state_ptr + tile, (total.to(tl.int64) & 0xFFFFFFFF) | (AGGREGATE << 32), sem="release")
        # look back, WINDOW states at a time (k = 0 is the tile just before `end`),
        # to the nearest tile that published a full prefix
        k = tl.arange(0, WINDOW)
        end = tile
        while end > 0:
            idx = end - 1 - k
            valid = idx >= 0
            words = tl.atomic_add(state_ptr + idx, tl.zeros((WINDOW,), tl.int64), mask=valid, sem="acquire")
            while tl.sum(((words >> 32) == 0) & valid, axis=0) > 0:  # a tile not published yet
                words = tl.atomic_add(state_ptr + idx, tl.zeros((WINDOW,), tl.int64), mask=valid, sem="acquire")
            nearest = tl.min(tl.where(valid & ((words >> 32) == PREFIX), k, WINDOW), axis=0)
            before += tl.sum(tl.where(valid & (k <= nearest), (words & 0xFFFFFFFF).to(tl.int32), 0), axis=0)
            end = tl.where(nearest < WINDOW, 0, end - WINDOW)  # WINDOW: no prefix in this window
    tl.atomic_xchg(state_ptr + tile, ((before + total).to(tl.int64) & 0xFFFFFFFF) | (PREFIX << 32), sem="release")
    if full:
        tl.store(out_ptr + offs, scanned + before)
    else:
        tl.store(out_ptr + offs, scanned + before, mask=offs < n)


@triton.jit
def scan_tile_sums(state_ptr, tiles):
    pass  # single pass: nothing left to do


@triton.jit
def add_carries(out_ptr, state_ptr, n):
    pass  # single pass: nothing left to do


def launch_scan_tiles(N):
    # TILE is fixed by the plan: `state` has one word per 4096 elements. Four warps
    # (32 elements a thread) beat eight and sixteen on an H200 at 2^28 elements
    return {"grid": (triton.cdiv(N, 4096),), "TILE": 4096, "num_warps": 4}


def launch_scan_tile_sums(N):
    return {"grid": (1,), "num_warps": 1}


def launch_add_carries(N):
    return {"grid": (1,), "num_warps": 1}
