"""Errors a service raises for a person to read; the API turns them into JSON.

`code` (and its `params`) name the error for the pages, which show it in the
reader's language (`error.<code>` in app/i18n_strings.py); `detail` stays the
English text for API clients (issue #13)."""

from __future__ import annotations


class ServiceError(Exception):
    status_code = 400

    def __init__(self, detail: str, code: str = "", **params: object) -> None:
        super().__init__(detail)
        self.detail = detail
        self.code = code
        self.params = params


class Invalid(ServiceError):
    status_code = 422


class NotFound(ServiceError):
    status_code = 404


class Forbidden(ServiceError):
    status_code = 403


class Unauthorized(ServiceError):
    status_code = 401


class LimitReached(ServiceError):
    status_code = 429


class Conflict(ServiceError):
    status_code = 409
