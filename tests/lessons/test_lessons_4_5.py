"""Content checks for lessons 4-5 of the foundations track (issue #5).

Front matter, ko/en parity, translation stamps, exercise folders and hints;
each reference.py against an independent numpy formula; test-case design (the
cases that make each named wrong solution fail); every kernel source compiled
by the real NVRTC against its spec. The verdicts of the sources are
tests/lessons/test_corpus.py's.
"""

from __future__ import annotations

import math
import re

import numpy as np
import pytest

LESSONS = {
    "04-row-reductions": {"id": "row-reductions", "order": 4, "prerequisites": ["reduction"],
                          "exercises": ["softmax", "layernorm"],
                          "ids": ["row-reductions.softmax", "row-reductions.layernorm"]},
    "05-gemm-epilogue": {"id": "gemm-epilogue", "order": 5, "prerequisites": ["row-reductions"],
                         "exercises": ["fp32", "wmma_fp16"],
                         "ids": ["gemm-epilogue.fp32", "gemm-epilogue.wmma_fp16"]},
}
EXERCISES = [(f, n) for f, info in LESSONS.items() for n in info["exercises"]]
HANGUL = re.compile(r"[\uac00-\ud7a3]")
FIELD_TYPES = {"id": str, "track": str, "order": int, "minutes": int, "tags": list,
               "difficulty": str, "xp": int, "prerequisites": list, "status": str,
               "exercises": list}


def _cases(kit, folder, name, section="tests"):
    return [dict(c) for c in kit.read_exercise_toml(folder, name)[section]["cases"]]


# --- Front matter and the two languages -------------------------------------------------

@pytest.mark.parametrize("folder", LESSONS)
def test_front_matter_is_complete_and_typed(kit, folder):
    meta = kit.read_lesson_toml(folder)
    for name, kind in FIELD_TYPES.items():
        assert name in meta, f"{folder}/lesson.toml: {name}: missing"
        assert isinstance(meta[name], kind) and not isinstance(meta[name], bool), \
            f"{folder}/lesson.toml: {name}: expected {kind.__name__}, got {meta[name]!r}"
    info = LESSONS[folder]
    assert (meta["id"], meta["order"], meta["track"]) == (info["id"], info["order"], "foundations")
    assert meta["prerequisites"] == info["prerequisites"]
    assert meta["exercises"] == info["exercises"]
    assert meta["difficulty"] in ("easy", "medium", "hard") and meta["status"] in ("draft", "published")
    assert meta["minutes"] > 0 and meta["xp"] > 0 and all(isinstance(t, str) and t for t in meta["tags"])


@pytest.mark.parametrize("folder", LESSONS)
def test_both_languages_have_the_same_sections_and_code(kit, folder):
    ko, en = kit.read_text(folder, "ko"), kit.read_text(folder, "en")
    for text in (ko, en):
        for name in ("title", "summary"):
            assert isinstance(text.meta.get(name), str) and text.meta[name].strip(), \
                f"{text.path}: front matter {name}: missing or empty"
    assert ko.headings == en.headings and len(ko.headings) >= 6
    assert len(ko.code_blocks) == len(en.code_blocks) >= 2
    for (ko_info, ko_code), (en_info, en_code) in zip(ko.code_blocks, en.code_blocks):
        assert ko_info == en_info and ko_code == en_code, "code is shared; only prose is translated"
    assert any("tab=" in info for info, _ in en.code_blocks), "tabbed code blocks"
    # the measured table is the same numbers in both languages
    assert re.findall(r"\d+\.\d+", _table(en.body)) == re.findall(r"\d+\.\d+", _table(ko.body))


def _table(body: str) -> str:
    return "\n".join(line for line in body.splitlines() if line.startswith("|"))


def test_texts_cite_the_measured_anchors(kit):
    # the speed-up over the naive kernel is the one measured here (docs/benchmarks.md), in both languages
    assert "12–35×" in kit.read_text("04-row-reductions", "en").body
    assert "12–35배" in kit.read_text("04-row-reductions", "ko").body
    gemm = kit.read_text("05-gemm-epilogue", "en").body
    assert "+6%" in gemm and "+37%" in gemm, "anchors.md: unfused bias + ReLU overheads"


# --- Exercise folders and hints ---------------------------------------------------------

