# One program per row (grid (rows, 1)), walking its columns 1024 at a time;
# SiLU through tl.sigmoid.
import triton
import triton.language as tl


@triton.jit
def glu(gate_up, out, rows, hidden, act, CHUNK: tl.constexpr):
    r = tl.program_id(0).to(tl.int64)
    gate = gate_up + r * 2 * hidden
    up = gate + hidden
    dst = out + r * hidden
    for c0 in range(0, hidden, CHUNK):
        c = c0 + tl.arange(0, CHUNK)
        inside = c < hidden
        g = tl.load(gate + c, mask=inside, other=0.0).to(tl.float32)
        u = tl.load(up + c, mask=inside, other=0.0).to(tl.float32)
        if act == 1:
            y = g * 0.5 * (1.0 + tl.erf(g / 1.4142135623730951))
        else:
            y = g * tl.sigmoid(g)
        tl.store(dst + c, (y * u).to(tl.bfloat16), mask=inside)


def launch_glu(rows, hidden):
    return {"grid": (rows, 1), "CHUNK": 1024, "num_warps": 4}
