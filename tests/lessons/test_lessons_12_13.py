"""Content checks for lessons 12-13 of the memory-patterns track (issue #14).

Front matter, ko/en parity, exercise folders and hints; each reference.py
against an independent formula (and the CSR generator against the structure it
promises); test-case design, shown by running a numpy model of each named
wrong solution over the spec's own cases; the measured tables traced to
docs/benchmarks.md; every kernel source, baselines included, compiled by the
real NVRTC. The verdicts of the sources are tests/lessons/test_corpus.py's.
"""

from __future__ import annotations

import re

import numpy as np
import pytest

TRACK = "memory-patterns"
LESSONS = {
    "12-convolution": {"id": "convolution", "order": 12, "prerequisites": ["radix-sort"],
                       "exercises": ["conv1d", "conv2d"]},
    "13-gemv-spmv": {"id": "gemv-spmv", "order": 13, "prerequisites": ["convolution"],
                     "exercises": ["gemv", "spmv"]},
}
EXERCISES = [(f, n) for f, info in LESSONS.items() for n in info["exercises"]]
BENCH_COMMAND = ("python3 bench/reference_kernels.py convolution.conv1d convolution.conv2d "
                 "gemv-spmv.gemv gemv-spmv.spmv --reps 30")
RECORD_HEADING = "## Track 2: lessons 12 convolution and 13 GEMV and SpMV (#14)"
HANGUL = re.compile(r"[\uac00-\ud7a3]")
FIELD_TYPES = {"id": str, "track": str, "order": int, "minutes": int, "tags": list,
               "difficulty": str, "xp": int, "prerequisites": list, "status": str,
               "exercises": list}


def _cases(kit, folder, name, section="tests"):
    return [dict(c) for c in kit.read_exercise_toml(folder, name)[section]["cases"]]


def _table_numbers(body: str) -> list[str]:
    rows = "\n".join(line for line in body.splitlines() if line.startswith("|"))
    return re.findall(r"\d+\.\d+", rows)


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


def test_prerequisites_chain_to_the_previous_lesson_of_the_track(kit):
    previous = kit.read_lesson_toml("11-radix-sort")
    assert previous["id"] == "radix-sort" and previous["track"] == TRACK


@pytest.mark.parametrize("folder", LESSONS)
def test_both_languages_have_the_same_sections_code_and_numbers(kit, folder):
    ko, en = kit.read_text(folder, "ko"), kit.read_text(folder, "en")
    assert ko.headings == en.headings and len(ko.headings) >= 6
    assert len(ko.code_blocks) == len(en.code_blocks) >= 4
    for (ko_info, ko_code), (en_info, en_code) in zip(ko.code_blocks, en.code_blocks):
        assert ko_info == en_info and ko_code == en_code, "code is shared; only prose is translated"
    assert sum("tab=" in info for info, _ in en.code_blocks) >= 2, "a tabbed pair of code blocks"
    assert _table_numbers(en.body) == _table_numbers(ko.body) and len(_table_numbers(en.body)) >= 12
    prose_ko = re.sub(r"`[^`]*`|\$\$.*?\$\$", "", re.sub(r"^```.*?^```", "", ko.body, flags=re.S | re.M), flags=re.S)
    assert not re.search(r"\b(the|and|with|of|is)\b", prose_ko), "an English sentence in ko.md"


@pytest.mark.parametrize("folder", LESSONS)
def test_measured_tables_name_their_command_and_come_from_the_benchmark_record(kit, folder):
    record = (kit.LESSONS_DIR.parent / "docs" / "benchmarks.md").read_text(encoding="utf-8")
    section = record[record.index(RECORD_HEADING):]
    section = section[:section.find("\n## ", 1)] if "\n## " in section[1:] else section
    for lang in kit.LANGS:
        body = kit.read_text(folder, lang).body
        assert BENCH_COMMAND in body, f"{folder}/{lang}.md: the command that measured the table"
        assert "H100" in body
        for number in _table_numbers(body):
            assert number in section, f"{folder}/{lang}.md: {number} is not in docs/benchmarks.md"


