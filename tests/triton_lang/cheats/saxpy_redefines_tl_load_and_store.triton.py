# CHEAT: redefines tl.load and tl.store as plain Python before the kernel is traced, hoping to run host code in their place
# VERDICT: rejected
import triton
import triton.language as tl


def _load(pointer, mask=None, other=None, **kwargs):
    return 0.0


def _store(pointer, value, mask=None, **kwargs):
    return None


tl.load, tl.store = _load, _store


@triton.jit
def saxpy(x_ptr, y_ptr, a, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(y_ptr + offs, a * tl.load(x_ptr + offs, mask=mask) + tl.load(y_ptr + offs, mask=mask), mask=mask)


def launch_saxpy(N):
    return {"grid": triton.cdiv(N, 1024), "BLOCK": 1024}

