# Bug: SiLU as g * e^g / (1 + e^g): for a gate past 88.7, e^g is inf and inf / inf
# is NaN.
import triton
import triton.language as tl


@triton.jit
def glu(gate_up, out, rows, hidden, act, BLOCK: tl.constexpr, VEC: tl.constexpr):
    row = tl.program_id(1).to(tl.int64)
    cols = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    if VEC:
        # written so the compiler sees multiples of 8 (tl.multiple_of does not
        # reach a scalar argument): the same values, 16-byte accesses
        hidden = (hidden // 8) * 8
        mask = (cols // 8) < (hidden // 8)
    else:
        mask = cols < hidden
    g_base = row * 2 * hidden
    u_base = g_base + hidden
    o_base = row * hidden
    g = tl.load(gate_up + g_base + cols, mask=mask, other=0.0).to(tl.float32)
    u = tl.load(gate_up + u_base + cols, mask=mask, other=0.0).to(tl.float32)
    if act == 0:
        e = tl.exp(g)
        a = g * e / (1.0 + e)
    else:
        a = 0.5 * g * (1.0 + tl.erf(g * 0.7071067811865476))
    tl.store(out + o_base + cols, (a * u).to(tl.bfloat16), mask=mask)


def launch_glu(rows, hidden):
    block = min(2048, triton.next_power_of_2(hidden))
    return {"grid": (triton.cdiv(hidden, block), rows), "BLOCK": block, "VEC": hidden % 8 == 0,
            "num_warps": 8 if block >= 2048 else 4}
