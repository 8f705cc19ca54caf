from tests.web.conftest import csrf, signup


def test_signup_then_progress_shows_level_zero(client):
    signup(client)
    body = client.get("/api/me/progress").json()
    assert body["signed_in"] is True
    assert body["level"] == 0 and body["level_title"] == "Beginner"
    assert body["next_level_xp"] == 100 and body["xp_to_next"] == 100
    assert body["achievements_total"] == 12
    assert body["lessons_total"] == 2
