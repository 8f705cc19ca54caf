"""What makes a benchmark time one no kernel can fake (#26).

- Fresh inputs per timed call: each call's inputs are one of the case's base
  sets transformed by that call's own secret seed — every floating-point
  element multiplied by 2^e, e drawn from {-1, 0} (exact: no rounding, the
  sign and the value grid kept, no magnitude above the exercise's design);
  in an exercise without floating-point inputs,
  every integer input rotated by a random offset (values and their mix kept).
  An output cached for an earlier input is wrong for this one.
- Every timed output is checked on the GPU against the fp64 reference of that
  call's inputs, computed after the call from the protected base set; the base
  sets carry a keyed hash (the key lives on the host only), checked after each
  call, so a kernel that rewrites them to make the reference easy is caught.
- A physical floor: no correct kernel moves the exercise's least bytes faster
  than the device's memory allows, nor does its flops faster than the device's
  peak for the inputs' precision (read from the device, never a card's name).
"""

from __future__ import annotations

import secrets
from typing import Any

import numpy as np

from kernels.buffers import storage_dtype

FLOAT_TYPES = ("float16", "bfloat16", "float32", "float64")
# The timed calls' inputs are halved here and there, which the exercise's tolerance was not
# calibrated on (attention's fp32 sums missed it by 1.6x on an H200); twice the tolerance
# still refuses a replayed output (off by up to 2x) and a TF32 product in an fp32 GEMM.
TOLERANCE_FACTOR = 2.0
# Headroom over the device's memory bandwidth: the theoretical DRAM rate from
# the device's attributes is already a ceiling; 15% more absorbs attribute
# rounding and a cache line or two of the bytes model.
BANDWIDTH_SLACK = 1.15
FALLBACK_CLOCK_MHZ = 3000  # no clock readable: a clock no GPU reaches (a lower floor)

# Dense flops per SM per clock: FP32 FMA units, TF32 / FP16 / INT8 tensor cores.
# A float32-accurate product needs at least one TF32 product per FMA (TF32 alone
# is less accurate), so float32 exercises are held to the TF32 rate: a kernel
# may use tensor cores (split-TF32 tricks) and never meets the floor.
_RATES = {  # (major, minor): {class: flops per SM per clock}
    (7, 0): {"tf32": 1024, "fp16": 1024, "int8": 1024},
    (8, 0): {"tf32": 1024, "fp16": 2048, "int8": 4096},
    (8, 6): {"tf32": 512, "fp16": 1024, "int8": 2048},
    (8, 9): {"tf32": 512, "fp16": 1024, "int8": 2048},
    (9, 0): {"tf32": 2048, "fp16": 4096, "int8": 8192},
    (10, 0): {"tf32": 4096, "fp16": 8192, "int8": 16384},
}
_UNKNOWN = {k: max(r[k] for r in _RATES.values()) for k in ("tf32", "fp16", "int8")}

_HASH_SOURCE = r"""
__device__ __forceinline__ unsigned long long kd_mix(unsigned long long z) {
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}
extern "C" __global__ void kdojo_keyed_hash(const unsigned char* data, unsigned long long nbytes,
                                            unsigned long long key, unsigned long long* out) {
    unsigned long long acc = 0;
    unsigned long long words = nbytes / 8, stride = (unsigned long long)gridDim.x * blockDim.x;
    const unsigned long long* w = (const unsigned long long*)data;
    for (unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x; i < words; i += stride)
        acc += kd_mix(w[i] ^ kd_mix(key + i));
    if (blockIdx.x == 0 && threadIdx.x == 0)
        for (unsigned long long b = words * 8; b < nbytes; ++b) acc += kd_mix(data[b] ^ kd_mix(key + b + 0x9e37ULL));
    for (int o = 16; o > 0; o >>= 1) acc += __shfl_down_sync(0xffffffffu, acc, o);
    if ((threadIdx.x & 31) == 0) atomicAdd(out, acc);
}
"""
_KERNELS: dict[str, Any] = {}


