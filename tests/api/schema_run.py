"""Run schemathesis over every operation of the OpenAPI document, in-process.

For each operation, valid (positive) and invalid (negative) requests are drawn
from the schema with a bounded number of examples and sent with the caller's
headers; every check schemathesis has runs on each response (not a server
error, status documented, content type and body matching the schema, invalid
data rejected, valid data accepted, …). Failures are collected per operation
and returned as one line each, so one run reports all of them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from hypothesis import HealthCheck, Phase, given, settings
from hypothesis.errors import Unsatisfiable
from schemathesis import GenerationMode


# Operations whose schema-valid requests can still break a rule the schema does
# not state, answered 422 with a message: a common password or an e-mail address
# the server does not accept, two new passwords that differ, a reset link that is
# not (or no longer) valid; "a verdict, an XP value, or both"; "exactly one of
# track, lesson or exercises". Every other check still runs on them.
FORM = "application/x-www-form-urlencoded"
RULES_BEYOND_THE_SCHEMA = {"/auth/signup", "/auth/password", "/auth/reset-password",
                           "/api/admin/submissions/{submission_id}/override", "/api/admin/grades"}


def run_schema(schema: Any, headers: dict[str, str], examples: int,
               wanted: Callable[[str], bool]) -> tuple[int, list[str]]:
    """(requests sent, failures) for every operation whose path `wanted` accepts."""
    from schemathesis.specs.openapi.checks import negative_data_rejection, positive_data_acceptance

    sent = 0
    failures: dict[str, str] = {}
    for result in schema.get_all_operations():
        operation = result.ok()
        if not wanted(operation.path):
            continue
        for mode in (GenerationMode.POSITIVE, GenerationMode.NEGATIVE):
            label = f"{operation.method.upper()} {operation.path} ({mode.value})"

            @given(case=operation.as_strategy(generation_mode=mode))
            @settings(max_examples=examples, deadline=None, derandomize=True, database=None,
                      phases=[Phase.explicit, Phase.generate], suppress_health_check=list(HealthCheck))
            def check(case: Any) -> None:
                nonlocal sent
                if label in failures:
                    return
                sent += 1
                try:
                    excluded = [positive_data_acceptance] if operation.path in RULES_BEYOND_THE_SCHEMA else []
                    if case.media_type == FORM:
                        # a form post answers invalid input with its documented 303 back to the
                        # form (`?error=<code>`), not a 4xx; the JSON body of the same operation
                        # is still held to the rejection check
                        excluded.append(negative_data_rejection)
                    case.call_and_validate(headers=headers, excluded_checks=excluded)
                except (Exception, BaseExceptionGroup) as exc:  # noqa: BLE001 - reported below, one per operation
                    failures[label] = f"{label}: {case.method} {case.formatted_path} " \
                                      f"body={str(case.body)[:200]!r}: {str(exc).strip()[:1500]}"

            try:
                check()
            except Unsatisfiable:  # nothing invalid to send (e.g. a GET without parameters)
                pass
    return sent, list(failures.values())
