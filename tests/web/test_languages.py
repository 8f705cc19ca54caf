"""Kernel languages on the web (#29): the submission's language (default, validation),
progress and XP per (exercise, language), leaderboards and grades per language, the
lesson page's selector in both page languages. Over the fixture lesson `add-one` whose
exercise also offers Triton (tests/fixtures/triton); verdicts are stored through the
worker's own service functions (claim → finish), so nothing here needs Triton judged
(tests/web/test_language_seam.py does, once the judge has its language seam)."""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import select

from app import xp as xp_rules
from app.db import transaction
from app.main import create_app
from app.models import Completion, Submission, User, XpAward
from app.services import judging
from app.settings import Settings
from tests.fixtures.triton import ADD_ONE, EXERCISE_ID, FIXTURE_LESSONS, build_triton_lessons
from tests.web.conftest import csrf, make_settings, signup, v1_result
from tests.web.database import migrate
from tests.web.test_scaleout import pg_url  # noqa: F401 - the fixture

LESSON_XP = 40  # tests/fixtures/lessons/01-add-one/lesson.toml
EXERCISE_XP = 50  # its exercise.toml
PAGE_DATA = re.compile(r'<script id="page-data" type="application/json">(.*?)</script>', re.S)


def _client(tmp_path: Path, lessons: Path, **overrides: object) -> Iterator[TestClient]:
    settings: Settings = make_settings(tmp_path, lessons, **{"embedded_worker": False, **overrides})
    migrate(settings.database_url)
    with TestClient(create_app(settings), base_url="http://testserver") as client:
        client.get("/api/me/progress")  # the CSRF cookie
        yield client


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    yield from _client(tmp_path, build_triton_lessons(tmp_path / "lessons"))


@pytest.fixture
def cuda_only(tmp_path: Path) -> Iterator[TestClient]:
    yield from _client(tmp_path, FIXTURE_LESSONS)


def result(verdict: str = "accepted", **kwargs: object) -> dict:
    return {**v1_result(verdict, **kwargs), "exercise": EXERCISE_ID}  # type: ignore[arg-type]


def judged(client: TestClient, user_id: int | None, language: str, doc: dict, mode: str = "submit") -> int:
    """A submission in `language` judged with `doc` by the worker's storage path."""
    app = client.app
    with transaction(app.state.sessionmaker) as session:  # type: ignore[attr-defined]
        row = Submission(user_id=user_id, exercise_id=EXERCISE_ID, mode=mode, language=language,
                         source="# test", status="queued", achievements=[])
        session.add(row)
        session.flush()
        submission_id = row.id
    with transaction(app.state.sessionmaker) as session:  # type: ignore[attr-defined]
        attempt = judging.claim(session, submission_id, "test-worker")
        assert attempt is not None
        assert judging.finish(session, submission_id, attempt, doc, app.state.catalog)  # type: ignore[attr-defined]
    return submission_id


def post(client: TestClient, **body: object) -> object:
    return client.post("/api/submissions", json={"exercise_id": EXERCISE_ID, "source": "x", **body},
                       headers=csrf(client))


# --- the submission's language ----------------------------------------------------------

def test_a_submission_without_a_language_is_cuda_and_one_in_triton_says_so(client):
    cuda = post(client, mode="run")
    triton = post(client, mode="run", language="triton")
    assert (cuda.status_code, triton.status_code) == (202, 202)
    assert client.get(f"/api/submissions/{cuda.json()['id']}").json()["language"] == "cuda"
    assert client.get(f"/api/submissions/{triton.json()['id']}").json()["language"] == "triton"
    attempts = client.get(f"/api/exercises/{EXERCISE_ID}/attempts?language=triton").json()
    assert [a["id"] for a in attempts["attempts"]] == [triton.json()["id"]]
    assert attempts["attempts"][0]["language"] == "triton"
    both = client.get(f"/api/exercises/{EXERCISE_ID}/attempts").json()["attempts"]
    assert [a["language"] for a in both] == ["triton", "cuda"]


@pytest.mark.parametrize("language", ["rust", "", "CUDA", "x" * 32])
def test_an_unknown_language_is_a_422_with_its_code(client, language):
    response = post(client, language=language)
    assert response.status_code == 422
    body = response.json()
    assert body["code"] == "language_unknown" and body["detail"][0]["type"] == "language_unknown"
    assert body["params"] == {"language": language, "choices": "cuda, triton"}


