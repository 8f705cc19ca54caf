"""Content checks for lessons 14-15 of the llm-kernels track (issue #15).

Front matter, ko/en parity, exercise folders and hints; each reference.py
against an independent formula (element by element, math.fsum / math.cos);
test-case design, shown by running a numpy model of each named wrong solution
over the spec's own cases with several seeds (every bug meets a case that
exposes it, while a float32 model of the correct kernel passes them all);
every kernel source, baselines included, compiled by the real NVRTC. The
verdicts of the sources are tests/lessons/test_corpus.py's.
"""

from __future__ import annotations

import math
import re

import numpy as np
import pytest

from kernels.buffers import from_float64, to_float64

TRACK = "llm-kernels"
LESSONS = {
    "14-rmsnorm": {"id": "rmsnorm", "order": 14, "prerequisites": ["row-reductions"],
                   "exercises": ["fused_add"], "ids": ["rmsnorm.fused_add"]},
    "15-rope": {"id": "rope", "order": 15, "prerequisites": ["rmsnorm"],
                "exercises": ["qk_inplace"], "ids": ["rope.qk_inplace"]},
}
EXERCISES = [(f, n) for f, info in LESSONS.items() for n in info["exercises"]]
BENCH_COMMAND = "python3 bench/reference_kernels.py rmsnorm.fused_add rope.qk_inplace --no-judge --reps 30"
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


def _fails(got, want, spec) -> bool:
    rtol, atol = spec["check"]["rtol"], spec["check"]["atol"]
    return bool((np.abs(np.asarray(got) - want) > atol + rtol * np.abs(want)).any())


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


def test_the_track_starts_from_the_foundations_track(kit):
    row = kit.read_lesson_toml("04-row-reductions")
    assert row["id"] == "row-reductions" and row["track"] != TRACK


def test_the_track_has_a_name_in_both_languages():
    from app import i18n_strings

    names = [v for k, v in vars(i18n_strings).items() if isinstance(v, dict) and "track.llm-kernels" in v]
    texts = [table["track.llm-kernels"] for table in names]
    assert len(texts) == 2 and any(HANGUL.search(t) for t in texts) and not all(HANGUL.search(t) for t in texts)


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
    tables = [re.findall(r"\d+", "\n".join(l for l in t.body.splitlines() if l.startswith("|")))
              for t in (ko, en)]
    assert tables[0] == tables[1] and len(tables[0]) >= 6, "the same table numbers in both languages"
    for text in (ko, en):  # the command that measures the exercise is given in the text
        assert any(code.strip() == BENCH_COMMAND for _, code in text.code_blocks), text.path


@pytest.mark.parametrize("folder", LESSONS)
def test_measured_tables_come_from_the_benchmark_record(kit, folder):
    record = (kit.LESSONS_DIR.parent / "docs" / "benchmarks.md").read_text(encoding="utf-8")
    start = record.index("## Track 3: lessons 14 RMSNorm and 15 RoPE")
    section = record[start:record.index("\n## ", start + 1)]
    assert BENCH_COMMAND in section
    body = kit.read_text(folder, "en").body
    measured = body[body.index("## Measuring it"):]
    measured = measured[:measured.index("\n## ")]
    lines = [line for line in measured.splitlines() if line.startswith("|")]
    rows = [line for i, line in enumerate(lines) if i >= 2]  # below the header and its separator
    numbers = [n for row in rows for n in re.findall(r"\d+(?:\.\d+)?%?", row)]
    assert len(rows) >= 5 and len(numbers) >= 15
    for number in numbers:  # every number of the measured table is in the record (µs, or as ms)
        value = float(number.rstrip("%"))
        assert number in section or f"{value / 1000:.3f} ms" in section, \
            f"{folder}: {number} not in docs/benchmarks.md"


# --- Exercise folders and hints ---------------------------------------------------------

@pytest.mark.parametrize(("folder", "name"), EXERCISES)
def test_exercise_folder_is_complete(kit, folder, name):
    root = kit.exercise_dir(folder, name)
    spec = kit.read_exercise_toml(folder, name)
    assert spec["id"] == LESSONS[folder]["ids"][0]
    for file in ("exercise.toml", "reference.py", "starter.cu", "reference.cu", "baselines/naive.cu",
                 "instructions.ko.md", "instructions.en.md"):
        assert (root / file).is_file() and (root / file).read_text(encoding="utf-8").strip(), file
    assert {b["dtype"] for b in spec["buffers"]} == {"bfloat16"}
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


# --- reference.py against independent formulas ------------------------------------------

def test_bf16_helpers_agree_with_the_judges_conversion(kit):
    module = kit.load_reference("14-rmsnorm", "fused_add")
    values = np.random.default_rng(0).standard_normal(4096) * 100
    bits = module.bf16_bits(values)
    assert bits.dtype == np.uint16
    np.testing.assert_array_equal(bits, from_float64(values, "bfloat16"))
    np.testing.assert_array_equal(module.bf16_values(bits).astype(np.float64), to_float64(bits, "bfloat16"))