def keyed_hash(array: Any, key: int) -> Any:
    """A device scalar (uint64) hashing `array`'s bytes under `key`; nothing on the
    device can forge a change that keeps it without the key."""
    import cupy

    if "hash" not in _KERNELS:
        _KERNELS["hash"] = cupy.RawKernel(_HASH_SOURCE, "kdojo_keyed_hash")
    out = cupy.zeros(1, dtype=cupy.uint64)
    flat = cupy.ascontiguousarray(array)
    nbytes = flat.nbytes
    blocks = max(1, min(1024, (nbytes // 8 + 255) // 256))
    _KERNELS["hash"]((blocks,), (256,), (flat, np.uint64(nbytes), np.uint64(key), out))
    return out


def input_kind(exercise: Any) -> str:
    """'float' when any input is floating point (those get scaled), else 'int' (rotated)."""
    roles = [b for b in exercise.buffers if b.role in ("in", "inout")]
    return "float" if any(b.dtype in FLOAT_TYPES for b in roles) else "int"


def fresh_inputs(exercise: Any, base: dict[str, Any], seed: int) -> dict[str, Any]:
    """New device arrays: the base set's inputs as timed call `seed` sees them."""
    import cupy

    rng = cupy.random.default_rng(seed)
    shifts = np.random.default_rng(seed)
    kind = input_kind(exercise)
    out = {}
    for b in exercise.buffers:
        if b.role not in ("in", "inout"):
            continue
        array = base[b.name]
        if kind == "float" and b.dtype in FLOAT_TYPES:
            exponent = -(rng.random(array.shape, dtype=cupy.float32) < 0.5).astype(cupy.int32)  # -1 or 0
            out[b.name] = _scale_pow2(array, b.dtype, exponent)
        elif kind == "int" and array.size > 1:
            shift = int(shifts.integers(1, array.size))
            out[b.name] = cupy.roll(array.reshape(-1), shift).reshape(array.shape)
        else:
            out[b.name] = array.copy()
    return out


def _scale_pow2(array: Any, dtype: str, exponent: Any) -> Any:
    import cupy

    if dtype == "bfloat16":  # bits: widen, scale (exact), narrow back (exact)
        wide = (array.astype(cupy.uint32) << 16).view(cupy.float32)
        scaled = cupy.ldexp(wide, exponent)
        return (scaled.view(cupy.uint32) >> 16).astype(cupy.uint16)
    return cupy.ldexp(array, exponent).astype(storage_dtype(dtype), copy=False)


def device_mismatches(got: Any, want: Any, dtype: str, rtol: float, atol: float, scale: Any) -> int:
    """How many elements fail kernels.check.compare's rule, computed on the device."""
    import cupy

    if dtype == "bfloat16":
        got64 = (got.astype(cupy.uint32) << 16).view(cupy.float32).astype(cupy.float64)
    else:
        got64 = got.astype(cupy.float64)
    got64 = got64.reshape(-1)
    want64 = cupy.asarray(want, dtype=cupy.float64).reshape(-1)
    if got64.size != want64.size:
        return max(got64.size, want64.size)
    scale64 = cupy.asarray(scale, dtype=cupy.float64)
    scale64 = scale64.reshape(-1) if scale64.size == want64.size else scale64
    close = cupy.abs(got64 - want64) <= atol * scale64 + rtol * cupy.abs(want64)
    finite = cupy.isfinite(want64) & cupy.isfinite(got64)
    ok = (close & finite) | (cupy.isnan(got64) & cupy.isnan(want64)) \
        | (cupy.isinf(want64) & (got64 == want64))
    return int(ok.size - int(cupy.count_nonzero(ok)))


def new_key() -> int:
    return secrets.randbits(64)


# -- the physical floor -------------------------------------------------------

def device_limits(copy_gbps: float) -> dict[str, Any]:
    """The device's ceilings: SM count and max clock, the memory bandwidth the
    floor allows (max of the measured copy and the DRAM's theoretical rate, with
    headroom) and the peak flops per precision class."""
    import cupy

    attr = cupy.cuda.runtime.deviceGetAttribute
    props = cupy.cuda.runtime.getDeviceProperties(cupy.cuda.Device().id)
    sms = int(props["multiProcessorCount"])
    cc = (int(props["major"]), int(props["minor"]))
    clock_mhz = _attribute_mhz(attr, 13) or _nvml_max_clock_mhz("sm") or FALLBACK_CLOCK_MHZ
    mem_mhz = _attribute_mhz(attr, 36) or _nvml_max_clock_mhz("mem")
    bus_bits = _attribute(attr, 37)
    dram_gbps = 2 * mem_mhz * 1e6 * bus_bits / 8 / 1e9 if mem_mhz and bus_bits else 0.0
    rates = _RATES.get(cc, _UNKNOWN)
    return {"sms": sms, "sm_clock_mhz": clock_mhz, "dram_gbps": round(dram_gbps, 1),
            "floor_gbps": round(BANDWIDTH_SLACK * max(copy_gbps, dram_gbps), 1),
            "peak_gflops": {k: sms * clock_mhz * 1e6 * v / 1e9 for k, v in rates.items()}}


def _attribute(get: Any, number: int) -> int:
    try:
        return int(get(number, 0))
    except Exception:  # noqa: BLE001 — an attribute this CUDA no longer reports
        return 0


def _attribute_mhz(get: Any, number: int) -> float:
    khz = _attribute(get, number)
    return khz / 1000 if khz > 0 else 0.0


def _nvml_max_clock_mhz(which: str) -> float:
    try:
        import cupy
        import pynvml

        pynvml.nvmlInit()
        handle = pynvml.nvmlDeviceGetHandleByPciBusId(cupy.cuda.Device().pci_bus_id)
        clock = pynvml.NVML_CLOCK_SM if which == "sm" else pynvml.NVML_CLOCK_MEM
        return float(pynvml.nvmlDeviceGetMaxClockInfo(handle, clock))
    except Exception:  # noqa: BLE001 — NVML is optional (kernels/telemetry.py)
        return 0.0


def precision_class(exercise: Any) -> str:
    """The fastest tensor path the exercise's inputs allow: int8 inputs → INT8 rate,
    16-bit floats → FP16 rate, else TF32 (see _RATES)."""
    dtypes = {b.dtype for b in exercise.buffers if b.role in ("in", "inout")}
    if dtypes & {"int8", "uint8"} and not dtypes & {"float32", "float64"}:
        return "int8"
    if dtypes & {"float16", "bfloat16", "int8", "uint8"}:
        return "fp16"
    return "tf32"


def floor_ms(exercise: Any, env: dict[str, int], limits: dict[str, Any]) -> tuple[float, str]:
    """(the least time a correct call can take here, what bounds it: 'memory' or 'compute')."""
    bench = exercise.benchmark
    model = bench.floor_bytes or bench.bytes
    memory = model.evaluate(env) / (limits["floor_gbps"] * 1e9) * 1e3 if model is not None else 0.0
    compute = 0.0
    if bench.flops is not None:
        compute = bench.flops.evaluate(env) / (limits["peak_gflops"][precision_class(exercise)] * 1e9) * 1e3
    return (memory, "memory") if memory >= compute else (compute, "compute")
