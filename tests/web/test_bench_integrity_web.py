"""The web's side of #26: a refused benchmark is flagged and kept off the
leaderboard; a profile made after the result is stored into that result."""

from __future__ import annotations

from fastapi.testclient import TestClient
from sqlalchemy import select

from app import xp
from app.db import transaction
from app.models import Submission, SubmissionEvent
from app.services import judging
from tests.web.conftest import EXERCISE, signup, store_verdict, v1_result


def _refused(ms: float) -> dict:
    result = v1_result("accepted", backend="cuda", ms=ms)
    size = result["benchmark"]["sizes"][0]
    size.update(floor_ms=0.06, floor="memory")
    result["benchmark"].update(geomean_ms=None, refused={
        "message": "benchmark 268435456: 0.01 ms is below this GPU's physical floor of 0.06 ms; "
                   "no time is recorded and staff will review it",
        "message_code": "bench_below_floor",
        "message_params": {"case": "268435456", "ms": ms, "floor_ms": 0.06, "bound": "memory"}})
    return result


def test_a_refused_benchmark_is_flagged_and_off_the_leaderboard(client, app):
    honest = signup(client, email="honest@example.com", name="Honest")
    with TestClient(app) as c2:
        c2.get("/api/me/progress")
        cheat = signup(c2, email="cheat@example.com", name="Cheat")
    store_verdict(app, honest["id"], v1_result("accepted", backend="cuda", ms=0.9))
    refused_id = store_verdict(app, cheat["id"], _refused(0.01))
    with app.state.sessionmaker() as session:
        row = session.get(Submission, refused_id)
        assert row.verdict == "accepted" and row.flagged is True
    entries = client.get(f"/api/exercises/{EXERCISE}/leaderboard").json()["entries"]
    assert [(e["display_name"], e["geomean_ms"]) for e in entries] == [("Honest", 0.9)]


def test_a_refused_benchmark_earns_no_speed_tier():
    fast = v1_result("accepted", backend="cuda", ms=0.01, framework_ms=0.36, pct_of_peak=99.0)
    assert [t.id for t in xp.tiers_reached(fast)] == ["beat_framework", "peak_50", "peak_80"]
    refused = _refused(0.01)
    refused["benchmark"]["sizes"][0].update(baselines={"framework": 0.36}, pct_of_peak=99.0)
    assert xp.tiers_reached(refused) == []


def test_a_deferred_profile_is_stored_into_its_result_with_an_event(client, app):
    user = signup(client)
    sub_id = store_verdict(app, user["id"], v1_result("accepted", backend="cuda", ms=0.9))
    profile = {"source": "ncu", "gpu": "H200", "case": "n=1", "kernels": []}
    with transaction(app.state.sessionmaker) as session:
        assert not judging.store_profile(session, sub_id, 2, profile)  # not this row's attempt
        assert judging.store_profile(session, sub_id, 1, profile)
    with app.state.sessionmaker() as session:
        row = session.get(Submission, sub_id)
        assert row.result["profile"] == profile and row.result["benchmark"]["geomean_ms"] == 0.9
        events = session.scalars(select(SubmissionEvent.event).where(SubmissionEvent.submission_id == sub_id)
                                 .order_by(SubmissionEvent.seq)).all()
        assert events[-1] == "profiled"


def _events(app, sub_id: int) -> list[tuple[str, dict]]:  # noqa: ANN001
    with app.state.sessionmaker() as session:
        rows = session.scalars(select(SubmissionEvent).where(SubmissionEvent.submission_id == sub_id)
                               .order_by(SubmissionEvent.seq)).all()
        return [(e.event, e.data) for e in rows]


def test_done_says_a_deferred_profile_follows_and_a_missed_one_ends_the_wait(client, app):
    user = signup(client)
    with transaction(app.state.sessionmaker) as session:
        row = Submission(user_id=user["id"], exercise_id=EXERCISE, mode="submit", source="// t", status="queued",
                         achievements=[])
        session.add(row)
        session.flush()
        sub_id = row.id
    with transaction(app.state.sessionmaker) as session:
        attempt = judging.claim(session, sub_id, "test-worker")
        assert judging.finish(session, sub_id, attempt, v1_result("accepted", backend="cuda", ms=0.9),
                              app.state.catalog, profile_follows=True)
    event, data = _events(app, sub_id)[-1]
    assert event == "done" and data["verdict"] == "accepted" and data["profile_follows"] is True
    with transaction(app.state.sessionmaker) as session:
        assert not judging.profile_missed(session, sub_id, attempt + 1)  # not this row's attempt
        assert judging.profile_missed(session, sub_id, attempt)
    assert _events(app, sub_id)[-1] == ("profiled", {"source": None})
    # a stored profile is not "missed"; a result without a deferred profile does not say one follows
    with transaction(app.state.sessionmaker) as session:
        assert judging.store_profile(session, sub_id, attempt, {"source": "ncu", "kernels": []})
        assert not judging.profile_missed(session, sub_id, attempt)
    plain = store_verdict(app, user["id"], v1_result("wrong_answer", backend="cuda"))
    assert "profile_follows" not in _events(app, plain)[-1][1]