def test_rmsnorm_reference_matches_the_definition(kit):
    module = kit.load_reference("14-rmsnorm", "fused_add")
    case = {"rows": 3, "cols": 7}
    inputs = module.generate(case, np.random.default_rng(5))
    got = module.reference(inputs, case)
    x, r, w = (to_float64(inputs[k], "bfloat16") for k in ("x", "residual", "weight"))
    for row in range(3):
        h = [float(a) + float(b) for a, b in zip(x[row], r[row])]
        rms = math.sqrt(math.fsum(v * v for v in h) / 7 + 1e-5)
        for c in range(7):
            assert got["residual"][row, c] == pytest.approx(h[c], rel=1e-14)
            assert got["out"][row, c] == pytest.approx(h[c] / rms * float(w[c]), rel=1e-12)


def test_rope_reference_matches_the_rotation_written_out(kit):
    module = kit.load_reference("15-rope", "qk_inplace")
    case = {"tokens": 3, "heads": 2, "kv_heads": 1, "head_dim": 8, "offset": 11}
    inputs = module.generate(case, np.random.default_rng(6))
    got = module.reference(inputs, case)
    for name, heads in (("q", 2), ("k", 1)):
        v = to_float64(inputs[name], "bfloat16")
        assert v.shape == (3, heads, 8)
        for t in range(3):
            for h in range(heads):
                for i in range(4):
                    angle = (11 + t) * 10000.0 ** (-2 * i / 8)
                    x1, x2 = v[t, h, i], v[t, h, i + 4]
                    assert got[name][t, h, i] == pytest.approx(x1 * math.cos(angle) - x2 * math.sin(angle), abs=1e-12)
                    assert got[name][t, h, i + 4] == pytest.approx(x2 * math.cos(angle) + x1 * math.sin(angle), abs=1e-12)


# --- Test-case design: numpy models of each solution over the spec's cases -------------

def _rms_inputs(module, case, seed):
    inputs = module.generate(case, np.random.default_rng(seed))
    x, r, w = (to_float64(inputs[k], "bfloat16") for k in ("x", "residual", "weight"))
    return inputs, x, r, w


def _rms_model(x, r, w, bug=None, threads=256):
    """A float32 model of the kernels (one block of `threads` per row)."""
    h = (x.astype(np.float32) + r.astype(np.float32)).astype(np.float64)
    cols = h.shape[1]
    if bug == "bf16_accumulation":  # each thread's strided sum rounded to bf16 after every term
        hb = _bf16(h)
        q = np.zeros((h.shape[0], threads))
        for start in range(0, cols, threads):
            seg = hb[:, start:start + threads]
            q[:, :seg.shape[1]] = _bf16(q[:, :seg.shape[1]] + _bf16(seg * seg))
        ms = q.sum(axis=1, keepdims=True) / cols
    elif bug == "mean_instead_of_mean_square":
        ms = np.abs(h.mean(axis=1, keepdims=True))
    elif bug == "subtracts_the_mean":
        ms = ((h - h.mean(axis=1, keepdims=True)) ** 2).mean(axis=1, keepdims=True)
    else:
        ms = np.float32((h * h).mean(axis=1, keepdims=True))
    rstd = 1.0 / (np.sqrt(ms) + 1e-5) if bug == "eps_outside_sqrt" else 1.0 / np.sqrt(ms + 1e-5)
    centred = h - h.mean(axis=1, keepdims=True) if bug == "subtracts_the_mean" else h
    out = _bf16(centred * rstd * w)
    residual = r if bug == "residual_not_written_back" else _bf16(h)
    return {"out": out, "residual": residual}


def test_rmsnorm_cases_catch_every_named_bug_and_pass_a_float_kernel(kit):
    module = kit.load_reference("14-rmsnorm", "fused_add")
    spec = kit.read_exercise_toml("14-rmsnorm", "fused_add")
    root = kit.exercise_dir("14-rmsnorm", "fused_add")
    bugs = sorted(p.stem for p in (root / "solutions/wrong").glob("*.cu"))
    assert bugs == ["bf16_accumulation", "eps_outside_sqrt", "mean_instead_of_mean_square",
                    "residual_not_written_back", "subtracts_the_mean"]
    cases = _cases(kit, "14-rmsnorm", "fused_add")
    for seed in SEEDS:
        caught = dict.fromkeys(bugs, False)
        for case in cases:
            inputs, x, r, w = _rms_inputs(module, case, seed)
            want = module.reference(inputs, case)
            good = _rms_model(x, r, w)
            assert not any(_fails(good[k], want[k], spec) for k in want), (seed, case)
            for bug in bugs:
                got = _rms_model(x, r, w, bug)
                caught[bug] |= any(_fails(got[k], want[k], spec) for k in want)
        assert all(caught.values()), (seed, caught)


