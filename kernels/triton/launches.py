"""A case's Triton launches, from the compile step's build (#29).

    triton_launches(exercise, compiled, env) -> list[Launch]

The plan `launch_K` chose for the case (its binary, its grid) becomes the `Launch`es
both targets run: `kernel` is the binary's key ("b0", …; `build.binary(key).kernel` is
the @triton.jit function's name), `block` is 32 × num_warps threads, `shared_bytes` is
the binary's dynamic shared memory, `args` are the exercise's arguments (buffers by
name; scalars evaluated for the case, in the C type of the binary's Triton signature)
followed, on the GPU, by the entry point's trailing scratch pointers
(`global_scratch`, `profile_scratch`) as null `size_t`s (kernels/triton/gpu.py gives
a binary that needs scratch memory an allocation instead), and `meta` holds the
meta-parameters with `num_warps` and `num_stages`.
"""

from __future__ import annotations

from typing import Any

from kernels.targets.base import Launch, LaunchArg
from kernels.compile import CompileResult
from kernels.spec import Exercise
from kernels.triton.compile import TritonBuild

# Triton's scalar types → the C types LaunchArg carries (kernels.spec.SCALAR_CTYPES)
CTYPES = {"i32": "int", "u32": "unsigned", "i64": "long long", "u64": "size_t", "fp32": "float", "fp64": "double"}
SCRATCH_PARAMS = ("global_scratch", "profile_scratch")


def triton_launches(exercise: Exercise, compiled: CompileResult, env: dict[str, Any]) -> list[Launch]:
    build = compiled.artifact
    if not isinstance(build, TritonBuild) or exercise.triton is None:
        raise TypeError("not a Triton build of a Triton exercise")
    plan = build.plan_for(env)
    launches = []
    for spec, step in zip(exercise.triton.launches, plan):
        binary = build.binary(step.binary)
        args = []
        for arg, kind in zip(spec.args, binary.signature):
            if arg.buffer is not None:
                args.append(LaunchArg(arg.param.name, arg.param.ctype + "*", buffer=arg.buffer))
                continue
            ctype = CTYPES[kind]
            value = arg.expr.evaluate(env)
            args.append(LaunchArg(arg.param.name, ctype, value=float(value) if kind.startswith("fp") else int(value)))
        for name in SCRATCH_PARAMS[:binary.scratch_params]:
            args.append(LaunchArg(name, "size_t", value=0))
        meta = (*binary.meta, ("num_warps", binary.num_warps), ("num_stages", binary.num_stages))
        launches.append(Launch(binary.key, step.grid, (32 * binary.num_warps, 1, 1), binary.shared, tuple(args),
                               meta))
    return launches
