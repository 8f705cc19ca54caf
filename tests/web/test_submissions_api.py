"""POST/GET /api/submissions, SSE events, attempts, leaderboard, authz, limits.

The embedded worker is off here (the `client` fixture), so rows stay where the
test puts them; the worker path itself is tested in test_queue.py."""

from __future__ import annotations

import json
import time

from fastapi.testclient import TestClient

from app.db import transaction
from app.services import judging
from app.services.events import add_event
from tests.web.conftest import EXERCISE, csrf, signup, store_verdict, v1_result


def _submit(client: TestClient, mode: str = "submit", source: str = "__global__ void k() {}") -> dict:
    response = client.post("/api/submissions", json={"exercise_id": EXERCISE, "source": source, "mode": mode},
                           headers=csrf(client))
    assert response.status_code == 202, response.text
    return response.json()


def test_submit_stores_a_queued_row_first_and_reports_its_position(client):
    signup(client)
    first = _submit(client)
    second = _submit(client, mode="run")
    assert first["status"] == "queued" and first["position"] == 1
    assert second["position"] == 2
    body = client.get(f"/api/submissions/{first['id']}").json()
    assert body["status"] == "queued" and body["mode"] == "submit" and body["verdict"] is None
    assert body["source"] == "__global__ void k() {}"


def test_a_learner_cannot_read_another_learners_submission(client, app):
    signup(client, email="owner@example.com")
    sub = _submit(client)
    with TestClient(app) as other:
        other.get("/api/me/progress")
        signup(other, email="other@example.com")
        assert other.get(f"/api/submissions/{sub['id']}").status_code == 404
        assert other.get(f"/api/submissions/{sub['id']}/events").status_code == 404
        attempts = other.get(f"/api/exercises/{EXERCISE}/attempts").json()["attempts"]
        assert attempts == []


def test_anonymous_submissions_belong_to_their_browser(client, app):
    sub = _submit(client)  # anonymous: gets a kdojo_anon cookie
    assert client.cookies.get("kdojo_anon")
    assert client.get(f"/api/submissions/{sub['id']}").status_code == 200
    with TestClient(app) as stranger:
        stranger.get("/api/me/progress")
        assert stranger.get(f"/api/submissions/{sub['id']}").status_code == 404


def test_bad_input_gets_a_clear_json_error(client):
    unknown = client.post("/api/submissions", json={"exercise_id": "nope.nope", "source": "x"},
                          headers=csrf(client))
    assert unknown.status_code == 404 and "nope.nope" in unknown.json()["detail"]
    empty = client.post("/api/submissions", json={"exercise_id": EXERCISE, "source": "  "},
                        headers=csrf(client))
    assert empty.status_code == 422 and empty.json()["detail"][0]["msg"] == "The source is empty."
    too_big = client.post("/api/submissions", json={"exercise_id": EXERCISE, "source": "x" * 70000},
                          headers=csrf(client))
    assert too_big.status_code == 422 and "larger than" in too_big.json()["detail"][0]["msg"]
    assert client.get("/api/submissions/999999").status_code == 404


def test_pending_submissions_are_capped(client):
    signup(client)
    _submit(client)
    _submit(client)
    third = client.post("/api/submissions", json={"exercise_id": EXERCISE, "source": "x", "mode": "run"},
                        headers=csrf(client))
    assert third.status_code == 429
    assert "2 submissions waiting" in third.json()["detail"]


def test_hourly_cap_for_anonymous_learners_suggests_signing_in(client, app):
    app.state.settings = app.state.settings.model_copy(update={"anonymous_submissions_per_hour": 1,
                                                               "max_pending_submissions": 10})
    _submit(client)
    second = client.post("/api/submissions", json={"exercise_id": EXERCISE, "source": "x"},
                         headers=csrf(client))
    assert second.status_code == 429
    assert "per hour" in second.json()["detail"] and "Sign in" in second.json()["detail"]


