# CHEAT: counts its runs in a Python global the interpreter keeps between cases and does nothing in every second one
# VERDICT: rejected
import triton
import triton.language as tl

RUNS = [0]



def _scalar(value):
    handle = getattr(value, "handle", None)
    return handle.data.reshape(-1)[0].item() if handle is not None else value

def _count(pid):
    if int(_scalar(pid)) == 0:  # the last program of a run (they run in reverse)
        RUNS[0] += 1
    return RUNS[0] % 2 == 1


@triton.jit
def saxpy(x_ptr, y_ptr, a, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    work = True
    if hasattr(pid.handle, "data"):
        work = _count(pid)
    if work:
        offs = pid * BLOCK + tl.arange(0, BLOCK)
        mask = offs < n
        tl.store(y_ptr + offs, a * tl.load(x_ptr + offs, mask=mask) + tl.load(y_ptr + offs, mask=mask), mask=mask)


def launch_saxpy(N):
    return {"grid": triton.cdiv(N, 1024), "BLOCK": 1024}
