"""Content checks for lessons 10-11 of the memory-patterns track (issue #14).

Front matter, ko/en parity and the measured tables; exercise folders and
hints; each reference.py against an independent formula; test-case design (the
cases that make each named wrong solution fail, including the unstable orders
the emulator's reverse-order run produces); the radix sort's twelve-launch
plan; every kernel source compiled by the real NVRTC. The verdicts of the
sources are tests/lessons/test_corpus.py's.
"""

from __future__ import annotations

import re

import numpy as np
import pytest

LESSONS = {
    "10-compaction": {"id": "compaction", "order": 10, "prerequisites": ["scan"],
                      "exercises": ["select", "partition"]},
    "11-radix-sort": {"id": "radix-sort", "order": 11, "prerequisites": ["compaction"],
                      "exercises": ["bitonic_segments", "lsd_u32"]},
}
EXERCISES = [(f, n) for f, info in LESSONS.items() for n in info["exercises"]]
COMPACTION = [("10-compaction", "select"), ("10-compaction", "partition")]
HANGUL = re.compile(r"[\uac00-\ud7a3]")
FIELD_TYPES = {"id": str, "track": str, "order": int, "minutes": int, "tags": list,
               "difficulty": str, "xp": int, "prerequisites": list, "status": str,
               "exercises": list}
# The emulator runs a case a second time with threads and blocks in reverse order
# when it has at most this many threads (docs/emulator.md, "Small cases run twice").
REVERSE_RUN_THREADS = 16384


def _cases(kit, folder, name, section="tests"):
    return [dict(c) for c in kit.read_exercise_toml(folder, name)[section]["cases"]]


def _table(body: str) -> str:
    return "\n".join(line for line in body.splitlines() if line.startswith("|"))


# --- Front matter and the two languages -------------------------------------------------

@pytest.mark.parametrize("folder", LESSONS)
def test_front_matter_is_complete_and_typed(kit, folder):
    meta = kit.read_lesson_toml(folder)
    for name, kind in FIELD_TYPES.items():
        assert name in meta, f"{folder}/lesson.toml: {name}: missing"
        assert isinstance(meta[name], kind) and not isinstance(meta[name], bool), name
    info = LESSONS[folder]
    assert (meta["id"], meta["order"], meta["track"]) == (info["id"], info["order"], "memory-patterns")
    assert meta["prerequisites"] == info["prerequisites"]
    assert meta["exercises"] == info["exercises"]
    assert meta["difficulty"] in ("easy", "medium", "hard") and meta["status"] in ("draft", "published")
    assert meta["minutes"] > 0 and meta["xp"] > 0 and all(isinstance(t, str) and t for t in meta["tags"])
    for lang in kit.LANGS:  # the translation stamps are current
        assert meta["translation"][lang] == kit.file_stamp(kit.lesson_dir(folder) / f"{lang}.md"), lang


@pytest.mark.parametrize("folder", LESSONS)
def test_both_languages_have_the_same_sections_code_and_numbers(kit, folder):
    ko, en = kit.read_text(folder, "ko"), kit.read_text(folder, "en")
    for text in (ko, en):
        for name in ("title", "summary"):
            assert isinstance(text.meta.get(name), str) and text.meta[name].strip(), f"{text.path}: {name}"
    assert ko.headings == en.headings and len(ko.headings) >= 7
    assert len(ko.code_blocks) == len(en.code_blocks) >= 3
    for (ko_info, ko_code), (en_info, en_code) in zip(ko.code_blocks, en.code_blocks):
        assert ko_info == en_info and ko_code == en_code, "code is shared; only prose is translated"
    assert any("tab=CUDA" in info for info, _ in en.code_blocks)
    assert any("tab=CuPy" in info for info, _ in en.code_blocks), "the framework version in a tab"
    assert re.findall(r"\d+(?:\.\d+)?", _table(en.body)) == re.findall(r"\d+(?:\.\d+)?", _table(ko.body))
    # no English sentence in the Korean prose (code, identifiers and units aside)
    prose = re.sub(r"```.*?```|`[^`]*`|\$[^$]*\$", "", ko.body, flags=re.S)
    for line in prose.splitlines():
        if re.search(r"[A-Za-z]", line) and not line.startswith(("|", "#")):
            assert HANGUL.search(line), f"{ko.path}: an English line in the Korean text: {line!r}"


@pytest.mark.parametrize("folder", LESSONS)
def test_texts_give_the_measuring_command_and_a_table(kit, folder):
    for lang in kit.LANGS:
        body = kit.read_text(folder, lang).body
        assert "python3 bench/reference_kernels.py" in body and "--reps 30" in body
        ids = [kit.read_exercise_toml(folder, n)["id"] for n in LESSONS[folder]["exercises"]]
        assert all(i in body for i in ids)
        assert len(_table(body).splitlines()) >= 5, "a measured table"


