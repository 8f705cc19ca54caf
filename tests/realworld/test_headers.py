"""The header allow-list means the same on NVRTC as on the emulator (#12):
every allowed header compiles under NVRTC (with our own small headers and the
pinned CCCL), and what nvcc makes visible without an include exists too."""

import pytest

from kernels.emu.source import ALLOWED_INCLUDES, UNSUPPORTED_INCLUDES
from kernels.includes import (ALLOWED_HEADERS, C_HEADERS, CUB_HEADERS, CUDA_HEADERS, CUDA_STD_HEADERS,
                              check_includes)
from kernels.nvrtc import NvrtcUnavailable, compile_program, load

OPTIONS = ["-std=c++17", "--gpu-architecture=compute_90"]


@pytest.fixture(scope="module")
def nvrtc():
    try:
        return load()
    except NvrtcUnavailable as exc:  # pragma: no cover - the wheel is a dependency
        pytest.skip(str(exc))


def _toolkit_has(nv, header: str) -> bool:
    return any((d / header).is_file() for d in nv.include_dirs)


GROUPS = {"c": C_HEADERS, "cuda": CUDA_HEADERS, "cuda_std": CUDA_STD_HEADERS, "cub": CUB_HEADERS}


@pytest.mark.parametrize("group", sorted(GROUPS))
def test_every_allowed_header_compiles_under_nvrtc(nvrtc, group):
    """One translation unit per group (NVRTC takes ~2 s for CUB or cooperative groups)."""
    headers = sorted(h for h in GROUPS[group] if _toolkit_has(nvrtc, h) or group != "cuda")
    if not headers:
        pytest.skip("these come from a CUDA toolkit, none installed here")
    includes = "".join(f"#include <{h}>\n" for h in headers)
    out = compile_program(includes + "__global__ void k(float* p) { p[0] = 1.0f; }\n", "t.cu", OPTIONS)
    assert out.ok, out.log
    assert "warning" not in out.log, out.log


def test_the_names_learners_use_without_an_include(nvrtc):
    src = ("__global__ void k(float* p, unsigned* q) {\n"
           "    uint n = 3u;\n"
           "    constexpr float lo = -INFINITY;\n"
           "    p[0] = lo; p[1] = NAN; q[0] = n;\n}\n")
    out = compile_program(src, "t.cu", OPTIONS)
    assert out.ok, out.log


def test_c_header_names(nvrtc):
    src = ("#include <cstdint>\n#include <cfloat>\n#include <climits>\n#include <cmath>\n#include <cstddef>\n"
           "__global__ void k(float* p) {\n"
           "    uint32_t a = UINT32_MAX; int64_t b = INT64_MIN; std::uint8_t c = 7; size_t s = sizeof(a);\n"
           "    p[0] = FLT_MAX + FLT_EPSILON + (float)M_PI + (float)INT_MAX + (float)(a + b + c + s);\n}\n")
    out = compile_program(src, "t.cu", OPTIONS)
    assert out.ok, out.log


def test_cmath_names_the_math_functions_in_std(nvrtc):
    """nvcc lets device code call std::exp & co. after <cmath> or <math.h>; NVRTC only knows ::exp."""
    for header in ("cmath", "math.h"):
        src = (f"#include <{header}>\n#include <cuda/std/cmath>\n#include <cub/cub.cuh>\n"
               "__global__ void k(float* p, double* d) {\n"
               "    p[0] = std::exp(p[1]) + std::sqrt(2.0f) + std::fabs(p[2]) + std::fma(p[3], p[4], p[5]) + std::tanh(p[6]);\n"
               "    d[0] = std::exp(d[1]) + std::pow(d[2], 2.0) + std::isnan(d[3]) + cuda::std::exp(d[4]);\n}\n")
        out = compile_program(src, "t.cu", OPTIONS)
        assert out.ok and "warning" not in out.log, out.log


def test_cub_block_primitives_compile_under_nvrtc(nvrtc):
    src = ("#include <cub/cub.cuh>\n"
           "__global__ void k(const float* in, float* out) {\n"
           "    using R = cub::BlockReduce<float, 256>;\n    using S = cub::BlockScan<int, 256>;\n"
           "    using W = cub::WarpReduce<float>;\n"
           "    __shared__ typename R::TempStorage r;\n    __shared__ typename S::TempStorage s;\n"
           "    __shared__ typename W::TempStorage w[8];\n"
           "    float v = R(r).Sum(in[threadIdx.x]);\n    int x;\n    S(s).ExclusiveSum(1, x);\n"
           "    float u = W(w[threadIdx.x / 32]).Sum(in[threadIdx.x]);\n"
           "    if (threadIdx.x == 0) out[0] = v + u + x;\n}\n")
    out = compile_program(src, "t.cu", OPTIONS)
    assert out.ok, out.log


def test_one_list_for_both_backends():
    # the emulator provides every allowed header but CUB, which it answers as needing a GPU
    assert ALLOWED_HEADERS - CUB_HEADERS <= ALLOWED_INCLUDES
    assert CUB_HEADERS <= UNSUPPORTED_INCLUDES
    for header in ALLOWED_HEADERS:
        assert check_includes(f"#include <{header}>\n") == []


def test_a_refused_include_names_the_list_shortly():
    (violation,) = check_includes("#include <stdlib.h>\n")
    assert "cstdint" in violation.message and "<cub/…>" in violation.message
