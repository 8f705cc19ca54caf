"""Host buffers with guard bands and sentinels, and dtype helpers.

Guards are filled with a fixed, recognisable value (7777.0 for floats — large,
so an out-of-bounds *read* into a sum visibly breaks it; 0x5A… for integers).
Outputs start as a sentinel (a NaN with a payload for floats, 0xDEADBEEF-like
for integers) so a kernel that writes nothing cannot pass.
bfloat16 has no numpy dtype: it is stored as uint16 bit patterns.
"""

from __future__ import annotations

import numpy as np

from kernels.targets.base import GUARD_ELEMS, GuardedArray

STORAGE = {"int8": np.int8, "uint8": np.uint8, "float16": np.float16, "bfloat16": np.uint16, "float32": np.float32,
           "float64": np.float64, "int32": np.int32, "uint32": np.uint32, "int64": np.int64}

# Bit patterns, as unsigned integers of the element width.
_GUARD_BITS = {"int8": 0x5A, "uint8": 0x5A, "float16": 0x6F98, "bfloat16": 0x45F3, "float32": 0x45F30800,
               "float64": 0x40BE610000000000, "int32": 0x5A5A5A5A, "uint32": 0x5A5A5A5A,
               "int64": 0x5A5A5A5A5A5A5A5A}
_SENTINEL_BITS = {"int8": 0xDE, "uint8": 0xDE, "float16": 0x7E5B, "bfloat16": 0x7FDE, "float32": 0x7FC0DEAD,
                  "float64": 0x7FF8DEADBEEFDEAD, "int32": 0xDEADBEEF, "uint32": 0xDEADBEEF,
                  "int64": 0xDEADBEEFDEADBEEF}
_UINT = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}


def storage_dtype(dtype: str) -> np.dtype:
    return np.dtype(STORAGE[dtype])


def bits_view(array: np.ndarray) -> np.ndarray:
    """The same memory as unsigned integers (bitwise comparisons)."""
    return array.view(_UINT[array.dtype.itemsize])


def _fill_bits(dtype: str, count: int, bits: int) -> np.ndarray:
    storage = storage_dtype(dtype)
    return np.full(count, bits, dtype=_UINT[storage.itemsize]).view(storage)


def guard_value(dtype: str) -> np.ndarray:
    return _fill_bits(dtype, 1, _GUARD_BITS[dtype])


def sentinel_bits(dtype: str) -> int:
    return _SENTINEL_BITS[dtype]


def to_float64(array: np.ndarray, dtype: str) -> np.ndarray:
    """Values as float64 for comparison (bfloat16 bits widened to float32 first)."""
    if dtype == "bfloat16":
        return (array.astype(np.uint32) << 16).view(np.float32).astype(np.float64)
    return np.asarray(array).astype(np.float64)


def from_float64(values: np.ndarray, dtype: str) -> np.ndarray:
    """Cast reference-side values into storage (bfloat16: round to nearest even)."""
    if dtype == "bfloat16":
        bits = np.asarray(values, dtype=np.float32).view(np.uint32)
        rounded = bits + 0x7FFF + ((bits >> 16) & 1)
        return (rounded >> 16).astype(np.uint16)
    return np.asarray(values).astype(storage_dtype(dtype))


def make_guarded(name: str, role: str, dtype: str, shape: tuple[int, ...], init: str,
                 data: np.ndarray | None = None, guard_elems: int = GUARD_ELEMS) -> GuardedArray:
    """guard | payload | guard. `data` fills in/inout payloads; otherwise `init`
    ("sentinel" or "zeros") does."""
    size = int(np.prod(shape, dtype=np.int64)) if shape else 1
    full = _fill_bits(dtype, size + 2 * guard_elems, _GUARD_BITS[dtype])
    payload = full[guard_elems:guard_elems + size]
    if data is not None:
        array = np.asarray(data)
        if array.shape != tuple(shape):
            raise ValueError(f"buffer {name!r}: generated shape {array.shape}, spec says {tuple(shape)}")
        payload[:] = array.reshape(-1).astype(full.dtype, copy=False)
    elif init == "zeros":
        payload[:] = 0
    else:
        bits_view(payload)[:] = _SENTINEL_BITS[dtype]
    return GuardedArray(name=name, role=role, shape=tuple(shape), full=full, guard_elems=guard_elems)
