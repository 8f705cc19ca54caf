# Bug: the exponent 2i / head_dim is an integer division (0 for every i < half), so
# every pair turns by the same angle, pos, as pair 0.
import triton
import triton.language as tl


@triton.jit
def _rotate_heads(ptr, t, nheads, head_dim, half, c, s, HB: tl.constexpr, HALF_B: tl.constexpr,
                  VW: tl.constexpr):
    # rows of the tile are heads, columns the first half of each head
    i = tl.arange(0, HALF_B)[None, :]
    for h0 in range(0, nheads, HB):
        h = h0 + tl.arange(0, HB)[:, None]
        mask = (h < nheads) & ((i // VW) < (half // VW))   # VW neighbours share their bit
        lo = ptr + (t * nheads + h).to(tl.int64) * head_dim + i
        x1 = tl.load(lo, mask=mask, other=0.0).to(tl.float32)
        x2 = tl.load(lo + half, mask=mask, other=0.0).to(tl.float32)
        tl.store(lo, (x1 * c - x2 * s).to(tl.bfloat16), mask=mask)
        tl.store(lo + half, (x2 * c + x1 * s).to(tl.bfloat16), mask=mask)


@triton.jit
def rope(q_ptr, k_ptr, tokens, heads, kv_heads, head_dim, pos_offset, theta,
         HB: tl.constexpr, HALF_B: tl.constexpr, VW: tl.constexpr):
    # VW = 8 when head_dim % 16 == 0: head_dim written so that the compiler sees
    # it, every half-head then starts on 16 bytes (16-byte loads and stores)
    head_dim = (head_dim // (2 * VW)) * (2 * VW)
    t = tl.program_id(0)
    half = head_dim // 2
    i = tl.arange(0, HALF_B)[None, :]
    inv_freq = tl.exp2(-((2 * i) // head_dim).to(tl.float32) * tl.log2(theta))
    angle = (pos_offset + t).to(tl.float32) * inv_freq
    c, s = tl.cos(angle), tl.sin(angle)
    _rotate_heads(q_ptr, t, heads, head_dim, half, c, s, HB, HALF_B, VW)
    _rotate_heads(k_ptr, t, kv_heads, head_dim, half, c, s, HB, HALF_B, VW)


def launch_rope(tokens, heads, kv_heads, head_dim):
    half_b = triton.next_power_of_2(max(1, head_dim // 2))
    hb = min(triton.next_power_of_2(max(heads, kv_heads)), max(1, 2048 // half_b))
    return {"grid": (tokens,), "HB": hb, "HALF_B": half_b, "VW": 8 if head_dim % 16 == 0 else 1,
            "num_warps": 4}
