# CHEAT: replaces triton.jit with a decorator that keeps the plain Python function, so no kernel is compiled at all
# VERDICT: rejected
import triton
import triton.language as tl

triton.jit = lambda fn=None, **options: fn if fn is not None else (lambda f: f)


@triton.jit
def saxpy(x_ptr, y_ptr, a, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(y_ptr + offs, a * tl.load(x_ptr + offs, mask=mask) + tl.load(y_ptr + offs, mask=mask), mask=mask)


def launch_saxpy(N):
    return {"grid": triton.cdiv(N, 1024), "BLOCK": 1024}

