"""The grading API on a real database: list and filter with paging, one submission in
full, overrides with a reason, suspicious flags off the leaderboard, the grades export
(CSV parsed and asserted), and the audit log of it all."""

from __future__ import annotations

import csv
import datetime as dt
import io

import pytest
from sqlalchemy import update

from app.db import transaction
from app.models import Submission
from tests.admin.conftest import bearer, make_token, make_user
from tests.web.conftest import EXERCISE, store_verdict, v1_result


@pytest.fixture
def graded(app, admin_id):  # noqa: ANN001, ANN201
    """Two learners: Ada (wrong, then accepted on the GPU), Bob (compile error on the emulator)."""
    ada = make_user(app, "ada@example.com", name="Ada")
    bob = make_user(app, "bob@example.com", name="Bob")
    ids = {
        "ada_wrong": store_verdict(app, ada, v1_result("wrong_answer", backend="cuda")),
        "ada_ok": store_verdict(app, ada, v1_result("accepted", backend="cuda", ms=0.5, pct_of_peak=80.0)),
        "ada_ok_slow": store_verdict(app, ada, v1_result("accepted", backend="cuda", ms=0.9)),
        "bob_ce": store_verdict(app, bob, v1_result("compile_error", backend="emu")),
    }
    with transaction(app.state.sessionmaker) as session:  # Bob's was a week ago
        session.execute(update(Submission).where(Submission.id == ids["bob_ce"])
                        .values(created_at=dt.datetime(2026, 1, 1)))
    return {"ada": ada, "bob": bob, **ids}


@pytest.fixture
def reader(app, admin_id) -> dict[str, str]:  # noqa: ANN001
    return bearer(make_token(app, "root@example.com", "grading:read"))


@pytest.fixture
def writer(app, admin_id) -> dict[str, str]:  # noqa: ANN001
    return bearer(make_token(app, "root@example.com", "grading:read,grading:write"))


def _ids(response) -> list[int]:  # noqa: ANN001
    assert response.status_code == 200, response.text
    return [item["id"] for item in response.json()["items"]]


def test_list_filters(anon, graded, reader):
    everything = anon.get("/api/admin/submissions", headers=reader).json()
    assert everything["total"] == 4
    assert [i["id"] for i in everything["items"]] == sorted(graded[k] for k in
                                                            ("ada_wrong", "ada_ok", "ada_ok_slow", "bob_ce"))[::-1]
    assert _ids(anon.get("/api/admin/submissions?learner=ada@example.com", headers=reader)) == \
        [graded["ada_ok_slow"], graded["ada_ok"], graded["ada_wrong"]]
    assert _ids(anon.get(f"/api/admin/submissions?learner={graded['bob']}", headers=reader)) == [graded["bob_ce"]]
    assert _ids(anon.get("/api/admin/submissions?verdict=accepted", headers=reader)) == \
        [graded["ada_ok_slow"], graded["ada_ok"]]
    assert _ids(anon.get("/api/admin/submissions?backend=emu", headers=reader)) == [graded["bob_ce"]]
    assert _ids(anon.get(f"/api/admin/submissions?exercise={EXERCISE}&backend=cuda&verdict=wrong_answer",
                         headers=reader)) == [graded["ada_wrong"]]
    assert _ids(anon.get("/api/admin/submissions?exercise=nope.nope", headers=reader)) == []


def test_date_range_is_half_open_and_accepts_time_zones(anon, graded, reader):
    old = anon.get("/api/admin/submissions?until=2026-01-02T00:00:00", headers=reader)
    assert _ids(old) == [graded["bob_ce"]]
    # Bob's is at 2026-01-01 00:00 UTC = 09:00 in Seoul; `since` includes, `until` excludes
    at = anon.get("/api/admin/submissions", params={"since": "2026-01-01T09:00:00+09:00"}, headers=reader)
    assert graded["bob_ce"] in _ids(at)
    after = anon.get("/api/admin/submissions", params={"since": "2026-01-01T09:00:01+09:00"}, headers=reader)
    assert graded["bob_ce"] not in _ids(after) and len(_ids(after)) == 3
    before = anon.get("/api/admin/submissions", params={"until": "2026-01-01T00:00:00Z"}, headers=reader)
    assert _ids(before) == []