@pytest.mark.parametrize(("folder", "name"), EXERCISES)
def test_exercise_folder_is_complete(kit, folder, name):
    root = kit.exercise_dir(folder, name)
    spec = kit.read_exercise_toml(folder, name)
    assert spec["id"] == LESSONS[folder]["ids"][LESSONS[folder]["exercises"].index(name)]
    for file in ("exercise.toml", "reference.py", "starter.cu", "reference.cu",
                 "instructions.ko.md", "instructions.en.md"):
        assert (root / file).is_file() and (root / file).read_text(encoding="utf-8").strip(), file
    correct = sorted((root / "solutions" / "correct").glob("*.cu"))
    wrong = sorted((root / "solutions" / "wrong").glob("*.cu"))
    assert len(correct) >= 2 and len(wrong) >= 3
    for path in wrong:  # named after the bug, and the file says which bug
        assert re.fullmatch(r"[a-z0-9]+(_[a-z0-9]+)+\.cu", path.name), path.name
        assert path.read_text(encoding="utf-8").startswith("// BUG:"), path
    assert HANGUL.search((root / "instructions.ko.md").read_text(encoding="utf-8"))
    assert not HANGUL.search((root / "instructions.en.md").read_text(encoding="utf-8"))


@pytest.mark.parametrize(("folder", "name"), EXERCISES)
def test_hints_match_in_count_and_do_not_give_the_reference_away(kit, folder, name):
    spec = kit.read_exercise_toml(folder, name)
    hints = spec["hints"]
    assert len(hints["ko"]) == len(hints["en"]) >= 3
    assert all(HANGUL.search(h) for h in hints["ko"]) and not any(HANGUL.search(h) for h in hints["en"])
    reference = (kit.exercise_dir(folder, name) / "reference.cu").read_text(encoding="utf-8")
    statements = {line.strip() for line in reference.splitlines()
                  if line.strip().endswith(";") and len(line.strip()) > 25}
    for hint in hints["en"] + hints["ko"]:
        assert not any(statement in hint for statement in statements), hint


def test_naive_baselines_are_one_thread_per_row(kit):
    for name in ("softmax", "layernorm"):
        spec = kit.read_exercise_toml("04-row-reductions", name)
        naive = spec["benchmark"]["baselines"]["naive"]
        source = (kit.exercise_dir("04-row-reductions", name) / naive["source"]).read_text(encoding="utf-8")
        assert "blockIdx.x * blockDim.x + threadIdx.x" in source and "for (int c = 0; c < cols" in source
        assert naive["launch"][0]["grid"] == "ceil_div(rows, 128)"


def test_benchmark_shapes_are_the_anchor_shapes(kit):
    for name in ("softmax", "layernorm"):
        shapes = {(c["rows"], c["cols"]) for c in _cases(kit, "04-row-reductions", name, "benchmark")}
        assert shapes == {(8192, 768), (8192, 4096), (4096, 50304), (65536, 1024)}
    for name in ("fp32", "wmma_fp16"):
        shapes = {(c["M"], c["N"], c["K"]) for c in _cases(kit, "05-gemm-epilogue", name, "benchmark")}
        assert shapes == {(4096, 4096, 4096), (8192, 3072, 768)}


# --- reference.py against independent formulas ------------------------------------------

def test_softmax_reference_matches_log_sum_exp(kit):
    module = kit.load_reference("04-row-reductions", "softmax")
    for case in _cases(kit, "04-row-reductions", "softmax")[:8]:
        inputs = module.generate(case, np.random.default_rng(2))
        x = inputs["x"].astype(np.float64)
        assert inputs["x"].dtype == np.float32 and x.shape == (case["rows"], case["cols"])
        lse = np.logaddexp.reduce(x, axis=1, keepdims=True)
        got = module.reference(inputs, case)["y"]
        np.testing.assert_allclose(got, np.exp(x - lse), rtol=1e-12, atol=1e-300)
        np.testing.assert_allclose(got.sum(axis=1), 1.0, rtol=1e-12)


def test_layernorm_reference_matches_the_definition(kit):
    module = kit.load_reference("04-row-reductions", "layernorm")
    case = {"rows": 3, "cols": 5}
    inputs = module.generate(case, np.random.default_rng(4))
    got = module.reference(inputs, case)["y"]
    for r in range(3):
        row = [float(v) for v in inputs["x"][r]]
        mean = math.fsum(row) / 5
        var = math.fsum((v - mean) ** 2 for v in row) / 5
        for c in range(5):
            want = (row[c] - mean) / math.sqrt(var + 1e-5) * float(inputs["weight"][c]) + float(inputs["bias"][c])
            assert got[r, c] == pytest.approx(want, rel=1e-12, abs=1e-12)


