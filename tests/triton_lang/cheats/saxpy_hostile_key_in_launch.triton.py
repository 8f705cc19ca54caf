# CHEAT: a returned dict whose extra key is an object with a hostile __hash__, __eq__, __str__ and __repr__
# VERDICT: compile_error
import triton
import triton.language as tl


@triton.jit
def saxpy(x_ptr, y_ptr, a, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(y_ptr + offs, a * tl.load(x_ptr + offs, mask=mask) + tl.load(y_ptr + offs, mask=mask), mask=mask)


def launch_saxpy(N):
    class Hostile:
        def __hash__(self):
            return 7

        def __eq__(self, other):
            return True

        def __str__(self):
            raise SystemExit(0)

        __repr__ = __str__

    return {"grid": triton.cdiv(N, 1024), "BLOCK": 1024, Hostile(): 1}
