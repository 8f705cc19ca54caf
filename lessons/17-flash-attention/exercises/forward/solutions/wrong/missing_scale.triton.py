# Bug: the scores are not divided by sqrt(D): the softmax is sqrt(D) times too sharp.
import triton
import triton.language as tl


@triton.jit
def _tile(acc, m_i, l_i, q, k_ptrs, v_ptrs, rows, cols, S, causal, scale,
          dm, MASKED: tl.constexpr):
    if MASKED:
        kt = tl.load(k_ptrs, mask=(cols[None, :] < S) & dm[:, None], other=0.0)
    else:
        kt = tl.load(k_ptrs, mask=dm[:, None], other=0.0)
    s = tl.dot(q, kt) * scale          # FP16 products, FP32 sums, log2 domain
    if MASKED:
        keep = (cols[None, :] < S) & ((causal == 0) | (cols[None, :] <= rows[:, None]))
        s = tl.where(keep, s, float("-inf"))
    m_new = tl.maximum(m_i, tl.max(s, axis=1))
    alpha = tl.exp2(m_i - m_new)
    p = tl.exp2(s - m_new[:, None])
    l_i = l_i * alpha + tl.sum(p, axis=1)
    if MASKED:
        v = tl.load(v_ptrs, mask=(cols[:, None] < S) & dm[None, :], other=0.0)
    else:
        v = tl.load(v_ptrs, mask=dm[None, :], other=0.0)
    acc = acc * alpha[:, None] + tl.dot(p.to(tl.float16), v)
    return acc, m_new, l_i


@triton.jit
def flash_attention(Q, K, V, O, S, D, causal,
                    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, HEAD_D: tl.constexpr,
                    VEC: tl.constexpr):
    scale = 1.4426950408889634   # log2(e)
    d = tl.arange(0, HEAD_D)
    if VEC:
        # D % 8 == 0, written so the compiler sees it: rows of Q, K, V start on
        # 16 bytes and 8 neighbours share their mask bit (16-byte copies)
        D = (D // 8) * 8
        dm = (d // 8) < (D // 8)
    else:
        dm = d < D
    pid_m = tl.program_id(0)
    base = tl.program_id(1).to(tl.int64) * S * D
    rows = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    n = tl.arange(0, BLOCK_N)
    q = tl.load(Q + base + rows[:, None] * D + d[None, :],
                mask=(rows[:, None] < S) & dm[None, :], other=0.0)
    m_i = tl.full([BLOCK_M], float("-inf"), dtype=tl.float32)
    l_i = tl.zeros([BLOCK_M], dtype=tl.float32)
    acc = tl.zeros([BLOCK_M, HEAD_D], dtype=tl.float32)
    full_end = (S // BLOCK_N) * BLOCK_N
    hi = S
    if causal:
        full_end = tl.minimum(full_end, pid_m * BLOCK_M)
        hi = tl.minimum(S, (pid_m + 1) * BLOCK_M)
    for start in range(0, full_end, BLOCK_N):
        cols = start + n
        acc, m_i, l_i = _tile(acc, m_i, l_i, q, K + base + cols[None, :] * D + d[:, None],
                              V + base + cols[:, None] * D + d[None, :], rows, cols, S, causal,
                              scale, dm, False)
    for start in range(full_end, hi, BLOCK_N):
        cols = start + n
        acc, m_i, l_i = _tile(acc, m_i, l_i, q, K + base + cols[None, :] * D + d[:, None],
                              V + base + cols[:, None] * D + d[None, :], rows, cols, S, causal,
                              scale, dm, True)
    out = acc / l_i[:, None]
    tl.store(O + base + rows[:, None] * D + d[None, :], out.to(tl.float16),
             mask=(rows[:, None] < S) & dm[None, :])


def launch_flash_attention(BH, S, D):
    head_d = max(16, triton.next_power_of_2(D))
    block_m, block_n = 128, 64
    num_warps = 8 if head_d > 64 else 4
    return {"grid": (triton.cdiv(S, block_m), BH), "BLOCK_M": block_m, "BLOCK_N": block_n,
            "HEAD_D": head_d, "VEC": D % 8 == 0, "num_warps": num_warps, "num_stages": 3}
