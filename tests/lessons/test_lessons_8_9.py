"""Content checks for lessons 8-9 of the memory-patterns track (issue #14).

Front matter, ko/en parity, exercise folders and hints; each reference.py
against an independent formula; test-case design (the cases that make each
named wrong solution fail); the uint8 buffers the histogram needs; every
kernel source compiled by the real NVRTC against its spec. The verdicts of the
sources are tests/lessons/test_corpus.py's.
"""

from __future__ import annotations

import itertools
import re
from collections import Counter

import numpy as np
import pytest

LESSONS = {
    "08-histogram": {"id": "histogram", "order": 8, "prerequisites": ["shared-tiling"],
                     "exercises": ["bytes"], "ids": ["histogram.bytes"]},
    "09-scan": {"id": "scan", "order": 9, "prerequisites": ["histogram"],
                "exercises": ["rows", "inclusive"], "ids": ["scan.rows", "scan.inclusive"]},
}
EXERCISES = [(f, n) for f, info in LESSONS.items() for n in info["exercises"]]
HANGUL = re.compile(r"[\uac00-\ud7a3]")
FIELD_TYPES = {"id": str, "track": str, "order": int, "minutes": int, "tags": list,
               "difficulty": str, "xp": int, "prerequisites": list, "status": str,
               "exercises": list}
TILE = 4096            # scan.inclusive: elements per block
CHUNK = 1024           # scan.rows: elements per step of a block along its row
HIST_GRID_MAX = 512    # histogram.bytes: the launch's cap on blocks
CHECKED_THREADS = 16384  # cases up to this many threads also run on the emulator's race checker


def _cases(kit, folder, name, section="tests"):
    table = kit.read_exercise_toml(folder, name)[section]
    if "cases" in table:
        return [dict(c) for c in table["cases"]]
    return [{"N": n} for n in table["sizes"]]


def _table(body: str) -> str:
    return "\n".join(line for line in body.splitlines() if line.startswith("|"))


# --- Front matter and the two languages -------------------------------------------------

@pytest.mark.parametrize("folder", LESSONS)
def test_front_matter_is_complete_and_typed(kit, folder):
    meta = kit.read_lesson_toml(folder)
    for name, kind in FIELD_TYPES.items():
        assert name in meta, f"{folder}/lesson.toml: {name}: missing"
        assert isinstance(meta[name], kind) and not isinstance(meta[name], bool), \
            f"{folder}/lesson.toml: {name}: expected {kind.__name__}, got {meta[name]!r}"
    info = LESSONS[folder]
    assert (meta["id"], meta["order"], meta["track"]) == (info["id"], info["order"], "memory-patterns")
    assert meta["prerequisites"] == info["prerequisites"]
    assert meta["exercises"] == info["exercises"]
    assert meta["difficulty"] in ("easy", "medium", "hard") and meta["status"] in ("draft", "published")
    assert meta["minutes"] > 0 and meta["xp"] > 0 and all(isinstance(t, str) and t for t in meta["tags"])


@pytest.mark.parametrize("folder", LESSONS)
def test_both_languages_have_the_same_sections_code_and_numbers(kit, folder):
    ko, en = kit.read_text(folder, "ko"), kit.read_text(folder, "en")
    for text in (ko, en):
        for name in ("title", "summary"):
            assert isinstance(text.meta.get(name), str) and text.meta[name].strip(), \
                f"{text.path}: front matter {name}: missing or empty"
    assert ko.headings == en.headings and len(ko.headings) >= 6
    assert len(ko.code_blocks) == len(en.code_blocks) >= 3
    for (ko_info, ko_code), (en_info, en_code) in zip(ko.code_blocks, en.code_blocks):
        assert ko_info == en_info and ko_code == en_code, "code is shared; only prose is translated"
    assert re.findall(r"\d+\.\d+%?", _table(en.body)) == re.findall(r"\d+\.\d+%?", _table(ko.body))
    # the table says how it was measured: the command is in the text
    assert any("bench/reference_kernels.py" in code and "--reps 30" in code for _, code in en.code_blocks)


def test_texts_give_the_measured_results_against_the_targets(kit):
    # issue #14's targets at 2^28 on an H100: histogram uniform >= 70% and skewed >= 40% of a
    # same-size copy; scan >= 80% of it and at least as fast as cupy.cumsum
    hist = _table(kit.read_text("08-histogram", "en").body)
    row = next(line for line in hist.splitlines() if "% of the same-size copy" in line)
    uniform, skewed = (float(v) for v in re.findall(r"(\d+\.\d+)%", row))
    assert uniform >= 70 and skewed >= 40
    scan = _table(kit.read_text("09-scan", "en").body)
    row = next(line for line in scan.splitlines() if "% of the same-size copy" in line)
    assert float(re.findall(r"(\d+\.\d+)%", row)[-1]) >= 80
    ref = next(line for line in scan.splitlines() if line.startswith("| reference"))
    cumsum = next(line for line in scan.splitlines() if "cupy.cumsum" in line)
    assert float(ref.split("|")[-2]) < float(cumsum.split("|")[-2])


# --- Exercise folders and hints ---------------------------------------------------------

