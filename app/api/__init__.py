"""The JSON API and the auth form endpoints, one router per resource."""

from __future__ import annotations

from fastapi import APIRouter

from app.api import auth, bugreports, comments, exercises, progress, submissions, system

router = APIRouter()
for module in (auth, submissions, exercises, progress, comments, bugreports, system):
    router.include_router(module.router)
router.include_router(system.router_root)  # /healthz, /readyz
