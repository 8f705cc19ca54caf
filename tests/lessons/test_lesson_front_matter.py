"""Every lesson.toml is complete and typed, and the catalogue is what the site
promises: each lesson's id, place, track and exercises (with their ids), and
prerequisites that are existing earlier lessons. That a text names the lessons it
builds on as prerequisites is tests/lessons/test_lesson_texts.py's."""

from __future__ import annotations

import re

import pytest

HANGUL = re.compile(r"[\uac00-\ud7a3]")
FIELD_TYPES = {"id": str, "track": str, "order": int, "minutes": int, "tags": list,
               "difficulty": str, "xp": int, "prerequisites": list, "status": str,
               "exercises": list}
# folder: (id, order, track, {exercise folder: exercise id}), in the order lesson.toml lists them
CATALOGUE = {
    "01-elementwise": ("elementwise", 1, "foundations", {"saxpy": "elementwise.saxpy"}),
    "02-reduction": ("reduction", 2, "foundations",
                     {"block_sum": "reduction.block_sum", "full_sum": "reduction.full_sum"}),
    "03-warp-broadcast": ("warp-broadcast", 3, "foundations",
                          {"basic": "broadcast.basic", "conditional": "broadcast.conditional",
                           "shuffle": "broadcast.shuffle"}),
    "04-row-reductions": ("row-reductions", 4, "foundations",
                          {"softmax": "row-reductions.softmax", "layernorm": "row-reductions.layernorm"}),
    "05-gemm-epilogue": ("gemm-epilogue", 5, "foundations",
                         {"fp32": "gemm-epilogue.fp32", "wmma_fp16": "gemm-epilogue.wmma_fp16"}),
    "06-coalescing": ("coalescing", 6, "memory-patterns",
                      {"gather": "coalescing.gather", "vector_copy": "coalescing.vector_copy"}),
    "07-shared-tiling": ("shared-tiling", 7, "memory-patterns", {"transpose": "shared-tiling.transpose"}),
    "08-histogram": ("histogram", 8, "memory-patterns", {"bytes": "histogram.bytes"}),
    "09-scan": ("scan", 9, "memory-patterns", {"rows": "scan.rows", "inclusive": "scan.inclusive"}),
    "10-compaction": ("compaction", 10, "memory-patterns",
                      {"select": "compaction.select", "partition": "compaction.partition"}),
    "11-radix-sort": ("radix-sort", 11, "memory-patterns",
                      {"bitonic_segments": "radix-sort.bitonic_segments", "lsd_u32": "radix-sort.lsd_u32"}),
    "12-convolution": ("convolution", 12, "memory-patterns",
                       {"conv1d": "convolution.conv1d", "conv2d": "convolution.conv2d"}),
    "13-gemv-spmv": ("gemv-spmv", 13, "memory-patterns", {"gemv": "gemv-spmv.gemv", "spmv": "gemv-spmv.spmv"}),
    "14-rmsnorm": ("rmsnorm", 14, "llm-kernels", {"fused_add": "rmsnorm.fused_add"}),
    "15-rope": ("rope", 15, "llm-kernels", {"qk_inplace": "rope.qk_inplace"}),
    "16-attention": ("attention", 16, "llm-kernels",
                     {"three_kernels": "attention.three_kernels", "fused_rows": "attention.fused_rows"}),
    "17-flash-attention": ("flash-attention", 17, "llm-kernels", {"forward": "flash-attention.forward"}),
    "18-cross-entropy": ("cross-entropy", 18, "llm-kernels", {"fused": "cross-entropy.fused"}),
    "19-topk": ("topk", 19, "llm-kernels", {"argmax": "topk.argmax", "rows": "topk.rows"}),
    "20-quant-gemv": ("quant-gemv", 20, "llm-kernels", {"int8_gemv": "quant-gemv.int8_gemv"}),
    "21-gated-mlp": ("gated-mlp", 21, "llm-kernels", {"glu": "gated-mlp.glu"}),
}


def test_the_catalogue_is_every_lesson_folder(kit):
    folders = sorted(p.parent.name for p in kit.LESSONS_DIR.glob("*/lesson.toml"))
    assert folders == sorted(CATALOGUE), "a lesson folder was added or removed: list it in CATALOGUE"


@pytest.mark.parametrize("folder", CATALOGUE)
def test_front_matter_is_complete_and_typed(kit, folder):
    meta = kit.read_lesson_toml(folder)
    for name, kind in FIELD_TYPES.items():
        assert name in meta, f"{folder}/lesson.toml: {name}: missing"
        assert isinstance(meta[name], kind) and not isinstance(meta[name], bool), \
            f"{folder}/lesson.toml: {name}: expected {kind.__name__}, got {meta[name]!r}"
    assert meta["difficulty"] in ("easy", "medium", "hard"), f"{folder}/lesson.toml: difficulty"
    assert meta["status"] == "published", f"{folder}/lesson.toml: status: the catalogue lists published lessons"
    assert meta["minutes"] > 0 and meta["xp"] > 0, f"{folder}/lesson.toml: minutes and xp are positive"
    assert meta["tags"] and all(isinstance(t, str) and t for t in meta["tags"]), f"{folder}/lesson.toml: tags"


@pytest.mark.parametrize("folder", CATALOGUE)
def test_id_order_track_and_exercises_are_the_catalogues(kit, folder):
    lesson_id, order, track, exercises = CATALOGUE[folder]
    meta = kit.read_lesson_toml(folder)
    assert (meta["id"], meta["order"], meta["track"]) == (lesson_id, order, track)
    assert meta["exercises"] == list(exercises)
    for name, exercise_id in exercises.items():
        spec = kit.exercise_dir(folder, name) / "exercise.toml"
        assert spec.is_file(), f"{folder}/lesson.toml lists {name!r}, but {spec} is missing"
        assert kit.read_exercise_toml(folder, name)["id"] == exercise_id


@pytest.mark.parametrize("folder", CATALOGUE)
def test_prerequisites_are_existing_earlier_lessons(kit, folder):
    order_of = {kit.read_lesson_toml(f)["id"]: kit.read_lesson_toml(f)["order"] for f in CATALOGUE}
    meta = kit.read_lesson_toml(folder)
    assert len(set(meta["prerequisites"])) == len(meta["prerequisites"]), f"{folder}: a prerequisite twice"
    for lesson_id in meta["prerequisites"]:
        assert lesson_id in order_of, f"{folder}/lesson.toml: prerequisites: no lesson {lesson_id!r}"
        assert order_of[lesson_id] < meta["order"], f"{folder}/lesson.toml: prerequisites: {lesson_id} comes later"


def test_only_the_first_lesson_has_no_prerequisites(kit):
    bare = [f for f in CATALOGUE if not kit.read_lesson_toml(f)["prerequisites"]]
    assert bare == ["01-elementwise"]


@pytest.mark.parametrize("track", sorted({info[2] for info in CATALOGUE.values()}))
def test_every_track_has_a_name_in_both_languages(track):
    from app import i18n_strings

    key = f"track.{track}"
    texts = [table[key] for table in vars(i18n_strings).values() if isinstance(table, dict) and key in table]
    assert len(texts) == 2, key
    assert sum(bool(HANGUL.search(t)) for t in texts) == 1, f"{key}: one Korean and one English name"
