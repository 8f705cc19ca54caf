"""Web fixtures: a fresh SQLite database per test (a copy of one Alembic-built template:
tests/web/database.py), a small lesson folder built from the real `reduction.block_sum`
exercise, the real Huey queue (SqliteHuey in a temporary file) and the real judge on the
emulator backend."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from app.main import create_app
from tests.web.database import migrate
from app.settings import REPO_ROOT, Settings

BLOCK_SUM = REPO_ROOT / "lessons" / "02-reduction" / "exercises" / "block_sum"

LESSON_TOML = """id = "reduction"
track = "foundations"
order = 2
minutes = 14
tags = ["reduction"]
difficulty = "easy"
xp = 40
prerequisites = ["intro"]
status = "published"
exercises = ["block_sum"]
"""

INTRO_TOML = """id = "intro"
track = "foundations"
order = 1
minutes = 5
tags = ["intro"]
difficulty = "easy"
xp = 10
prerequisites = []
status = "published"
exercises = []
"""


def _text(title: str) -> str:
    return f'+++\ntitle = "{title}"\nsummary = "test lesson"\n+++\n\nBody of {title}.\n'


def build_lessons(root: Path) -> Path:
    """Two lessons in one track: `intro` (no exercises) and `reduction` (block_sum)."""
    intro = root / "01-intro"
    intro.mkdir(parents=True)
    (intro / "lesson.toml").write_text(INTRO_TOML)
    reduction = root / "02-reduction"
    (reduction / "exercises").mkdir(parents=True)
    (reduction / "lesson.toml").write_text(LESSON_TOML)
    for folder, title in ((intro, "Intro"), (reduction, "Reduction")):
        (folder / "ko.md").write_text(_text(title + " ko"))
        (folder / "en.md").write_text(_text(title))
    target = reduction / "exercises" / "block_sum"
    shutil.copytree(BLOCK_SUM, target)
    for lang in ("ko", "en"):
        path = target / f"instructions.{lang}.md"
        if not path.exists():
            path.write_text("Sum the input.\n")
    return root


@pytest.fixture(scope="session")
def lessons_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_lessons(tmp_path_factory.mktemp("lessons"))


def make_settings(tmp_path: Path, lessons_dir: Path, **overrides: object) -> Settings:
    values: dict[str, object] = {
        "environment": "test",
        "database_url": f"sqlite:///{tmp_path / 'kdojo.sqlite3'}",
        "queue_path": tmp_path / "queue.sqlite3",
        "lessons_dir": lessons_dir,
        "judge_backend": "emu",
        "secret_key": "test-secret-key-that-is-long-enough-0123456789",
        "heartbeat_s": 0.5,
        "reaper_interval_s": 0.5,
        "sse_poll_s": 0.05,
    }
    values.update(overrides)
    return Settings(**values)  # type: ignore[arg-type]


@pytest.fixture
def settings(tmp_path: Path, lessons_dir: Path) -> Settings:
    s = make_settings(tmp_path, lessons_dir, embedded_worker=False)
    migrate(s.database_url)
    return s


@pytest.fixture
def app(settings: Settings):  # noqa: ANN201
    return create_app(settings)


@pytest.fixture
def client(app) -> Iterator[TestClient]:  # noqa: ANN001
    with TestClient(app, base_url="http://testserver") as c:
        c.get("/api/me/progress")  # picks up the CSRF cookie
        yield c


def csrf(client: TestClient) -> dict[str, str]:
    return {"X-CSRF-Token": client.cookies.get("kdojo_csrf") or ""}


def signup(client: TestClient, email: str = "ada@example.com", password: str = "correct horse",
           name: str = "Ada") -> dict:
    response = client.post("/auth/signup", json={"email": email, "password": password, "display_name": name},
                           headers=csrf(client))
    assert response.status_code == 200, response.text
    return response.json()["user"]


EXERCISE = "reduction.block_sum"


def v1_result(verdict: str = "accepted", backend: str = "emu", ms: float | None = None,
              framework_ms: float | None = None, pct_of_peak: float | None = None,
              gpu: str = "NVIDIA H100 80GB HBM3") -> dict:
    """A v1 result document as the judge returns it (for tests that store verdicts
    directly through app.services.judging)."""
    benchmark = None
    if ms is not None:
        benchmark = {"sizes": [{"n": 1 << 28, "label": "268435456", "dims": {"N": 1 << 28}, "ms": ms,
                                "ms_err": 0.001, "best_ms": ms, "gbps": 2000.0, "pct_of_peak": pct_of_peak,
                                "baselines": {"naive": None, "framework": framework_ms}}],
                     "geomean_ms": ms, "peak_gbps": 3000.0}
    device = {"name": gpu, "sm_clock_mhz": 1980, "temp_c": 40} if backend == "cuda" else None
    return {"version": 1, "exercise": EXERCISE, "backend": backend, "device": device, "verdict": verdict,
            "message": verdict, "compile": {"ok": verdict != "compile_error", "seconds": 0.01, "log": "",
                                            "diagnostics": []},
            "tests": [], "diagnostics": [], "benchmark": benchmark, "timings": {}}


def store_verdict(app, user_id: int | None, result: dict, mode: str = "submit",  # noqa: ANN001
                  anon_id: str | None = None) -> int:
    """Create a submission row and judge it with `result` through the worker's
    own service functions (claim → finish): the real storage path, minus the judge."""
    from app.db import transaction
    from app.models import Submission
    from app.services import judging

    with transaction(app.state.sessionmaker) as session:
        row = Submission(user_id=user_id, anon_id=anon_id, exercise_id=result["exercise"], mode=mode,
                         source="// test", status="queued", achievements=[])
        session.add(row)
        session.flush()
        submission_id = row.id
    with transaction(app.state.sessionmaker) as session:
        attempt = judging.claim(session, submission_id, "test-worker")
        assert attempt is not None
        assert judging.finish(session, submission_id, attempt, result, app.state.catalog)
    return submission_id


def race_to_store(factory, catalog, racers: int, result: dict) -> int:  # noqa: ANN001
    """`racers` accepted submissions of one learner on one exercise, each stored by
    its own thread at the same moment (a barrier); returns the learner's id."""
    import threading

    from app.db import transaction
    from app.models import Submission, User
    from app.services import judging

    with transaction(factory) as session:
        user = User(email="race@example.com", display_name="Race", password_hash="x")
        session.add(user)
        session.flush()
        rows = [Submission(user_id=user.id, exercise_id=EXERCISE, mode="submit", source="s",
                           status="queued", achievements=[]) for _ in range(racers)]
        session.add_all(rows)
        session.flush()
        user_id = user.id
        attempts = {row.id: judging.claim(session, row.id, f"w{row.id}") for row in rows}
    barrier = threading.Barrier(racers)
    errors: list[BaseException] = []

    def store(submission_id: int) -> None:
        try:
            barrier.wait()
            with transaction(factory) as session:
                judging.finish(session, submission_id, attempts[submission_id], result, catalog)
        except BaseException as exc:  # noqa: BLE001 - re-raised below
            errors.append(exc)

    threads = [threading.Thread(target=store, args=(i,)) for i in attempts]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    return user_id


def finish_in_process(database_url: str, lessons_dir: str, submission_id: int, attempt: int,
                      result: dict, barrier) -> None:  # noqa: ANN001
    """Child-process body for the process race: store one verdict after the barrier."""
    from app.content import load_catalog
    from app.db import make_engine, make_sessionmaker, transaction
    from app.services import judging

    catalog = load_catalog(lessons_dir)
    engine = make_engine(database_url)
    try:
        barrier.wait()
        with transaction(make_sessionmaker(engine)) as session:
            judging.finish(session, submission_id, attempt, result, catalog)
    finally:
        engine.dispose()
