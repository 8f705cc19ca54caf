"""Content checks for lessons 20-21 of the llm-kernels track (issue #15).

Front matter, ko/en parity, exercise folders and hints; the int8 buffer dtype;
each reference.py against an independent formula (element by element with
math.fsum / math.erf / math.exp); test-case design, shown by running a numpy
model of each named wrong solution over the spec's own cases with several
seeds (every bug meets a case that exposes it, while a float32 model of the
correct kernel passes them all); every kernel source, baselines included,
compiled by the real NVRTC. The verdicts of the sources are
tests/lessons/test_corpus.py's.
"""

from __future__ import annotations

import math
import re

import numpy as np
import pytest

from kernels.buffers import from_float64, to_float64

TRACK = "llm-kernels"
LESSONS = {
    "20-quant-gemv": {"id": "quant-gemv", "order": 20, "prerequisites": ["topk"],
                      "exercises": ["int8_gemv"], "ids": ["quant-gemv.int8_gemv"],
                      "dtypes": {"int8", "float16", "bfloat16"}},
    "21-gated-mlp": {"id": "gated-mlp", "order": 21, "prerequisites": ["quant-gemv"],
                     "exercises": ["glu"], "ids": ["gated-mlp.glu"], "dtypes": {"bfloat16"}},
}
EXERCISES = [(f, n) for f, info in LESSONS.items() for n in info["exercises"]]
BENCH_COMMAND = "python3 bench/reference_kernels.py quant-gemv.int8_gemv gated-mlp.glu --reps 30"
HANGUL = re.compile(r"[\uac00-\ud7a3]")
FIELD_TYPES = {"id": str, "track": str, "order": int, "minutes": int, "tags": list,
               "difficulty": str, "xp": int, "prerequisites": list, "status": str,
               "exercises": list}
SEEDS = range(4)


def _cases(kit, folder, name, section="tests"):
    return [dict(c) for c in kit.read_exercise_toml(folder, name)[section]["cases"]]


def _bf16(values) -> np.ndarray:
    """Round to bfloat16 and back (the judge's own conversion, kernels/buffers.py)."""
    return to_float64(from_float64(np.asarray(values, dtype=np.float64), "bfloat16"), "bfloat16")


def _fails(got, want, spec, scale=1.0) -> bool:
    """The judge's rule, |got - want| <= atol * scale + rtol * |want|; NaN fails."""
    rtol, atol = spec["check"]["rtol"], spec["check"]["atol"]
    ok = np.abs(np.asarray(got) - want) <= atol * np.asarray(scale) + rtol * np.abs(want)
    return not bool(ok.all())


# --- Front matter and the two languages -------------------------------------------------

@pytest.mark.parametrize("folder", LESSONS)
def test_front_matter_is_complete_and_in_the_track(kit, folder):
    meta = kit.read_lesson_toml(folder)
    for name, kind in FIELD_TYPES.items():
        assert isinstance(meta.get(name), kind) and not isinstance(meta[name], bool), \
            f"{folder}/lesson.toml: {name}: expected {kind.__name__}, got {meta.get(name)!r}"
    info = LESSONS[folder]
    assert (meta["id"], meta["order"], meta["track"]) == (info["id"], info["order"], TRACK)
    assert meta["prerequisites"] == info["prerequisites"] and meta["exercises"] == info["exercises"]
    assert meta["status"] == "published" and meta["difficulty"] in ("easy", "medium", "hard")