# --- Exercise folders and hints ---------------------------------------------------------

@pytest.mark.parametrize(("folder", "name"), EXERCISES)
def test_exercise_folder_is_complete(kit, folder, name):
    root = kit.exercise_dir(folder, name)
    spec = kit.read_exercise_toml(folder, name)
    assert spec["id"] == f"{LESSONS[folder]['id']}.{name}"
    for file in ("exercise.toml", "reference.py", "starter.cu", "reference.cu",
                 "instructions.ko.md", "instructions.en.md"):
        assert (root / file).is_file() and (root / file).read_text(encoding="utf-8").strip(), file
    correct = sorted((root / "solutions" / "correct").glob("*.cu"))
    wrong = sorted((root / "solutions" / "wrong").glob("*.cu"))
    assert len(correct) >= 2 and len(wrong) >= 3
    for path in wrong:  # named after the bug, and the file says which bug
        assert re.fullmatch(r"[a-z0-9]+(_[a-z0-9]+)+\.cu", path.name), path.name
        assert path.read_text(encoding="utf-8").startswith("// BUG:"), path
    starter = (root / "starter.cu").read_text(encoding="utf-8")
    assert "// BEGIN FILL-IN" in starter and "// END FILL-IN" in starter
    assert HANGUL.search((root / "instructions.ko.md").read_text(encoding="utf-8"))
    assert not HANGUL.search((root / "instructions.en.md").read_text(encoding="utf-8"))
    baselines = spec["benchmark"]["baselines"]
    assert baselines["framework"] == {"python": "framework"} and "naive" in baselines


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

def _x0(x, j):
    """x[j] with zero padding (a python loop's view of the boundary rule)."""
    return float(x[j]) if 0 <= j < len(x) else 0.0


def test_conv1d_reference_is_the_padded_correlation(kit):
    module = kit.load_reference("12-convolution", "conv1d")
    for case in _cases(kit, "12-convolution", "conv1d")[:7]:
        inputs = module.generate(case, np.random.default_rng(3))
        x, w, r = inputs["x"], inputs["w"], case["R"]
        assert x.shape == (case["N"],) and w.shape == (2 * r + 1,) and x.min() >= 1.0 and w.min() >= 0.25
        assert len(set(w.tolist())) == w.size, "taps all different: a flipped filter shows"
        got = module.reference(inputs, case)["y"]
        want = [sum(float(w[k + r]) * _x0(x, i + k) for k in range(-r, r + 1)) for i in range(case["N"])]
        np.testing.assert_allclose(got, want, rtol=1e-12)


def test_conv2d_reference_is_the_padded_correlation(kit):
    module = kit.load_reference("12-convolution", "conv2d")
    for case in _cases(kit, "12-convolution", "conv2d")[:6]:
        inputs = module.generate(case, np.random.default_rng(5))
        x, w, k = inputs["x"], inputs["w"], case["K"]
        assert x.shape == (case["H"], case["W"]) and w.shape == (k, k) and x.min() >= 1.0
        got = module.reference(inputs, case)["y"]
        r = k // 2
        for row in range(case["H"]):
            for col in range(case["W"]):
                want = sum(float(w[i, j]) * float(x[row + i - r, col + j - r])
                           for i in range(k) for j in range(k)
                           if 0 <= row + i - r < case["H"] and 0 <= col + j - r < case["W"])
                assert abs(got[row, col] - want) <= 1e-12 * want, (case, row, col)


def test_gemv_reference_is_a_dot_product_per_row(kit):
    module = kit.load_reference("13-gemv-spmv", "gemv")
    for case in _cases(kit, "13-gemv-spmv", "gemv"):
        if case["M"] * case["K"] > 200_000:
            continue
        inputs = module.generate(case, np.random.default_rng(7))
        a, x = inputs["A"], inputs["x"]
        assert a.shape == (case["M"], case["K"]) and x.shape == (case["K"],) and a.min() >= 0.5
        got = module.reference(inputs, case)["y"]
        for row in range(case["M"]):
            want = sum(float(a[row, k]) * float(x[k]) for k in range(case["K"]))
            assert abs(got[row] - want) <= 1e-12 * want


