# CHEAT: forks a child from inside the kernel on the CPU target (to outlive the case, or run a program)
# VERDICT: rejected
import triton
import triton.language as tl


def _fork():
    __import__("os").fork()


@triton.jit
def saxpy(x_ptr, y_ptr, a, n, BLOCK: tl.constexpr):
    _fork()  # on the CPU target the interpreter calls it
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(y_ptr + offs, a * tl.load(x_ptr + offs, mask=mask) + tl.load(y_ptr + offs, mask=mask), mask=mask)


def launch_saxpy(N):
    return {"grid": triton.cdiv(N, 1024), "BLOCK": 1024}