@pytest.mark.parametrize("folder", LESSONS)
def test_both_languages_have_the_same_sections_code_and_tables(kit, folder):
    ko, en = kit.read_text(folder, "ko"), kit.read_text(folder, "en")
    for text in (ko, en):
        assert text.meta["title"].strip() and text.meta["summary"].strip()
    assert HANGUL.search(ko.meta["title"]) and not HANGUL.search(en.body)
    assert ko.headings == en.headings and len(ko.headings) >= 7
    assert len(ko.code_blocks) == len(en.code_blocks) >= 4
    for (ko_info, ko_code), (en_info, en_code) in zip(ko.code_blocks, en.code_blocks):
        assert ko_info == en_info and ko_code == en_code, "code is shared; only prose is translated"
    assert sum("tab=" in info for info, _ in en.code_blocks) >= 2, "a tabbed pair of code blocks"
    tables = [re.findall(r"\d+(?:\.\d+)?", "\n".join(l for l in t.body.splitlines() if l.startswith("|")))
              for t in (ko, en)]
    assert tables[0] == tables[1] and len(tables[0]) >= 20, "the same table numbers in both languages"
    for text in (ko, en):  # the command that measured the table is given in the text
        assert any(code.strip() == BENCH_COMMAND for _, code in text.code_blocks), text.path


@pytest.mark.parametrize("folder", LESSONS)
def test_the_text_quotes_the_measured_percentages_in_both_languages(kit, folder):
    """Every percentage in the prose is in both texts (they come from the same H100 run)."""
    ko, en = kit.read_text(folder, "ko"), kit.read_text(folder, "en")
    percents = [sorted(re.findall(r"(\d+(?:\.\d+)?)%", t.body)) for t in (ko, en)]
    assert percents[0] == percents[1] and percents[0]


@pytest.mark.parametrize("folder", LESSONS)
def test_the_tables_numbers_are_the_ones_in_docs_benchmarks(kit, folder):
    """The H100 times in the lesson tables are the ones recorded in docs/benchmarks.md."""
    docs = (kit.LESSONS_DIR.parent / "docs" / "benchmarks.md").read_text(encoding="utf-8")
    section = docs.split("## Track 3: lessons 20 int8 GEMV and 21 gated MLP activations (#15)", 1)[1].split("\n## ", 1)[0]
    recorded = set(re.findall(r"\d+\.\d+", section))
    en = kit.read_text(folder, "en")
    times = re.findall(r"\d+\.\d{4}", "\n".join(l for l in en.body.splitlines() if l.startswith("|")))
    assert len(times) >= 15 and set(times) <= recorded, set(times) - recorded
    assert BENCH_COMMAND in section


# --- Exercise folders, hints and the int8 dtype ----------------------------------------

@pytest.mark.parametrize(("folder", "name"), EXERCISES)
def test_exercise_folder_is_complete(kit, folder, name):
    root = kit.exercise_dir(folder, name)
    spec = kit.read_exercise_toml(folder, name)
    assert spec["id"] == LESSONS[folder]["ids"][0]
    for file in ("exercise.toml", "reference.py", "starter.cu", "reference.cu", "baselines/naive.cu",
                 "instructions.ko.md", "instructions.en.md"):
        assert (root / file).is_file() and (root / file).read_text(encoding="utf-8").strip(), file
    assert {b["dtype"] for b in spec["buffers"]} == LESSONS[folder]["dtypes"]
    assert set(spec["benchmark"]["baselines"]) >= {"naive", "framework"}
    correct = sorted((root / "solutions" / "correct").glob("*.cu"))
    wrong = sorted((root / "solutions" / "wrong").glob("*.cu"))
    assert len(correct) >= 2 and len(wrong) >= 3
    for path in wrong:
        assert re.fullmatch(r"[a-z0-9]+(_[a-z0-9]+)+\.cu", path.name), path.name
        assert path.read_text(encoding="utf-8").startswith("// BUG:"), path
    starter = (root / "starter.cu").read_text(encoding="utf-8")
    assert "// BEGIN FILL-IN" in starter and "// END FILL-IN" in starter
    assert HANGUL.search((root / "instructions.ko.md").read_text(encoding="utf-8"))
    assert not HANGUL.search((root / "instructions.en.md").read_text(encoding="utf-8"))