def test_paging_reports_the_total(anon, graded, reader):
    pages = [anon.get(f"/api/admin/submissions?per_page=3&page={n}", headers=reader).json() for n in (1, 2, 3)]
    assert [p["total"] for p in pages] == [4, 4, 4]
    assert [len(p["items"]) for p in pages] == [3, 1, 0]
    seen = [i["id"] for p in pages for i in p["items"]]
    assert len(set(seen)) == 4
    assert anon.get("/api/admin/submissions?per_page=0", headers=reader).status_code == 422
    assert anon.get("/api/admin/submissions?page=0", headers=reader).status_code == 422


def test_one_submission_has_source_result_and_history(anon, graded, reader):
    body = anon.get(f"/api/admin/submissions/{graded['ada_ok']}", headers=reader).json()
    assert body["source"] == "// test" and body["learner"] == "ada@example.com"
    assert body["result"]["benchmark"]["geomean_ms"] == 0.5
    assert [a["attempt"] for a in body["attempt_history"]] == [1]
    assert body["previous_grades"] == [] and body["overrides"] == []
    assert anon.get("/api/admin/submissions/99999", headers=reader).status_code == 404


def test_override_needs_a_reason_and_keeps_the_old_grade(anon, graded, writer):
    url = f"/api/admin/submissions/{graded['bob_ce']}/override"
    assert anon.post(url, json={"verdict": "accepted"}, headers=writer).status_code == 422
    assert anon.post(url, json={"verdict": "accepted", "reason": "  "}, headers=writer).status_code == 422
    assert anon.post(url, json={"verdict": "great", "reason": "x"}, headers=writer).status_code == 422
    done = anon.post(url, json={"verdict": "accepted", "xp": 25, "reason": "judge bug #12"}, headers=writer)
    assert done.status_code == 200, done.text
    body = done.json()
    assert body["verdict"] == "accepted" and body["xp_awarded"] == 25
    assert body["previous_grades"][0]["verdict"] == "compile_error"
    assert body["overrides"] == [{"verdict": "accepted", "xp": 25, "reason": "judge bug #12",
                                  "at": body["overrides"][0]["at"]}]
    again = anon.post(url, json={"xp": 10, "reason": "too generous"}, headers=writer).json()
    assert again["xp_awarded"] == 10
    grades = anon.get(f"/api/admin/grades?exercises={EXERCISE}", headers=writer).json()
    bob = next(l for l in grades["learners"] if l["email"] == "bob@example.com")
    assert bob["grades"][EXERCISE]["xp"] == 10 and bob["grades"][EXERCISE]["best_verdict"] == "accepted"


def test_override_changes_the_learners_total_xp(app, client, graded, writer):
    from tests.admin.conftest import sign_in

    sign_in(client, "bob@example.com")
    before = client.get("/api/me/progress").json()["xp"]
    client.post(f"/api/admin/submissions/{graded['bob_ce']}/override", json={"xp": 40, "reason": "manual"},
                headers=writer)
    assert client.get("/api/me/progress").json()["xp"] == before + 40


def test_flagged_submissions_leave_the_leaderboard_but_stay(anon, graded, writer):
    board = anon.get(f"/api/exercises/{EXERCISE}/leaderboard").json()["entries"]
    assert [e["submission_id"] for e in board] == [graded["ada_ok"]]
    flag = anon.post(f"/api/admin/submissions/{graded['ada_ok']}/flag",
                     json={"suspicious": True, "reason": "copied"}, headers=writer)
    assert flag.json() == {"id": graded["ada_ok"], "flagged": True}
    board = anon.get(f"/api/exercises/{EXERCISE}/leaderboard").json()["entries"]
    assert [e["submission_id"] for e in board] == [graded["ada_ok_slow"]]
    assert _ids(anon.get("/api/admin/submissions?flagged=true", headers=writer)) == [graded["ada_ok"]]
    assert anon.post(f"/api/admin/submissions/{graded['ada_ok']}/flag", json={"suspicious": True},
                     headers=writer).status_code == 422  # a reason is required


