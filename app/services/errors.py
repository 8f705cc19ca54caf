"""Errors a service raises for a person to read; the API turns them into JSON."""

from __future__ import annotations


class ServiceError(Exception):
    status_code = 400

    def __init__(self, detail: str) -> None:
        super().__init__(detail)
        self.detail = detail


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