@pytest.mark.parametrize(("folder", "name"), EXERCISES)
def test_exercise_folder_is_complete(kit, folder, name):
    root = kit.exercise_dir(folder, name)
    spec = kit.read_exercise_toml(folder, name)
    assert spec["id"] == LESSONS[folder]["ids"][LESSONS[folder]["exercises"].index(name)]
    for file in ("exercise.toml", "reference.py", "starter.cu", "reference.cu", "baselines/naive.cu",
                 "instructions.ko.md", "instructions.en.md"):
        assert (root / file).is_file() and (root / file).read_text(encoding="utf-8").strip(), file
    correct = sorted((root / "solutions" / "correct").glob("*.cu"))
    wrong = sorted((root / "solutions" / "wrong").glob("*.cu"))
    assert len(correct) >= 2 and len(wrong) >= 3
    for path in wrong:  # named after the bug, and the file says which bug
        assert re.fullmatch(r"[a-z0-9]+(_[a-z0-9]+)+\.cu", path.name), path.name
        assert path.read_text(encoding="utf-8").startswith("// BUG:"), path
    assert "BEGIN FILL-IN" in (root / "starter.cu").read_text(encoding="utf-8")
    assert HANGUL.search((root / "instructions.ko.md").read_text(encoding="utf-8"))
    assert not HANGUL.search((root / "instructions.en.md").read_text(encoding="utf-8"))
    assert set(spec["benchmark"]["baselines"]) == {"naive", "framework"}


@pytest.mark.parametrize(("folder", "name"), EXERCISES)
def test_hints_match_in_count_and_do_not_give_the_reference_away(kit, folder, name):
    hints = kit.read_exercise_toml(folder, name)["hints"]
    assert len(hints["ko"]) == len(hints["en"]) >= 3
    assert all(HANGUL.search(h) for h in hints["ko"]) and not any(HANGUL.search(h) for h in hints["en"])
    reference = (kit.exercise_dir(folder, name) / "reference.cu").read_text(encoding="utf-8")
    statements = {line.strip() for line in reference.splitlines()
                  if line.strip().endswith(";") and len(line.strip()) > 25}
    for hint in hints["en"] + hints["ko"]:
        assert not any(statement in hint for statement in statements), hint


# --- reference.py against independent formulas ------------------------------------------

def test_histogram_reference_counts_every_byte(kit):
    module = kit.load_reference("08-histogram", "bytes")
    for case in _cases(kit, "08-histogram", "bytes")[:10]:
        data = module.generate(case, np.random.default_rng(5))["data"]
        assert data.dtype == np.uint8 and data.shape == (case["N"],)
        counts = Counter(int(b) for b in data)
        want = [float(counts.get(v, 0)) for v in range(256)]
        assert module.reference({"data": data}, case)["bins"].tolist() == want


def test_histogram_data_is_uniform_or_skewed_as_named(kit):
    module = kit.load_reference("08-histogram", "bytes")
    n = 200_000
    uniform = module.generate({"N": n, "data": "uniform"}, np.random.default_rng(1))["data"]
    counts = np.bincount(uniform, minlength=256)
    assert counts.min() > 0.8 * n / 256 and counts.max() < 1.2 * n / 256
    skewed = module.generate({"N": n, "data": "skewed"}, np.random.default_rng(1))["data"]
    share = np.bincount(skewed, minlength=256).max() / n
    assert 0.88 < share < 0.92 and np.argmax(np.bincount(skewed)) >= 128  # a byte a signed char breaks
    with pytest.raises(ValueError):
        module.generate({"N": 4, "data": "sorted"}, np.random.default_rng(1))


def test_scan_reference_is_the_running_sum(kit):
    module = kit.load_reference("09-scan", "inclusive")
    for case in _cases(kit, "09-scan", "inclusive")[:9]:
        values = module.generate(case, np.random.default_rng(7))["in"]
        assert values.dtype == np.int32 and values.shape == (case["N"],)
        want = list(itertools.accumulate(int(v) for v in values))
        assert module.reference({"in": values}, case)["out"].tolist() == want


def test_scan_rows_reference_is_the_running_sum_of_each_row(kit):
    module = kit.load_reference("09-scan", "rows")
    for case in _cases(kit, "09-scan", "rows")[:8]:
        values = module.generate(case, np.random.default_rng(9))["in"]
        assert values.dtype == np.int32 and values.shape == (case["rows"], case["cols"])
        got = module.reference({"in": values}, case)["out"]
        for r in range(case["rows"]):
            assert got[r].tolist() == list(itertools.accumulate(int(v) for v in values[r]))


def test_scan_values_are_nonzero_mixed_in_sign_and_fit_int32_at_2_28(kit):
    module = kit.load_reference("09-scan", "inclusive")
    values = module.generate({"N": 1_000_000}, np.random.default_rng(3))["in"]
    assert values.min() == -4 and values.max() == 12 and not (values == 0).any()
    mean = float(values.mean())
    assert 4.0 < mean < 4.5
    # the largest prefix at 2^28: the mean's share plus 10 standard deviations of the walk
    assert (4.5 + 10 * float(values.std()) / 2**14) * 2**28 < 2**31 - 1


