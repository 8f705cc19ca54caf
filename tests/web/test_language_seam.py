"""The web against the judge's language seam (#29): the web's language table is the
judge's registry, and a Triton submission is judged through the embedded worker. The emulator test judges Triton with its CPU interpreter; the `gpu` one on a GPU
(sm_90: an H100/H200) through the embedded worker."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from app.content import LANGUAGES
from app.main import create_app
from tests.fixtures.triton import ADD_ONE, EXERCISE_ID, build_triton_lessons
from tests.web.conftest import csrf, make_settings, signup
from tests.web.database import migrate

from kernels import languages


def test_the_webs_language_table_agrees_with_the_judges_registry() -> None:
    assert set(LANGUAGES) == set(languages.NAMES)
    for name, info in LANGUAGES.items():
        module = languages.get(name)
        assert (module.name, module.title, module.suffix, module.editor_mode) == \
            (info.name, info.title, info.suffix, info.editor_mode)


def _serve(tmp_path: Path, backend: str) -> Iterator[TestClient]:
    settings = make_settings(tmp_path, build_triton_lessons(tmp_path / "lessons"), embedded_worker=True,
                             worker_threads=1, judge_backend=backend)
    migrate(settings.database_url)
    with TestClient(create_app(settings), base_url="http://testserver") as client:
        client.get("/api/me/progress")
        yield client


def _judge(client: TestClient, source: str, timeout_s: float) -> dict:
    created = client.post("/api/submissions", json={"exercise_id": EXERCISE_ID, "source": source,
                                                    "language": "triton"}, headers=csrf(client))
    assert created.status_code == 202, created.text
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        body = client.get(f"/api/submissions/{created.json()['id']}").json()
        if body["status"] == "done":
            return body
        time.sleep(0.2)
    raise AssertionError(f"not judged in {timeout_s} s: {body}")


def check_triton_judged(client: TestClient, timeout_s: float) -> None:
    signup(client)
    accepted = _judge(client, (ADD_ONE / "reference.triton.py").read_text(), timeout_s)
    assert (accepted["verdict"], accepted["language"], accepted["result"]["language"]) == \
        ("accepted", "triton", "triton"), accepted["result"].get("message")
    assert accepted["xp_awarded"] > 0
    starter = _judge(client, (ADD_ONE / "starter.triton.py").read_text(), timeout_s)
    assert starter["verdict"] == "wrong_answer", starter["result"].get("message")
    progress = client.get("/api/me/progress").json()
    assert progress["exercise_languages"] == {EXERCISE_ID: ["triton"]}


def test_a_triton_submission_is_judged_on_the_emulator(tmp_path: Path) -> None:
    pytest.importorskip("triton", reason="Triton's interpreter judges Triton on the CPU")
    for client in _serve(tmp_path, "emu"):
        check_triton_judged(client, timeout_s=300)


@pytest.mark.gpu
def test_a_triton_submission_is_judged_on_the_gpu(tmp_path: Path) -> None:
    pytest.importorskip("triton", reason="Triton compiles the kernel for the GPU")
    pytest.importorskip("cupy", reason="the GPU target loads the cubin with CuPy")
    for client in _serve(tmp_path, "cuda"):
        check_triton_judged(client, timeout_s=600)
