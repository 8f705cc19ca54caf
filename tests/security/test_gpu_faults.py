"""Learner faults on a real GPU are the learner's verdict, never internal_error (#27).

Each attack is judged by the real judge (a job process per submission) on the
`cuda` backend; afterwards a correct kernel is judged accepted by the same
judge, so the GPU is left healthy for the next job. Skipped without a GPU.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytestmark = pytest.mark.gpu

REPO = Path(__file__).resolve().parents[2]
ATTACKS = Path(__file__).resolve().parent / "gpu_attacks"
CORRECT = (REPO / "lessons/02-reduction/exercises/block_sum/reference.cu").read_text()


@pytest.fixture(scope="module")
def judge():
    from kernels.judge import Judge

    with Judge(REPO / "lessons", backend="cuda") as j:
        yield j


def _judge(judge, name: str, bench: bool) -> dict:
    doc = judge.run((ATTACKS / name).read_text(), "reduction.block_sum", bench=bench)
    after = judge.run(CORRECT, "reduction.block_sum", bench=False)
    assert after["verdict"] == "accepted", after["message"]  # the GPU is healthy for the next job
    return doc


def test_a_device_array_too_large_to_load_is_the_learners(judge):
    doc = _judge(judge, "device_array_too_large.cu", bench=False)
    assert doc["verdict"] in ("memory_limit_exceeded", "runtime_error"), doc["message"]
    assert "OUT_OF_MEMORY" in json.dumps(doc) or "out of memory" in doc["message"].lower(), doc["message"]


def test_a_trap_only_in_the_benchmark_is_a_runtime_error(judge):
    doc = _judge(judge, "trap_in_benchmark.cu", bench=True)
    assert all(t["status"] == "pass" for t in doc["tests"]), doc["tests"]
    assert doc["verdict"] == "runtime_error", doc["message"]
    assert doc["message"].startswith("the benchmark:"), doc["message"]


def test_scanning_device_memory_is_a_runtime_error(judge):
    doc = _judge(judge, "scan_device_memory.cu", bench=False)
    assert doc["verdict"] == "runtime_error", doc["message"]
    assert "ILLEGAL_ADDRESS" in doc["message"] or "illegal" in doc["message"].lower(), doc["message"]
