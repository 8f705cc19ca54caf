"""Content checks for lessons 6-7 of the memory-patterns track (issue #14).

Front matter, ko/en parity, exercise folders and hints; each reference.py
against an independent formula; test-case design, shown by running a numpy
model of each named wrong solution over the spec's own cases (every bug must
meet a case that exposes it, whatever the buffers' alignment); the measured
tables traced to docs/benchmarks.md; every kernel source, baselines included,
compiled by the real NVRTC. The verdicts of the sources are
tests/lessons/test_corpus.py's.
"""

from __future__ import annotations

import re

import numpy as np
import pytest

TRACK = "memory-patterns"
LESSONS = {
    "06-coalescing": {"id": "coalescing", "order": 6, "prerequisites": ["reduction"],
                      "exercises": ["gather", "vector_copy"]},
    "07-shared-tiling": {"id": "shared-tiling", "order": 7, "prerequisites": ["coalescing"],
                         "exercises": ["transpose"]},
}
EXERCISES = [(f, n) for f, info in LESSONS.items() for n in info["exercises"]]
BENCH_COMMAND = ("python3 bench/reference_kernels.py coalescing.gather coalescing.vector_copy "
                 "shared-tiling.transpose --reps 30")
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


def test_the_track_starts_from_the_foundations_track(kit):
    # 06's prerequisite lives in another track: the link must name a real lesson there
    reduction = kit.read_lesson_toml("02-reduction")
    assert reduction["id"] == "reduction" and reduction["track"] != TRACK


@pytest.mark.parametrize("folder", LESSONS)
def test_both_languages_have_the_same_sections_code_and_numbers(kit, folder):
    ko, en = kit.read_text(folder, "ko"), kit.read_text(folder, "en")
    assert ko.headings == en.headings and len(ko.headings) >= 6
    assert len(ko.code_blocks) == len(en.code_blocks) >= 4
    for (ko_info, ko_code), (en_info, en_code) in zip(ko.code_blocks, en.code_blocks):
        assert ko_info == en_info and ko_code == en_code, "code is shared; only prose is translated"
    assert sum("tab=" in info for info, _ in en.code_blocks) >= 2, "a tabbed pair of code blocks"
    assert _table_numbers(en.body) == _table_numbers(ko.body) and len(_table_numbers(en.body)) >= 12


@pytest.mark.parametrize("folder", LESSONS)
def test_measured_tables_name_their_command_and_come_from_the_benchmark_record(kit, folder):
    record = (kit.LESSONS_DIR.parent / "docs" / "benchmarks.md").read_text(encoding="utf-8")
    section = record[record.index("## Track 2: lessons 06 coalescing and 07 shared tiling"):]
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