def _exercise_xp(app, user_id: int) -> int:  # noqa: ANN001
    """What the learner was awarded for the exercise: its XP plus its speed tiers."""
    from sqlalchemy import func, select

    from app.models import XpAward

    with transaction(app.state.sessionmaker) as session:
        return int(session.scalar(select(func.sum(XpAward.xp)).where(
            XpAward.user_id == user_id,
            XpAward.key.in_([f"exercise:{EXERCISE}"]) | XpAward.key.like(f"tier:{EXERCISE}:%"))) or 0)


def test_grades_export_json(app, anon, graded, reader):
    ada_xp = _exercise_xp(app, graded["ada"])
    assert ada_xp > 50  # 50 for the exercise, more for its speed tiers (fast on the GPU)
    report = anon.get("/api/admin/grades?track=foundations", headers=reader).json()
    assert report["exercises"] == [EXERCISE]
    by_email = {l["email"]: l["grades"][EXERCISE] for l in report["learners"]}
    ada = {"best_verdict": "accepted", "best_ms": 0.5, "attempts": 3, "xp": ada_xp}
    bob = {"best_verdict": "compile_error", "best_ms": None, "attempts": 1, "xp": 0}
    assert by_email["ada@example.com"] == {**ada, "by_language": {"cuda": ada}}  # every one CUDA's (#29)
    assert by_email["bob@example.com"] == {**bob, "by_language": {"cuda": bob}}
    assert report["language"] is None
    assert anon.get("/api/admin/grades?lesson=reduction", headers=reader).json() == report


def test_grades_export_csv(app, anon, graded, reader):
    response = anon.get("/api/admin/grades?track=foundations&format=csv", headers=reader)
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/csv")
    assert 'filename="grades-foundations.csv"' in response.headers["content-disposition"]
    rows = list(csv.DictReader(io.StringIO(response.text)))
    assert [(r["email"], r["exercise_id"]) for r in rows] == [("ada@example.com", EXERCISE),
                                                              ("bob@example.com", EXERCISE)]
    assert rows[0] == {"email": "ada@example.com", "display_name": "Ada", "exercise_id": EXERCISE,
                       "best_verdict": "accepted", "best_ms": "0.5", "attempts": "3",
                       "xp": str(_exercise_xp(app, graded["ada"])), "languages": "cuda"}
    assert rows[1]["best_verdict"] == "compile_error" and rows[1]["best_ms"] == "" and rows[1]["xp"] == "0"


@pytest.mark.parametrize(("query", "status"), [
    ("", 422), ("track=foundations&lesson=reduction", 422), ("track=nope", 404), ("lesson=nope", 404),
    ("exercises=", 422), ("track=foundations&format=xml", 422),
])
def test_grades_export_refuses_bad_selections(anon, graded, reader, query, status):
    assert anon.get(f"/api/admin/grades?{query}", headers=reader).status_code == status


def test_every_grading_action_is_in_the_audit_log(app, anon, graded, writer):
    anon.post(f"/api/admin/submissions/{graded['bob_ce']}/override", json={"verdict": "accepted", "reason": "why"},
              headers=writer)
    anon.post(f"/api/admin/submissions/{graded['ada_ok']}/flag", json={"reason": "copied"}, headers=writer)
    auditor = bearer(make_token(app, "root@example.com", "users:admin"))
    log = anon.get("/api/admin/audit", headers=auditor).json()
    assert log["total"] == 2
    flag, override = log["items"]
    assert (flag["action"], flag["target_id"], flag["reason"]) == ("submission.flag", str(graded["ada_ok"]), "copied")
    assert override["action"] == "submission.override" and override["reason"] == "why"
    assert override["actor"] == "root@example.com" and override["via"].startswith("token:")
    assert override["details"]["previous"]["verdict"] == "compile_error"
    only = anon.get("/api/admin/audit?action=submission.flag", headers=auditor).json()
    assert only["total"] == 1
