# CHEAT: reaches torch through importlib from launch_saxpy (no import statement for the source check to see) to call the library's saxpy
# VERDICT: compile_error
import triton
import triton.language as tl


@triton.jit
def saxpy(x_ptr, y_ptr, a, n, BLOCK: tl.constexpr):
    pass


def launch_saxpy(N):
    torch = __import__("importlib").import_module("torch")
    torch.zeros(N)
    return {"grid": 1, "BLOCK": 64}
