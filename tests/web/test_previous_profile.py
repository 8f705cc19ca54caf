"""The Performance panel's "previous attempt" (#16): GET /api/submissions/<id>
carries `previous_profile`, the same author's latest earlier accepted attempt at
the exercise with a profile measured the same way — never another learner's,
never another browser's, never an emulator count beside an ncu measurement.
And the lesson page says, per exercise, whether passes get a profile here."""

from __future__ import annotations

from fastapi.testclient import TestClient
from sqlalchemy import update

from app.db import transaction
from app.main import create_app
from tests.web.database import migrate
from app.models import User
from tests.web.conftest import build_lessons, make_settings, signup, store_verdict, v1_result


def _profiled(loads: float, source: str = "emulator", verdict: str = "accepted", gpu: str = "H100") -> dict:
    """A result whose profile the judge's validator accepts; `loads` tells them apart."""
    from kernels.profile import doc as prof

    metrics = {k: None for k in prof.METRIC_KEYS} | {"global_load_sectors_per_request": loads,
                                                      "global_load_ideal_sectors_per_request": 4.0, "atomics": 0}
    res = {"registers_per_thread": 20, "static_shared_bytes": 1024, "stack_frame_bytes": 0, "spill_bytes": 0}
    kernel = prof.kernel_entry("block_sum", (8, 1, 1), (256, 1, 1), 0, res, metrics)
    profile = prof.build(source, "n=4096", [kernel], []) | {"gpu": gpu}
    assert prof.validate(profile) == []
    return v1_result(verdict) | {"profile": profile}


def _previous(client: TestClient, submission_id: int) -> dict | None:
    response = client.get(f"/api/submissions/{submission_id}")
    assert response.status_code == 200, response.text
    return response.json()["previous_profile"]


def _loads(previous: dict) -> float:
    return previous["profile"]["kernels"][0]["metrics"]["global_load_sectors_per_request"]


def test_the_previous_profiled_pass_of_the_same_learner(client, app):
    ada = signup(client)
    first = store_verdict(app, ada["id"], _profiled(32.0))
    with TestClient(app) as other_client:  # another learner's pass in between is not Ada's
        other_client.get("/api/me/progress")
        grace = signup(other_client, email="grace@example.com", name="Grace")
        theirs = store_verdict(app, grace["id"], _profiled(8.0))
        assert other_client.get(f"/api/submissions/{first}").status_code == 404
        assert _previous(other_client, theirs) is None  # and Ada's is not Grace's
    store_verdict(app, ada["id"], _profiled(16.0, verdict="wrong_answer"))  # failed: not a previous pass
    store_verdict(app, ada["id"], v1_result())  # passed without a profile: skipped
    store_verdict(app, ada["id"], _profiled(2.0, source="ncu"))  # measured another way: skipped
    store_verdict(app, ada["id"], _profiled(3.0, gpu="L4"))  # for another GPU: skipped
    latest = store_verdict(app, ada["id"], _profiled(4.0), mode="run")
    previous = _previous(client, latest)
    assert previous is not None and previous["submission_id"] == first and _loads(previous) == 32.0
    assert previous["mode"] == "submit" and previous["finished_at"].endswith("Z")
    assert _previous(client, first) is None  # the first pass has nothing before it


def test_staff_see_the_learners_own_previous_attempt(client, app):
    ada = signup(client)
    first = store_verdict(app, ada["id"], _profiled(32.0))
    second = store_verdict(app, ada["id"], _profiled(4.0))
    with TestClient(app) as staff:
        staff.get("/api/me/progress")
        helper = signup(staff, email="ta@example.com", name="TA")
        store_verdict(app, helper["id"], _profiled(1.0))  # the TA's own pass is not the learner's
        with transaction(app.state.sessionmaker) as session:
            session.execute(update(User).where(User.id == helper["id"]).values(role="instructor"))
        assert _previous(staff, second)["submission_id"] == first


def test_an_anonymous_browser_sees_its_own_previous_attempt_only(client, app):
    client.post("/api/submissions", json={"exercise_id": "reduction.block_sum", "source": "x", "mode": "run"},
                headers={"X-CSRF-Token": client.cookies.get("kdojo_csrf") or ""})
    anon = client.cookies.get("kdojo_anon")
    assert anon
    first = store_verdict(app, None, _profiled(32.0), anon_id=anon)
    store_verdict(app, None, _profiled(1.0), anon_id="another-browser")
    second = store_verdict(app, None, _profiled(4.0), anon_id=anon)
    assert _previous(client, second)["submission_id"] == first
    # another browser cannot read it (nor, so, its previous attempt)
    with TestClient(app) as other:
        other.get("/api/me/progress")
        assert other.get(f"/api/submissions/{second}").status_code == 404


def test_the_schema_documents_previous_profile(client):
    document = client.get("/api/openapi.json").json()
    response = document["paths"]["/api/submissions/{submission_id}"]["get"]["responses"]["200"]
    ref = response["content"]["application/json"]["schema"]["$ref"].rsplit("/", 1)[-1]
    schemas = document["components"]["schemas"]
    out = schemas[ref]["properties"]
    assert {"id", "verdict", "result", "position", "previous_profile"} <= set(out)
    previous = schemas["PreviousProfileOut"]
    assert set(previous["required"]) == {"submission_id", "mode", "finished_at", "profile"}


def _lesson_page(tmp_path, monkeypatch, *, global_switch: str = "1", exercise_off: bool = False) -> str:  # noqa: ANN001
    lessons = build_lessons(tmp_path / "lessons")
    if exercise_off:
        spec = lessons / "02-reduction" / "exercises" / "block_sum" / "exercise.toml"
        spec.write_text(spec.read_text() + "\n[profile]\nenabled = false\n")
    monkeypatch.setenv("KDOJO_PROFILE", global_switch)
    settings = make_settings(tmp_path, lessons, embedded_worker=False)
    migrate(settings.database_url)
    with TestClient(create_app(settings)) as c:
        page = c.get("/lessons/reduction?lang=en")
    assert page.status_code == 200
    return page.text


def test_the_lesson_page_says_whether_passes_get_a_profile(tmp_path, monkeypatch):
    assert 'data-profiling="on"' in _lesson_page(tmp_path / "on", monkeypatch)
    assert 'data-profiling="off"' in _lesson_page(tmp_path / "global", monkeypatch, global_switch="0")
    assert 'data-profiling="off_exercise"' in _lesson_page(tmp_path / "exercise", monkeypatch, exercise_off=True)
