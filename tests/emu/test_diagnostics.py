"""Each diagnostic is triggered by a dedicated bad kernel (tests/emu/kernels/),
names the learner's line, and is not raised by any correct kernel."""

import numpy as np
import pytest

from tests.emu.harness import KERNELS, kernel_file, launch

F32 = np.float32


def _ones(n):
    return np.ones(n, F32)


# (file, launch arguments, diagnostic kind, line it must name, fault or None)
CASES = [
    ("divergent_barrier_skipped.cu", dict(grid=1, block=64, args=[np.zeros(64, F32)]), "divergent_barrier", 7, None),
    ("divergent_barrier_sites.cu", dict(grid=1, block=64, args=[np.zeros(64, F32)]), "divergent_barrier", 10, None),
    ("mask_absent_lanes.cu", dict(grid=1, block=32, args=[np.zeros(32, F32)]), "warp_mask", 6, None),
    ("mask_disagree.cu", dict(grid=1, block=32, args=[np.zeros(32, F32)]), "warp_mask_mismatch", 5,
     "warp mask mismatch"),
    ("different_collective.cu", dict(grid=1, block=32, args=[np.zeros(32, F32)]), "warp_mask_mismatch", 8,
     "warp mask mismatch"),
    ("shuffle_source_outside_mask.cu", dict(grid=1, block=32, args=[np.zeros(32, F32)]), "shuffle_source", 6, None),
    ("deadlock.cu", dict(grid=1, block=32, args=[np.zeros(32, F32)]), "deadlock", 8, "deadlock"),
]


@pytest.mark.parametrize("name, how, kind, line, fault", CASES, ids=[c[0] for c in CASES])
def test_scheduler_diagnostic(name, how, kind, line, fault):
    got = launch(kernel_file(name), "k", how["grid"], how["block"], how["args"])
    assert got.fault == fault
    found = [d for d in got.diagnostics if d.kind == kind]
    assert found, got.diagnostics
    assert found[0].line == line, found[0]


CHECKED = [
    ("race_missing_barrier.cu", dict(grid=2, block=256, args=[_ones(512), np.zeros(2, F32)]), "race", 8),
    ("race_between_blocks.cu", dict(grid=4, block=32, args=[_ones(4), np.zeros(1, F32)]), "race", 4),
    # a scalar __shared__ variable is shared memory too (it was a plain static, unchecked)
    ("race_scalar_shared_counter.cu", dict(grid=2, block=64, args=[_ones(128), np.zeros(2, F32)]), "race", 6),
    # shared variables declared several to a declaration, or through a macro, are checked too
    ("race_two_declarators.cu", dict(grid=2, block=64, args=[_ones(128), np.zeros(2, F32)]), "race", 6),
    ("race_macro_shared.cu", dict(grid=2, block=64, args=[_ones(128), np.zeros(2, F32)]), "race", 7),
    ("uninit_macro_shared.cu", dict(grid=1, block=64, args=[_ones(64), np.zeros(64, F32)]), "uninitialised_read", 5),
    # the atomic's code is the runtime header's: the race names the learner's line of the atomicAdd
    ("race_atomic_then_read.cu", dict(grid=1, block=64, args=[np.zeros(1, np.int32)]), "race", 6),
    ("oob_global_read.cu", dict(grid=2, block=256, args=[_ones(300), np.zeros(1, F32), 300]), "out_of_bounds", 4),
    ("oob_shared_write.cu", dict(grid=1, block=128, args=[_ones(128), np.zeros(64, F32)]), "out_of_bounds", 5),
    ("oob_dynamic_shared.cu", dict(grid=1, block=64, args=[_ones(64), np.zeros(64, F32)], shared=32 * 4),
     "out_of_bounds", 5),
]


@pytest.mark.parametrize("name, how, kind, line", CHECKED, ids=[c[0] for c in CHECKED])
def test_checker_diagnostic(name, how, kind, line):
    got = launch(kernel_file(name), "k", how["grid"], how["block"], how["args"], shared=how.get("shared", 0),
                 variant="check", adversarial=True)
    found = [d for d in got.diagnostics if d.kind == kind]
    assert found, got.diagnostics
    assert found[0].line == line, found[0]
    assert f"line {line}" in found[0].message