def test_rmsnorm_cases_cover_tails_alignment_and_long_rows(kit):
    cols = [c["cols"] for c in _cases(kit, "14-rmsnorm", "fused_add")]
    rows = [c["rows"] for c in _cases(kit, "14-rmsnorm", "fused_add")]
    assert 1 in cols and any(c % 8 for c in cols if c > 8), "no 16-byte vectors"
    assert any(c % 8 == 0 and c // 8 > 256 for c in cols), "more than one vector per thread"
    assert max(cols) >= 512 * 256, "a bf16 accumulator must stall: 512 terms per thread"
    assert any(r >= 3 for r in rows), "all three row kinds in one case"
    assert max(r * c for r, c in zip(rows, cols)) <= 300_000, "emulator-sized"


def _rope_model(inputs, case, bug=None):
    t, d = int(case["tokens"]), int(case["head_dim"])
    half = d // 2
    offset = 0 if bug == "position_offset_ignored" else int(case["offset"])
    exponent = np.zeros(half) if bug == "integer_division_in_frequency" else -2.0 * np.arange(half) / d
    angle = (np.arange(t).reshape(t, 1) + offset) * np.float32(10000.0) ** exponent.astype(np.float32)
    cos, sin = np.cos(angle)[:, None, :], np.sin(angle)[:, None, :]
    if bug == "rotation_sign_flipped":
        sin = -sin
    out = {}
    for name in ("q", "k"):
        v = to_float64(inputs[name], "bfloat16")
        if name == "k" and bug == "k_not_rotated":
            out[name] = v
            continue
        if bug == "interleaved_pairs":
            x1, x2 = v[..., 0:2 * half:2], v[..., 1:2 * half:2]
            res = v.copy()
            res[..., 0:2 * half:2], res[..., 1:2 * half:2] = x1 * cos - x2 * sin, x2 * cos + x1 * sin
        else:
            x1, x2 = v[..., :half], v[..., half:]
            res = np.concatenate([x1 * cos - x2 * sin, x2 * cos + x1 * sin], axis=-1)
        out[name] = _bf16(res)
    return out


def test_rope_cases_catch_every_named_bug_and_pass_a_float_kernel(kit):
    module = kit.load_reference("15-rope", "qk_inplace")
    spec = kit.read_exercise_toml("15-rope", "qk_inplace")
    root = kit.exercise_dir("15-rope", "qk_inplace")
    bugs = sorted(p.stem for p in (root / "solutions/wrong").glob("*.cu"))
    assert bugs == ["integer_division_in_frequency", "interleaved_pairs", "k_not_rotated",
                    "position_offset_ignored", "rotation_sign_flipped"]
    for seed in SEEDS:
        caught = dict.fromkeys(bugs, False)
        for case in _cases(kit, "15-rope", "qk_inplace"):
            inputs = module.generate(case, np.random.default_rng(seed))
            want = module.reference(inputs, case)
            good = _rope_model(inputs, case)
            assert not any(_fails(good[k], want[k], spec) for k in want), (seed, case)
            for bug in bugs:
                got = _rope_model(inputs, case, bug)
                caught[bug] |= any(_fails(got[k], want[k], spec) for k in want)
        assert all(caught.values()), (seed, caught)


def test_rope_cases_cover_head_sizes_grouped_heads_and_offsets(kit):
    cases = _cases(kit, "15-rope", "qk_inplace")
    dims = {c["head_dim"] for c in cases}
    assert {64, 128} <= dims and any((d // 2) % 2 for d in dims), "paired and unpaired loads"
    assert any(c["kv_heads"] < c["heads"] for c in cases) and any(c["offset"] == 0 for c in cases)
    assert max(c["offset"] + c["tokens"] for c in cases) >= 4000
    assert any((c["heads"] + c["kv_heads"]) % (256 // c["head_dim"]) for c in cases if c["head_dim"] in (64, 128)), \
        "a head count the reference's two-heads-per-step loop does not divide"


@pytest.mark.parametrize(("folder", "name"), EXERCISES)
def test_small_cases_are_never_trivial_whatever_the_seed(kit, folder, name):
    from kernels.check import reference_is_trivial

    module = kit.load_reference(folder, name)
    atol = kit.read_exercise_toml(folder, name)["check"]["atol"]
    small = [c for c in _cases(kit, folder, name) if math.prod(v for v in c.values() if isinstance(v, int)) <= 5000]
    assert small
    for seed in range(1000):  # the judge draws a fresh secret seed every run
        for case in small:
            want = module.reference(module.generate(case, np.random.default_rng(seed)), case)
            assert not any(reference_is_trivial(v, atol) for v in want.values()), (seed, case)


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