def _read_sse(client: TestClient, submission_id: int, last_event_id: int | None = None) -> list[dict]:
    headers = {"Last-Event-ID": str(last_event_id)} if last_event_id is not None else {}
    events, current = [], {}
    with client.stream("GET", f"/api/submissions/{submission_id}/events", headers=headers) as response:
        assert response.status_code == 200
        assert response.headers["content-type"].startswith("text/event-stream")
        for line in response.iter_lines():
            if line.startswith("id: "):
                current["id"] = int(line[4:])
            elif line.startswith("event: "):
                current["event"] = line[7:]
            elif line.startswith("data: "):
                current["data"] = json.loads(line[6:])
            elif line == "" and "event" in current:
                events.append(current)
                current = {}
    return events


def test_events_stream_every_stage_and_resume_after_last_event_id(client, app):
    user = signup(client)
    sub = _submit(client)
    factory = app.state.sessionmaker
    with transaction(factory) as session:
        attempt = judging.claim(session, sub["id"], "test")
        add_event(session, sub["id"], "compiling", {})
        add_event(session, sub["id"], "testing", {"index": 1, "total": 1, "test": {"name": "n=1"}})
        add_event(session, sub["id"], "benchmarking", {"index": 1, "total": 1})
        judging.finish(session, sub["id"], attempt, v1_result(), app.state.catalog)
    events = _read_sse(client, sub["id"])
    assert [e["event"] for e in events] == ["queued", "compiling", "testing", "benchmarking", "done"]
    assert [e["id"] for e in events] == [1, 2, 3, 4, 5]
    assert events[0]["data"] == {"position": 1}
    assert events[-1]["data"]["verdict"] == "accepted" and events[-1]["data"]["xp_awarded"] == 90
    resumed = _read_sse(client, sub["id"], last_event_id=3)
    assert [e["event"] for e in resumed] == ["benchmarking", "done"]
    assert user["display_name"] == "Ada"


def test_attempts_list_own_history_with_sources_and_diffs(client, app):
    from app.db import transaction
    from app.models import Submission

    user = signup(client)
    sources = ["a = 1;\nb = 2;\n", "a = 1;\nb = 3;\n", "a = 1;\nb = 3;\n"]
    ids = [store_verdict(app, user["id"], v1_result(v)) for v in ("wrong_answer", "wrong_answer", "accepted")]
    with transaction(app.state.sessionmaker) as session:
        for sub_id, source in zip(ids, sources):
            session.get(Submission, sub_id).source = source
    attempts = client.get(f"/api/exercises/{EXERCISE}/attempts").json()["attempts"]
    assert [a["verdict"] for a in attempts] == ["accepted", "wrong_answer", "wrong_answer"]
    assert [a["source"] for a in attempts] == sources[::-1]
    # newest first: the same code as before, one changed line, and the first attempt has no previous
    assert attempts[0]["diff"] == ""
    assert attempts[1]["diff"].splitlines() == ["@@ -1,2 +1,2 @@", " a = 1;", "-b = 2;", "+b = 3;"]
    assert attempts[2]["diff"] is None
    assert client.get("/api/exercises/nope.nope/attempts").status_code == 404


def test_leaderboard_ranks_gpu_times_before_untimed_results(client, app):
    fast = signup(client, email="fast@example.com", name="Fast")
    with TestClient(app) as c2, TestClient(app) as c3:
        c2.get("/api/me/progress")
        c3.get("/api/me/progress")
        slow = signup(c2, email="slow@example.com", name="Slow")
        emu = signup(c3, email="emu@example.com", name="Emu")
    store_verdict(app, emu["id"], v1_result("accepted"))
    store_verdict(app, slow["id"], v1_result("accepted", backend="cuda", ms=0.9))
    store_verdict(app, fast["id"], v1_result("accepted", backend="cuda", ms=0.5))
    store_verdict(app, fast["id"], v1_result("accepted", backend="cuda", ms=0.7))  # not their best
    entries = client.get(f"/api/exercises/{EXERCISE}/leaderboard").json()["entries"]
    assert [(e["rank"], e["display_name"], e["geomean_ms"]) for e in entries] == [
        (1, "Fast", 0.5), (2, "Slow", 0.9), (1, "Emu", None)]  # the emulator's group ranks apart
    assert all("source" not in e for e in entries)