def test_a_language_longer_than_any_is_refused_before_the_service(client):
    response = post(client, language="x" * 33)
    assert response.status_code == 422 and response.json()["detail"][0]["loc"][-1] == "language"


def test_a_language_the_exercise_does_not_offer_is_a_422(cuda_only):
    response = post(cuda_only, language="triton")
    assert response.status_code == 422
    assert response.json()["code"] == "language_not_offered"
    assert response.json()["params"] == {"language": "triton", "choices": "cuda"}
    assert cuda_only.get(f"/api/exercises/{EXERCISE_ID}/leaderboard?language=triton").status_code == 422
    assert post(cuda_only).status_code == 202


def test_the_same_idempotency_key_for_another_language_is_a_conflict(client):
    headers = {**csrf(client), "Idempotency-Key": "k-1"}
    body = {"exercise_id": EXERCISE_ID, "source": "x", "mode": "run"}
    first = client.post("/api/submissions", json=body, headers=headers)
    again = client.post("/api/submissions", json=body, headers=headers)
    other = client.post("/api/submissions", json={**body, "language": "triton"}, headers=headers)
    assert (first.status_code, again.status_code, other.status_code) == (202, 200, 409)


def test_the_exercise_api_lists_each_language_with_its_starter_and_hints(client, cuda_only):
    body = client.get(f"/api/exercises/{EXERCISE_ID}").json()
    assert [(l["name"], l["title"], l["suffix"], l["editor_mode"]) for l in body["languages"]] == [
        ("cuda", "CUDA C++", ".cu", "cuda"), ("triton", "Triton", ".triton.py", "python")]
    triton = body["languages"][1]
    assert triton["starter"] == (ADD_ONE / "starter.triton.py").read_text()
    assert triton["hints"]["en"][0].startswith("One program handles BLOCK elements")
    assert "__global__" in body["languages"][0]["starter"]
    assert body["xp"] == EXERCISE_XP and body["lesson_id"] == "add-one"
    assert [l["name"] for l in cuda_only.get(f"/api/exercises/{EXERCISE_ID}").json()["languages"]] == ["cuda"]
    assert client.get("/api/exercises/nope.nope").status_code == 404


def test_the_openapi_schema_documents_the_language(client):
    schema = client.get("/api/openapi.json").json()
    assert "language" in schema["components"]["schemas"]["SubmissionIn"]["properties"]
    assert "language" in schema["components"]["schemas"]["SubmissionOut"]["required"]
    post_doc = schema["paths"]["/api/submissions"]["post"]["responses"]["422"]["description"]
    assert "language_unknown" in post_doc and "language_not_offered" in post_doc
    assert "/api/exercises/{exercise_id}" in schema["paths"]


# --- progress and XP per (exercise, language) --------------------------------------------