# --- Test-case design: each named bug meets a case that exposes it ----------------------

def test_histogram_cases_catch_each_named_bug(kit):
    cases = _cases(kit, "08-histogram", "bytes")
    sizes = [c["N"] for c in cases]
    assert {1, 2, 3, 4} <= set(sizes)                                    # tail_bytes_dropped
    assert any(n % 16 and n > 16 for n in sizes)
    assert any(n > 2 * 4096 for n in sizes)                              # several blocks: merge, clearing
    assert max(sizes) > HIST_GRID_MAX * 256 * 16, "one case needs more than a pass of 16-byte loads"
    assert {c["data"] for c in cases} == {"uniform", "skewed"}
    # racy_shared_counter and missing_sync_before_merge: a skewed case small enough for the
    # emulator's race checker (blocks x 256 threads)
    assert any(c["data"] == "skewed" and -(-c["N"] // 4096) * 256 <= CHECKED_THREADS and c["N"] > 256
               for c in cases)


def test_scan_cases_catch_each_named_bug(kit):
    sizes = [c["N"] for c in _cases(kit, "09-scan", "inclusive")]
    assert {1, 2, 3, 4} <= set(sizes)                                    # off_by_one_exclusive
    assert any(n % 4 for n in sizes if n > 4)                            # unguarded_tail_store
    assert TILE in sizes and TILE + 1 in sizes                           # missing_carry_between_tiles
    assert max(sizes) > 32 * TILE, "more tiles than one window of look-back"
    assert max(sizes) <= 1 << 21, "emulator-sized"


def test_scan_rows_cases_catch_each_named_bug(kit):
    cases = _cases(kit, "09-scan", "rows")
    cols = [c["cols"] for c in cases]
    assert {1, 2, 3, 4} <= set(cols)                                     # off_by_one_exclusive, partial 4s
    assert CHUNK in cols and CHUNK + 1 in cols and max(cols) > 2 * CHUNK  # carry_not_passed_between_chunks
    assert any(c["rows"] != c["cols"] for c in cases)                    # row_stride_is_rows ...
    assert all(c["rows"] <= c["cols"] for c in cases), "... reads wrong rows, never past the matrix"
    assert any(c["rows"] >= 256 for c in cases), "many blocks: a missing barrier shows on a GPU too"
    assert sum(c["rows"] * c["cols"] for c in cases) <= 1 << 20, "emulator-sized"


@pytest.mark.parametrize(("folder", "name"), EXERCISES)
def test_small_cases_are_never_trivial_whatever_the_seed(kit, folder, name):
    # The judge refuses (internal_error) a case whose expected output is ~0, and it
    # draws a fresh seed every run.
    from kernels.check import reference_is_trivial

    module = kit.load_reference(folder, name)
    atol = kit.read_exercise_toml(folder, name)["check"]["atol"]
    small = [c for c in _cases(kit, folder, name) if c.get("N", c.get("rows", 0) * c.get("cols", 0)) <= 17]
    assert small
    for seed in range(300):
        rng = np.random.default_rng(seed)
        for case in small:
            want = next(iter(module.reference(module.generate(case, rng), case).values()))
            assert not reference_is_trivial(want, atol), (seed, case)


# --- The uint8 buffers the histogram reads ----------------------------------------------

def test_uint8_buffers_have_guards_and_a_signature_type():
    from kernels.buffers import bits_view, make_guarded, sentinel_bits
    from kernels.spec import parse_signature

    params = parse_signature("const unsigned char* data, unsigned int* bins, int N")
    assert (params[0].ctype, params[0].pointer, params[0].const) == ("unsigned char", True, True)
    data = np.arange(5, dtype=np.uint8) + 200
    guarded = make_guarded("data", "in", "uint8", (5,), "sentinel", data=data, guard_elems=4)
    assert guarded.full.dtype == np.uint8 and guarded.full.tolist() == [0x5A] * 4 + data.tolist() + [0x5A] * 4
    out = make_guarded("out", "out", "uint8", (3,), "sentinel", guard_elems=2)
    assert bits_view(out.full).tolist() == [0x5A, 0x5A] + [sentinel_bits("uint8")] * 3 + [0x5A, 0x5A]


# --- Every kernel source compiles with NVRTC against its spec ---------------------------

@pytest.mark.parametrize(("folder", "name"), EXERCISES)
def test_every_kernel_source_compiles_with_nvrtc(kit, folder, name):
    from kernels.catalog import find_exercise
    from kernels.compile import compile_submission

    # only this exercise's folder is loaded: another lesson being written cannot fail it
    exercise = find_exercise(kit.read_exercise_toml(folder, name)["id"], kit.LESSONS_DIR)
    root = kit.exercise_dir(folder, name)
    sources = [root / "starter.cu", root / "reference.cu", *sorted((root / "solutions").rglob("*.cu"))]
    for path in sources:
        result = compile_submission(path.read_text(encoding="utf-8"), exercise)
        assert result.ok, f"{path}: {result.log}"
        if path.name in ("starter.cu", "reference.cu"):
            assert not result.diagnostics, f"{path}: {result.log}"
