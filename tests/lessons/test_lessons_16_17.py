"""Content checks for lessons 16-17 of the llm-kernels track (issue #15).

Front matter, ko/en parity, the measured tables against docs/benchmarks.md,
exercise folders and hints; each reference.py against attention written out
element by element (math.fsum, math.exp); test-case design, shown by running
numpy models of each named wrong solution over the spec's own cases with
several seeds (every bug meets a case that exposes it, while a model of the
correct kernel with its own roundings passes them all); every kernel source,
baselines included, compiled by the real NVRTC. The verdicts of the sources
are tests/lessons/test_corpus.py's.
"""

from __future__ import annotations

import math
import re

import numpy as np
import pytest

TRACK = "llm-kernels"
LESSONS = {
    "16-attention": {"id": "attention", "order": 16, "prerequisites": ["rope"],
                     "exercises": ["three_kernels", "fused_rows"],
                     "ids": ["attention.three_kernels", "attention.fused_rows"]},
    "17-flash-attention": {"id": "flash-attention", "order": 17, "prerequisites": ["attention"],
                           "exercises": ["forward"], "ids": ["flash-attention.forward"]},
}
EXERCISES = [(f, n) for f, info in LESSONS.items() for n in info["exercises"]]
BENCH_COMMAND = "python3 bench/reference_kernels.py attention.three_kernels flash-attention.forward --reps 30"
HANGUL = re.compile(r"[\uac00-\ud7a3]")
FIELD_TYPES = {"id": str, "track": str, "order": int, "minutes": int, "tags": list,
               "difficulty": str, "xp": int, "prerequisites": list, "status": str,
               "exercises": list}
SEEDS = range(3)
BN = 64  # keys per tile of lesson 17's reference (and of the models below)


def _cases(kit, folder, name, section="tests"):
    return [dict(c) for c in kit.read_exercise_toml(folder, name)[section]["cases"]]


def _table_numbers(body: str) -> list[str]:
    rows = "\n".join(line for line in body.splitlines() if line.startswith("|"))
    return re.findall(r"\d+\.\d+", rows)


def _fails(got, want, spec) -> bool:
    rtol, atol = spec["check"]["rtol"], spec["check"]["atol"]
    with np.errstate(invalid="ignore"):
        close = np.abs(np.asarray(got, dtype=np.float64) - want) <= atol + rtol * np.abs(want)
    return not bool(close.all())


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
def test_both_languages_have_the_same_sections_code_and_numbers(kit, folder):
    ko, en = kit.read_text(folder, "ko"), kit.read_text(folder, "en")
    for text in (ko, en):
        assert text.meta["title"].strip() and text.meta["summary"].strip()
    assert HANGUL.search(ko.meta["title"]) and HANGUL.search(ko.body) and not HANGUL.search(en.body)
    assert ko.headings == en.headings and len(ko.headings) >= 5
    assert len(ko.code_blocks) == len(en.code_blocks) >= 2
    for (ko_info, ko_code), (en_info, en_code) in zip(ko.code_blocks, en.code_blocks):
        assert ko_info == en_info and ko_code == en_code, "code is shared; only prose is translated"
    assert sum("tab=" in info for info, _ in en.code_blocks) >= 2, "a tabbed pair: PyTorch and CUDA"
    assert _table_numbers(en.body) == _table_numbers(ko.body) and len(_table_numbers(en.body)) >= 12


@pytest.mark.parametrize("folder", LESSONS)
def test_measured_tables_name_their_command_and_come_from_the_benchmark_record(kit, folder):
    record = (kit.LESSONS_DIR.parent / "docs" / "benchmarks.md").read_text(encoding="utf-8")
    section = record[record.index("## Track 3: lessons 16 attention and 17 FlashAttention (#15)"):]
    section = section[: section.find("\n## ", 4) if "\n## " in section[4:] else None]
    for lang in kit.LANGS:
        body = kit.read_text(folder, lang).body
        assert any(code.strip() == BENCH_COMMAND for _, code in kit.read_text(folder, lang).code_blocks)
        assert "H100" in body
        for number in _table_numbers(body):
            assert number in section, f"{folder}/{lang}.md: {number} is not in docs/benchmarks.md"


# --- Exercise folders and hints ---------------------------------------------------------

@pytest.mark.parametrize(("folder", "name"), EXERCISES)
def test_exercise_folder_is_complete(kit, folder, name):
    root = kit.exercise_dir(folder, name)
    spec = kit.read_exercise_toml(folder, name)
    assert spec["id"] == LESSONS[folder]["ids"][LESSONS[folder]["exercises"].index(name)]
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


