"""The fair queue (#25) through the service functions the API and the worker use:
the order a flooder and newcomers are judged in, true positions, the staff lane,
separate queues, and concurrent workers claiming rows, on real SQLite and
(marked `scaleout`) PostgreSQL."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from app.content import load_catalog
from app.db import make_engine, make_sessionmaker, transaction
from app.migrate import upgrade
from app.models import Submission, User
from app.services import admin_grading, judging
from app.services import submissions as service
from app.services.admin_audit import Actor
from tests.web.conftest import EXERCISE, csrf, make_settings, signup
from tests.web.test_scaleout import pg_url  # noqa: F401 - the fixture

LIMITS = service.Limits(max_pending=20, per_hour=100, anonymous_per_hour=100, max_source_bytes=10_000,
                        anonymous_per_address_per_hour=100)


class Queue:
    """A database with the fixture lessons' catalog, and the calls a learner and a worker make."""

    def __init__(self, factory: sessionmaker[Session], catalog: object) -> None:
        self.factory, self.catalog = factory, catalog

    def user(self, name: str) -> service.Owner:
        with transaction(self.factory) as session:
            user = User(email=f"{name}@example.com", display_name=name, password_hash="x")
            session.add(user)
            session.flush()
            session.expunge(user)
        return service.Owner(user=user, anon_id=None)

    def submit(self, owner: service.Owner, queue_name: str = "kdojo") -> int:
        with transaction(self.factory) as session:
            submission, created = service.create(session, owner, self.catalog, EXERCISE, "// k", "run",
                                                 LIMITS, queue_name)
            assert created
            return submission.id

    def positions(self, ids: list[int]) -> dict[int, int]:
        with transaction(self.factory, write=False) as session:
            batch = service.queue_positions(session, ids)
            assert batch == {i: service.queue_position(session, i) for i in ids}  # one rule, two forms
            return batch

    def claim(self, queue_name: str = "kdojo") -> int | None:
        with transaction(self.factory) as session:
            claimed = judging.claim_next(session, queue_name, "test-worker")
            return claimed[0] if claimed else None

    def claim_all(self, queue_name: str = "kdojo") -> list[int]:
        order = []
        while (claimed := self.claim(queue_name)) is not None:
            order.append(claimed)
        return order


def anonymous(cookie: str, address: str) -> service.Owner:
    return service.Owner(user=None, anon_id=cookie, client_ip=address)


@pytest.fixture
def sqlite_queue(app) -> Queue:  # noqa: ANN001
    return Queue(app.state.sessionmaker, app.state.catalog)


@pytest.fixture
def pg_queue(tmp_path: Path, lessons_dir: Path, pg_url: str) -> Iterator[Queue]:  # noqa: F811
    settings = make_settings(tmp_path, lessons_dir, database_url=pg_url, embedded_worker=False)
    upgrade(settings.database_url)
    engine = make_engine(settings.database_url)
    try:
        yield Queue(make_sessionmaker(engine), load_catalog(lessons_dir))
    finally:
        engine.dispose()


def check_a_flooder_and_newcomers(q: Queue) -> None:
    # Six anonymous cookies from one address are one learner: 12 rows in 12 rounds.
    flood = [q.submit(anonymous(f"cookie-{i % 6}", "10.0.0.1")) for i in range(12)]
    assert q.positions(flood) == {row: i + 1 for i, row in enumerate(flood)}
    assert q.claim() == flood[0]  # a worker is busy with the flooder's first job
    ada = q.submit(q.user("ada"))
    assert q.positions([ada]) == {ada: 1}  # the newcomer is next
    bob = q.submit(anonymous("bob", "10.0.0.2"))  # another address: another learner
    late_flood = q.submit(anonymous("cookie-new", "10.0.0.1"))  # a seventh cookie: still the flooder
    ada_again = q.submit(q.user("ada2"))
    waiting = [ada, bob, ada_again, *flood[1:], late_flood]
    positions = q.positions(waiting)
    # True positions: unique, 1…n without gaps, and the newcomers wait for no flooder's row.
    assert sorted(positions.values()) == list(range(1, len(waiting) + 1))
    assert [positions[i] for i in (ada, bob, ada_again)] == [1, 2, 3]
    assert positions[late_flood] == len(waiting)
    assert q.positions([flood[0]]) == {flood[0]: 0}  # running
    order = q.claim_all()
    assert order == sorted(waiting, key=positions.__getitem__)  # judged exactly in the order shown


def test_a_flooder_delays_newcomers_by_at_most_one_job_on_sqlite(sqlite_queue: Queue) -> None:
    check_a_flooder_and_newcomers(sqlite_queue)


@pytest.mark.scaleout
def test_a_flooder_delays_newcomers_by_at_most_one_job_on_postgres(pg_queue: Queue) -> None:
    check_a_flooder_and_newcomers(pg_queue)


def check_rounds(q: Queue) -> None:
    """Several active learners: each round takes one row of each, the oldest first."""
    a, b, c = q.user("a"), q.user("b"), anonymous("c", "10.0.0.3")
    rows = {name: [q.submit(owner) for _ in range(3)] for name, owner in (("a", a), ("b", b), ("c", c))}
    order = q.claim_all()
    assert order == [rows[name][k] for k in range(3) for name in ("a", "b", "c")]


def test_learners_take_turns_round_by_round_on_sqlite(sqlite_queue: Queue) -> None:
    check_rounds(sqlite_queue)