def test_a_race_with_an_atomic_names_both_learner_lines():
    # It named kdojo_device.h's line of the atomic (143), read as the learner's.
    for adversarial in (False, True):
        got = launch(kernel_file("race_atomic_then_read.cu"), "k", 1, 64, [np.zeros(1, np.int32)],
                     variant="check", adversarial=adversarial)
        (race,) = [d for d in got.diagnostics if d.kind == "race"]
        assert race.line == 6, race
        assert "(line 6) while" in race.message and "read it (line 7)" in race.message, race.message


def test_a_race_names_a_shared_array_declared_beside_another():
    got = launch(kernel_file("race_two_declarators.cu"), "k", 2, 64, [_ones(128), np.zeros(2, F32)],
                 variant="check", adversarial=True)
    race = next(d for d in got.diagnostics if d.kind == "race")
    assert "shared memory array 'count'" in race.message, race.message


def test_a_shared_array_a_macro_declares_starts_each_block_as_garbage():
    # the check program poisons it at every block's start, as the named ones at their first use
    src = ("#define BLOCK_SHARED __shared__\n"
           'extern "C" __global__ void k(const float* in, float* out) {\n'
           "    BLOCK_SHARED unsigned bits[32];\n"
           "    if (blockIdx.x == 0) bits[threadIdx.x] = 7u;\n"
           "    __syncthreads();\n"
           "    if (blockIdx.x == 1) out[threadIdx.x] = bits[threadIdx.x] == 7u ? 1.0f : 2.0f;\n"
           "}\n")
    got = launch(src, "k", 2, 32, [_ones(32), np.zeros(32, F32)], variant="check")
    assert (got.arrays[1] == 2.0).all(), got.arrays[1]
    assert "uninitialised_read" in got.kinds(), got.diagnostics


CAS_MAX = r"""
__device__ float atomic_max_float(float* addr, float value) {
    int* bits = (int*)addr;
    int old = *bits, assumed;  // the loop's first guess: a plain read while others update the word
    do {
        assumed = old;
        if (__int_as_float(assumed) >= value) break;
        old = atomicCAS(bits, assumed, __float_as_int(value));
    } while (assumed != old);
    return __int_as_float(old);
}
extern "C" __global__ void k(const float* in, float* out) {
    __shared__ float best, spare;
    if (threadIdx.x == 0) { best = -1e30f; spare = 0.0f; }
    __syncthreads();
    atomic_max_float(&best, in[threadIdx.x]);
    __syncthreads();
    if (threadIdx.x == 0) out[blockIdx.x] = best + spare;
}
"""


def test_an_atomiccas_loops_first_read_is_a_warning_not_a_race():
    # The CUDA guide's idiom: a plain read, then atomicCAS until it holds. A GPU reads the word
    # whole, before or after another thread's update; the verdict comes from the result.
    x = np.random.default_rng(3).random(128, dtype=np.float32)
    for adversarial in (False, True):
        got = launch(CAS_MAX, "k", 2, 64, [x, np.zeros(2, F32)], variant="check", adversarial=adversarial)
        assert got.fault is None and "race" not in got.kinds(), got.diagnostics
        np.testing.assert_array_equal(got.arrays[1], [x[:64].max(), x[:64].max()])
    warned = [d for d in got.diagnostics if d.kind == "atomic_read_race"]
    assert len(warned) <= 1 and all("updates it atomically" in d.message for d in warned), got.diagnostics


def test_out_of_bounds_message_names_buffer_and_element():
    got = launch(kernel_file("oob_global_read.cu"), "k", 2, 256, [_ones(300), np.zeros(1, F32), 300],
                 variant="check", adversarial=True)
    first = next(d for d in got.diagnostics if d.kind == "out_of_bounds")
    assert "out-of-bounds read" in first.message and "buffer 'b0'" in first.message
    assert "valid elements are 0..299" in first.message


def test_shared_overrun_names_the_array():
    got = launch(kernel_file("oob_shared_write.cu"), "k", 1, 128, [_ones(128), np.zeros(64, F32)],
                 variant="check", adversarial=True)
    assert any("'tile'" in d.message and "valid elements are 0..63" in d.message for d in got.diagnostics), \
        got.diagnostics


GOOD = sorted(p.name for p in KERNELS.glob("good_*.cu"))


