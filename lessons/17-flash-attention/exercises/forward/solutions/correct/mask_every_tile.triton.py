# The simplest tiled form: one loop over the key tiles, every tile masked (keys
# past S, keys past the row when causal), natural exponentials. 64 query rows
# per program. Correct, and somewhat slower than a kernel that masks only the
# tiles that need it.
import triton
import triton.language as tl


@triton.jit
def flash_attention(Q, K, V, O, S, D, causal,
                    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, HEAD_D: tl.constexpr):
    qi = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    head = tl.program_id(1).to(tl.int64) * S * D
    d = tl.arange(0, HEAD_D)
    q = tl.load(Q + head + qi[:, None] * D + d[None, :], mask=(qi[:, None] < S) & (d[None, :] < D), other=0.0)
    inv_sqrt_d = 1.0 / tl.sqrt(D.to(tl.float32))
    row_max = tl.full([BLOCK_M], float("-inf"), dtype=tl.float32)
    row_sum = tl.zeros([BLOCK_M], dtype=tl.float32)
    o = tl.zeros([BLOCK_M, HEAD_D], dtype=tl.float32)
    end = S
    if causal:
        end = tl.minimum(S, (tl.program_id(0) + 1) * BLOCK_M)
    for j0 in range(0, end, BLOCK_N):
        kj = j0 + tl.arange(0, BLOCK_N)
        k = tl.load(K + head + kj[:, None] * D + d[None, :], mask=(kj[:, None] < S) & (d[None, :] < D), other=0.0)
        logits = tl.dot(q, tl.trans(k)) * inv_sqrt_d
        allowed = (kj[None, :] < S) & ((causal == 0) | (kj[None, :] <= qi[:, None]))
        logits = tl.where(allowed, logits, float("-inf"))
        new_max = tl.maximum(row_max, tl.max(logits, axis=1))
        correction = tl.exp(row_max - new_max)
        w = tl.exp(logits - new_max[:, None])
        v = tl.load(V + head + kj[:, None] * D + d[None, :], mask=(kj[:, None] < S) & (d[None, :] < D), other=0.0)
        o = o * correction[:, None] + tl.dot(w.to(tl.float16), v)
        row_sum = row_sum * correction + tl.sum(w, axis=1)
        row_max = new_max
    tl.store(O + head + qi[:, None] * D + d[None, :], (o / row_sum[:, None]).to(tl.float16),
             mask=(qi[:, None] < S) & (d[None, :] < D))


def launch_flash_attention(BH, S, D):
    head_d = max(16, triton.next_power_of_2(D))
    return {"grid": (triton.cdiv(S, 64), BH), "BLOCK_M": 64, "BLOCK_N": 64, "HEAD_D": head_d,
            "num_warps": 4, "num_stages": 2}