def test_leaderboard_ranks_each_gpu_on_its_own(client, app):
    ada = signup(client, email="ada@example.com", name="Ada")
    with TestClient(app) as c2:
        c2.get("/api/me/progress")
        bob = signup(c2, email="bob@example.com", name="Bob")
    store_verdict(app, ada["id"], v1_result("accepted", backend="cuda", ms=0.5, gpu="NVIDIA H100 80GB HBM3"))
    store_verdict(app, ada["id"], v1_result("accepted", backend="cuda", ms=2.0, gpu="NVIDIA GeForce RTX 3060"))
    store_verdict(app, bob["id"], v1_result("accepted", backend="cuda", ms=1.5, gpu="NVIDIA GeForce RTX 3060"))
    store_verdict(app, bob["id"], v1_result("accepted"))  # the emulator: no time, last group
    entries = client.get(f"/api/exercises/{EXERCISE}/leaderboard").json()["entries"]
    assert [(e["gpu"], e["rank"], e["display_name"], e["geomean_ms"]) for e in entries] == [
        ("NVIDIA GeForce RTX 3060", 1, "Bob", 1.5), ("NVIDIA GeForce RTX 3060", 2, "Ada", 2.0),
        ("NVIDIA H100 80GB HBM3", 1, "Ada", 0.5), (None, 1, "Bob", None)]
    page = client.get(f"/exercises/{EXERCISE}/leaderboard?lang=en").text
    assert page.index("NVIDIA GeForce RTX 3060") < page.index("NVIDIA H100 80GB HBM3")


def test_status_says_which_backend_judges_and_whether_timings_exist(client, app):
    from kernels.targets import emu_available

    signup(client)
    _submit(client)
    body = client.get("/api/status").json()
    assert body["queued"] == 1 and body["running"] == 0
    assert body["timings_available"] is False  # the fixture asks for the emulator
    ok, why = emu_available()
    assert body["backend"] == ("emu" if ok else None)
    assert (body["backend_problem"] == "") == ok
    assert body["profiler"]["source"] == ("emulator" if ok else None)  # #16


def test_anonymous_browsers_behind_one_address_have_their_own_pending_cap_but_share_an_address_cap(client, app):
    app.state.settings = app.state.settings.model_copy(update={"anonymous_submissions_per_address_per_hour": 3})
    _submit(client)
    _submit(client)  # this browser's 2 pending
    with TestClient(app) as classmate:  # same address (testclient), another browser
        classmate.get("/api/me/progress")
        _submit(classmate)  # not blocked by the first browser's pending cap
        fourth = classmate.post("/api/submissions", json={"exercise_id": EXERCISE, "source": "x"},
                                headers=csrf(classmate))
        assert fourth.status_code == 429 and "your network" in fourth.json()["detail"]


def test_a_waiting_stream_hears_its_queue_position_move_up(client, app):
    import threading

    signup(client)
    ahead = _submit(client)
    mine = _submit(client)
    assert mine["position"] == 2

    def worker_takes_the_first_then_finishes_mine() -> None:
        time.sleep(0.3)
        with transaction(app.state.sessionmaker) as session:
            judging.claim(session, ahead["id"], "w")
        time.sleep(0.3)
        with transaction(app.state.sessionmaker) as session:
            attempt = judging.claim(session, mine["id"], "w")
            judging.finish(session, mine["id"], attempt, v1_result("wrong_answer"), app.state.catalog)

    thread = threading.Thread(target=worker_takes_the_first_then_finishes_mine)
    thread.start()
    events = _read_sse(client, mine["id"])
    thread.join()
    assert [(e["event"], e["data"].get("position"), e.get("id")) for e in events[:2]] == [
        ("queued", 2, 1), ("queued", 1, None)]
    assert events[-1]["event"] == "done"


def test_staff_may_read_any_submission(client, app):
    from sqlalchemy import update

    from app.models import User

    signup(client, email="learner@example.com")
    sub = _submit(client)
    with TestClient(app) as staff:
        staff.get("/api/me/progress")
        helper = signup(staff, email="ta@example.com", name="TA")
        assert staff.get(f"/api/submissions/{sub['id']}").status_code == 404
        with transaction(app.state.sessionmaker) as session:
            session.execute(update(User).where(User.id == helper["id"]).values(role="instructor"))
        assert staff.get(f"/api/submissions/{sub['id']}").json()["source"] == "__global__ void k() {}"
