"""One shape per error status, for every route (issue #13).

- 422 (the request is malformed or breaks a rule about its values): `detail` is
  always a list of `{"type", "loc", "msg"}`, FastAPI's own shape; a service's
  `Invalid` becomes one item whose `type` is its message code.
- Every other error: `detail` is one English sentence.

A service error with a message code also carries `code` and `params` at the top
level, for the pages to translate (app/i18n_strings.py `error.<code>`).

The database driver's refusals of values (a NUL byte in text on PostgreSQL, a
number out of range) are 422s with that shape too: the client sent them.
"""

from __future__ import annotations

from typing import Any

from fastapi import Request
from fastapi.responses import JSONResponse
from pydantic import BaseModel
from sqlalchemy.exc import DataError

from app.services.errors import ServiceError


class ErrorOut(BaseModel):
    detail: str
    code: str | None = None
    params: dict[str, Any] | None = None


class ValidationItem(BaseModel):
    type: str
    loc: list[str | int]
    msg: str


class ValidationErrorOut(BaseModel):
    detail: list[ValidationItem]
    code: str | None = None
    params: dict[str, Any] | None = None


def _error(description: str) -> dict[str, Any]:
    return {"model": ErrorOut, "description": description}


ERRORS: dict[int, dict[str, Any]] = {
    400: _error("Bad request (e.g. an unreadable form)"),
    401: _error("Not signed in / unknown token"),
    403: _error("CSRF check failed, or not allowed"),
    404: _error("Not found"),
    409: _error("Conflict"),
    413: _error("The request body is larger than KDOJO_MAX_REQUEST_BYTES"),
    422: {"model": ValidationErrorOut, "description": "Validation error"},
    429: _error("A rate limit or the pending-submissions cap"),
    503: _error("The database stayed busy (overload); retry after `Retry-After` seconds"),
}


def service_error_response(exc: ServiceError) -> JSONResponse:
    body: dict[str, Any]
    if exc.status_code == 422:
        body = {"detail": [{"type": exc.code or "invalid", "loc": ["body"], "msg": exc.detail}]}
    else:
        body = {"detail": exc.detail}
    if exc.code:  # the pages show the error in the reader's language (#13)
        body |= {"code": exc.code, "params": exc.params}
    return JSONResponse(body, status_code=exc.status_code)


async def service_error_handler(_request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, ServiceError)
    return service_error_response(exc)


async def data_error_handler(_request: Request, exc: Exception) -> JSONResponse:
    """PostgreSQL refused a value the client sent (NUL in text, out of range)."""
    assert isinstance(exc, DataError)
    reason = str(getattr(exc, "orig", exc)).splitlines()[0][:200]
    return JSONResponse({"detail": [{"type": "value_error", "loc": ["body"],
                                     "msg": f"A value was refused by the database: {reason}"}]},
                        status_code=422)


async def overflow_handler(_request: Request, exc: Exception) -> JSONResponse:
    """SQLite's refusal of a number wider than 64 bits; any other overflow is our bug."""
    if "too large to convert to SQLite" not in str(exc):
        raise exc
    return JSONResponse({"detail": [{"type": "value_error", "loc": ["body"],
                                     "msg": "A number is too large."}]}, status_code=422)


async def busy_handler(_request: Request, exc: Exception) -> JSONResponse:
    """A write waited too long for the database's write lock, or a request for a
    pooled connection (issue #25): the server is overloaded, not broken."""
    return JSONResponse({"detail": "The server is busy; try again in a few seconds."}, status_code=503,
                        headers={"Retry-After": str(BUSY_RETRY_AFTER_S)})


BUSY_RETRY_AFTER_S = 5
READ_ERRORS = (401, 403, 404, 422, 503)
WRITE_ERRORS = (400, 401, 403, 404, 409, 413, 422, 429, 503)


def document_errors(app: Any) -> None:
    """Every operation documents the errors any request of its method can get:
    the middleware answers 403 (CSRF), 413 (body size) and the dependencies 401
    before a route runs, so they are listed everywhere, with their one shape."""
    from fastapi.openapi.utils import get_openapi

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            schema = get_openapi(title=app.title, version=app.version, routes=app.routes)
            components = schema.setdefault("components", {}).setdefault("schemas", {})
            for model in (ErrorOut, ValidationItem, ValidationErrorOut):
                components[model.__name__] = model.model_json_schema(ref_template="#/components/schemas/{model}")
            for path, operations in schema.get("paths", {}).items():
                for method, operation in operations.items():
                    _add_errors(operation, READ_ERRORS if method in ("get", "head") else WRITE_ERRORS)
            app.openapi_schema = schema
        return app.openapi_schema

    app.openapi = openapi


def _add_errors(operation: dict[str, Any], statuses: tuple[int, ...]) -> None:
    responses = operation.setdefault("responses", {})
    for status in statuses:
        model = ValidationErrorOut if status == 422 else ErrorOut
        responses.setdefault(str(status), {
            "description": ERRORS[status]["description"],
            "content": {"application/json": {"schema": {"$ref": f"#/components/schemas/{model.__name__}"}}},
        })
    if "422" in responses:  # FastAPI's own 422 names its HTTPValidationError: the same shape
        responses["422"]["content"] = {"application/json": {"schema": {
            "$ref": "#/components/schemas/ValidationErrorOut"}}}
