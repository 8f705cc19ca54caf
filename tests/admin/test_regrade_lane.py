"""A regrade through the admin API goes to the staff lane of the fair queue, in the
queue of the node that asked for it (#25)."""

from __future__ import annotations

from app.db import transaction
from app.models import Submission
from app.services import fairqueue, judging
from tests.admin.conftest import bearer, make_token, make_user
from tests.web.conftest import EXERCISE, v1_result


def test_a_regrade_joins_the_staff_lane_of_the_asking_nodes_queue(app, client) -> None:  # noqa: ANN001
    make_user(app, "root@example.com", "admin")
    learner = make_user(app, "ada@example.com")
    with transaction(app.state.sessionmaker) as session:
        row = Submission(user_id=learner, exercise_id=EXERCISE, mode="submit", source="// k", status="queued",
                         achievements=[], queue_name="l4", fair_key=f"user:{learner}")
        session.add(row)
        session.flush()
        submission_id = row.id
    with transaction(app.state.sessionmaker) as session:
        assert judging.claim_next(session, "l4", "l4-worker") == (submission_id, 1)
        assert judging.finish(session, submission_id, 1, v1_result("wrong_answer"), app.state.catalog)
    writer = bearer(make_token(app, "root@example.com", "grading:read,grading:write"))
    response = client.post(f"/api/admin/submissions/{submission_id}/regrade", json={"reason": "test fixed"},
                           headers=writer)
    assert response.status_code == 202, response.text
    with transaction(app.state.sessionmaker) as session:
        row = session.get(Submission, submission_id)
        assert (row.status, row.queue_name, row.fair_key) == ("queued", app.state.settings.queue_name,
                                                              fairqueue.STAFF_KEY)
        assert judging.claim_next(session, "l4", "l4-worker") is None  # no longer the L4 queue's
        assert judging.claim_next(session, app.state.settings.queue_name, "w") == (submission_id, 2)
