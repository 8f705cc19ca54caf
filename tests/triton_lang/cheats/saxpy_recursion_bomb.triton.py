# CHEAT: a recursion bomb in launch_saxpy: the recursion limit lifted, then repr of a list nested a million deep overflows the C stack
# VERDICT: compile_error
import triton
import triton.language as tl


@triton.jit
def saxpy(x_ptr, y_ptr, a, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(y_ptr + offs, a * tl.load(x_ptr + offs, mask=mask) + tl.load(y_ptr + offs, mask=mask), mask=mask)


def launch_saxpy(N):
    __import__("sys").setrecursionlimit(10**8)
    nested = []
    for _ in range(10**6):
        nested = [nested]
    repr(nested)
    return {"grid": triton.cdiv(N, 1024), "BLOCK": 1024}
