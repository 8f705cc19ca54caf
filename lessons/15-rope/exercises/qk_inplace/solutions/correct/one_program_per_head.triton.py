# One program per (token, head): grid = (tokens, heads + kv_heads). Program y
# below heads rotates that q head, the others the k head y - heads. Each
# recomputes its token's cos and sin: cheap next to the memory traffic.
import triton
import triton.language as tl


@triton.jit
def rope(q_ptr, k_ptr, tokens, heads, kv_heads, head_dim, pos_offset, theta, HALF_B: tl.constexpr):
    t = tl.program_id(0)
    h = tl.program_id(1)
    if h < heads:
        row = q_ptr + (t * heads + h).to(tl.int64) * head_dim
    else:
        row = k_ptr + (t * kv_heads + (h - heads)).to(tl.int64) * head_dim
    half = head_dim // 2
    i = tl.arange(0, HALF_B)
    inside = i < half
    freq = tl.exp(-(2.0 * i) / head_dim * tl.log(theta))
    angle = (t + pos_offset).to(tl.float32) * freq
    cos_a = tl.cos(angle)
    sin_a = tl.sin(angle)
    a = tl.load(row + i, mask=inside).to(tl.float32)
    b = tl.load(row + half + i, mask=inside).to(tl.float32)
    tl.store(row + i, (a * cos_a - b * sin_a).to(tl.bfloat16), mask=inside)
    tl.store(row + half + i, (b * cos_a + a * sin_a).to(tl.bfloat16), mask=inside)


def launch_rope(tokens, heads, kv_heads, head_dim):
    return {"grid": (tokens, heads + kv_heads), "HALF_B": triton.next_power_of_2(max(1, head_dim // 2)),
            "num_warps": 1}
