"""Content checks for lessons 18-19 of the llm-kernels track (issue #15).

Front matter, ko/en parity, exercise folders and hints; each reference.py
against an independent formula (math.fsum, a plain sort); test-case design,
shown by running a numpy model of each named wrong solution over the spec's
own cases with several seeds (every bug meets a case that exposes it, while a
float32 model of the correct kernel passes them all); the top-k bar's
candidate bound; every kernel source, baselines included, compiled by the real
NVRTC. The verdicts of the sources are tests/lessons/test_corpus.py's.
"""

from __future__ import annotations

import math
import re

import numpy as np
import pytest

TRACK = "llm-kernels"
LESSONS = {
    "18-cross-entropy": {"id": "cross-entropy", "order": 18, "prerequisites": ["flash-attention"],
                         "exercises": ["fused"], "ids": ["cross-entropy.fused"]},
    "19-topk": {"id": "topk", "order": 19, "prerequisites": ["cross-entropy"],
                "exercises": ["argmax", "rows"], "ids": ["topk.argmax", "topk.rows"]},
}
EXERCISES = [(f, n) for f, info in LESSONS.items() for n in info["exercises"]]
BENCH_COMMAND = "python3 bench/reference_kernels.py cross-entropy.fused topk.rows --reps 30"
HANGUL = re.compile(r"[\uac00-\ud7a3]")
FIELD_TYPES = {"id": str, "track": str, "order": int, "minutes": int, "tags": list,
               "difficulty": str, "xp": int, "prerequisites": list, "status": str,
               "exercises": list}
SEEDS = range(4)


def _cases(kit, folder, name, section="tests"):
    return [dict(c) for c in kit.read_exercise_toml(folder, name)[section]["cases"]]


def _fails(got, want, spec, scale=1.0) -> bool:
    """The judge's rule (kernels/check.py): |got - want| <= atol * scale + rtol * |want|, finite."""
    rtol, atol = spec["check"]["rtol"], spec["check"]["atol"]
    got, want = np.asarray(got, dtype=np.float64), np.asarray(want, dtype=np.float64)
    with np.errstate(invalid="ignore", over="ignore"):
        ok = (np.abs(got - want) <= atol * np.asarray(scale) + rtol * np.abs(want)) & np.isfinite(got)
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
    assert ko.headings == en.headings and len(ko.headings) >= 6
    assert len(ko.code_blocks) == len(en.code_blocks) >= 3
    for (ko_info, ko_code), (en_info, en_code) in zip(ko.code_blocks, en.code_blocks):
        assert ko_info == en_info and ko_code == en_code, "code is shared; only prose is translated"
    tables = [re.findall(r"\d+(?:\.\d+)?", "\n".join(l for l in t.body.splitlines() if l.startswith("|")))
              for t in (ko, en)]
    assert tables[0] == tables[1] and len(tables[0]) >= 12, "the same table numbers in both languages"
    for text in (ko, en):  # the command that measured the table is given in the text
        assert any(code.strip() == BENCH_COMMAND for _, code in text.code_blocks), text.path
        assert "H100" in text.body and "TABLE_" not in text.body


# --- Exercise folders and hints ---------------------------------------------------------

@pytest.mark.parametrize(("folder", "name"), EXERCISES)
def test_exercise_folder_is_complete(kit, folder, name):
    root = kit.exercise_dir(folder, name)
    spec = kit.read_exercise_toml(folder, name)
    assert spec["id"] in LESSONS[folder]["ids"] and spec["id"].endswith("." + name)
    for file in ("exercise.toml", "reference.py", "starter.cu", "reference.cu", "baselines/naive.cu",
                 "instructions.ko.md", "instructions.en.md"):
        assert (root / file).is_file() and (root / file).read_text(encoding="utf-8").strip(), file
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

