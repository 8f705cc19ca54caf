# Fused gated-MLP activation (bf16 in and out, fp32 inside):
#   out[r, c] = act(gate_up[r, c]) * gate_up[r, hidden + c]
# act = 0: SiLU, g / (1 + exp(-g)) (SwiGLU); act = 1: the exact GELU,
# 0.5 g (1 + erf(g / sqrt 2)) (GeGLU).
# Grid (ceil(hidden / BLOCK), rows): a program handles BLOCK columns of one row.
# VEC (hidden % 8 == 0) tells the compiler that the row's gate, up and out
# start on 16 bytes, so it can load and store 8 bf16 at a time.
import triton
import triton.language as tl


@triton.jit
def glu(gate_up, out, rows, hidden, act, BLOCK: tl.constexpr, VEC: tl.constexpr):
    row = tl.program_id(1).to(tl.int64)
    cols = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = cols < hidden
    g_base = row * 2 * hidden
    u_base = g_base + hidden
    o_base = row * hidden
    if VEC:
        g_base = tl.multiple_of(g_base, 8)
        u_base = tl.multiple_of(u_base, 8)
        o_base = tl.multiple_of(o_base, 8)
    g = tl.load(gate_up + g_base + cols, mask=mask, other=0.0).to(tl.float32)
    u = tl.load(gate_up + u_base + cols, mask=mask, other=0.0).to(tl.float32)
    if act == 0:
        a = g / (1.0 + tl.exp(-g))        # g = -120: g / inf = -0, no NaN
    else:
        a = 0.5 * g * (1.0 + tl.erf(g * 0.7071067811865476))
    tl.store(out + o_base + cols, (a * u).to(tl.bfloat16), mask=mask)


def launch_glu(rows, hidden):
    block = min(2048, triton.next_power_of_2(hidden))
    return {"grid": (triton.cdiv(hidden, block), rows), "BLOCK": block, "VEC": hidden % 8 == 0,
            "num_warps": 8 if block >= 2048 else 4}