def check_staff_lane(q: Queue) -> None:
    """A bulk regrade is one lane: it and a learner take turns; neither waits for the other's backlog."""
    old = [q.submit(q.user(f"old{i}")) for i in range(4)]
    assert q.claim_all() == old
    with transaction(q.factory) as session:
        for row_id in old:  # judged: done
            session.execute(Submission.__table__.update().where(Submission.id == row_id)
                            .values(status="done", verdict="accepted"))
        regraded = admin_grading.regrade_exercise(session, Actor(None, "ops", "cli"), EXERCISE, "fixed a test")
    assert regraded == old
    learner = q.user("learner")
    mine = [q.submit(learner) for _ in range(3)]
    assert q.positions([mine[0]]) == {mine[0]: 2}  # behind one regrade, not four
    assert q.claim_all() == [old[0], mine[0], old[1], mine[1], old[2], mine[2], old[3]]


def test_staff_regrades_take_their_own_turn_on_sqlite(sqlite_queue: Queue) -> None:
    check_staff_lane(sqlite_queue)


@pytest.mark.scaleout
def test_staff_regrades_take_their_own_turn_on_postgres(pg_queue: Queue) -> None:
    check_staff_lane(pg_queue)


def test_each_queue_has_its_own_order_and_workers(sqlite_queue: Queue) -> None:
    q = sqlite_queue
    ada = q.user("ada")
    h100 = [q.submit(ada, "h100"), q.submit(ada, "h100")]
    l4 = [q.submit(ada, "l4")]
    assert q.positions(h100 + l4) == {h100[0]: 1, h100[1]: 2, l4[0]: 1}
    assert q.claim("kdojo") is None  # a worker of another queue takes none of them
    assert q.claim_all("l4") == l4
    assert q.claim_all("h100") == h100


def check_concurrent_workers(q: Queue, workers: int = 6) -> None:
    """Workers claiming at the same moment: every row judged once, none skipped."""
    owners = [q.user(f"w{i}") for i in range(3)] + [anonymous(f"x{i}", f"10.1.0.{i}") for i in range(2)]
    rows = [q.submit(owners[i % len(owners)]) for i in range(30)]
    barrier = threading.Barrier(workers)
    claimed: list[list[int]] = [[] for _ in range(workers)]
    errors: list[BaseException] = []

    def work(index: int) -> None:
        try:
            barrier.wait()
            while (row := q.claim()) is not None:
                claimed[index].append(row)
        except BaseException as exc:  # noqa: BLE001 - re-raised below
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(workers)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert errors == []
    every = [row for mine in claimed for row in mine]
    assert sorted(every) == sorted(rows)  # once each: no row twice, none left behind
    with transaction(q.factory, write=False) as session:
        assert set(session.scalars(select(Submission.attempts).where(Submission.id.in_(rows)))) == {1}


def test_concurrent_workers_claim_each_row_once_on_sqlite(sqlite_queue: Queue) -> None:
    check_concurrent_workers(sqlite_queue)


@pytest.mark.scaleout
def test_concurrent_workers_claim_each_row_once_on_postgres(pg_queue: Queue) -> None:
    check_concurrent_workers(pg_queue)
    check_rounds(pg_queue)


def test_the_reaper_takes_only_its_own_queues_rows(sqlite_queue: Queue) -> None:
    q = sqlite_queue
    ada = q.user("ada")
    mine, theirs = q.submit(ada, "kdojo"), q.submit(ada, "l4")
    with transaction(q.factory) as session:
        found = judging.reap(session, stale_after_s=60, max_attempts=3, requeue_queued_after_s=-1,
                             queue_name="kdojo")
    assert found == [mine] and theirs not in found


def test_learners_are_told_distinct_true_positions_over_the_api(app) -> None:  # noqa: ANN001
    """Issue #25: three learners were all told "3". POST, GET and the SSE stream agree."""

    def learner(n: int) -> TestClient:
        client = TestClient(app)
        client.get("/api/me/progress")
        signup(client, email=f"l{n}@example.com")
        return client

    def post(client: TestClient) -> dict:
        response = client.post("/api/submissions", json={"exercise_id": EXERCISE, "source": "// k"},
                               headers=csrf(client))
        assert response.status_code == 202, response.text
        return response.json()

    clients = [learner(n) for n in range(4)]
    first = [post(c) for c in clients[:3]]
    assert [p["position"] for p in first] == [1, 2, 3]
    second = post(clients[0])  # the first learner's second row: the next round
    assert second["position"] == 4
    newcomer = post(clients[3])  # joins the current round, ahead of that second row
    assert newcomer["position"] == 4
    mine = [(c, p["id"]) for c, p in zip(clients, first, strict=False)]
    mine += [(clients[0], second["id"]), (clients[3], newcomer["id"])]
    now = [c.get(f"/api/submissions/{i}").json()["position"] for c, i in mine]
    assert now == [1, 2, 3, 5, 4]
    for client, submission_id in mine:
        with client.stream("GET", f"/api/submissions/{submission_id}/events") as stream:
            for line in stream.iter_lines():
                if line.startswith("data: "):  # the stored `queued` event, as posted
                    break
        posted = {p["id"]: p["position"] for p in [*first, second, newcomer]}[submission_id]
        assert line == f'data: {{"position": {posted}}}'
