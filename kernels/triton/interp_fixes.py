"""Where Triton 3.6's interpreter differs from a GPU, and where it is slow (runs in the sandbox).

`apply(interpreter)` patches `triton.runtime.interpreter` once, before any kernel runs:

* int32 arithmetic wraps, as a compiled kernel's does (the interpreter's overflow check, which
  a compiled kernel makes only in debug mode, is off);
* float32 → bfloat16 rounds to nearest even (the interpreter truncates: a correct bf16
  RMSNorm was one bf16 step off), and `tl.dot` in its default TF32 precision keeps 10
  mantissa bits of each operand (the interpreter multiplies full float32: a TF32 GEMM passed
  here and failed on a GPU);
* a scalar reads as an index under numpy 2 (`for i in range(0, n, step)` over a scalar
  argument: the interpreter's `int(array of one element)` is refused by numpy 2);
* speed, the same results: a shape is read as plain ints, a language tuple's type is made
  when asked for, and a dtype's numpy type is remembered (a third less CPU time for a rope
  kernel, whose time is Triton's type objects, not its arithmetic).
"""

from __future__ import annotations

import dataclasses


def apply(interpreter) -> None:
    builder = interpreter.interpreter_builder
    builder.options = dataclasses.replace(builder.options, sanitize_overflow=False)
    interpreter._get_np_dtype = _memoised(interpreter._get_np_dtype)
    # every patching of the language (each launch, each call of a @triton.jit helper such
    # as tl.sum) gets our __index__
    interpreter._patch_lang_tensor = _with_index(interpreter._patch_lang_tensor)
    _numerics_as_on_a_gpu(interpreter, builder)
    _faster_shapes(interpreter.tl.core)


def _numerics_as_on_a_gpu(interpreter, builder) -> None:
    """Two places where Triton 3.6's interpreter computes other numbers than a GPU:
    float32 → bfloat16 truncates (a GPU rounds to nearest even: `x.to(tl.bfloat16)` was one
    bf16 step off, and a correct RMSNorm failed), and `tl.dot` in its default TF32 precision
    multiplies full float32 (a GPU keeps 10 mantissa bits: a TF32 GEMM passed here and failed
    there)."""
    import numpy as np

    tl, ir = interpreter.tl, interpreter._ir
    convert, dot = interpreter._convert_float, builder.create_dot

    def convert_float(data, input_dtype, output_dtype, rounding_mode):
        if input_dtype == tl.float32 and output_dtype == tl.bfloat16 and rounding_mode != ir.ROUNDING_MODE.RTZ:
            bits = np.asarray(data, dtype=np.float32).view(np.uint32).astype(np.uint64)
            rounded = ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16).astype(np.uint16)
            nan = np.isnan(np.asarray(data, dtype=np.float32))
            rounded[nan] = ((bits[nan] >> 16) | 0x40).astype(np.uint16)
            return rounded.reshape(np.shape(data))
        return convert(data, input_dtype, output_dtype, rounding_mode)

    def tf32(handle):
        bits = handle.data.astype(np.float32).view(np.uint32)
        finite = np.isfinite(handle.data)
        rounded = np.where(finite, (bits + np.uint32(0x1000)) & np.uint32(0xFFFFE000), bits)
        return interpreter.TensorHandle(rounded.view(np.float32), handle.dtype)

    def create_dot(a, b, d, input_precision, max_num_imprecise_acc):
        if input_precision == ir.INPUT_PRECISION.TF32 and a.dtype.scalar == tl.float32 \
                and b.dtype.scalar == tl.float32:
            a, b = tf32(a), tf32(b)
        return dot(a, b, d, input_precision, max_num_imprecise_acc)

    interpreter._convert_float = convert_float
    builder.create_dot = create_dot


def _with_index(patch_lang_tensor):
    def patch(tensor, scope) -> None:
        patch_lang_tensor(tensor, scope)
        scope.set_attr(tensor, "__index__", _index)
    return patch


def _index(tensor) -> int:
    return int(tensor.handle.data.reshape(-1)[0]) if tensor.handle.data.size == 1 else int(tensor.handle.data)


def _memoised(function):
    """`function` of one Triton type, remembered by the type's name (not every type hashes)."""
    seen: dict[str, object] = {}

    def memo(tt_dtype):
        key = f"{type(tt_dtype).__name__}:{tt_dtype}"
        if key not in seen:
            seen[key] = function(tt_dtype)
        return seen[key]

    return memo


def _faster_shapes(core) -> None:
    """A block type's shape as plain ints without rebuilding it as a language tuple (whose
    type names are formatted per element): the same list Triton's `_unwrap_shape` returns,
    ~a quarter of an interpreted rope kernel's time."""
    unwrap_shape = core._unwrap_shape

    def fast(shape):
        values = shape.value if isinstance(shape, core.constexpr) else shape
        if isinstance(values, core.tuple):
            values = values.values
        if not isinstance(values, (list, tuple)):
            return unwrap_shape(shape)
        out = []
        for item in values:
            if isinstance(item, core.constexpr):
                item = item.value
            if type(item) is not int:
                return unwrap_shape(shape)
            out.append(item)
        return out

    core._unwrap_shape = fast
    _lazy_tuple_types(core)


def _lazy_tuple_types(core) -> None:
    """A language tuple's type (its element types and a formatted name) made when first asked
    for, not at every tensor's creation (each tensor's shape is such a tuple, and its type is
    seldom read): the same type, built from the same values."""
    def get(self):
        found = self.__dict__.get("_kdojo_type")
        if found is None:
            found = self.__dict__["_kdojo_type"] = core._type_for_tuple_values(self.values)
        return found

    def put(self, value) -> None:
        self.__dict__["_kdojo_type"] = value

    def init(self, args, type=None) -> None:
        self.values = [i for i in args]
        if isinstance(type, core.tuple_type):
            self.type = type
        elif type is not None:
            self.type = core.tuple_type(type)

    core.tuple.type = property(get, put)
    core.tuple.__init__ = init
