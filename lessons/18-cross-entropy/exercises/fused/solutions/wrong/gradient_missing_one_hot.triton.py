# Bug: the gradient is softmax / rows: the one-hot of the target is never subtracted.
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
        g = p * inv_rows
        tl.store(grad + base + c, g, mask=inside, eviction_policy="evict_first")


def launch_cross_entropy(rows, vocab):
    block = min(4096, triton.next_power_of_2(vocab))
    return {"grid": (rows,), "BLOCK": block, "VW": 4 if vocab % 4 == 0 else 1,
            "num_warps": 8 if block >= 4096 else 4}