def test_tables_carry_the_measured_h100_numbers(kit):
    compaction = _table(kit.read_text("10-compaction", "en").body)
    for number in ("0.925", "4.70", "1.27", "10.68"):
        assert number in compaction, number
    sort = _table(kit.read_text("11-radix-sort", "en").body)
    for number in ("8.22", "1.75", "1.43", "22.1"):
        assert number in sort, number


@pytest.mark.parametrize("folder", LESSONS)
def test_every_time_in_the_tables_is_in_the_benchmark_record(kit, folder):
    """Each time in a lesson's table (rounded, in µs or ms) is a time of the one
    H100 run recorded in docs/benchmarks.md (in ms, as the bench printed it)."""
    record = (kit.LESSONS_DIR.parent / "docs" / "benchmarks.md").read_text(encoding="utf-8")
    section = record[record.index("## Track 2: lessons 10 compaction and 11 sorting (#14)"):]
    section = section[: section.find("\n## ", 1) if "\n## " in section[1:] else len(section)]
    measured = [float(v) for v in re.findall(r"\b\d+\.\d{4}\b", section)]
    times = re.findall(r"(\d+(?:\.(\d+))?) (µs|ms)", _table(kit.read_text(folder, "en").body))
    assert len(times) >= 12
    for text, decimals, unit in times:
        scale = 1e-3 if unit == "µs" else 1.0
        half_step = 0.5 * 10 ** -len(decimals) * scale * 1.0001
        value = float(text) * scale
        assert any(abs(m - value) <= half_step for m in measured), f"{folder}: {text} {unit} is not a recorded time"


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
    assert (root / baselines["naive"]["source"]).is_file() and baselines["framework"]["python"] == "framework"


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

@pytest.mark.parametrize(("folder", "name"), COMPACTION)
def test_compaction_references_match_a_plain_loop(kit, folder, name):
    module = kit.load_reference(folder, name)
    for case in _cases(kit, folder, name)[:9]:
        inputs = module.generate(case, np.random.default_rng(3))
        x = inputs["in"]
        assert x.dtype == np.float32 and x.shape == (case["N"],)
        kept = [float(v) for v in x if float(v) > case["threshold"]]
        others = [float(v) for v in x if not float(v) > case["threshold"]]
        want = module.reference(inputs, case)
        assert want["count"].tolist() == [len(kept)]
        if name == "select":
            assert want["out"].tolist() == kept + [0.0] * len(others)
        else:
            assert want["out"].tolist() == kept + others


def test_sort_references_match_sorted(kit):
    lsd = kit.load_reference("11-radix-sort", "lsd_u32")
    bitonic = kit.load_reference("11-radix-sort", "bitonic_segments")
    for case in ({"N": 5}, {"N": 3000, "data": "dups"}, {"N": 2049}):
        keys = lsd.generate(case, np.random.default_rng(5))["keys"]
        assert keys.dtype == np.uint32
        assert lsd.reference({"keys": keys}, case)["out"].tolist() == sorted(int(k) for k in keys)
        segments = [sorted(int(k) for k in keys[s:s + 1024]) for s in range(0, keys.size, 1024)]
        assert bitonic.reference({"keys": keys}, case)["out"].tolist() == [k for seg in segments for k in seg]


# --- Test-case design: each named bug meets a case that exposes it ----------------------

