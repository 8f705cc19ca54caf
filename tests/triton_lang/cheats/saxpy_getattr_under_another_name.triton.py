# CHEAT: binds getattr to a module-level "constant" and calls it from the kernel to reach the pointer's .handle (the buffer's address) by a string on the CPU target
# VERDICT: rejected
import triton
import triton.language as tl

PEEK = getattr


@triton.jit
def saxpy(x_ptr, y_ptr, a, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    address = PEEK(PEEK(x_ptr, "han" + "dle"), "data")  # a numpy array in the interpreter
    tl.store(y_ptr + offs, a * tl.load(x_ptr + offs, mask=mask) + tl.load(y_ptr + offs, mask=mask), mask=mask)


def launch_saxpy(N):
    return {"grid": triton.cdiv(N, 1024), "BLOCK": 1024}