def test_flash_attention_runs_on_tensor_cores_in_fp16(kit):
    spec = kit.read_exercise_toml("17-flash-attention", "forward")
    assert {b["dtype"] for b in spec["buffers"]} == {"float16"}
    reference = (kit.exercise_dir("17-flash-attention", "forward") / "reference.cu").read_text(encoding="utf-8")
    assert "wmma::mma_sync" in reference and "asm" not in reference, "WMMA, so the emulator can judge it"
    shapes = {(c["BH"], c["S"], c["D"], c["causal"]) for c in _cases(kit, "17-flash-attention", "forward", "benchmark")}
    assert {(64, 4096, d, c) for d in (64, 128) for c in (0, 1)} <= shapes, "the issue's target shapes"


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


# --- reference.py against attention written out ----------------------------------------

@pytest.mark.parametrize(("folder", "name"), EXERCISES)
def test_reference_matches_attention_written_out(kit, folder, name):
    module = kit.load_reference(folder, name)
    dtype = np.float32 if folder == "16-attention" else np.float16
    for case in ({"BH": 2, "S": 5, "D": 64, "causal": 1}, {"BH": 1, "S": 7, "D": 3, "causal": 0}):
        inputs = module.generate(case, np.random.default_rng(11))
        assert all(inputs[n].dtype == dtype and inputs[n].shape == (case["BH"], case["S"], case["D"])
                   for n in "QKV")
        got = module.reference(inputs, case)["O"]
        q, k, v = (inputs[n].astype(np.float64) for n in "QKV")
        for h in range(case["BH"]):
            for i in range(case["S"]):
                keys = range(i + 1) if case["causal"] else range(case["S"])
                logits = [math.fsum(q[h, i] * k[h, j]) / math.sqrt(case["D"]) for j in keys]
                top = max(logits)
                weights = [math.exp(s - top) for s in logits]
                total = math.fsum(weights)
                for c in range(case["D"]):
                    want = math.fsum(w * v[h, j, c] for w, j in zip(weights, keys)) / total
                    assert got[h, i, c] == pytest.approx(want, rel=1e-12, abs=1e-12)


# --- Models of the kernels, correct and wrong -------------------------------------------

def _logits(inputs, scale=True):
    q, k = inputs["Q"].astype(np.float64), inputs["K"].astype(np.float64)
    s = np.einsum("hid,hjd->hij", q, k)
    return s / math.sqrt(q.shape[2]) if scale else s


def _causal(s):
    return np.triu(np.ones(s.shape[-2:], dtype=bool), 1)


def _softmax_pv(logits, v, mask, subtract_max=True, dtype=np.float32):
    """Row softmax in `dtype` (float32: expf of ~100 overflows), then P·V."""
    logits = np.where(mask, -np.inf, logits).astype(dtype)
    with np.errstate(over="ignore", invalid="ignore"):
        shift = logits.max(axis=-1, keepdims=True) if subtract_max else 0
        e = np.exp(logits - shift)
        p = e / e.sum(axis=-1, keepdims=True)
        return np.einsum("hij,hjd->hid", p.astype(np.float64), v.astype(np.float64))


def _tiled_online(inputs, causal, rescale=True, growth=8.0, tile=BN, fp16=True):
    """Lesson 17's reference loop in numpy: key tiles of `tile`, a running max moved
    only past `growth` (log2), P rounded to FP16, O rounded to FP16 at the end
    (with fp16=False: fused_rows' loop, chunks of 32 keys, no FP16 roundings)."""
    s = _logits(inputs) * math.log2(math.e)
    if causal:
        s = np.where(_causal(s), -np.inf, s)
    v = inputs["V"].astype(np.float64)
    bh, n, d = v.shape
    m = np.full((bh, n, 1), -np.inf)
    l = np.zeros((bh, n, 1))
    o = np.zeros((bh, n, d))
    for k0 in range(0, n, tile):
        chunk = s[:, :, k0:k0 + tile]
        mx = chunk.max(axis=-1, keepdims=True)
        grow = mx > m + growth
        with np.errstate(invalid="ignore"):
            alpha = np.where(grow, np.exp2(m - mx), 1.0)
        if not rescale:
            alpha = np.where(np.isneginf(m), 0.0, 1.0)
        m = np.where(grow, mx, m)
        p = np.exp2(chunk - m)
        if fp16:
            p = p.astype(np.float16).astype(np.float64)
        l = l * alpha + p.sum(axis=-1, keepdims=True)
        o = o * alpha + np.einsum("hij,hjd->hid", p, v[:, k0:k0 + tile])
    return (o / l).astype(np.float16 if fp16 else np.float32)


