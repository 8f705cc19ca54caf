# One program per query row (grid (S, BH)), as the CUDA version's one warp per
# row: the row of q stays in registers, each block of BLOCK_N keys gives BLOCK_N
# scores by an elementwise product and a sum over d (no tl.dot), and the online
# softmax keeps one running max and one running sum.
import triton
import triton.language as tl


@triton.jit
def attention_rows(Q, K, V, O, S, D, causal, BLOCK_N: tl.constexpr, BLOCK_D: tl.constexpr):
    i = tl.program_id(0)
    head = tl.program_id(1).to(tl.int64) * S * D
    d = tl.arange(0, BLOCK_D)
    in_d = d < D
    q = tl.load(Q + head + i * D + d, mask=in_d, other=0.0) / tl.sqrt(D.to(tl.float32))
    m = tl.full([], float("-inf"), dtype=tl.float32)
    total = tl.full([], 0.0, dtype=tl.float32)
    out = tl.zeros([BLOCK_D], dtype=tl.float32)
    last = S
    if causal:
        last = i + 1
    for j0 in range(0, last, BLOCK_N):
        j = j0 + tl.arange(0, BLOCK_N)
        seen = j < last
        tile = (j[:, None] * D + d[None, :])
        both = seen[:, None] & in_d[None, :]
        k = tl.load(K + head + tile, mask=both, other=0.0)
        score = tl.where(seen, tl.sum(k * q[None, :], axis=1), float("-inf"))
        m_next = tl.maximum(m, tl.max(score, axis=0))
        shrink = tl.exp(m - m_next)
        w = tl.exp(score - m_next)
        v = tl.load(V + head + tile, mask=both, other=0.0)
        total = total * shrink + tl.sum(w, axis=0)
        out = out * shrink + tl.sum(w[:, None] * v, axis=0)
        m = m_next
    tl.store(O + head + i * D + d, out / total, mask=in_d)


def launch_attention_rows(BH, S, D):
    return {"grid": (S, BH), "BLOCK_N": 32, "BLOCK_D": triton.next_power_of_2(D), "num_warps": 4}