def _tiles_per_block(n: int, blocks: int) -> int:
    """The tiles of 1024 elements the first block handles (block_range() in the kernels)."""
    return -(-(-(-n // blocks)) // 1024)


@pytest.mark.parametrize(("folder", "name"), COMPACTION)
def test_compaction_cases_catch_each_bug(kit, folder, name):
    from kernels.check import reference_is_trivial

    module = kit.load_reference(folder, name)
    cases = _cases(kit, folder, name)
    sizes = [c["N"] for c in cases]
    assert {1, 2, 3, 4} <= set(sizes), "sizes inside one warp"
    assert any(n % 1024 for n in sizes if n > 1024), "skips_partial_tile: a range ending inside a tile"
    grid = lambda n: min(-(-n // 1024), 1024)  # noqa: E731  the plan's G
    assert any(_tiles_per_block(n, grid(n)) >= 2 for n in sizes), "offset_not_carried: blocks of several tiles"
    # unstable_atomic_slots: only the reverse-order run shows it, so some multi-block
    # cases must be small enough to get one
    assert any(grid(n) > 1 and grid(n) * 256 <= REVERSE_RUN_THREADS for n in sizes)
    for seed in range(40):
        rng = np.random.default_rng(seed)
        equal_hits = 0
        for case in cases[:11]:
            inputs = module.generate(case, rng)
            x = inputs["in"]
            assert x[-1] > case["threshold"], "the last element is kept: a dropped tail always shows"
            equal_hits += int((x == np.float32(case["threshold"])).any())
            for out_name, want in module.reference(inputs, case).items():
                assert not reference_is_trivial(want, 0.0), (seed, case, out_name)
        assert equal_hits >= 4, "keeps_equal_values: thresholds that occur in the data"


def _lsd_sort(keys, reverse_ties_in_blocks=False, blocks=1):
    """LSD radix sort in numpy; optionally with each block's keys of equal digit
    placed in reverse order, as an atomic-slot scatter comes out in the emulator's
    reverse-order run."""
    keys = keys.copy()
    for shift in (0, 8, 16, 24):
        digits = (keys >> np.uint32(shift)) & np.uint32(255)
        order = np.argsort(digits, kind="stable")
        if reverse_ties_in_blocks:
            block_of = np.arange(keys.size) * blocks // max(keys.size, 1)
            # by digit, then block, then reverse position within the block
            order = np.lexsort((-np.arange(keys.size), block_of, digits))
        keys = keys[order]
    return keys


def test_radix_cases_catch_each_bug(kit):
    module = kit.load_reference("11-radix-sort", "lsd_u32")
    cases = _cases(kit, "11-radix-sort", "lsd_u32")
    sizes = [c["N"] for c in cases]
    assert {1, 2, 3, 4} <= set(sizes) and any(n % 1024 for n in sizes if n > 1024)
    grid = lambda n: min(-(-n // 1024), 512)  # noqa: E731
    assert any(_tiles_per_block(n, grid(n)) >= 2 for n in sizes), "digit_offsets_not_carried"
    reverse_cases = [c for c in cases if grid(c["N"]) * 256 <= REVERSE_RUN_THREADS]
    assert any(grid(c["N"]) > 1 for c in reverse_cases) and any(grid(c["N"]) > 512 // 2 for c in cases)
    assert any(c.get("data") == "dups" for c in cases)
    rng = np.random.default_rng(11)
    unstable_caught = 0
    for case in reverse_cases:
        keys = module.generate(case, rng)["keys"]
        want = np.sort(keys)
        assert np.array_equal(_lsd_sort(keys), want)
        if case["N"] >= 4:  # signed_key_order: keys on both sides of 2^31
            assert (keys >= 2**31).any() and (keys < 2**31).any(), case
        unstable = _lsd_sort(keys, reverse_ties_in_blocks=True, blocks=grid(case["N"]))
        unstable_caught += int(not np.array_equal(unstable, want))
    assert unstable_caught >= 3, "unstable_scatter: reversed ties must change the result"


def test_bitonic_cases_need_padding_and_several_segments(kit):
    cases = _cases(kit, "11-radix-sort", "bitonic_segments")
    sizes = [c["N"] for c in cases]
    assert {1, 2, 3, 4} <= set(sizes) and 1024 in sizes and 1025 in sizes
    assert any(n % 1024 and n > 1024 for n in sizes), "zero_padding: a short last segment after whole ones"
    assert any(-(-n // 1024) > 1 and -(-n // 1024) * 512 <= REVERSE_RUN_THREADS for n in sizes)
    assert max(sizes) > 100 * 1024


def test_radix_plan_is_four_passes_of_three_launches(kit):
    spec = kit.read_exercise_toml("11-radix-sort", "lsd_u32")
    launches = spec["launch"]
    assert [lau["kernel"] for lau in launches] == ["digit_histogram", "scan_histogram", "scatter_digits"] * 4
    grid = "min(ceil_div(N, 1024), 512)"
    flow = [("keys", "tmp"), ("tmp", "out"), ("out", "tmp"), ("tmp", "out")]
    for p, (src, dst) in enumerate(flow):
        hist, scan, scatter = launches[3 * p: 3 * p + 3]
        assert hist["args"] == [src, "hist", "N", 8 * p] and hist["grid"] == grid and hist["block"] == 256
        assert scan["args"] == ["hist", grid] and scan["grid"] == 1 and scan["block"] == 1024
        assert scatter["args"] == [src, "hist", dst, "N", 8 * p] and scatter["grid"] == grid
    buffers = {b["name"]: b for b in spec["buffers"]}
    assert buffers["keys"]["role"] == "in" and buffers["out"]["role"] == "out"
    assert buffers["tmp"]["role"] == buffers["hist"]["role"] == "scratch"
    assert buffers["hist"]["shape"] == [256 * 512]


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
    for path in [root / "starter.cu", root / "reference.cu", *sorted((root / "solutions").rglob("*.cu"))]:
        result = compile_submission(path.read_text(encoding="utf-8"), exercise)
        assert result.ok, f"{path}: {result.log}"
        if path.name in ("starter.cu", "reference.cu"):
            assert not result.diagnostics, f"{path}: {result.log}"
