"""The schemathesis run of tests/api/test_schema.py on PostgreSQL (scale-out):
the database's own limits (integer ids, NUL bytes in text) must not show as
server errors either."""

from __future__ import annotations

import pytest

from tests.api.conftest import callers_for
from tests.api.schema_run import run_schema
from tests.web.conftest import build_lessons, make_settings
from tests.web.test_scaleout import pg_url  # noqa: F401 - fixture

pytestmark = pytest.mark.scaleout
EXAMPLES = 8


@pytest.fixture
def pg_callers(tmp_path, pg_url):  # noqa: ANN001, F811
    import schemathesis

    from app.migrate import upgrade

    settings = make_settings(tmp_path, build_lessons(tmp_path / "lessons"), database_url=pg_url,
                             embedded_worker=False)
    upgrade(settings.database_url)
    callers = callers_for(settings)
    yield callers, schemathesis.openapi.from_asgi("/api/openapi.json", callers.app)
    callers.app.state.engine.dispose()


def test_learner_and_admin_apis_match_their_schema_on_postgres(pg_callers):  # noqa: ANN001
    callers, schema = pg_callers
    sent, failures = run_schema(schema, callers.learner, EXAMPLES, lambda p: not p.startswith("/api/admin/"))
    sent_admin, admin_failures = run_schema(schema, callers.admin, EXAMPLES, lambda p: p.startswith("/api/admin/"))
    assert failures + admin_failures == [], "\n\n".join(failures + admin_failures)
    assert sent > 100 and sent_admin > 100