def test_gather_reference_and_index_patterns(kit):
    module = kit.load_reference("06-coalescing", "gather")
    for case in _cases(kit, "06-coalescing", "gather")[:9]:
        inputs = module.generate(case, np.random.default_rng(5))
        values, idx = inputs["in"], inputs["idx"]
        n = case["N"]
        assert values.dtype == np.float32 and idx.dtype == np.int32 and idx.shape == (n,)
        assert values.min() >= 0.5 and 0 <= idx.min() and idx.max() < n
        got = module.reference(inputs, case)["out"]
        assert got.tolist() == [float(values[j]) for j in idx.tolist()]
        if case["pattern"] == "local":  # a shuffle inside each group of 32: one line per warp
            assert sorted(idx.tolist()) == list(range(n))
            assert (idx // 32 == np.arange(n) // 32).all()


def test_vector_copy_reference_changes_exactly_the_view(kit):
    module = kit.load_reference("06-coalescing", "vector_copy")
    for case in _cases(kit, "06-coalescing", "vector_copy")[:11]:
        inputs = module.generate(case, np.random.default_rng(7))
        n, offset = case["N"], case["offset"]
        assert inputs["in"].shape == inputs["out"].shape == (n + 4,)
        assert (inputs["in"] >= 1).all() and (inputs["out"] <= -1).all()
        got = module.reference(inputs, case)["out"]
        for k in range(n + 4):
            want = inputs["in"][k] if offset <= k < offset + n else inputs["out"][k]
            assert got[k] == float(want), (case, k)


def test_transpose_reference_is_the_transpose(kit):
    module = kit.load_reference("07-shared-tiling", "transpose")
    for case in _cases(kit, "07-shared-tiling", "transpose")[:8]:
        inputs = module.generate(case, np.random.default_rng(9))
        x = inputs["in"]
        assert x.shape == (case["rows"], case["cols"]) and x.min() >= 1.0
        got = module.reference(inputs, case)["out"]
        assert got.shape == (case["cols"], case["rows"])
        for r in range(case["rows"]):
            for c in range(case["cols"]):
                assert got[c, r] == float(x[r, c])


# --- Test-case design: a numpy model of each named bug meets a case that exposes it -----

def _grid_threads(case, per_block_elems, cap):
    return min(-(-case["N"] // per_block_elems), cap) * 256


def _gather_bugs(case, values, idx):
    """What each wrong gather leaves in out (NaN where it writes nothing)."""
    n, threads = case["N"], _grid_threads(case, 256, 1056)
    scatter = np.full(n, np.nan)
    scatter[idx] = values  # the last writer of a repeated index wins on the GPU too: any one is wrong
    one_pass = np.full(n, np.nan)
    one_pass[:threads] = values[idx[:threads]]
    chunk = n // threads
    dropped = np.full(n, np.nan)
    dropped[:chunk * threads] = values[idx[:chunk * threads]]
    return {"scatter_instead_of_gather": scatter, "no_grid_stride_loop": one_pass,
            "chunk_drops_remainder": dropped}


def test_gather_cases_catch_every_named_bug(kit):
    module = kit.load_reference("06-coalescing", "gather")
    caught = {}
    for case in _cases(kit, "06-coalescing", "gather"):
        inputs = module.generate(case, np.random.default_rng(11))
        want = module.reference(inputs, case)["out"]
        for bug, got in _gather_bugs(case, inputs["in"].astype(np.float64), inputs["idx"]).items():
            caught[bug] = caught.get(bug, False) or not np.array_equal(got, want)
    folder = kit.exercise_dir("06-coalescing", "gather") / "solutions" / "wrong"
    assert set(caught) == {p.stem for p in folder.glob("*.cu")} and all(caught.values()), caught


def _vector_copy_bugs(case, src, dst, lead):
    """Each wrong copy's out, for a buffer `lead` floats past a 16-byte boundary."""
    n, offset = case["N"], case["offset"]
    threads = _grid_threads(case, 1024, case["max_blocks"])
    head = min(n, (4 - (lead + offset) % 4) % 4)
    n4 = (n - head) // 4
    tail = n - head - 4 * n4

    def copy(ranges):
        out = dst.copy()
        for start, stop in ranges:
            out[offset + start:offset + stop] = src[offset + start:offset + stop]
        return out

    body = (head, head + 4 * min(n4, threads))
    return {"missing_tail": copy([(0, head), (head, head + 4 * n4)]),
            "head_not_copied": copy([(head, n)]),
            "no_grid_stride_loop": copy([(0, head), body, (n - tail, n)]),
            # the rounded-up count copies the whole last float4, past the view's end
            "vector_count_rounds_up": copy([(0, head), (head, head + 4 * ((n - head + 3) // 4))])}


@pytest.mark.parametrize("lead", [0, 1, 2, 3])
def test_vector_copy_cases_catch_every_named_bug_whatever_the_alignment(kit, lead):
    module = kit.load_reference("06-coalescing", "vector_copy")
    caught = {}
    for case in _cases(kit, "06-coalescing", "vector_copy"):
        inputs = module.generate(case, np.random.default_rng(13))
        want = module.reference(inputs, case)["out"]
        for bug, got in _vector_copy_bugs(case, inputs["in"], inputs["out"], lead).items():
            caught[bug] = caught.get(bug, False) or not np.array_equal(got, want)
    folder = kit.exercise_dir("06-coalescing", "vector_copy") / "solutions" / "wrong"
    assert set(caught) == {p.stem for p in folder.glob("*.cu")} and all(caught.values()), (lead, caught)


def _transpose_bugs(x):
    rows, cols = x.shape
    out_untransposed = np.full((cols, rows), np.nan)
    edge = np.full((cols, rows), np.nan)
    full_r, full_c = rows // 32 * 32, cols // 32 * 32
    edge[:full_c, :full_r] = x[:full_r, :full_c].T
    swapped_bounds = np.full((cols, rows), np.nan)
    for br in range(0, rows, 32):      # tile rows of in = tile columns of out
        for bc in range(0, cols, 32):
            tile = x[br:br + 32, bc:bc + 32]
            # swapped_tile_indices: out tile (bc, br) gets the tile as read, not transposed
            for i in range(tile.shape[0]):
                for j in range(tile.shape[1]):
                    if bc + i < cols and br + j < rows:
                        out_untransposed[bc + i, br + j] = tile[i, j]
            # swapped_bounds_check: the write keeps row < rows and column < cols of in
            for i in range(32):        # row of out inside the tile
                for j in range(32):    # column of out inside the tile
                    r_out, c_out = bc + i, br + j
                    if c_out < cols and r_out < rows and r_out * rows + c_out < rows * cols:
                        value = x[br + j, bc + i] if br + j < rows and bc + i < cols else np.inf
                        swapped_bounds.reshape(-1)[r_out * rows + c_out] = value
    return {"swapped_tile_indices": out_untransposed, "dropped_edge_tile": edge,
            "swapped_bounds_check": swapped_bounds}


def test_transpose_cases_catch_every_named_bug(kit):
    module = kit.load_reference("07-shared-tiling", "transpose")
    cases = _cases(kit, "07-shared-tiling", "transpose")
    shapes = [(c["rows"], c["cols"]) for c in cases]
    assert any(r % 32 and c % 32 for r, c in shapes), "partial tiles in both directions"
    assert any(r > c for r, c in shapes) and any(r < c for r, c in shapes), "tall and wide"
    assert any(r * c <= 4 for r, c in shapes) and max(r * c for r, c in shapes) >= 500_000
    caught = {}
    for case in cases:
        if case["rows"] * case["cols"] > 70_000:
            continue  # the python model is slow; the small cases already hold every bug
        inputs = module.generate(case, np.random.default_rng(17))
        want = module.reference(inputs, case)["out"]
        for bug, got in _transpose_bugs(inputs["in"].astype(np.float64)).items():
            caught[bug] = caught.get(bug, False) or not np.array_equal(got, want)
    # missing_syncthreads is a race: the emulator's race detector and the GPU run judge it
    folder = kit.exercise_dir("07-shared-tiling", "transpose") / "solutions" / "wrong"
    assert set(caught) | {"missing_syncthreads"} == {p.stem for p in folder.glob("*.cu")}
    assert all(caught.values()), caught


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
