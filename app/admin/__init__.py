"""The admin API (`/api/admin/…`, tag "admin") and the admin's token page.

Auth and scopes: app/admin/auth.py. Queries live in app/services/admin_*.py.
"""

from __future__ import annotations

from fastapi import APIRouter

from app.admin import content, grading, pages, people

router = APIRouter()
for module in (grading, people, content, pages):
    router.include_router(module.router)