def _gemm_epilogue_by_hand(inputs, case):
    a, b = inputs["A"].astype(np.float64), inputs["B"].astype(np.float64)
    m, n = a.shape[0], b.shape[1]
    acc = np.einsum("mk,kn->mn", a, b)
    bias = np.zeros((m, n))
    kind = case["bias_kind"]
    if kind == 1:
        bias = np.tile(inputs["bias"][:n].astype(np.float64), (m, 1))
    elif kind == 2:
        bias = np.tile(inputs["bias"][:m].astype(np.float64)[:, None], (1, n))
    elif kind == 3:
        bias = np.full((m, n), float(inputs["bias"][0]))
    v = case["alpha"] * acc + case["beta"] * inputs["C"].astype(np.float64) + bias
    if case["act"] == 1:
        v = np.where(v > 0, v, 0.0)
    elif case["act"] == 2:
        v = np.vectorize(lambda t: 0.5 * t * (1 + math.tanh(math.sqrt(2 / math.pi) * (t + 0.044715 * t**3))))(v)
    return v


@pytest.mark.parametrize("name", ["fp32", "wmma_fp16"])
def test_gemm_reference_matches_the_epilogue_written_out(kit, name):
    module = kit.load_reference("05-gemm-epilogue", name)
    dtype = np.float32 if name == "fp32" else np.float16
    for case in _cases(kit, "05-gemm-epilogue", name)[:7]:
        inputs = module.generate(case, np.random.default_rng(6))
        assert inputs["A"].dtype == dtype and inputs["B"].dtype == dtype
        assert inputs["bias"].shape == (max(case["M"], case["N"]),)
        got = module.reference(inputs, case)["D"]
        np.testing.assert_allclose(got, _gemm_epilogue_by_hand(inputs, case), rtol=1e-12, atol=1e-12)
        scale = module.error_scale(inputs, case)["D"]
        assert scale.shape == got.shape and (scale >= 1.0).all()


def test_fp16_inputs_are_exact_in_half_precision(kit):
    module = kit.load_reference("05-gemm-epilogue", "wmma_fp16")
    inputs = module.generate({"M": 20, "N": 30, "K": 40}, np.random.default_rng(0))
    for name in ("A", "B"):
        values = inputs[name].astype(np.float64)
        assert np.array_equal(values * 64, np.round(values * 64)) and np.abs(values).max() <= 1.0


# --- Test-case design: each named bug meets a case that exposes it ----------------------

def test_softmax_cases_overflow_without_the_row_max_and_need_cross_warp_sums(kit):
    module = kit.load_reference("04-row-reductions", "softmax")
    cases = _cases(kit, "04-row-reductions", "softmax")
    for case in cases:  # no_row_max: every case has a row whose exp() overflows float32
        x = module.generate(case, np.random.default_rng(8))["x"]
        with np.errstate(over="ignore"):
            assert np.isinf(np.exp(x.max(axis=1))).any(), case
    cols = [c["cols"] for c in cases]
    assert 1 in cols and any(c % 4 for c in cols) and any(c > 512 for c in cols)  # tails, >1 warp
    assert any(c > 4 * 4 * 1024 for c in cols), "rows beyond the register-cached fast path"


@pytest.mark.parametrize("name", ["fp32", "wmma_fp16"])
def test_gemm_small_cases_are_never_trivial_whatever_the_seed(kit, name):
    # The judge refuses (internal_error) a case whose expected output is ~0, and it
    # draws a fresh seed every run: no seed may make a small ReLU case all zeros.
    from kernels.check import reference_is_trivial

    module = kit.load_reference("05-gemm-epilogue", name)
    atol = kit.read_exercise_toml("05-gemm-epilogue", name)["check"]["atol"]
    small = [c for c in _cases(kit, "05-gemm-epilogue", name) if c["M"] * c["N"] * c["K"] <= 100_000]
    assert any(c["act"] == 1 and c["M"] * c["N"] < 64 for c in small), "a small ReLU case to guard"
    for seed in range(400):
        rng = np.random.default_rng(seed)
        for case in small:
            inputs = module.generate(case, rng)
            want = module.reference(inputs, case)["D"]
            scale = module.error_scale(inputs, case)["D"]
            assert not reference_is_trivial(want, atol, scale), (seed, case)