@pytest.mark.parametrize(("folder", "name"), EXERCISES)
def test_hints_match_in_count_and_do_not_give_the_reference_away(kit, folder, name):
    hints = kit.read_exercise_toml(folder, name)["hints"]
    assert len(hints["ko"]) == len(hints["en"]) >= 4
    assert all(HANGUL.search(h) for h in hints["ko"]) and not any(HANGUL.search(h) for h in hints["en"])
    reference = (kit.exercise_dir(folder, name) / "reference.cu").read_text(encoding="utf-8")
    statements = {line.strip() for line in reference.splitlines()
                  if line.strip().endswith(";") and len(line.strip()) > 25}
    for hint in hints["en"] + hints["ko"]:
        assert not any(statement in hint for statement in statements), hint


def test_int8_buffers_are_signed_bytes_with_guards_and_sentinels():
    from kernels.buffers import guard_value, sentinel_bits, storage_dtype
    from kernels.spec import parse_signature

    params = parse_signature("const signed char* W, const int8_t* V, unsigned char* U")
    from kernels.spec import POINTER_CTYPES

    assert [POINTER_CTYPES[p.ctype] for p in params] == ["int8", "int8", "uint8"]
    assert storage_dtype("int8") == np.dtype(np.int8)
    assert guard_value("int8").dtype == np.int8 and guard_value("int8")[0] == 0x5A
    assert sentinel_bits("int8") == 0xDE  # the same bit patterns as uint8 (kernels/buffers.py)


# --- reference.py against independent formulas ------------------------------------------

