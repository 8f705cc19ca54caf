# Rotary position embedding in place on q and k (bf16, half-split pairs):
# element i of a head pairs with element i + head_dim / 2, and the pair turns by
#   (pos_offset + token) * theta^(-2i / head_dim)
# One program per token: it computes the token's cos and sin once (HALF_B
# columns, a power of two >= head_dim / 2), then rotates the token's q heads
# and k heads, HB heads at a time.
import triton
import triton.language as tl


@triton.jit
def _rotate_heads(ptr, t, nheads, head_dim, half, c, s, HB: tl.constexpr, HALF_B: tl.constexpr,
                  VW: tl.constexpr):
    # BEGIN FILL-IN
    # Rotate the pairs (x1, x2) = (element i, element i + half) of heads
    # 0 .. nheads-1 of token t by the angle whose cos and sin are c and s.
    pass
    # END FILL-IN


@triton.jit
def rope(q_ptr, k_ptr, tokens, heads, kv_heads, head_dim, pos_offset, theta,
         HB: tl.constexpr, HALF_B: tl.constexpr, VW: tl.constexpr):
    # VW = 8 when head_dim % 16 == 0: head_dim written so that the compiler sees
    # it, every half-head then starts on 16 bytes (16-byte loads and stores)
    head_dim = (head_dim // (2 * VW)) * (2 * VW)
    # BEGIN FILL-IN
    t = tl.program_id(0)
    half = head_dim // 2
    # placeholder: the cos and sin of no turn at all; compute the angles
    # (pos_offset + t) * theta^(-2i / head_dim) for i = 0 .. half-1
    c = tl.full([1, HALF_B], 1.0, tl.float32)
    s = tl.zeros([1, HALF_B], tl.float32)
    _rotate_heads(q_ptr, t, heads, head_dim, half, c, s, HB, HALF_B, VW)
    _rotate_heads(k_ptr, t, kv_heads, head_dim, half, c, s, HB, HALF_B, VW)
    # END FILL-IN


def launch_rope(tokens, heads, kv_heads, head_dim):
    half_b = triton.next_power_of_2(max(1, head_dim // 2))
    hb = min(triton.next_power_of_2(max(heads, kv_heads)), max(1, 2048 // half_b))
    return {"grid": (tokens,), "HB": hb, "HALF_B": half_b, "VW": 8 if head_dim % 16 == 0 else 1,
            "num_warps": 4}