def test_solved_in_cuda_is_not_solved_in_triton_and_the_second_language_earns_half(client):
    user = signup(client)
    judged(client, user["id"], "cuda", result())
    progress = client.get("/api/me/progress").json()
    assert progress["exercise_languages"] == {EXERCISE_ID: ["cuda"]}
    assert progress["xp"] == EXERCISE_XP + LESSON_XP
    judged(client, user["id"], "triton", result("wrong_answer"))
    assert client.get("/api/me/progress").json()["exercise_languages"] == {EXERCISE_ID: ["cuda"]}
    second = judged(client, user["id"], "triton", result())
    judged(client, user["id"], "triton", result())  # a repeat in Triton earns nothing
    progress = client.get("/api/me/progress").json()
    assert progress["exercise_languages"] == {EXERCISE_ID: ["cuda", "triton"]}
    assert progress["completed_exercise_ids"] == [EXERCISE_ID]
    assert progress["xp"] == EXERCISE_XP + LESSON_XP + EXERCISE_XP // 2
    assert progress["languages"] == {"cuda": {"xp": EXERCISE_XP, "exercises_done": 1},
                                     "triton": {"xp": EXERCISE_XP // 2, "exercises_done": 1}}
    assert client.get(f"/api/submissions/{second}").json()["xp_awarded"] == EXERCISE_XP // 2


def test_the_first_language_to_pass_gets_the_full_xp_whichever_it_is(client):
    user = signup(client)
    fast = result(backend="cuda", ms=0.30, framework_ms=0.36, pct_of_peak=55.0)  # beat_framework 30, peak_50 20
    judged(client, user["id"], "triton", fast)
    judged(client, user["id"], "cuda", fast)
    progress = client.get("/api/me/progress").json()
    assert progress["languages"]["triton"]["xp"] == EXERCISE_XP + 30 + 20
    assert progress["languages"]["cuda"]["xp"] == (EXERCISE_XP + 30 + 20) // 2
    with transaction(client.app.state.sessionmaker) as session:  # type: ignore[attr-defined]
        keys = set(session.scalars(select(XpAward.key)))
    assert {f"exercise:{EXERCISE_ID}", f"exercise:{EXERCISE_ID}@cuda", f"tier:{EXERCISE_ID}:beat_framework@cuda",
            f"lesson:add-one"} <= keys


def test_two_languages_accepted_at_the_same_moment_never_both_take_the_full_xp(client):
    race_two_languages(client)


@pytest.mark.scaleout
def test_two_languages_at_the_same_moment_on_postgres(tmp_path: Path, pg_url: str) -> None:  # noqa: F811
    for client in _client(tmp_path, build_triton_lessons(tmp_path / "lessons"), database_url=pg_url):
        race_two_languages(client)


def race_two_languages(client: TestClient) -> None:
    """Six accepts, three per language, each stored by its own thread at one moment."""
    user = signup(client)
    app = client.app
    factory, catalog = app.state.sessionmaker, app.state.catalog  # type: ignore[attr-defined]
    with transaction(factory) as session:
        rows = [Submission(user_id=user["id"], exercise_id=EXERCISE_ID, mode="submit", language=language,
                           source="s", status="queued", achievements=[])
                for language in ("cuda", "triton") * 3]
        session.add_all(rows)
        session.flush()
        attempts = {row.id: judging.claim(session, row.id, f"w{row.id}") for row in rows}
    barrier = threading.Barrier(len(attempts))
    errors: list[BaseException] = []

    def store(submission_id: int) -> None:
        try:
            barrier.wait()
            with transaction(factory) as session:
                judging.finish(session, submission_id, attempts[submission_id], result(), catalog)
        except BaseException as exc:  # noqa: BLE001 - asserted below
            errors.append(exc)

    threads = [threading.Thread(target=store, args=(i,)) for i in attempts]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    assert client.get("/api/me/progress").json()["xp"] == EXERCISE_XP + EXERCISE_XP // 2 + LESSON_XP


def test_a_browser_pass_in_triton_merges_as_unverified_triton_progress(client):
    user = signup(client)
    merged = client.post("/api/progress/merge", json={"exercise_ids": [f"{EXERCISE_ID}@triton", "x.y@triton",
                                                                        f"{EXERCISE_ID}@rust"]},
                         headers=csrf(client))
    assert merged.status_code == 200
    assert merged.json()["progress"]["exercise_languages"] == {EXERCISE_ID: ["triton"]}
    with transaction(client.app.state.sessionmaker) as session:  # type: ignore[attr-defined]
        rows = session.execute(select(Completion.item_id, Completion.language, Completion.verified)
                               .where(Completion.user_id == user["id"], Completion.kind == "exercise")).all()
    assert rows == [(EXERCISE_ID, "triton", False)]
    assert merged.json()["xp_gained"] == 0  # the browser's word alone earns nothing


# --- leaderboards, the reference, grades --------------------------------------------------

def _second_learner(client: TestClient, email: str) -> int:
    with transaction(client.app.state.sessionmaker) as session:  # type: ignore[attr-defined]
        other = User(email=email, display_name=email.split("@")[0].title(), password_hash="x")
        session.add(other)
        session.flush()
        return other.id


def test_each_language_has_its_own_leaderboard(client):
    ada = signup(client)
    bob = _second_learner(client, "bob@example.com")
    judged(client, ada["id"], "cuda", result(backend="cuda", ms=0.5))
    judged(client, bob, "triton", result(backend="cuda", ms=0.4))
    board = f"/api/exercises/{EXERCISE_ID}/leaderboard"
    cuda, triton = client.get(board).json(), client.get(board + "?language=triton").json()
    assert (cuda["language"], [e["display_name"] for e in cuda["entries"]]) == ("cuda", ["Ada"])
    assert (triton["language"], [e["display_name"] for e in triton["entries"]]) == ("triton", ["Bob"])
    assert cuda["languages"] == ["cuda", "triton"]
    assert client.get(board + "?language=rust").json()["code"] == "language_unknown"
    page = client.get(f"/exercises/{EXERCISE_ID}/leaderboard?language=triton&lang=en").text
    assert "<td>Bob</td>" in page and "<td>Ada</td>" not in page and "(Triton)" in page
    assert 'aria-current="page">Triton</a>' in page and "Each language is ranked on its own." in page
    assert client.get(f"/exercises/{EXERCISE_ID}/leaderboard?language=rust").status_code == 404
    ko = client.get(f"/exercises/{EXERCISE_ID}/leaderboard?lang=ko").text
    assert "언어마다 따로 순위를 매깁니다." in ko and "<td>Ada</td>" in ko and "<td>Bob</td>" not in ko


def test_the_reference_after_a_triton_pass_is_the_triton_one(client):
    user = signup(client)
    passed = judged(client, user["id"], "triton", result())
    fragment = client.get(f"/exercises/{EXERCISE_ID}/reference?submission={passed}").text
    assert 'data-language="triton"' in fragment and "tl" in fragment and "__global__" not in fragment
    page = client.get("/lessons/add-one?lang=en").text
    # solved in Triton: its reference is in the page, CUDA's stays locked
    assert 'data-language-pane="triton" data-solved="1"' in page
    assert 'data-language-pane="cuda" data-solved="0"' in page
    assert '<p class="reference-locked" data-language-pane="cuda">' in page


def test_the_grades_export_splits_by_language(client):
    from tests.admin.conftest import bearer, make_token

    user = signup(client)
    judged(client, user["id"], "cuda", result("wrong_answer"))
    judged(client, user["id"], "triton", result())
    with transaction(client.app.state.sessionmaker) as session:  # type: ignore[attr-defined]
        session.get(User, user["id"]).role = "admin"  # type: ignore[union-attr]
    reader = bearer(make_token(client.app, "ada@example.com", "grading:read"))
    report = client.get("/api/admin/grades?lesson=add-one", headers=reader).json()
    cell = report["learners"][0]["grades"][EXERCISE_ID]
    assert cell["best_verdict"] == "accepted" and cell["attempts"] == 2
    assert cell["by_language"]["cuda"] == {"best_verdict": "wrong_answer", "best_ms": None, "attempts": 1, "xp": 0}
    assert cell["by_language"]["triton"]["best_verdict"] == "accepted"
    assert cell["by_language"]["triton"]["xp"] == EXERCISE_XP
    only_cuda = client.get("/api/admin/grades?lesson=add-one&language=cuda", headers=reader).json()
    assert only_cuda["language"] == "cuda"
    assert only_cuda["learners"][0]["grades"][EXERCISE_ID]["best_verdict"] == "wrong_answer"
    assert client.get("/api/admin/grades?lesson=add-one&language=rust", headers=reader).status_code == 422
    listed = client.get("/api/admin/submissions?language=triton", headers=reader).json()
    assert [item["language"] for item in listed["items"]] == ["triton"]


# --- the lesson page ------------------------------------------------------------------------

@pytest.mark.parametrize(("lang", "label", "note"), [
    ("ko", "커널 언어", "언어마다 따로 통과하고"), ("en", "Kernel language", "Each language is passed on its own")])
def test_the_lesson_page_offers_the_languages_in_both_page_languages(client, lang, label, note):
    page = client.get(f"/lessons/add-one?lang={lang}").text
    assert f'aria-label="{label}"' in page and note in page
    assert 'data-language="cuda"' in page and 'data-language="triton"' in page
    assert ">CUDA C++ <" in page and ">Triton <" in page
    instructions = (ADD_ONE / f"instructions.triton.{lang}.md").read_text().split("`")[0].strip()
    assert instructions in page  # Triton's own instructions, hidden until chosen
    assert "tl.arange" in page  # Triton's hints
    assert '"editor_mode": "python"' in page  # the page data the selector reads


def test_a_cuda_only_exercise_has_no_selector(cuda_only):
    page = cuda_only.get("/lessons/add-one?lang=en").text
    assert "language-picker" not in page and "data-language-pane" not in page


def test_the_profile_lists_each_submissions_language_and_progress_per_language(client):
    user = signup(client)
    judged(client, user["id"], "cuda", result())
    page = client.get("/me?lang=en").text
    assert "Progress by language" not in page  # one language so far: nothing to compare
    judged(client, user["id"], "triton", result())
    page = client.get("/me?lang=en").text
    assert "Progress by language" in page
    assert '<tr data-language="triton"><td>Triton</td><td>1</td><td>25</td></tr>' in page
    assert '<tr data-language="cuda"><td>CUDA C++</td><td>1</td><td>50</td></tr>' in page
    assert '<td data-language="triton">Triton</td>' in page and '<td data-language="cuda">CUDA C++</td>' in page
    assert "언어별 진행" in client.get("/me?lang=ko").text


# --- the XP badge: what each language brings now ----------------------------------------

def xp_badge(page: str) -> tuple[str, str, str]:
    """(state, XP, text) of the exercise's XP badge, as the server rendered it (CUDA's)."""
    match = re.search(r'<span class="badge xp" data-xp-state="(\w+)" data-xp="(\d+)">([^<]*)</span>', page)
    assert match, "no XP badge"
    return match.group(1), match.group(2), match.group(3)


def test_the_share_rule_in_numbers() -> None:
    assert xp_rules.language_award(50, {}, "triton") == ("full", 50)
    assert xp_rules.language_award(50, {"cuda": 50}, "triton") == ("share", 25)
    assert xp_rules.language_award(75, {"cuda": 75}, "triton") == ("share", 37)  # rounded down
    assert xp_rules.language_award(50, {"cuda": 50, "triton": 25}, "triton") == ("earned", 25)
    assert xp_rules.language_award(50, {"triton": 100}, "cuda") == ("share", 25)  # tiers are not the base
    assert xp_rules.awarded_exercise(f"exercise:{EXERCISE_ID}") == EXERCISE_ID
    assert xp_rules.awarded_exercise(f"exercise:{EXERCISE_ID}@triton") == EXERCISE_ID
    assert xp_rules.awarded_exercise(f"tier:{EXERCISE_ID}:peak_50@cuda") == EXERCISE_ID
    assert xp_rules.awarded_exercise("lesson:add-one") is None
    assert xp_rules.awarded_exercise(f"override:{EXERCISE_ID}:7") is None


def test_the_xp_badge_says_full_then_half_then_what_was_earned(client):
    user = signup(client)
    assert xp_badge(client.get("/lessons/add-one?lang=en").text) == ("full", "50", "50 XP")
    fast = result(backend="cuda", ms=0.30, framework_ms=0.36, pct_of_peak=55.0)  # beat_framework 30, peak_50 20
    judged(client, user["id"], "triton", fast)
    progress = client.get("/api/me/progress").json()
    assert progress["exercise_xp"] == {EXERCISE_ID: {"triton": 100}}  # 50 + 30 + 20; the lesson's 40 apart
    # CUDA, the page's language, would now earn half of the exercise's 50
    assert xp_badge(client.get("/lessons/add-one?lang=en").text) == \
        ("share", "25", "25 XP · half: already solved in Triton")
    assert xp_badge(client.get("/lessons/add-one?lang=ko").text) == ("share", "25", "25 XP · 절반 (Triton에서 이미 통과)")
    second = judged(client, user["id"], "cuda", fast)
    # what CUDA earned: half of the 50 and of each tier, as the verdict said and /me says
    assert client.get(f"/api/submissions/{second}").json()["xp_awarded"] == 25 + 15 + 10
    progress = client.get("/api/me/progress").json()
    assert progress["exercise_xp"] == {EXERCISE_ID: {"cuda": 50, "triton": 100}}
    assert progress["xp"] == 100 + 50 + LESSON_XP
    assert xp_badge(client.get("/lessons/add-one?lang=en").text) == ("earned", "50", "Solved in CUDA C++ · 50 XP earned")
    assert xp_badge(client.get("/lessons/add-one?lang=ko").text) == ("earned", "50", "CUDA C++ 통과 · 50 XP 받음")
    me = client.get("/me?lang=en").text
    assert '<tr data-language="triton"><td>Triton</td><td>1</td><td>100</td></tr>' in me
    assert '<tr data-language="cuda"><td>CUDA C++</td><td>1</td><td>50</td></tr>' in me
    # the page data the selector's badge reads: the same numbers, and the share itself
    data = json.loads(PAGE_DATA.search(client.get("/lessons/add-one?lang=en").text).group(1))
    assert data["summary"]["exercise_xp"] == {EXERCISE_ID: {"cuda": 50, "triton": 100}}
    assert data["xpShare"] == xp_rules.FURTHER_LANGUAGE_SHARE == 0.5
    assert data["strings"]["exercise.xp_share"] == "{xp} XP · half: already solved in {languages}"


def test_a_pass_the_browser_claims_earns_nothing_so_the_badge_stays_full(client):
    signup(client)
    client.post("/api/progress/merge", json={"exercise_ids": [f"{EXERCISE_ID}@triton"]}, headers=csrf(client))
    progress = client.get("/api/me/progress").json()
    assert progress["exercise_languages"] == {EXERCISE_ID: ["triton"]} and progress["exercise_xp"] == {}
    # solved in Triton by the browser's word, but no language has earned the XP: CUDA's submit would earn all 50
    assert xp_badge(client.get("/lessons/add-one?lang=en").text) == ("full", "50", "50 XP")


def test_a_cuda_only_exercise_earned_says_so_without_naming_the_language(cuda_only):
    user = signup(cuda_only)
    judged(cuda_only, user["id"], "cuda", result())
    assert xp_badge(cuda_only.get("/lessons/add-one?lang=en").text) == ("earned", "50", "50 XP earned")
    assert xp_badge(cuda_only.get("/lessons/add-one?lang=ko").text) == ("earned", "50", "50 XP 받음")


# --- the catalog's files per language ----------------------------------------------------

def test_a_triton_exercise_without_its_starter_is_refused_naming_the_file(tmp_path: Path) -> None:
    from app.content import LessonError, load_catalog

    root = build_triton_lessons(tmp_path / "lessons")
    starter = root / "01-add-one" / "exercises" / "add_one" / "starter.triton.py"
    starter.unlink()
    with pytest.raises(LessonError) as caught:
        load_catalog(root)
    assert caught.value.path == starter
    assert "add-one" not in load_catalog(root, lenient=True).lessons  # a server starts without it


def test_triton_instructions_in_one_language_only_are_refused(tmp_path: Path) -> None:
    from app.content import LessonError, load_catalog

    root = build_triton_lessons(tmp_path / "lessons")
    folder = root / "01-add-one" / "exercises" / "add_one"
    (folder / "instructions.triton.en.md").unlink()
    with pytest.raises(LessonError, match="missing or empty while the other language has one"):
        load_catalog(root)
    (folder / "instructions.triton.ko.md").unlink()  # neither: Triton shows the shared instructions
    files = load_catalog(root).lessons["add-one"].exercise_files[0]
    assert files.instructions_for("triton", "en") == files.instructions_md["en"]
    assert files.reference_for("triton") == (ADD_ONE / "reference.triton.py").read_text()


# --- the worker hands the language to the judge ---------------------------------------------

def test_a_triton_submission_is_never_judged_as_cuda(tmp_path: Path) -> None:
    """Through the real worker and judge (emulator): whatever this judge can do with
    Triton, the Python source is never compiled as CUDA and blamed on the learner. A
    judge without the language seam says it is our fault (internal_error); with it,
    the result is Triton's (tests/web/test_language_seam.py judges it through)."""
    import time

    for client in _client(tmp_path, build_triton_lessons(tmp_path / "lessons"), embedded_worker=True,
                          worker_threads=1):
        created = post(client, source=(ADD_ONE / "reference.triton.py").read_text(), language="triton")
        assert created.status_code == 202
        deadline = time.monotonic() + 120
        while (body := client.get(f"/api/submissions/{created.json()['id']}").json())["status"] != "done":
            assert time.monotonic() < deadline, body
            time.sleep(0.2)
        assert body["language"] == "triton"
        if body["verdict"] == "internal_error":
            assert "not yours" in body["result"]["message"]
        else:  # judged (or refused) as Triton, never compiled by NVRTC or g++ as CUDA
            assert body["result"]["language"] == "triton"
