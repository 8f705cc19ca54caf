"""`/metrics` (issue #25): Prometheus text from a real `kdojo serve`, after a real judgement."""

from __future__ import annotations

import re
import time

import httpx

from tests.web.conftest import BLOCK_SUM, EXERCISE
from tests.web.test_operations import Server

CORRECT = (BLOCK_SUM / "solutions" / "correct" / "warp_shuffle.cu").read_text()
TOKEN = "metrics-token-for-the-test-0123456789"


def _value(text: str, series: str) -> float:
    match = re.search(rf"^{re.escape(series)} (\S+)$", text, re.MULTILINE)
    assert match, f"{series} missing from:\n{text}"
    return float(match.group(1))


def _submit_and_wait(url: str) -> dict:
    with httpx.Client(base_url=url, timeout=30) as client:
        client.get("/api/me/progress")
        answer = client.post("/api/submissions", json={"exercise_id": EXERCISE, "source": CORRECT, "mode": "run"},
                             headers={"X-CSRF-Token": client.cookies.get("kdojo_csrf") or ""})
        assert answer.status_code == 202, answer.text
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            body = client.get(f"/api/submissions/{answer.json()['id']}").json()
            if body["status"] == "done":
                return body
            time.sleep(0.2)
    raise AssertionError("the submission was not judged in 120 s")


def test_metrics_count_requests_verdicts_latency_and_the_queue(tmp_path, lessons_dir):
    server = Server(tmp_path / "data", lessons_dir, KDOJO_WORKER_THREADS="1")
    try:
        server.wait_ready()
        assert _submit_and_wait(server.url)["verdict"] == "accepted"
        httpx.get(f"{server.url}/no-such-page", headers={"Accept": "application/json"})  # a 404
        first = httpx.get(f"{server.url}/metrics")  # starts the counting of the queue
        assert first.status_code == 200
        time.sleep(1.0)  # the gauge's thread counts at once, then every 2 s
        answer = httpx.get(f"{server.url}/metrics")
    finally:
        server.stop()
    assert answer.status_code == 200
    assert answer.headers["content-type"] == "text/plain; version=0.0.4; charset=utf-8"
    text = answer.text
    assert "# TYPE kdojo_judge_seconds histogram" in text
    assert _value(text, 'kdojo_verdicts_total{verdict="accepted"}') == 1
    assert _value(text, "kdojo_judge_seconds_count") == 1
    assert _value(text, 'kdojo_judge_seconds_bucket{le="+Inf"}') == 1
    judge_s = _value(text, "kdojo_judge_seconds_sum")
    turnaround_s = _value(text, "kdojo_submission_turnaround_seconds_sum")
    assert 0 < judge_s <= turnaround_s < 120
    assert _value(text, 'kdojo_http_requests_total{class="2xx"}') >= 4  # progress, submit, polls, /metrics
    assert _value(text, 'kdojo_http_requests_total{class="4xx"}') == 1
    assert _value(text, 'kdojo_submissions{status="queued"}') == 0
    assert _value(text, 'kdojo_submissions{status="running"}') == 0
    assert time.time() - _value(text, "kdojo_submissions_counted_timestamp_seconds") < 30


def test_metrics_are_refused_through_a_proxy_and_need_the_token_when_one_is_set(tmp_path, lessons_dir):
    open_server = Server(tmp_path / "open", lessons_dir, KDOJO_EMBEDDED_WORKER="false")
    locked = Server(tmp_path / "locked", lessons_dir, KDOJO_EMBEDDED_WORKER="false", KDOJO_METRICS_TOKEN=TOKEN)
    try:
        open_server.wait_ready()
        locked.wait_ready()
        assert httpx.get(f"{open_server.url}/metrics").status_code == 200  # from this machine
        proxied = httpx.get(f"{open_server.url}/metrics", headers={"X-Forwarded-For": "203.0.113.9"})
        assert proxied.status_code == 403 and "KDOJO_METRICS_TOKEN" in proxied.json()["detail"]
        assert httpx.get(f"{locked.url}/metrics").status_code == 401
        wrong = httpx.get(f"{locked.url}/metrics", headers={"Authorization": "Bearer nope"})
        assert wrong.status_code == 401 and wrong.headers["www-authenticate"] == "Bearer"
        right = httpx.get(f"{locked.url}/metrics", headers={"Authorization": f"Bearer {TOKEN}",
                                                             "X-Forwarded-For": "203.0.113.9"})
        assert right.status_code == 200 and "kdojo_http_requests_total" in right.text
    finally:
        open_server.stop()
        locked.stop()
    assert TOKEN not in locked.log.read_text()
