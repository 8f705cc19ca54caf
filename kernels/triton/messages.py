"""The Triton compile step's sentences for learners, each a message code (#29).

The English text is the `message` of a Diagnostic for the CLI and the API; the code and
its parameters (kernels/messages.py MESSAGE_CODES) let the web say it in Korean or
English (app/i18n_messages.py). Identifiers (`launch_saxpy`, `@triton.jit`, `num_warps`)
travel as parameters, never translated. Triton's own error text (a type error in a
kernel) is a parameter too: it is the compiler's words, as NVRTC's are for CUDA.
"""

from __future__ import annotations

from kernels.messages import Message

JIT = "@triton.jit"
IMPORTS = "triton, triton.language, math"


def source_empty() -> Message:
    return Message("the file is empty: write the kernel and its launch function", "triton_source_empty")


def source_encoding() -> Message:
    return Message("the file is not UTF-8 text", "triton_source_encoding", encoding="UTF-8")


def source_too_large(kib: int) -> Message:
    return Message(f"the file is larger than {kib} KiB", "triton_source_too_large", kib=kib)


def source_unparsable(detail: str) -> Message:
    return Message(f"the file cannot be read as Python: {detail}", "triton_source_unparsable", detail=detail)


def syntax(detail: str) -> Message:
    return Message(f"syntax error: {detail}", "triton_syntax", detail=detail)


def import_refused(module: str) -> Message:
    return Message(f"only {IMPORTS} may be imported, not {module}", "triton_import_refused",
                   module=module, allowed=IMPORTS)


def module_code(construct: str) -> Message:
    return Message(f"only imports, function definitions and constant assignments run when the file is imported, "
                   f"not {construct} (such code belongs in launch_K)", "triton_module_code",
                   construct=construct, launcher="launch_K")


def tuner(decorator: str, kernel: str) -> Message:
    return Message(f"the judge does not run @{decorator}: choose {kernel}'s meta-parameters, num_warps and "
                   f"num_stages in launch_{kernel}, which returns them with the grid", "triton_tuner",
                   decorator=decorator, kernel=kernel, launcher=f"launch_{kernel}")


def kernel_code(kernel: str, construct: str) -> Message:
    return Message(f"{kernel}: a {JIT} function may use Triton's language, its parameters and the file's constants "
                   f"and {JIT} functions, not {construct}", "triton_kernel_code",
                   kernel=kernel, construct=construct, jit=JIT)


def import_failed(detail: str) -> Message:
    return Message(f"the file raised an error when it was imported: {detail}", "triton_import_failed",
                   detail=detail)


def missing_kernel(kernel: str) -> Message:
    return Message(f"no {JIT} function named {kernel} at the top level of the file", "triton_missing_kernel",
                   kernel=kernel, jit=JIT)


def not_jit(kernel: str) -> Message:
    return Message(f"{kernel} must be a {JIT} function defined at the top level of this file",
                   "triton_not_jit", kernel=kernel, jit=JIT)


def kernel_params(kernel: str, want: int, got: int, args: str) -> Message:
    return Message(f"{kernel} has {got} parameters that are not tl.constexpr; the exercise passes {want} ({args})",
                   "triton_kernel_params", kernel=kernel, want=want, got=got, args=args)


def missing_launch(kernel: str) -> Message:
    return Message(f"define launch_{kernel}(...) at the top level: it returns the grid and the meta-parameters "
                   f"of {kernel}", "triton_missing_launch", kernel=kernel, launcher=f"launch_{kernel}")


def launch_unknown_arg(kernel: str, arg: str) -> Message:
    return Message(f"launch_{kernel} asks for {arg}, which is not a size or parameter of this exercise",
                   "triton_launch_unknown_arg", launcher=f"launch_{kernel}", arg=arg)


def launch_raised(kernel: str, detail: str) -> Message:
    return Message(f"launch_{kernel} raised an error: {detail}", "triton_launch_raised",
                   launcher=f"launch_{kernel}", detail=detail)


def launch_not_dict(kernel: str, got: str) -> Message:
    return Message(f"launch_{kernel} must return a dict with \"grid\" and the meta-parameters, not {got}",
                   "triton_launch_not_dict", launcher=f"launch_{kernel}", got=got)


def launch_grid(kernel: str, value: str) -> Message:
    return Message(f"launch_{kernel}: \"grid\" must be a positive int or a tuple of 1 to 3 positive ints "
                   f"(x at most 2147483647, y and z at most 65535), not {value}", "triton_launch_grid",
                   launcher=f"launch_{kernel}", value=value)


def launch_num_warps(kernel: str, value: str) -> Message:
    return Message(f"launch_{kernel}: \"num_warps\" must be 1, 2, 4, 8, 16 or 32, not {value}",
                   "triton_launch_num_warps", launcher=f"launch_{kernel}", value=value)


def launch_num_stages(kernel: str, value: str) -> Message:
    return Message(f"launch_{kernel}: \"num_stages\" must be an int from 1 to 8, not {value}",
                   "triton_launch_num_stages", launcher=f"launch_{kernel}", value=value)


def launch_tuned_key(kernel: str, key: str) -> Message:
    return Message(f"launch_{kernel} returns \"{key}\", which the @triton.autotune config of {kernel} sets: leave "
                   f"it to the config (the judge compiles and times the first)", "triton_launch_tuned_key",
                   launcher=f"launch_{kernel}", key=key, kernel=kernel)


def launch_unknown_key(kernel: str, key: str) -> Message:
    return Message(f"launch_{kernel} returns \"{key}\", which is not \"grid\", \"num_warps\", \"num_stages\" or "
                   f"a tl.constexpr parameter of {kernel}", "triton_launch_unknown_key",
                   launcher=f"launch_{kernel}", key=key, kernel=kernel)


def launch_meta_value(kernel: str, key: str, value: str) -> Message:
    return Message(f"launch_{kernel}: the meta-parameter \"{key}\" must be an int, a float or a bool, not {value}",
                   "triton_launch_meta_value", launcher=f"launch_{kernel}", key=key, value=value)


def launch_missing_meta(kernel: str, key: str) -> Message:
    return Message(f"launch_{kernel} must return a value for {key}, a tl.constexpr parameter of {kernel} "
                   f"without a default", "triton_launch_missing_meta", launcher=f"launch_{kernel}", key=key,
                   kernel=kernel)


def compile_error(detail: str) -> Message:
    return Message(f"Triton: {detail}", "triton_compile_error", detail=detail)


def too_many_binaries(count: int) -> Message:
    return Message(f"the launch functions ask for more than {count} different compiled kernels over the "
                   f"exercise's sizes", "triton_too_many_binaries", count=count)


def compile_limit(seconds: int, megabytes: int) -> Message:
    return Message(f"the compiler ran past its time or memory ({seconds} s, {megabytes} MB): a loop unrolled at "
                   f"compile time (tl.static_range) or a huge block?", "triton_compile_limit",
                   seconds=seconds, megabytes=megabytes)


def sandbox_refused() -> Message:
    return Message("the file did something the judge's sandbox forbids (a new process, a program)",
                   "triton_sandbox_refused")


def compile_exited(status: int) -> Message:
    return Message(f"the file ended the compile step itself (exit status {status})", "triton_compile_exited",
                   status=status)


def compile_interfered() -> Message:
    return Message("the file interfered with the judge's compile step: its answer was malformed",
                   "triton_compile_interfered")