@pytest.mark.parametrize("name", GOOD)
def test_correct_kernels_raise_no_diagnostic(name):
    n = 32 * 40
    if "broadcast" in name:
        args, grid, block, shared = [np.zeros(n, F32), np.arange(n, dtype=F32), n], 40, 32, 0
    else:
        args, grid, block, shared = [np.arange(n, dtype=F32), np.zeros(8, F32), n], 5, 256, 256 * 4
    for variant, adversarial in (("fast", False), ("check", True)):
        got = launch(kernel_file(name), "k", grid, block, args, shared=shared, variant=variant, adversarial=adversarial)
        assert got.fault is None and got.diagnostics == [], got.diagnostics


def test_every_bad_kernel_is_covered():
    bad = {p.name for p in KERNELS.glob("*.cu")} - set(GOOD)
    assert bad == {c[0] for c in CASES} | {c[0] for c in CHECKED}


# Far out of bounds, past the guard bands: the program dies of SIGSEGV, but its
# report names the instruction (the learner's line), the buffer and the element.
SEGFAULTS = {
    "far_read": ('extern "C" __global__ void k(const float* in, float* out, int n) {\n'
                 '    int i = blockIdx.x * blockDim.x + threadIdx.x;\n'
                 '    atomicAdd(out, in[i * 100000]);\n'
                 '}\n', 300, ("out-of-bounds read", "out_of_bounds", 3, "buffer 'b0' at element 100000")),
    "null_write": ('extern "C" __global__ void k(const float* in, float* out, int n) {\n'
                   '    float* p = reinterpret_cast<float*>((size_t)n);\n'
                   '    p[threadIdx.x] = in[0];\n'
                   '}\n', 0, ("invalid memory access", "invalid_memory_access", 3, "a write of address 0x0")),
    "stack_overflow": ('__device__ int deep(int d) {\n'
                       '    volatile char big[4096];\n'
                       '    big[0] = (char)d;\n'
                       '    return d == 0 ? big[0] : deep(d - 1) + big[0];\n'
                       '}\n'
                       'extern "C" __global__ void k(const float* in, float* out, int n) { out[0] = deep(n); }\n',
                       1000, ("stack overflow", "stack_overflow", 1, "overflowed its stack")),
}


@pytest.mark.parametrize("name", list(SEGFAULTS))
def test_segmentation_fault_names_the_line(name):
    from kernels.emu.target import _memory_fault
    from tests.emu.harness import compile_source

    source, n, (fault, kind, line, text) = SEGFAULTS[name]
    for variant in ("fast", "check"):
        got = launch(source, "k", 2, 32, [_ones(300), np.zeros(1, F32), n], variant=variant)
        assert got.crash is not None and got.crash.memory is not None, got
        sizes = {"b0": np.zeros(300), "b1": np.zeros(1)}
        fault_name, message, diag = _memory_fault(got.crash.memory, compile_source(source, ("k",)).programs[variant],
                                                  ["b0", "b1"], {k: type("B", (), {"size": v.size})() for k, v in sizes.items()})
        assert fault_name == fault and diag.kind == kind and diag.line == line, (fault_name, diag)
        assert text in message and f"line {line}" in message


def test_judged_far_overrun_names_line_buffer_and_element():
    """saxpy without a per-element bound: small cases write into the guard bands
    (wrong answer); at N = 262145 the last chunk reads far past `x` and the
    program crashes — the message says where (line 9), not just "segfault"."""
    from kernels.exercises import REPO_ROOT, load_exercises
    from kernels.emu.target import EmuTarget
    from kernels.pipeline import run_pipeline

    exercise = load_exercises(REPO_ROOT / "lessons")["elementwise.saxpy"]
    path = REPO_ROOT / "lessons/01-elementwise/exercises/saxpy/solutions/wrong/missing_bounds_check.cu"
    result = run_pipeline(exercise, path.read_text(), EmuTarget(), bench=False, seed=11, emit=lambda event: None)
    crashed = [t for t in result["tests"] if t["status"] == "error"]
    assert crashed and "out-of-bounds read" in crashed[0]["message"] and "(line 9)" in crashed[0]["message"]
    assert "buffer 'x' at element" in crashed[0]["message"]
    assert all(d["line"] == 9 for d in result["diagnostics"] if d["kind"] == "out_of_bounds")