def test_gemv_reference_matches_the_sum_written_out(kit):
    module = kit.load_reference("20-quant-gemv", "int8_gemv")
    case = {"N": 3, "K": 130}
    inputs = module.generate(case, np.random.default_rng(5))
    assert inputs["W"].dtype == np.int8 and inputs["scales"].dtype == np.float16
    assert inputs["scales"].shape == (3, 2) and inputs["x"].dtype == np.uint16
    assert (inputs["W"] < 0).mean() > 0.2, "negative weights must be common"
    got = module.reference(inputs, case)["y"]
    x = to_float64(inputs["x"], "bfloat16")
    for n in range(3):
        terms = [int(inputs["W"][n, k]) * float(inputs["scales"][n, k // 128]) * float(x[k]) for k in range(130)]
        assert got[n] == pytest.approx(math.fsum(terms), rel=1e-12, abs=1e-12)
        scale = module.error_scale(inputs, case)["y"][n]
        assert scale == pytest.approx(math.fsum(abs(t) for t in terms), rel=1e-12)


def test_glu_reference_matches_the_activations_written_out(kit):
    module = kit.load_reference("21-gated-mlp", "glu")
    for act in (0, 1):
        case = {"rows": 3, "hidden": 5, "act": act}
        inputs = module.generate(case, np.random.default_rng(6 + act))
        v = to_float64(inputs["gate_up"], "bfloat16")
        assert v.shape == (3, 10)
        got = module.reference(inputs, case)["out"]
        for r in range(3):
            for c in range(5):
                g, u = float(v[r, c]), float(v[r, 5 + c])
                if act == 0:
                    want = g * u / (1.0 + math.exp(-g)) if g > -700 else 0.0
                else:
                    want = 0.5 * g * math.erfc(-g / math.sqrt(2.0)) * u
                assert got[r, c] == pytest.approx(want, rel=1e-9, abs=1e-300)


# --- Test-case design: numpy models of each solution over the spec's cases -------------

def _gemv_model(inputs, case, bug=None):
    """A model of the kernels: float32 products, one warp (lanes k % 32) per row."""
    w = inputs["W"].astype(np.float64)
    N, K = w.shape
    if bug == "unsigned_weights":
        w = np.where(w < 0, w + 256.0, w)
    groups = (K + 127) // 128
    flat = inputs["scales"].astype(np.float64).reshape(-1)
    per_row = K // 128 if bug == "groups_per_row_rounded_down" else groups
    index = np.arange(N).reshape(N, 1) * per_row + np.arange(K).reshape(1, K) // 128
    terms = w * flat[index] * to_float64(inputs["x"], "bfloat16")
    if bug == "missing_row_tail":
        terms[:, (K // 128) * 128:] = 0.0
    if bug == "warp_sum_misses_half_the_lanes":
        terms[:, (np.arange(K) % 32) >= 16] = 0.0
    return {"y": _bf16(terms.astype(np.float32).sum(axis=1, dtype=np.float32))}


def test_gemv_cases_catch_every_named_bug_and_pass_a_float_kernel(kit):
    module = kit.load_reference("20-quant-gemv", "int8_gemv")
    spec = kit.read_exercise_toml("20-quant-gemv", "int8_gemv")
    root = kit.exercise_dir("20-quant-gemv", "int8_gemv")
    bugs = sorted(p.stem for p in (root / "solutions/wrong").glob("*.cu"))
    assert bugs == ["groups_per_row_rounded_down", "missing_row_tail", "unsigned_weights",
                    "warp_sum_misses_half_the_lanes"]
    for seed in SEEDS:
        caught = dict.fromkeys(bugs, False)
        for case in _cases(kit, "20-quant-gemv", "int8_gemv"):
            inputs = module.generate(case, np.random.default_rng(seed))
            want, scale = module.reference(inputs, case)["y"], module.error_scale(inputs, case)["y"]
            assert not _fails(_gemv_model(inputs, case)["y"], want, spec, scale), (seed, case)
            for bug in bugs:
                caught[bug] |= _fails(_gemv_model(inputs, case, bug)["y"], want, spec, scale)
        assert all(caught.values()), (seed, caught)


def test_gemv_cases_cover_short_groups_both_paths_and_partial_blocks(kit):
    cases = _cases(kit, "20-quant-gemv", "int8_gemv")
    Ks, Ns = [c["K"] for c in cases], [c["N"] for c in cases]
    assert min(Ks) == 1 and any(k % 128 and k > 128 and k % 16 for k in Ks), "a short last group, scalar path"
    assert any(k % 128 == 0 for k in Ks) and any(k % 16 == 0 and k > 4096 for k in Ks), "the vector path, long rows"
    assert any(n % 8 for n in Ns if n > 8), "a partial last block of rows"
    assert max(n * k for n, k in zip(Ns, Ks)) <= 150_000, "emulator-sized"
    bench = _cases(kit, "20-quant-gemv", "int8_gemv", "benchmark")
    assert {(c["N"], c["K"]) for c in bench} >= {(4096, 4096), (14336, 4096)}, "the issue's two shapes"


def _silu32(g):
    with np.errstate(over="ignore"):
        return g / (np.float32(1) + np.exp(-g))


def _glu_model(inputs, case, bug=None):
    """A float32 model of the kernels, rows [gate | up]."""
    hidden, rows = int(case["hidden"]), int(case["rows"])
    flat = to_float64(inputs["gate_up"], "bfloat16").astype(np.float32).reshape(-1)
    stride = hidden if bug == "row_stride_hidden_not_two_hidden" else 2 * hidden
    index = np.arange(rows).reshape(rows, 1) * stride + np.arange(hidden).reshape(1, hidden)
    gate, up = flat[index], flat[index + hidden]
    if bug == "gate_and_up_swapped":
        gate, up = up, gate
    if int(case["act"]) == 0:
        if bug == "sigmoid_overflows_to_nan":
            with np.errstate(over="ignore", invalid="ignore"):
                act = gate * np.exp(gate) / (np.float32(1) + np.exp(gate))
        else:
            act = _silu32(gate)
    elif bug == "tanh_gelu_instead_of_erf":
        act = 0.5 * gate * (1 + np.tanh(np.float32(0.7978845608) * (gate + np.float32(0.044715) * gate ** 3)))
    else:
        erf = np.vectorize(math.erf, otypes=[np.float64])
        act = (0.5 * gate * (1 + erf(gate.astype(np.float64) / math.sqrt(2.0)))).astype(np.float32)
    return {"out": _bf16(act.astype(np.float64) * up)}


def test_glu_cases_catch_every_named_bug_and_pass_a_float_kernel(kit):
    module = kit.load_reference("21-gated-mlp", "glu")
    spec = kit.read_exercise_toml("21-gated-mlp", "glu")
    root = kit.exercise_dir("21-gated-mlp", "glu")
    bugs = sorted(p.stem for p in (root / "solutions/wrong").glob("*.cu"))
    assert bugs == ["gate_and_up_swapped", "row_stride_hidden_not_two_hidden", "sigmoid_overflows_to_nan",
                    "tanh_gelu_instead_of_erf"]
    for seed in SEEDS:
        caught = dict.fromkeys(bugs, False)
        for case in _cases(kit, "21-gated-mlp", "glu"):
            inputs = module.generate(case, np.random.default_rng(seed))
            want = module.reference(inputs, case)["out"]
            assert not _fails(_glu_model(inputs, case)["out"], want, spec), (seed, case)
            for bug in bugs:
                caught[bug] |= _fails(_glu_model(inputs, case, bug)["out"], want, spec)
        assert all(caught.values()), (seed, caught)


def test_glu_cases_cover_both_activations_tails_and_vectors(kit):
    cases = _cases(kit, "21-gated-mlp", "glu")
    assert {c["act"] for c in cases} == {0, 1}
    hidden = [c["hidden"] for c in cases]
    assert min(hidden) == 1 and any(h % 8 for h in hidden if h > 2048), "no 16-byte rows, two blocks a row"
    assert any(h % 8 == 0 and h > 2048 for h in hidden), "the vector path over several blocks"
    assert all(c["rows"] >= 3 for c in cases if c["hidden"] >= 8), "every row kind in each larger case"
    assert max(c["rows"] * c["hidden"] for c in cases) <= 40_000, "emulator-sized"
    module = kit.load_reference("21-gated-mlp", "glu")
    gates = to_float64(module.generate({"rows": 3, "hidden": 1000, "act": 0},
                                       np.random.default_rng(0))["gate_up"], "bfloat16")[:, :1000]
    assert gates.max() > 89 and gates.min() < -89 and ((gates > -6) & (gates < -2)).sum() > 500


@pytest.mark.parametrize(("folder", "name"), EXERCISES)
def test_small_cases_are_never_trivial_whatever_the_seed(kit, folder, name):
    from kernels.check import reference_is_trivial

    module = kit.load_reference(folder, name)
    atol = kit.read_exercise_toml(folder, name)["check"]["atol"]
    small = [c for c in _cases(kit, folder, name) if math.prod(v for k, v in c.items() if k != "act") <= 5000]
    assert small
    for seed in range(100):
        for case in small:
            inputs = module.generate(case, np.random.default_rng(seed))
            want = module.reference(inputs, case)
            scales = module.error_scale(inputs, case) if hasattr(module, "error_scale") else {}
            assert not any(reference_is_trivial(v, atol, scales.get(k, 1.0)) for k, v in want.items()), (seed, case)


# --- Every kernel source compiles with NVRTC against its spec ---------------------------

@pytest.fixture(scope="module")
def judged():
    from kernels.catalog import load_exercises

    return load_exercises()


@pytest.mark.parametrize(("folder", "name"), EXERCISES)
def test_every_kernel_source_compiles_with_nvrtc(kit, judged, folder, name):
    from kernels.compile import compile_submission
    from kernels.nvrtc import compile_program

    exercise = judged[kit.read_exercise_toml(folder, name)["id"]]
    root = kit.exercise_dir(folder, name)
    for path in [root / "starter.cu", root / "reference.cu", *sorted((root / "solutions").rglob("*.cu"))]:
        result = compile_submission(path.read_text(encoding="utf-8"), exercise)
        assert result.ok, f"{path}: {result.log}"
        if path.name in ("starter.cu", "reference.cu"):
            assert not result.diagnostics, f"{path}: {result.log}"
    for baseline in exercise.benchmark.baselines:
        if baseline.source is not None:
            source = (root / baseline.source).read_text(encoding="utf-8")
            out = compile_program(source, "kernel.cu", ["-std=c++17", "--gpu-architecture=sm_90"])
            assert out.ok, f"{baseline.source}: {out.log}"
            for launch in baseline.launches:
                assert f"void {launch.kernel}(" in source
