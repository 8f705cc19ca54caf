# Cross-entropy over a vocabulary, forward and backward in one kernel:
#   loss[r] = logsumexp(logits[r]) - logits[r, targets[r]]
#   grad[r, c] = (softmax(logits[r])[c] - [c == targets[r]]) / rows
# One program per row, two passes over the row in BLOCK-wide chunks:
#   1. an online max and sum of exponentials, one running pair per lane (merged
#      at the end); loads marked evict_last, so the row stays in L2;
#   2. the gradient, walking the chunks from the last to the first (the end of
#      the row, read last, is the part most likely still in L2), with
#      evict_first loads and stores, so rows still to be re-read stay cached.
import triton
import triton.language as tl

LOG2E = tl.constexpr(1.4426950408889634)


@triton.jit
def cross_entropy(logits, targets, loss, grad, rows, vocab, BLOCK: tl.constexpr, VW: tl.constexpr):
    # VW = 4 when vocab % 4 == 0: vocab and the masks are written so that the
    # compiler sees multiples of 4 (rows start on 16 bytes, 16-byte accesses)
    vocab = (vocab // VW) * VW
    row = tl.program_id(0)
    base = row.to(tl.int64) * vocab
    offs = tl.arange(0, BLOCK)
    m = tl.full([BLOCK], float("-inf"), dtype=tl.float32)   # log2 units
    s = tl.zeros([BLOCK], dtype=tl.float32)
    for start in range(0, vocab, BLOCK):
        c = start + offs
        x = tl.load(logits + base + c, mask=(c // VW) < (vocab // VW), other=float("-inf"),
                    eviction_policy="evict_last") * LOG2E
        m_new = tl.maximum(m, x)
        # a lane that has seen only masked columns keeps m = -inf and s = 0
        seen = m_new > float("-inf")
        s = tl.where(seen, s * tl.exp2(m - m_new) + tl.exp2(x - m_new), 0.0)
        m = m_new
    m_row = tl.max(m, axis=0)
    lse2 = m_row + tl.log2(tl.sum(s * tl.exp2(m - m_row), axis=0))   # log2 of the sum
    t = tl.load(targets + row)
    x_t = tl.load(logits + base + t)
    tl.store(loss + row, lse2 / LOG2E - x_t)
    inv_rows = 1.0 / rows
    n_chunks = tl.cdiv(vocab, BLOCK)
    for i in range(0, n_chunks):
        c = (n_chunks - 1 - i) * BLOCK + offs
        inside = (c // VW) < (vocab // VW)
        x = tl.load(logits + base + c, mask=inside, other=0.0, eviction_policy="evict_first")
        p = tl.exp2(x * LOG2E - lse2)
        g = (p - tl.where(c == t, 1.0, 0.0)) * inv_rows
        tl.store(grad + base + c, g, mask=inside, eviction_policy="evict_first")


def launch_cross_entropy(rows, vocab):
    block = min(4096, triton.next_power_of_2(vocab))
    return {"grid": (rows,), "BLOCK": block, "VW": 4 if vocab % 4 == 0 else 1,
            "num_warps": 8 if block >= 4096 else 4}