def test_cross_entropy_reference_matches_the_definition(kit):
    module = kit.load_reference("18-cross-entropy", "fused")
    case = {"rows": 3, "vocab": 7}
    inputs = module.generate(case, np.random.default_rng(5))
    got = module.reference(inputs, case)
    x, t = inputs["logits"], inputs["targets"]
    for r in range(3):
        row = [float(v) for v in x[r]]
        m = max(row)
        total = math.fsum(math.exp(v - m) for v in row)
        assert got["loss"][r] == pytest.approx(m + math.log(total) - row[t[r]], rel=1e-12)
        for c in range(7):
            want = (math.exp(row[c] - m) / total - (c == t[r])) / 3
            assert got["grad"][r, c] == pytest.approx(want, rel=1e-9, abs=1e-14)


def test_cross_entropy_inputs_overflow_expf_and_have_a_dominant_logit(kit):
    module = kit.load_reference("18-cross-entropy", "fused")
    for seed in SEEDS:
        x = module.generate({"rows": 4, "vocab": 1000}, np.random.default_rng(seed))["logits"]
        assert x[0].max() > 88.8, "row 0 overflows expf without the max"
        top2 = np.sort(x, axis=1)[:, -2:]
        assert (top2[:, 1] - top2[:, 0] > 2.0).all(), "one dominant logit per row"


def test_topk_reference_matches_a_plain_sort(kit):
    module = kit.load_reference("19-topk", "rows")
    case = {"rows": 4, "vocab": 300, "k": 20}
    inputs = module.generate(case, np.random.default_rng(7))
    got = module.reference(inputs, case)
    for r, row in enumerate(inputs["logits"]):
        pairs = sorted(((-float(v), c) for c, v in enumerate(row)))[:20]  # value down, column up
        assert [c for _, c in pairs] == list(got["indices"][r])
        assert [-v for v, _ in pairs] == list(got["values"][r])


# --- Test-case design: numpy models of each solution over the spec's cases -------------

def _ce_model(inputs, bug=None):
    """A float32 model of the kernels (one block per row)."""
    x = inputs["logits"]
    t = inputs["targets"].astype(np.int64)
    rows = x.shape[0]
    with np.errstate(over="ignore", invalid="ignore"):
        m = np.zeros((rows, 1), np.float32) if bug == "max_not_subtracted" else x.max(axis=1, keepdims=True)
        e = np.exp(x - m)
        s = e.sum(axis=1, keepdims=True, dtype=np.float32)
        target = x.reshape(-1)[t] if bug == "target_not_offset_by_row" else x[np.arange(rows), t]
        loss = (m + np.log(s))[:, 0] - target
        p = e / s
        if bug != "gradient_missing_one_hot":
            p[np.arange(rows), t] -= 1.0
        grad = p if bug == "gradient_not_divided_by_rows" else p / np.float32(rows)
    return {"loss": loss, "grad": grad}


def test_cross_entropy_cases_catch_every_named_bug_and_pass_a_float_kernel(kit):
    module = kit.load_reference("18-cross-entropy", "fused")
    spec = kit.read_exercise_toml("18-cross-entropy", "fused")
    root = kit.exercise_dir("18-cross-entropy", "fused")
    bugs = sorted(p.stem for p in (root / "solutions/wrong").glob("*.cu"))
    assert bugs == ["gradient_missing_one_hot", "gradient_not_divided_by_rows", "max_not_subtracted",
                    "target_not_offset_by_row"]
    for seed in SEEDS:
        caught = dict.fromkeys(bugs, False)
        for case in _cases(kit, "18-cross-entropy", "fused"):
            inputs = module.generate(case, np.random.default_rng(seed))
            want, scale = module.reference(inputs, case), module.error_scale(inputs, case)
            good = _ce_model(inputs)
            assert not any(_fails(good[k], want[k], spec, scale[k]) for k in want), (seed, case)
            for bug in bugs:
                got = _ce_model(inputs, bug)
                caught[bug] |= any(_fails(got[k], want[k], spec, scale[k]) for k in want)
        assert all(caught.values()), (seed, caught)


