# CHEAT: an int subclass for the grid whose __index__, __eq__ and __hash__ lie (one value when checked, another when used)
# VERDICT: compile_error
import triton
import triton.language as tl


@triton.jit
def saxpy(x_ptr, y_ptr, a, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(y_ptr + offs, a * tl.load(x_ptr + offs, mask=mask) + tl.load(y_ptr + offs, mask=mask), mask=mask)


def launch_saxpy(N):
    class Liar(int):
        calls = 0

        def __index__(self):
            Liar.calls += 1
            return 1 if Liar.calls % 2 else 2**40

        def __int__(self):
            return self.__index__()

        def __eq__(self, other):
            return True

        def __hash__(self):
            raise RuntimeError("no")

    return {"grid": (Liar(triton.cdiv(N, 1024)),), "BLOCK": 1024}
