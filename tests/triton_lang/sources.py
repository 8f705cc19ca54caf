"""Triton learner files the tests compile (and the GPU tests run)."""

SAXPY = '''import triton
import triton.language as tl


@triton.jit
def saxpy(x_ptr, y_ptr, a, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(y_ptr + offs, a * x + y, mask=mask)


def launch_saxpy(N):
    BLOCK = 1024 if N >= 65536 else 256
    return {"grid": (triton.cdiv(N, BLOCK),), "BLOCK": BLOCK, "num_warps": 4}
'''

SOFTMAX = '''import triton
import triton.language as tl


@triton.jit
def softmax(x_ptr, y_ptr, rows, cols, BLOCK: tl.constexpr):
    base = tl.program_id(0).to(tl.int64) * cols
    m = tl.full([BLOCK], float("-inf"), tl.float32)
    for start in range(0, cols, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        m = tl.maximum(m, tl.load(x_ptr + base + offs, mask=offs < cols, other=float("-inf")))
    top = tl.max(m, axis=0)
    s = tl.zeros([BLOCK], tl.float32)
    for start in range(0, cols, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        s += tl.exp(tl.load(x_ptr + base + offs, mask=offs < cols, other=float("-inf")) - top)
    total = tl.sum(s, axis=0)
    for start in range(0, cols, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + base + offs, mask=offs < cols, other=float("-inf"))
        tl.store(y_ptr + base + offs, tl.exp(x - top) / total, mask=offs < cols)


def launch_softmax(**sizes):
    return {"grid": sizes["rows"], "BLOCK": 1024, "num_warps": 8}
'''

TRITON_SOFTMAX = '''
[triton]
[[triton.launch]]
kernel = "softmax"
args = ["x", "y", "rows", "cols"]
'''


# saxpy as the Triton tutorials write it: @triton.autotune over configs, the grid a function
# of the meta-parameters (the judge compiles and times the first config)
SAXPY_AUTOTUNED = SAXPY.replace(
    "@triton.jit\n",
    '@triton.autotune(configs=[triton.Config({"BLOCK": 1024}, num_warps=4),\n'
    '                          triton.Config({"BLOCK": 256}, num_warps=2, num_stages=2)], key=["n"])\n'
    "@triton.jit\n", 1).replace(
    '    BLOCK = 1024 if N >= 65536 else 256\n'
    '    return {"grid": (triton.cdiv(N, BLOCK),), "BLOCK": BLOCK, "num_warps": 4}\n',
    '    return {"grid": lambda META: (triton.cdiv(N, META["BLOCK"]),)}\n')


def line_of(source: str, text: str) -> int:
    """The 1-based line of the first line containing `text`."""
    return next(i for i, line in enumerate(source.splitlines(), start=1) if text in line)

# saxpy through TMA tensor descriptors made on the device: Triton gives the kernel global
# scratch memory (256 bytes per program on sm_90), which kernels/triton/gpu.py allocates
SAXPY_DESCRIPTORS = '''import triton
import triton.language as tl


@triton.jit
def saxpy(x_ptr, y_ptr, a, n, BLOCK: tl.constexpr):
    start = tl.program_id(0) * BLOCK
    xd = tl.make_tensor_descriptor(x_ptr, shape=[n], strides=[1], block_shape=[BLOCK])
    yd = tl.make_tensor_descriptor(y_ptr, shape=[n], strides=[1], block_shape=[BLOCK])
    yd.store([start], a * xd.load([start]) + yd.load([start]))


def launch_saxpy(N):
    return {"grid": triton.cdiv(N, 256), "BLOCK": 256}
'''