def test_cross_entropy_cases_cover_tails_and_long_rows(kit):
    cases = _cases(kit, "18-cross-entropy", "fused")
    vocab = [c["vocab"] for c in cases]
    assert any(v % 4 for v in vocab if v > 32) and any(v % 4 == 0 and v > 4096 * 4 for v in vocab)
    assert 50304 in vocab and min(vocab) <= 3 and any(c["rows"] == 1 for c in cases)
    assert max(c["rows"] * c["vocab"] for c in cases) <= 120_000, "emulator-sized"


def _topk_model(x, k, bug=None):
    """Sorted (values, indices) per row as each named kernel would write them."""
    cols = np.broadcast_to(np.arange(x.shape[1]), x.shape)
    if bug == "ties_to_higher_column":
        idx = np.lexsort((-cols, -x.astype(np.float64)), axis=1)
    elif bug == "sign_ignored_in_key":  # raw bits as unsigned, larger first; ties by lower column
        idx = np.lexsort((cols, -x.view(np.uint32).astype(np.int64)), axis=1)
    else:
        idx = np.lexsort((cols, -x.astype(np.float64)), axis=1)
    idx = idx[:, :k].astype(np.float64)
    values = np.take_along_axis(x, idx.astype(np.int64), axis=1).astype(np.float64)
    if bug == "kth_element_dropped":
        values[:, -1] = idx[:, -1] = np.nan
    return {"values": values, "indices": idx}


def test_topk_cases_catch_every_named_bug_and_pass_the_kernel(kit):
    module = kit.load_reference("19-topk", "rows")
    spec = kit.read_exercise_toml("19-topk", "rows")
    root = kit.exercise_dir("19-topk", "rows")
    bugs = sorted(p.stem for p in (root / "solutions/wrong").glob("*.cu"))
    # the race is no value bug: the emulator's checker and the GPU's interleaving catch it (verdict tests)
    assert bugs == ["kth_element_dropped", "racy_candidate_counter", "sign_ignored_in_key",
                    "ties_to_higher_column"]
    modelled = [b for b in bugs if b != "racy_candidate_counter"]
    for seed in SEEDS:
        caught = dict.fromkeys(modelled, False)
        for case in _cases(kit, "19-topk", "rows"):
            inputs = module.generate(case, np.random.default_rng(seed))
            want = module.reference(inputs, case)
            good = _topk_model(inputs["logits"], int(case["k"]))
            assert not any(_fails(good[k], want[k], spec) for k in want), (seed, case)
            for bug in modelled:
                got = _topk_model(inputs["logits"], int(case["k"]), bug)
                caught[bug] |= any(_fails(got[k], want[k], spec) for k in want)
        assert all(caught.values()), (seed, caught)


def test_topk_cases_have_ties_at_the_kth_place_and_negative_rows(kit):
    module = kit.load_reference("19-topk", "rows")
    cases = _cases(kit, "19-topk", "rows")
    assert {1, 64} <= {c["k"] for c in cases} and any(c["k"] == c["vocab"] for c in cases)
    for seed in SEEDS:
        boundary_tie = negative_row = False
        for case in cases:
            x = module.generate(case, np.random.default_rng(seed))["logits"]
            k = int(case["k"])
            ordered = -np.sort(-x, axis=1)
            if x.shape[1] > k:
                boundary_tie |= bool((ordered[:, k - 1] == ordered[:, k]).any())
            negative_row |= bool((x.max(axis=1) < 0).any())
        assert boundary_tie and negative_row, seed