def _each_case(kit, folder, name):
    module = kit.load_reference(folder, name)
    spec = kit.read_exercise_toml(folder, name)
    for seed in SEEDS:
        for case in _cases(kit, folder, name):
            inputs = module.generate(case, np.random.default_rng([seed, case["S"]]))
            yield case, inputs, module.reference(inputs, case)["O"], spec


def test_three_kernel_cases_catch_every_named_bug(kit):
    caught = {"max_not_subtracted": 0, "missing_scale": 0, "missing_causal_mask": 0}
    runs = 0
    for case, inputs, want, spec in _each_case(kit, "16-attention", "three_kernels"):
        runs += 1
        s = _logits(inputs)
        mask = _causal(s) if case["causal"] else np.zeros(s.shape[-2:], dtype=bool)
        v = inputs["V"]
        assert not _fails(_softmax_pv(s, v, mask), want, spec), f"the float32 model must pass: {case}"
        caught["max_not_subtracted"] += _fails(_softmax_pv(s, v, mask, subtract_max=False), want, spec)
        caught["missing_scale"] += _fails(_softmax_pv(_logits(inputs, scale=False), v, mask), want, spec)
        caught["missing_causal_mask"] += _fails(_softmax_pv(s, v, np.zeros_like(mask)), want, spec)
    assert caught["max_not_subtracted"] == runs, "every case overflows expf without the max"
    assert caught["missing_scale"] >= runs // 2 and caught["missing_causal_mask"] >= len(SEEDS)
    cases = _cases(kit, "16-attention", "three_kernels")
    assert any(c["causal"] and c["S"] >= 2 for c in cases), "masked_tail_not_zeroed needs a masked tail"
    assert any(c["D"] % 16 for c in cases) and any(c["S"] % 16 for c in cases), "partial tiles"


def test_fused_row_cases_catch_every_named_bug(kit):
    caught = {"unrescaled_running_sum": 0, "missing_causal_mask": 0}
    for case, inputs, want, spec in _each_case(kit, "16-attention", "fused_rows"):
        causal = bool(case["causal"])
        online = dict(growth=0.0, tile=32, fp16=False)
        assert not _fails(_tiled_online(inputs, causal, **online), want, spec), case
        caught["unrescaled_running_sum"] += _fails(_tiled_online(inputs, causal, rescale=False, **online), want, spec)
        caught["missing_causal_mask"] += _fails(_tiled_online(inputs, False, **online), want, spec) if causal else 0
    assert min(caught.values()) >= len(SEEDS), caught
    assert any(c["S"] > 64 + 32 for c in _cases(kit, "16-attention", "fused_rows")), "several 32-key chunks"


def test_flash_cases_catch_every_named_bug(kit):
    caught = {"max_not_subtracted": 0, "missing_scale": 0, "missing_causal_mask": 0,
              "unrescaled_running_sum": 0}
    runs = 0
    for case, inputs, want, spec in _each_case(kit, "17-flash-attention", "forward"):
        runs += 1
        causal = bool(case["causal"])
        assert not _fails(_tiled_online(inputs, causal), want, spec), f"the tiled FP16 model must pass: {case}"
        assert not _fails(_tiled_online(inputs, causal, growth=0.0), want, spec), "rescale_every_tile"
        s = _logits(inputs)
        mask = _causal(s) if causal else np.zeros(s.shape[-2:], dtype=bool)
        v = inputs["V"]
        caught["max_not_subtracted"] += _fails(_softmax_pv(s, v, mask, subtract_max=False), want, spec)
        caught["missing_scale"] += _fails(_softmax_pv(_logits(inputs, scale=False), v, mask), want, spec)
        caught["missing_causal_mask"] += _fails(_tiled_online(inputs, False), want, spec) if causal else 0
        caught["unrescaled_running_sum"] += _fails(_tiled_online(inputs, causal, rescale=False), want, spec)
    assert caught["max_not_subtracted"] == runs
    assert min(caught.values()) >= len(SEEDS), caught
    cases = _cases(kit, "17-flash-attention", "forward")
    # tail_rows_not_zeroed: a case whose only key tile is partial, so its unwritten V rows
    # still hold the poison every backend fills shared memory with
    assert any(c["S"] < BN for c in cases), "tail_rows_not_zeroed needs a sequence shorter than one key tile"
    assert {c["D"] for c in cases} == {64, 128} and any(c["S"] > 128 and c["causal"] for c in cases)


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
