"""What Triton 3.6's interpreter needs of a tensor argument, without torch.

The interpreter turns a pointer argument into its address (`data_ptr()`) and its
element type (`dtype`, read by `triton.runtime.jit.mangle_type`, which accepts the
dtype's name). Our stand-in is one request buffer's payload: a numpy view over the
server's copy of the guarded array, so the kernel reads and writes that memory.
"""

from __future__ import annotations

import numpy as np

# The spec's dtypes (kernels/spec.py DTYPES) → numpy's storage (bfloat16 as its bits, as
# the judge's GuardedArray and Triton's interpreter keep it) and the name Triton parses.
NUMPY = {"int8": np.int8, "uint8": np.uint8, "float16": np.float16, "bfloat16": np.uint16,
         "float32": np.float32, "float64": np.float64, "int32": np.int32, "uint32": np.uint32,
         "int64": np.int64}


class BufferTensor:
    """A pointer argument: the payload of one buffer (1-D, contiguous)."""

    def __init__(self, name: str, payload: np.ndarray, dtype: str) -> None:
        self.name = name
        self.payload = payload
        self.dtype = dtype  # the spec's name, e.g. "float32": mangle_type() reads it as "*fp32"

    def data_ptr(self) -> int:
        return int(self.payload.ctypes.data)

    def numel(self) -> int:
        return int(self.payload.size)

    def __repr__(self) -> str:
        return f"<buffer {self.name}: {self.payload.size} × {self.dtype}>"
