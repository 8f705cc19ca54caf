"""The physical floor and the refusal of a time below it (#26), without a GPU:
real exercise specs, the device ceilings given as numbers."""

from __future__ import annotations

import pytest

from kernels import bench_integrity as integrity
from kernels import contract as result
from kernels.bench_run import refusal
from kernels.exercises import find_exercise
from kernels.plan import env_for

# an H200's figures: 132 SMs at 1980 MHz, 4,254 GB/s measured copy (anchors)
H200 = {"sms": 132, "sm_clock_mhz": 1980, "dram_gbps": 4915.0, "floor_gbps": 1.15 * 4915.0,
        "peak_gflops": {k: 132 * 1980e6 * v / 1e9 for k, v in integrity._RATES[(9, 0)].items()}}


def _env(exercise_id: str, index: int = 0) -> tuple:
    exercise = find_exercise(exercise_id)
    return exercise, env_for(exercise.benchmark.cases[index], {c.name: c.default for c in exercise.constants})


def test_the_fp32_gemm_floor_is_its_flops_at_the_tf32_tensor_peak():
    exercise, env = _env("gemm-epilogue.fp32")
    floor, bound = integrity.floor_ms(exercise, env, H200)
    assert bound == "compute"
    # 2·4096³ flops at 132 SMs × 1.98 GHz × 2048 flops per clock (535 TFLOP/s): 0.257 ms;
    # the replay cheat of issue #26 reported 0.135 ms
    assert floor == pytest.approx(2 * 4096**3 / (132 * 1.98e9 * 2048) * 1e3, rel=1e-9)
    assert 0.135 < floor < 2.0


def test_narrow_inputs_use_the_fp16_tensor_rate_and_memory_bound_kernels_their_bytes():
    assert integrity.precision_class(find_exercise("gemm-epilogue.wmma_fp16")) == "fp16"
    saxpy, env_s = _env("elementwise.saxpy", 2)
    floor, bound = integrity.floor_ms(saxpy, env_s, H200)
    assert bound == "memory"
    assert floor == pytest.approx(12 * 2**28 / (H200["floor_gbps"] * 1e9) * 1e3)


def test_a_bytes_model_above_the_least_has_its_floor_bytes():
    sort, env = _env("radix-sort.lsd_u32", 2)
    floor, bound = integrity.floor_ms(sort, env, H200)
    assert bound == "memory"
    assert floor == pytest.approx(8 * env["N"] / (H200["floor_gbps"] * 1e9) * 1e3)


def test_input_kinds_decide_how_each_call_is_freshened():
    assert integrity.input_kind(find_exercise("gemm-epilogue.fp32")) == "float"
    assert integrity.input_kind(find_exercise("radix-sort.lsd_u32")) == "int"
    assert integrity.input_kind(find_exercise("histogram.bytes")) == "int"


def _size(ms: float, floor_ms: float) -> dict:
    return {"n": 4096, "label": "4096x4096x4096", "dims": {}, "ms": ms, "ms_err": 0.0, "best_ms": ms,
            "baselines": {}, "floor_ms": floor_ms, "floor": "compute"}


def test_a_time_below_the_floor_is_refused_with_a_coded_message():
    assert refusal([_size(2.7, 0.257)]) is None
    refused = refusal([_size(2.7, 0.257), _size(0.135, 0.257)])
    assert refused["message_code"] == "bench_below_floor"
    assert refused["message_params"] == {"case": "4096x4096x4096", "ms": 0.135, "floor_ms": 0.257,
                                         "bound": "compute"}
    assert "below this GPU's physical floor" in refused["message"]


def test_a_refused_benchmark_validates_only_without_a_time():
    doc = result.build(exercise="gemm-epilogue.fp32", backend="cuda", device={"name": "GPU"},
                       verdict="accepted", message="all 9 tests passed", compile_=result.empty_compile(),
                       tests=[], diagnostics=[], timings={}, timings_note=None,
                       benchmark={"sizes": [_size(0.135, 0.257)], "geomean_ms": None, "peak_gbps": 4254.0,
                                  "refused": refusal([_size(0.135, 0.257)])})
    assert result.validate(doc) == []
    doc["benchmark"]["geomean_ms"] = 0.135
    assert result.validate(doc) == ["a refused benchmark has geomean_ms null"]
    doc["benchmark"].update(geomean_ms=None, refused={"message": "x", "message_code": "bench_below_floor",
                                                      "message_params": {}})
    assert result.validate(doc) == [
        "benchmark.refused.message_params for bench_below_floor need case, ms, floor_ms, bound"]


def test_the_cli_prints_the_refusal_in_place_of_a_geomean():
    from kernels.cli import render

    refused = refusal([_size(0.135, 0.257)])
    doc = result.build(exercise="gemm-epilogue.fp32", backend="cuda", verdict="accepted",
                       message="all 9 tests passed", compile_=result.empty_compile(),
                       benchmark={"sizes": [_size(0.135, 0.257)], "geomean_ms": None, "peak_gbps": 4254.0,
                                  "refused": refused})
    text = render(doc, colour=False)
    assert f"refused: {refused['message']}" in text and "geomean" not in text