def _dense(inputs, rows, cols):
    a = np.zeros((rows, cols))
    row_ptr = inputs["row_ptr"].tolist()
    for r in range(rows):
        for j in range(row_ptr[r], row_ptr[r + 1]):
            a[r, int(inputs["col_idx"][j])] += float(inputs["vals"][j])
    return a


def test_spmv_generator_builds_the_promised_csr_and_the_reference_multiplies_it(kit):
    module = kit.load_reference("13-gemv-spmv", "spmv")
    saw_empty = saw_long = False
    for case in _cases(kit, "13-gemv-spmv", "spmv"):
        rows, cols, nnz = case["rows"], case["cols"], case["nnz"]
        inputs = module.generate(case, np.random.default_rng(11))
        row_ptr, col = inputs["row_ptr"], inputs["col_idx"]
        assert row_ptr.dtype == col.dtype == np.int32 and inputs["vals"].dtype == np.float32
        assert row_ptr.shape == (rows + 1,) and row_ptr[0] == 0 and row_ptr[-1] == nnz
        lengths = np.diff(row_ptr)
        assert (lengths >= 0).all() and (lengths <= cols).all()
        assert col.shape == (nnz,) and 0 <= col.min() and col.max() < cols
        for r in range(0, rows, max(1, rows // 300)):  # columns strictly increasing in a row
            assert (np.diff(col[row_ptr[r]:row_ptr[r + 1]]) > 0).all(), (case, r)
        if case["pattern"] == "banded":
            assert lengths.max() - lengths.min() <= 1
        else:
            saw_empty |= bool((lengths == 0).any())
            saw_long |= bool(lengths.max() > 32)
        if rows * cols <= 4_000_000:
            want = _dense(inputs, rows, cols) @ inputs["x"].astype(np.float64)
            np.testing.assert_allclose(module.reference(inputs, case)["y"], want, rtol=1e-12)
    assert saw_empty and saw_long, "power-law cases with empty rows and rows longer than a warp"


# --- Test-case design: a numpy model of each named bug meets a case that exposes it -----

def _corr1d(x, w, shift=0):
    """sum_k w[k] * x0[i + k - R + shift] for every i."""
    r = (len(w) - 1) // 2
    return np.array([sum(float(w[k]) * _x0(x, i + k - r + shift) for k in range(len(w)))
                     for i in range(len(x))])


def _conv1d_bugs(x, w):
    n, r = len(x), (len(w) - 1) // 2
    dropped = np.zeros(n)
    for i in range(n):  # taps outside the block's own 1024 inputs read 0
        lo = i // 1024 * 1024
        dropped[i] = sum(float(w[k + r]) * float(x[i + k]) for k in range(-r, r + 1)
                         if lo <= i + k < min(n, lo + 1024))
    clamped = np.array([sum(float(w[k + r]) * float(x[min(max(i + k, 0), n - 1)])
                            for k in range(-r, r + 1)) for i in range(n)])
    return {"dropped_halo": dropped, "clamped_boundary": clamped,
            "flipped_filter": _corr1d(x, w[::-1]), "tile_not_shifted_by_radius": _corr1d(x, w, shift=r)}


def _caught(bugs_by_case, want_by_case, rtol):
    caught = {}
    for bugs, want in zip(bugs_by_case, want_by_case):
        for bug, got in bugs.items():
            wrong = not np.allclose(got, want, rtol=rtol, atol=rtol, equal_nan=False)
            caught[bug] = caught.get(bug, False) or wrong
    return caught


def _wrong_names(kit, folder, name):
    return {p.stem for p in (kit.exercise_dir(folder, name) / "solutions" / "wrong").glob("*.cu")}


def test_conv1d_cases_catch_every_named_bug(kit):
    module = kit.load_reference("12-convolution", "conv1d")
    bugs, wants = [], []
    for case in _cases(kit, "12-convolution", "conv1d"):
        if case["N"] > 5000:
            continue  # the python models are slow; the small cases hold every bug
        inputs = module.generate(case, np.random.default_rng(13))
        bugs.append(_conv1d_bugs(inputs["x"], inputs["w"]))
        wants.append(module.reference(inputs, case)["y"])
    caught = _caught(bugs, wants, 1e-5)
    assert set(caught) == _wrong_names(kit, "12-convolution", "conv1d") and all(caught.values()), caught


def _corr2d(x, w, pad):
    """Correlation of x with w over a padded copy made by `pad` (zero or edge)."""
    h, width = x.shape
    r = w.shape[0] // 2
    padded = np.pad(x.astype(np.float64), r, mode=pad)
    return sum(float(w[i, j]) * padded[i:i + h, j:j + width] for i in range(w.shape[0]) for j in range(w.shape[0]))


def _conv2d_dropped_halo(x, w):
    """Each 32-column x 64-row tile sees only its own inputs (zeros elsewhere)."""
    h, width = x.shape
    out = np.zeros((h, width))
    for top in range(0, h, 64):
        for left in range(0, width, 32):
            own = np.zeros_like(x, dtype=np.float64)
            own[top:top + 64, left:left + 32] = x[top:top + 64, left:left + 32]
            out[top:top + 64, left:left + 32] = _corr2d(own, w, "constant")[top:top + 64, left:left + 32]
    return out


def test_conv2d_cases_catch_every_named_bug(kit):
    module = kit.load_reference("12-convolution", "conv2d")
    cases = _cases(kit, "12-convolution", "conv2d")
    shapes = [(c["H"], c["W"]) for c in cases]
    assert any(h % 64 and w % 32 and h > 64 and w > 32 for h, w in shapes), "partial tiles with neighbours"
    assert any(h > w for h, w in shapes) and any(h < w for h, w in shapes)
    assert {c["K"] for c in cases} == {3, 5} and any(h * w <= 4 for h, w in shapes)
    bugs, wants = [], []
    for case in cases:
        inputs = module.generate(case, np.random.default_rng(17))
        x, w = inputs["x"], inputs["w"]
        bugs.append({"dropped_halo": _conv2d_dropped_halo(x, w), "clamped_boundary": _corr2d(x, w, "edge"),
                     "flipped_filter": _corr2d(x, w[::-1, ::-1], "constant")})
        wants.append(module.reference(inputs, case)["y"])
    caught = _caught(bugs, wants, 1e-5)
    # missing_syncthreads is a race: the emulator's race detector and the GPU run judge it
    assert set(caught) | {"missing_syncthreads"} == _wrong_names(kit, "12-convolution", "conv2d")
    assert all(caught.values()), caught


def test_conv2d_cases_reach_the_references_unchecked_path(kit):
    """The reference stages and stores without bounds checks (float4) in the blocks whose tile
    and halo of 2 columns and K/2 rows lie inside the image, when W % 4 == 0: some test must
    have such a block, for both K, so the fast path is judged and not only the checked one."""
    def inside_blocks(h, w, k):
        r = k // 2
        cols = sum(1 for bx in range(1, -(-w // 32)) if bx * 32 + 34 <= w)
        rows = sum(1 for by in range(-(-h // 64)) if by * 64 >= r and by * 64 + 64 + r <= h)
        return cols * rows if w % 4 == 0 else 0

    cases = _cases(kit, "12-convolution", "conv2d")
    for k in (3, 5):
        assert any(inside_blocks(c["H"], c["W"], k) for c in cases if c["K"] == k), k


def _gemv_splits(m, k):
    """gridDim.y of the spec's launch."""
    return max(1, min(-(-k // 2048), 1056 // -(-m // 8)))


def _gemv_bugs(a, x, splits):
    m, k = a.shape
    prod = a.astype(np.float64) * x.astype(np.float64)
    chunk = (-(-k // splits) + 3) & ~3
    ranges = [(s * chunk, min(k, (s + 1) * chunk)) for s in range(splits) if s * chunk < k]
    short = (k // splits) & ~3                      # the rounded-down range length
    tail = prod[:, :short * splits].sum(axis=1)
    racy = prod[:, ranges[-1][0]:ranges[-1][1]].sum(axis=1)  # any one range alone is short when there are 2+
    half = np.zeros(m)
    for begin, end in ranges:                       # lane 0 gathers the even lanes only
        if k % 4 == 0:
            lane = (np.arange(begin, end) - begin) // 4 % 32
        else:
            lane = (np.arange(begin, end) - begin) % 32
        half += prod[:, begin:end][:, lane % 2 == 0].sum(axis=1)
    return {"missed_row_tail": tail, "racy_store_to_y": racy if len(ranges) > 1 else prod.sum(axis=1),
            "shuffle_reduction_stops_at_two": half}


def test_gemv_cases_catch_every_named_bug(kit):
    module = kit.load_reference("13-gemv-spmv", "gemv")
    cases = _cases(kit, "13-gemv-spmv", "gemv")
    assert any(c["K"] % 4 for c in cases) and any(c["K"] < 4 for c in cases)
    assert any(_gemv_splits(c["M"], c["K"]) > 2 and c["K"] % 4 for c in cases), "a wide, ragged split"
    assert any(c["M"] > 4000 and c["K"] < 64 for c in cases), "a tall matrix"
    bugs, wants = [], []
    for case in cases:
        inputs = module.generate(case, np.random.default_rng(19))
        bugs.append(_gemv_bugs(inputs["A"], inputs["x"], _gemv_splits(case["M"], case["K"])))
        wants.append(module.reference(inputs, case)["y"])
    caught = _caught(bugs, wants, 1e-4)
    assert set(caught) == _wrong_names(kit, "13-gemv-spmv", "gemv") and all(caught.values()), caught


def _spmv_bugs(inputs, rows):
    row_ptr, col = inputs["row_ptr"].astype(np.int64), inputs["col_idx"].astype(np.int64)
    prod = inputs["vals"].astype(np.float64) * inputs["x"].astype(np.float64)[col]
    nnz = prod.size
    warps = min(-(-rows // 8), 2112) * 8
    out = {name: np.zeros(rows) for name in ("row_end_inclusive", "missed_row_tail",
                                             "empty_row_left_unwritten", "lane_sum_written_without_reduction",
                                             "no_grid_stride_loop")}
    for r in range(rows):
        start, end = int(row_ptr[r]), int(row_ptr[r + 1])
        full = prod[start:end].sum()
        out["row_end_inclusive"][r] = full + (prod[end] if end < nnz else 0.0)
        out["missed_row_tail"][r] = prod[start:start + (end - start) // 32 * 32].sum()
        out["empty_row_left_unwritten"][r] = np.nan if start == end else full
        out["lane_sum_written_without_reduction"][r] = prod[start:end:32].sum()
        out["no_grid_stride_loop"][r] = full if r < warps else np.nan
    return out


def test_spmv_cases_catch_every_named_bug(kit):
    module = kit.load_reference("13-gemv-spmv", "spmv")
    cases = _cases(kit, "13-gemv-spmv", "spmv")
    assert any(c["rows"] <= 4 for c in cases) and any(c["rows"] > 2112 * 8 for c in cases)
    assert {c["pattern"] for c in cases} == {"banded", "powerlaw"}
    bugs, wants = [], []
    for case in cases:
        inputs = module.generate(case, np.random.default_rng(23))
        bugs.append(_spmv_bugs(inputs, case["rows"]))
        wants.append(module.reference(inputs, case)["y"])
    caught = _caught(bugs, wants, 1e-4)
    assert set(caught) == _wrong_names(kit, "13-gemv-spmv", "spmv") and all(caught.values()), caught


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
