# A 2D grid of 64x64 tiles (program (i, j) owns tile row i, tile column j), and the
# epilogue in its own @triton.jit helper, applied to the accumulator tile.
import triton
import triton.language as tl


@triton.jit
def gelu_tanh(x):
    u = 0.7978845608028654 * (x + 0.044715 * x * x * x)
    return 0.5 * x * (1.0 + (1.0 - 2.0 / (1.0 + tl.exp(2.0 * u))))


@triton.jit
def epilogue(acc, c_ptr, bias_ptr, rm, rn, M, N, alpha, beta, bias_kind, act):
    v = alpha * acc
    if beta != 0:
        c = tl.load(c_ptr + rm[:, None] * N + rn[None, :], mask=(rm[:, None] < M) & (rn[None, :] < N), other=0.0)
        v = v + beta * c
    if bias_kind == 1:
        v = v + tl.load(bias_ptr + rn, mask=rn < N, other=0.0)[None, :]
    if bias_kind == 2:
        v = v + tl.load(bias_ptr + rm, mask=rm < M, other=0.0)[:, None]
    if bias_kind == 3:
        v = v + tl.load(bias_ptr)
    if act == 1:
        v = tl.where(v > 0, v, 0.0)
    if act == 2:
        v = gelu_tanh(v)
    return v


@triton.jit
def gemm_bias_act(a_ptr, b_ptr, c_ptr, bias_ptr, d_ptr, M, N, K, alpha, beta, bias_kind, act,
                  BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k0 in range(0, K, BK):
        rk = k0 + tl.arange(0, BK)
        a = tl.load(a_ptr + rm[:, None] * K + rk[None, :], mask=(rm[:, None] < M) & (rk[None, :] < K), other=0.0)
        b = tl.load(b_ptr + rk[:, None] * N + rn[None, :], mask=(rk[:, None] < K) & (rn[None, :] < N), other=0.0)
        acc += tl.dot(a, b, input_precision="ieee")
    v = epilogue(acc, c_ptr, bias_ptr, rm, rn, M, N, alpha, beta, bias_kind, act)
    tl.store(d_ptr + rm[:, None] * N + rn[None, :], v, mask=(rm[:, None] < M) & (rn[None, :] < N))


def launch_gemm_bias_act(M, N, K):
    return {"grid": (triton.cdiv(M, 64), triton.cdiv(N, 64)), "BM": 64, "BN": 64, "BK": 16, "num_warps": 4}
