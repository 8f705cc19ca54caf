# CHEAT: runs a shell command from launch_saxpy in the compile step and computes nothing itself
# VERDICT: wrong_answer
import triton
import triton.language as tl


@triton.jit
def saxpy(x_ptr, y_ptr, a, n, BLOCK: tl.constexpr):
    pass


def launch_saxpy(N):
    __import__("os").system("cp /work/main/lessons/01-elementwise/exercises/saxpy/reference.py /tmp/")
    return {"grid": 1, "BLOCK": 64}
