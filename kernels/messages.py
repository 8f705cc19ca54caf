"""The judge's message vocabulary: every message a learner may read carries a code
and its parameters (`MESSAGE_CODES`), so the web says it in the reader's language
(app/i18n*.py); the English text stays for the CLI and the API. A leaf module: the
result document (kernels/contract.py), the backends and the checks all use it.
"""

from __future__ import annotations

from typing import Any

# code → the parameters it carries (every value a str, int or float).
MESSAGE_CODES: dict[str, tuple[str, ...]] = {
    "all_passed": ("total",),
    "tests_failed": ("failed", "total", "case"),  # "first:" the named case's own message
    "case_failed": ("case",),  # a fault decided the verdict: the named case's own message
    "compile_failed": ("line", "detail"),  # line 0: the compiler named none
    "compile_failed_plain": (),
    "rejected": ("line", "detail"),
    "needs_gpu": ("line", "feature"),  # valid CUDA the emulator does not run (CUB …): verdict rejected
    "compile_timeout": ("seconds",),
    # the language seam (#29): a language this judge has no toolchain for; one the exercise does not offer
    "language_unavailable": ("language",),
    "language_not_offered": ("language", "exercise"),
    "bench_timeout": ("seconds",),
    "bench_wrong": ("case", "detail"),
    "bench_changed_input": ("case", "call", "name"),  # a timed call wrote into the judge's copy of an input
    "bench_mismatch": ("case", "call", "where", "expected", "got", "count", "size", "never_written"),
    # a time below the device's physical floor (#26): no time recorded, flagged for review
    "bench_below_floor": ("case", "ms", "floor_ms", "bound"),
    "internal": (),
    "mismatch": ("where", "expected", "got", "count", "size", "never_written"),
    "size_mismatch": ("name", "want", "got"),
    "wrote_outside": ("buffer", "before", "before_first", "after", "after_first"),
    "input_modified": ("name", "count", "first"),
    "fault": ("name", "detail"),  # name: the fault's own (English) name, e.g. "out-of-bounds read"
    "time_limit": ("seconds",),
    "process_died": ("how",),
    # the emulator's diagnostics and faults (#28, kernels/emu/messages.py): a region is buffer, shared,
    # dynamic_shared or static_shared (name "" for the last two); an access read or write; line 0: unknown
    "race": ("region", "name", "index", "offset", "thread", "block", "access", "line", "other_thread",
             "other_block", "other_access", "other_line", "scope"),  # index/offset -1: not named; scope block/grid
    "race_order": ("where", "expected", "got", "count", "size", "never_written"),
    "uninitialised_read": ("region", "name", "offset", "thread", "block", "line"),
    "out_of_bounds": ("access", "bytes", "region", "name", "index", "last", "thread", "block", "line"),
    "out_of_bounds_dynamic": ("access", "bytes", "offset", "size_bytes", "thread", "block", "line"),
    "out_of_bounds_far": ("access", "name", "index", "last", "line"),  # past the guard bands: a segfault
    "divergent_barrier": ("line", "thread", "block", "done", "total"),
    "divergent_barrier_places": ("line", "other_line", "thread", "block"),
    "shuffle_source": ("lane", "warp", "source", "op", "mask"),  # mask "": the source lane had finished
    "warp_mask": ("op", "line", "mask", "lane", "warp", "count"),
    "deadlock_barrier": ("op", "line", "mask", "lane", "warp", "other_line"),
    "deadlock": (),
    "segfault": ("line", "access", "address"),
    "segfault_unplaced": (),
    "stack_overflow": ("line", "stack_kib"),
    "misaligned_wild": ("line", "access"),
    # Triton's interpreter on the CPU (#29, kernels/triton/interp_messages.py): program "(x, y, z)";
    # access read | write | atomic; other_program "" when several programs made the other access
    "triton_out_of_bounds": ("access", "name", "index", "last", "program", "line"),
    "triton_out_of_bounds_far": ("access", "name", "index", "last", "program", "line"),
    "triton_race": ("name", "index", "program", "access", "other_program", "other_access", "line"),
    "triton_uninitialised_read": ("name", "index", "program", "line"),
    "triton_error": ("name", "line", "detail"),  # name: python error | device-side assert | import error | …
    "misaligned": ("bytes", "access", "address", "line"),  # the checked run's exact one; access read/write/access
    "launch_timeout": ("seconds",),
    "cpu_limit": (),
    "emu_budget": ("seconds",),
    "memory_limit": ("megabytes",),
    # the emulator's rarer runtime sentences (#28): warnings, warp collectives, traps, launches
    "atomic_read_race": ("thread", "block", "region", "name", "line", "other_thread", "other_block", "other_line"),
    "benign_race": ("region", "name", "index", "offset", "thread", "block", "line", "other_thread", "other_block",
                    "other_line"),
    "warp_lanes_apart": ("lane", "warp", "op", "line", "other_lane", "other_op", "other_line"),
    "warp_masks_disagree": ("warp", "op", "lane", "mask", "line", "other_lane", "other_mask", "other_line"),
    "warp_mask_elsewhere": ("op", "line", "mask"),
    "warp_mask_self": ("op", "lane", "mask"),
    "shuffle_width": ("op", "width"),
    "trap": ("thread", "block", "line"),  # thread/block "(x,y,z)"
    "assert_failed": ("expression", "thread", "block", "line"),
    "launch_bounds": ("threads", "bound", "thread", "block", "line"),
    "grid_sync": ("thread", "block", "line"),
    "tile_size": ("thread", "block", "line"),
    "launch_dims_zero": ("kernel",),
    "launch_threads": ("kernel", "threads"),
    "launch_block_dims": ("kernel",),
    "launch_grid_dims": ("kernel",),
    "launch_shared": ("kernel", "bytes"),
    "launch_args": ("kernel",),
    "emu_no_memory": ("what",),  # what: stack or shared
    "check_crash": ("name",),  # name: the crash's fault name (translated like a fault's)
    "forbidden_syscall": (),
    "division_by_zero": (),
    "aborted": (),
    "killed_by_signal": ("signal",),
    "exited": ("status",),
    "output_corrupted": (),
    # the CUDA backend (#28): the driver's error, its own words in `detail`
    "cuda_error": ("name", "detail"),
    "shared_memory_limit": ("kernel", "bytes", "static_bytes", "limit_bytes"),
    "gpu_out_of_memory": (),
    "compile_budget": ("seconds",),
    "compile_memory": ("megabytes",),
    # our own compile diagnostics (#28): policy refusals, signatures, constants, what the emulator
    # does not run. `detail` is the compiler's own text (shown as code); an identifier stays as written.
    "source_too_large": ("kib",),
    "source_nul": (),
    "unexpected_character": ("character",),
    "emu_unsupported": ("what",),  # what: the construct as written (R"(, ##, %:, ??=, __nv_intrinsic …)
    "emu_compile_detail": ("detail",),  # the runtime's headers refused it: g++'s words
    "unknown_directive": ("directive",),
    "directive_forbidden": ("directive",),
    "directive_form": ("directive",),  # only `#include <header>`
    "pragma_forbidden": ("pragma",),
    "include_literal": (),
    "include_forbidden": ("header",),  # header: its last path part, never the path
    "include_path": ("header",),
    "identifier_forbidden": ("identifier",),
    "extern_forbidden": (),
    "operator_forbidden": ("operator",),
    "attribute_forbidden": ("attribute",),
    "braces_close": (),
    "braces_open": (),
    "extern_shared_type": (),
    "preprocessed_too_large": ("megabytes",),
    "constant_literal": ("name", "choices"),
    "constant_choice": ("name", "value", "choices"),
    "kernel_missing": ("kernel", "declaration"),
    "signature_mismatch": ("kernel", "declaration"),
    "signature_macro": ("macro", "declaration"),
    "header_error": ("header", "detail"),
    "launcher_error": ("detail",),
    "compiler_limit": ("limits", "how", "seconds"),  # how: running, stopped, memory
    "object_refused": (),  # an object no compiler makes from C++ (a forged one): one sentence for all
    "object_too_large": (),
    "unchecked_function": ("function",),  # built without the memory checks (no_sanitize …)
    "object_section": ("section",),
    "object_symbol": ("symbol",),
    "static_shared": ("bytes", "max_bytes"),
    "static_shared_function": ("function", "bytes", "max_bytes"),
    # profile findings (#16): kernels/profile/findings.py, each with the lesson that teaches the fix
    "profile_uncoalesced": ("kernel", "access", "sectors", "ideal"),
    "profile_bank_conflicts": ("kernel", "wavefronts", "ideal", "ways"),
    "profile_atomic_contention": ("kernel", "per_address", "max"),
    "profile_divergence": ("kernel", "efficiency_pct"),
    "profile_low_occupancy": ("kernel", "occupancy_pct", "limiter"),
    # the Triton compile step (#29, kernels/triton/messages.py): a Diagnostic's message; identifiers
    # (launch_saxpy, @triton.jit) are parameters, Triton's own error text is `detail`
    "triton_source_empty": (), "triton_source_encoding": ("encoding",), "triton_source_too_large": ("kib",),
    "triton_source_unparsable": ("detail",), "triton_syntax": ("detail",),
    "triton_import_refused": ("module", "allowed"), "triton_import_failed": ("detail",),
    "triton_module_code": ("construct", "launcher"), "triton_kernel_code": ("kernel", "construct", "jit"),
    "triton_tuner": ("decorator", "kernel", "launcher"),
    "triton_missing_kernel": ("kernel", "jit"), "triton_not_jit": ("kernel", "jit"),
    "triton_kernel_params": ("kernel", "want", "got", "args"), "triton_missing_launch": ("kernel", "launcher"),
    "triton_launch_unknown_arg": ("launcher", "arg"), "triton_launch_raised": ("launcher", "detail"),
    "triton_launch_not_dict": ("launcher", "got"), "triton_launch_grid": ("launcher", "value"),
    "triton_launch_num_warps": ("launcher", "value"), "triton_launch_num_stages": ("launcher", "value"),
    "triton_launch_unknown_key": ("launcher", "key", "kernel"),
    "triton_launch_tuned_key": ("launcher", "key", "kernel"),
    "triton_launch_meta_value": ("launcher", "key", "value"),
    "triton_launch_missing_meta": ("launcher", "key", "kernel"), "triton_compile_error": ("detail",),
    "triton_too_many_binaries": ("count",), "triton_compile_limit": ("seconds", "megabytes"),
    "triton_sandbox_refused": (), "triton_compile_exited": ("status",), "triton_compile_interfered": (),
}


class Message(str):
    """An English message that also carries its code and parameters. It is a
    `str`, so every place that builds, compares or prints messages keeps working."""

    code: str
    params: dict[str, Any]

    def __new__(cls, text: str, code: str, **params: Any) -> Message:
        if code not in MESSAGE_CODES:
            raise ValueError(f"unknown message code {code!r}")
        obj = super().__new__(cls, text)
        obj.code, obj.params = code, params
        return obj


def code_fields(message: str) -> dict[str, Any]:
    """`message_code` / `message_params` for a message (empty for a plain str)."""
    if isinstance(message, Message):
        return {"message_code": message.code, "message_params": dict(message.params)}
    return {}
