"""A lesson's measured table is one measurement told twice: the same numbers in
ko.md and en.md, the card named, and (for the lessons below) every figure one
that docs/benchmarks.md records, under a section that also records the command
that measured it. The texts themselves give no repository command: learners do
not have the repository (test_lesson_texts.py)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

LESSONS = sorted(p.parent.name for p in (Path(__file__).resolve().parents[2] / "lessons").glob("*/lesson.toml"))
BENCH = "bench/reference_kernels.py"
# folder: (heading that opens its section of docs/benchmarks.md, how the table's figures
# appear there: "decimals" as printed, "rounded_ms" each time within its rounding of a
# recorded ms time, "measuring_section" the numbers under "## Measuring it" as printed or
# as ms, "times" every four-decimal time)
RECORD = {
    "04-row-reductions": ("## Track 1: lessons 01–05", None),
    "05-gemm-epilogue": ("## Track 1: lessons 01–05", None),
    "06-coalescing": ("## Track 2: lessons 06 coalescing and 07 shared tiling", "decimals"),
    "07-shared-tiling": ("## Track 2: lessons 06 coalescing and 07 shared tiling", "decimals"),
    "08-histogram": ("## Track 2: lessons 08 histogram and 09 scan", None),
    "09-scan": ("## Track 2: lessons 08 histogram and 09 scan", None),
    "10-compaction": ("## Track 2: lessons 10 compaction and 11 sorting", "rounded_ms"),
    "11-radix-sort": ("## Track 2: lessons 10 compaction and 11 sorting", "rounded_ms"),
    "12-convolution": ("## Track 2: lessons 12 convolution and 13 GEMV and SpMV", "decimals"),
    "13-gemv-spmv": ("## Track 2: lessons 12 convolution and 13 GEMV and SpMV", "decimals"),
    "14-rmsnorm": ("## Track 3: lessons 14 RMSNorm and 15 RoPE", "measuring_section"),
    "15-rope": ("## Track 3: lessons 14 RMSNorm and 15 RoPE", "measuring_section"),
    "16-attention": ("## Track 3: lessons 16 attention and 17 FlashAttention", "decimals"),
    "17-flash-attention": ("## Track 3: lessons 16 attention and 17 FlashAttention", "decimals"),
    "18-cross-entropy": ("## Track 3: lessons 18 cross-entropy and 19 top-k", None),
    "19-topk": ("## Track 3: lessons 18 cross-entropy and 19 top-k", None),
    "20-quant-gemv": ("## Track 3: lessons 20 int8 GEMV and 21 gated MLP activations", "times"),
    "21-gated-mlp": ("## Track 3: lessons 20 int8 GEMV and 21 gated MLP activations", "times"),
}
# folder: at least this many figures with a decimal point in its table
DECIMALS = {"04-row-reductions": 1, "05-gemm-epilogue": 1, "06-coalescing": 12, "07-shared-tiling": 12,
            "08-histogram": 1, "09-scan": 1, "10-compaction": 12, "11-radix-sort": 12,
            "12-convolution": 12, "13-gemv-spmv": 12, "14-rmsnorm": 6, "15-rope": 6,
            "16-attention": 12, "17-flash-attention": 12, "18-cross-entropy": 12, "19-topk": 12,
            "20-quant-gemv": 20, "21-gated-mlp": 20}
# Lessons whose tables also agree on every whole number (elsewhere a row may say "4 floats"
# in one language and "16 bytes" in the other)
WHOLE_NUMBERS_TOO = {"10-compaction", "11-radix-sort", "14-rmsnorm", "15-rope", "18-cross-entropy",
                     "19-topk", "20-quant-gemv", "21-gated-mlp"}
# Figures a lesson's text quotes: the anchors of /work/shared/anchors.md and measured results.
QUOTED = {
    ("04-row-reductions", "en"): ["12–35×"],
    ("04-row-reductions", "ko"): ["12–35배"],
    ("05-gemm-epilogue", "en"): ["+6%", "+37%"],     # unfused bias + ReLU overheads
    ("10-compaction", "en"): ["0.925", "4.70", "1.27", "10.68"],
    ("11-radix-sort", "en"): ["8.22", "1.75", "1.43", "22.1"],
}


def _table(body: str) -> str:
    return "\n".join(line for line in body.splitlines() if line.startswith("|"))


def _section(kit, folder: str) -> str:
    """The lesson's section of docs/benchmarks.md; the check is skipped, naming the heading,
    while that file is reorganised without it."""
    record = (kit.LESSONS_DIR.parent / "docs" / "benchmarks.md").read_text(encoding="utf-8")
    heading = RECORD[folder][0]
    start = record.find("\n" + heading)
    if start < 0:
        pytest.skip(f"docs/benchmarks.md has no section {heading!r}")
    end = record.find("\n## ", start + 1)
    return record[start:end if end >= 0 else len(record)]


@pytest.mark.parametrize("folder", LESSONS)
def test_both_languages_show_the_same_numbers_and_name_the_card(kit, folder):
    ko, en = kit.read_text(folder, "ko"), kit.read_text(folder, "en")
    pattern = r"\d+(?:\.\d+)?%?" if folder in WHOLE_NUMBERS_TOO else r"\d+\.\d+%?"
    numbers = [re.findall(pattern, _table(t.body)) for t in (ko, en)]
    assert numbers[0] == numbers[1], f"{folder}: the tables of ko.md and en.md differ"
    assert len(re.findall(r"\d+\.\d+", _table(en.body))) >= DECIMALS.get(folder, 0), f"{folder}: a measured table"
    for text in (ko, en):
        assert "H100" in text.body, f"{text.path}: which card measured it"
        assert "TABLE_" not in text.body, f"{text.path}: a placeholder left in the table"


@pytest.mark.parametrize(("folder", "lang"), QUOTED)
def test_texts_quote_the_measured_figures(kit, folder, lang):
    body = kit.read_text(folder, lang).body
    for figure in QUOTED[folder, lang]:
        assert figure in body, f"{folder}/{lang}.md: {figure}"


@pytest.mark.parametrize("folder", ["20-quant-gemv", "21-gated-mlp"])
def test_every_percentage_in_the_prose_is_in_both_languages(kit, folder):
    ko, en = kit.read_text(folder, "ko"), kit.read_text(folder, "en")
    percents = [sorted(re.findall(r"(\d+(?:\.\d+)?)%", t.body)) for t in (ko, en)]
    assert percents[0] == percents[1] and percents[0]


def test_histogram_and_scan_meet_their_targets(kit):
    # at 2^28 on an H100: histogram uniform >= 70% and skewed >= 40% of a same-size copy;
    # scan >= 80% of it and at least as fast as cupy.cumsum
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


@pytest.mark.parametrize("folder", RECORD)
def test_the_record_gives_the_command_that_measured_each_exercise(kit, folder):
    section = _section(kit, folder).replace("\\\n", " ")
    commands = [line for line in section.splitlines() if BENCH in line and "python" in line]
    for name in kit.read_lesson_toml(folder)["exercises"]:
        exercise_id = kit.read_exercise_toml(folder, name)["id"]
        if "benchmark" not in kit.read_exercise_toml(folder, name):
            continue
        assert any(re.search(rf"\s{re.escape(exercise_id)}(\s|$)", c) for c in commands), \
            f"docs/benchmarks.md {RECORD[folder][0]!r}: no {BENCH} command measures {exercise_id}"


def _decimals(kit, folder, section):
    for lang in kit.LANGS:
        for number in re.findall(r"\d+\.\d+", _table(kit.read_text(folder, lang).body)):
            assert number in section, f"{folder}/{lang}.md: {number} is not in docs/benchmarks.md"


def _rounded_ms(kit, folder, section):
    measured = [float(v) for v in re.findall(r"\b\d+\.\d{4}\b", section)]
    times = re.findall(r"(\d+(?:\.(\d+))?) (µs|ms)", _table(kit.read_text(folder, "en").body))
    assert len(times) >= 12
    for text, decimals, unit in times:
        scale = 1e-3 if unit == "µs" else 1.0
        half_step = 0.5 * 10 ** -len(decimals) * scale * 1.0001
        value = float(text) * scale
        assert any(abs(m - value) <= half_step for m in measured), f"{folder}: {text} {unit} is not a recorded time"


def _measuring_section(kit, folder, section):
    body = kit.read_text(folder, "en").body
    measured = body[body.index("## Measuring it"):]
    measured = measured[:measured.index("\n## ")]
    lines = [line for line in measured.splitlines() if line.startswith("|")]
    rows = lines[2:]  # below the header and its separator
    numbers = [n for row in rows for n in re.findall(r"\d+(?:\.\d+)?%?", row)]
    assert len(rows) >= 5 and len(numbers) >= 15
    for number in numbers:  # as printed (µs), or as ms
        value = float(number.rstrip("%"))
        assert number in section or f"{value / 1000:.3f} ms" in section, f"{folder}: {number} not in docs/benchmarks.md"


def _times(kit, folder, section):
    recorded = set(re.findall(r"\d+\.\d+", section))
    times = re.findall(r"\d+\.\d{4}", _table(kit.read_text(folder, "en").body))
    assert len(times) >= 15 and set(times) <= recorded, set(times) - recorded


@pytest.mark.parametrize("folder", [f for f, (_, rule) in RECORD.items() if rule])
def test_every_figure_in_the_table_is_in_the_benchmark_record(kit, folder):
    rule = {"decimals": _decimals, "rounded_ms": _rounded_ms, "measuring_section": _measuring_section,
            "times": _times}[RECORD[folder][1]]
    rule(kit, folder, _section(kit, folder))