def test_layernorm_cases_catch_cancellation_bias_and_eps(kit):
    module = kit.load_reference("04-row-reductions", "layernorm")
    spec = kit.read_exercise_toml("04-row-reductions", "layernorm")
    rtol, atol = spec["check"]["rtol"], spec["check"]["atol"]
    for seed in range(5):
        for case in ({"rows": 16, "cols": 768}, {"rows": 7, "cols": 1000}):
            inputs = module.generate(case, np.random.default_rng(seed))
            want = module.reference(inputs, case)["y"]
            x = inputs["x"].astype(np.float64)
            # the kindest one-pass variance: exact sums, each statistic rounded to float32 once
            mean = x.mean(axis=1, keepdims=True).astype(np.float32).astype(np.float64)
            mean_sq = (x * x).mean(axis=1, keepdims=True).astype(np.float32).astype(np.float64)
            var = np.maximum(mean_sq - mean * mean, 0.0)
            y = (x - mean) / np.sqrt(var + 1e-5) * inputs["weight"] + inputs["bias"]
            assert (np.abs(y - want) > atol + rtol * np.abs(want)).any(), f"E[x^2] - mean^2 must fail: {case}"
            # while a float32 two-pass variance stays well inside the tolerance
            x32 = inputs["x"]
            mean32 = x32.mean(axis=1, dtype=np.float32, keepdims=True)
            var32 = ((x32 - mean32) ** 2).mean(axis=1, dtype=np.float32, keepdims=True)
            y32 = (x32 - mean32) / np.sqrt(var32 + np.float32(1e-5)) * inputs["weight"] + inputs["bias"]
            assert (np.abs(y32 - want) <= (atol + rtol * np.abs(want)) / 2).all(), case
    constant = {"rows": 4, "cols": 768, "data": "constant"}
    assert constant in _cases(kit, "04-row-reductions", "layernorm")
    inputs = module.generate(constant, np.random.default_rng(1))
    assert (inputs["x"] == inputs["x"][:, :1]).all()
    np.testing.assert_array_equal(module.reference(inputs, constant)["y"],
                                  np.broadcast_to(inputs["bias"].astype(np.float64), (4, 768)))


def test_gemm_cases_cover_kinds_remainders_and_tell_the_gelus_apart(kit):
    cases = _cases(kit, "05-gemm-epilogue", "fp32")
    assert {c["bias_kind"] for c in cases} == {0, 1, 2, 3} and {c["act"] for c in cases} == {0, 1, 2}
    assert any(c["alpha"] != 1 for c in cases) and any(c["beta"] != 0 for c in cases)
    assert any(c["M"] != c["N"] and c["bias_kind"] in (1, 2) for c in cases)
    assert any(c["K"] % 16 for c in cases) and any(c["M"] % 128 and c["M"] > 128 for c in cases)
    assert max(c["M"] * c["N"] * c["K"] for c in cases) <= 256 * 256 * 256, "emulator-sized"
    module = kit.load_reference("05-gemm-epilogue", "fp32")
    spec = kit.read_exercise_toml("05-gemm-epilogue", "fp32")
    gelu_cases = [c for c in cases if c["act"] == 2]
    caught = 0
    for case in gelu_cases:
        inputs = module.generate(case, np.random.default_rng(3))
        want = module.reference(inputs, case)["D"]
        exact = dict(case, act=0)
        pre = module.reference(inputs, exact)["D"]
        erf_gelu = 0.5 * pre * (1 + np.vectorize(math.erf)(pre / math.sqrt(2)))
        limit = spec["check"]["atol"] * module.error_scale(inputs, case)["D"] + spec["check"]["rtol"] * np.abs(want)
        caught += int((np.abs(erf_gelu - want) > limit).any())
    assert caught == len(gelu_cases), "every GELU case must reject the erf form"


# --- Every kernel source compiles with NVRTC against its spec ---------------------------

@pytest.fixture(scope="module")
def judged():
    from kernels.catalog import load_exercises

    return load_exercises()


@pytest.mark.parametrize(("folder", "name"), EXERCISES)
def test_every_kernel_source_compiles_with_nvrtc(kit, judged, folder, name):
    from kernels.compile import compile_submission

    exercise = judged[kit.read_exercise_toml(folder, name)["id"]]
    root = kit.exercise_dir(folder, name)
    sources = [root / "starter.cu", root / "reference.cu", *sorted((root / "solutions").rglob("*.cu"))]
    for path in sources:
        result = compile_submission(path.read_text(encoding="utf-8"), exercise)
        assert result.ok, f"{path}: {result.log}"
        if path.name in ("starter.cu", "reference.cu"):
            assert not result.diagnostics, f"{path}: {result.log}"