def _argmax_model(x, bug=None):
    """(index, value) per row as each named argmax kernel would write them."""
    rows, vocab = x.shape
    threads = min(1024, max(32, 1 << max(0, math.ceil(math.log2(-(-vocab // 16))))))
    idx = np.empty(rows, np.int64)
    for r, row in enumerate(x):
        if bug == "ties_to_higher_column":
            idx[r] = vocab - 1 - int(np.argmax(row[::-1]))
        elif bug == "only_warp_zero_merged":  # columns whose thread is in warp 0
            cols = np.flatnonzero(np.arange(vocab) % threads < 32)
            idx[r] = cols[int(np.argmax(row[cols]))]
        elif bug == "max_started_at_zero" and row.max() < 0:
            idx[r] = 2**31 - 1  # the column never set
        else:
            idx[r] = int(np.argmax(row))
    value = np.array([0.0 if i >= vocab else x[r, i] for r, i in enumerate(idx)])
    return {"index": idx.astype(np.float64), "value": value}


def test_argmax_cases_catch_every_named_bug_and_pass_the_kernel(kit):
    module = kit.load_reference("19-topk", "argmax")
    spec = kit.read_exercise_toml("19-topk", "argmax")
    root = kit.exercise_dir("19-topk", "argmax")
    bugs = sorted(p.stem for p in (root / "solutions/wrong").glob("*.cu"))
    assert bugs == ["max_started_at_zero", "only_warp_zero_merged", "ties_to_higher_column"]
    for seed in SEEDS:
        caught = dict.fromkeys(bugs, False)
        for case in _cases(kit, "19-topk", "argmax"):
            x = module.generate(case, np.random.default_rng(seed))["logits"]
            want = module.reference({"logits": x}, case)
            assert (x.max(axis=1)[:, None] == x).sum(axis=1).min() >= 2, "the maximum twice in every row"
            assert x[0].max() < 0 and want["index"].min() >= 1, "a negative row; never column 0"
            good = _argmax_model(x)
            assert not any(_fails(good[k], want[k], spec) for k in want), (seed, case)
            for bug in bugs:
                got = _argmax_model(x, bug)
                caught[bug] |= any(_fails(got[k], want[k], spec) for k in want)
        assert all(caught.values()), (seed, caught)


def _candidates(x, k, threads):
    """How many keys the reference keeps at or above its bar (the k-th best of the threads' maxima)."""
    vocab = x.shape[1]
    cols = np.arange(vocab)
    counts = []
    for row in x:
        rank = np.empty(vocab, np.int64)
        rank[np.lexsort((cols, -row.astype(np.float64)))] = cols
        padded = np.full(-(-vocab // threads) * threads, vocab)
        padded[:vocab] = rank
        bar = np.sort(padded.reshape(-1, threads).min(axis=0))[k - 1]
        counts.append(int((rank <= bar).sum()))
    return counts


def test_topk_candidates_fit_the_reference_buffer(kit):
    module = kit.load_reference("19-topk", "rows")
    for case in _cases(kit, "19-topk", "rows") + _cases(kit, "19-topk", "rows", "benchmark"):
        vocab, k = int(case["vocab"]), int(case["k"])
        threads = min(1024, max(64, 1 << max(0, math.ceil(math.log2(-(-vocab // 16))))))
        assert k <= threads and k * -(-vocab // threads) <= 4096, case  # the proven bound fits CAP
        rows = {**case, "rows": min(int(case["rows"]), 8)}
        x = module.generate(rows, np.random.default_rng(0))["logits"]
        counts = _candidates(x, k, threads)
        assert min(counts) >= k and max(counts) <= k * -(-vocab // threads), case
    # the lesson's claim: for the benchmark's 64 × 50,304 rows and k = 50, 50 to 60 candidates
    for seed in SEEDS:
        x = module.generate({"rows": 64, "vocab": 50304, "k": 50}, np.random.default_rng(seed))["logits"]
        assert 50 <= min(counts := _candidates(x, 50, 1024)) and max(counts) <= 60, seed


@pytest.mark.parametrize(("folder", "name"), EXERCISES)
def test_small_cases_are_never_trivial_whatever_the_seed(kit, folder, name):
    from kernels.check import reference_is_trivial

    module = kit.load_reference(folder, name)
    atol = kit.read_exercise_toml(folder, name)["check"]["atol"]
    small = [c for c in _cases(kit, folder, name) if math.prod(v for v in c.values() if isinstance(v, int)) <= 5000]
    assert small
    for seed in range(100):
        for case in small:
            inputs = module.generate(case, np.random.default_rng(seed))
            want = module.reference(inputs, case)
            scale = module.error_scale(inputs, case) if hasattr(module, "error_scale") else {}
            assert not any(reference_is_trivial(v, atol, scale.get(n, 1.0)) for n, v in want.items()), (seed, case)


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
