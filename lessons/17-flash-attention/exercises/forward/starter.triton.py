# FlashAttention forward (FP16 in and out, FP32 inside), tensor cores through tl.dot:
#   O[h][i] = sum_j softmax_j(Q[h][i].K[h][j] / sqrt(D)) V[h][j], keys j <= i when causal.
# Grid (ceil(S / BLOCK_M), BH): a program keeps its BLOCK_M query rows, the
# running max m, the running sum l and the FP32 output tile in registers, and
# streams K and V BLOCK_N keys at a time (Triton pipelines those loads). Key
# tiles wholly inside the sequence and wholly below the diagonal need no mask:
# they take the first loop; the rest (the diagonal, the ragged end) the second.
import triton
import triton.language as tl


@triton.jit
def _tile(acc, m_i, l_i, q, k_ptrs, v_ptrs, rows, cols, S, causal, scale,
          dm, MASKED: tl.constexpr):
    # BEGIN FILL-IN
    # One key tile: load the k tile transposed (k_ptrs) and the v tile (v_ptrs),
    # their columns masked by dm, their keys masked when MASKED (keys past S;
    # keys past the row when causal); scores tl.dot(q, kt) * scale, then the
    # online softmax update of m_i, l_i and acc (acc += tl.dot(p.to(tl.float16), v)).
    # Return the new (acc, m_i, l_i).
    return acc, m_i, l_i + 1.0  # placeholder: O stays 0
    # END FILL-IN


@triton.jit
def flash_attention(Q, K, V, O, S, D, causal,
                    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, HEAD_D: tl.constexpr,
                    VEC: tl.constexpr):
    scale = 1.4426950408889634 / tl.sqrt(D.to(tl.float32))   # log2(e) / sqrt(D)
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
