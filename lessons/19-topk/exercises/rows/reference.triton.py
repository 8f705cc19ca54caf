# The top k of every row, values descending, equal values the lower column first.
# Every logit becomes a 64-bit key no other logit shares: the float's bits made
# order-preserving above the inverted column, so "larger key" means "comes first".
# One program per row, as the CUDA version's bar:
#   1. LANES lanes each keep the largest key of their columns (c % LANES == lane);
#   2. the k-th largest of those lane maxima is the bar: only the (at most k)
#      lanes whose maximum reached it can hold a key at or above it;
#   3. those lanes' columns (a KB x NCH tile) are read again, keys below the bar
#      dropped, and tl.topk sorts the rest: the first k are the answer.
import triton
import triton.language as tl


@triton.jit
def _key(x, col):
    u = x.to(tl.uint32, bitcast=True)
    u = tl.where((u & 0x80000000) != 0, u ^ 0xFFFFFFFF, u | 0x80000000)
    return (u.to(tl.uint64) << 32) | (0xFFFFFFFF - col.to(tl.uint32)).to(tl.uint64)


@triton.jit
def topk(logits, values, indices, rows, vocab, k,
         LANES: tl.constexpr, NCH: tl.constexpr, KB: tl.constexpr, VW: tl.constexpr):
    # VW = 4 when vocab % 4 == 0: vocab and the first pass's mask are written so
    # that the compiler sees multiples of 4 (16-byte loads)
    vocab = (vocab // VW) * VW
    row = tl.program_id(0)
    base = row.to(tl.int64) * vocab
    lane = tl.arange(0, LANES)
    best = tl.zeros([LANES], dtype=tl.uint64)       # key 0: below every real key
    for c0 in range(0, vocab, LANES):
        col = c0 + lane
        inside = (col // VW) < (vocab // VW)
        x = tl.load(logits + base + col, mask=inside, other=0.0)
        best = tl.maximum(best, tl.where(inside, _key(x, col), 0))
    top_lanes = tl.topk(best, KB)                   # the KB largest lane maxima, descending
    r = tl.arange(0, KB)
    bar = tl.max(tl.where(r == k - 1, top_lanes, 0), axis=0)
    # the columns of the lanes that reached the bar
    first = (0xFFFFFFFF - (top_lanes & 0xFFFFFFFF).to(tl.uint32)).to(tl.int32) % LANES
    col = first[:, None] + LANES * tl.arange(0, NCH)[None, :]
    ok = (top_lanes[:, None] >= bar) & (col < vocab)
    x = tl.load(logits + base + col, mask=ok, other=0.0)
    cand = tl.where(ok, _key(x, col), 0)
    cand = tl.where(cand >= bar, cand, 0)
    winners = tl.topk(tl.reshape(cand, [KB * NCH]), KB)
    idx = (0xFFFFFFFF - (winners & 0xFFFFFFFF).to(tl.uint32)).to(tl.int32)
    out = row.to(tl.int64) * k + r
    tl.store(values + out, tl.load(logits + base + idx, mask=r < k, other=0.0), mask=r < k)
    tl.store(indices + out, idx, mask=r < k)


def launch_topk(rows, vocab, k):
    kb = max(2, triton.next_power_of_2(k))
    lanes = max(kb, min(1024, triton.next_power_of_2(vocab)))
    nch = triton.next_power_of_2(triton.cdiv(vocab, lanes))
    return {"grid": (rows,), "LANES": lanes, "NCH": nch, "KB": kb, "VW": 4 if vocab % 4 == 0 else 1,
            "num_warps": 8 if lanes >= 1024 else 4}
