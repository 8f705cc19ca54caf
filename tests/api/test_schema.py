"""The OpenAPI document against the app (issue #13): schemathesis draws valid
and invalid requests from it, as a signed-in learner and as an admin token,
and every response must be documented — no server error, no undocumented
status, no body outside its schema, every check schemathesis has. In-process
on SQLite; tests/api/test_schema_postgres.py runs the same on PostgreSQL."""

from __future__ import annotations

from tests.api.schema_run import run_schema

EXAMPLES = 10  # per operation and mode: the module stays well under a minute on 2 cores


def test_learner_api_matches_its_schema(api_schema, callers):  # noqa: ANN001
    sent, failures = run_schema(api_schema, callers.learner, EXAMPLES,
                                lambda path: not path.startswith("/api/admin/"))
    assert failures == [], "\n\n".join(failures)
    assert sent > 100


def test_admin_api_matches_its_schema(api_schema, callers):  # noqa: ANN001
    sent, failures = run_schema(api_schema, callers.admin, EXAMPLES, lambda path: path.startswith("/api/admin/"))
    assert failures == [], "\n\n".join(failures)
    assert sent > 100


def test_auth_bodies_and_every_error_answer_are_documented(callers):  # noqa: ANN001
    from fastapi.testclient import TestClient

    document = TestClient(callers.app).get("/api/openapi.json").json()
    for name in ("signup", "signin", "signout"):
        operation = document["paths"][f"/auth/{name}"]["post"]
        content = operation["requestBody"]["content"]
        assert {"application/json", "application/x-www-form-urlencoded"} <= set(content)
        assert {"200", "303", "403", "413", "422"} <= set(operation["responses"])
    assert {"email", "password"} <= set(document["paths"]["/auth/signin"]["post"]["requestBody"]["content"]
                                        ["application/json"]["schema"]["required"])
    for path, operations in document["paths"].items():
        for method, operation in operations.items():
            answers = operation["responses"]
            assert {"401", "403", "404", "422"} <= set(answers), (method, path)
            shape = answers["422"]["content"]["application/json"]["schema"]["$ref"]
            assert shape == "#/components/schemas/ValidationErrorOut", (method, path)
