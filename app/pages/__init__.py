"""The server-rendered pages (Jinja2): catalog, lesson, profile, leaderboard, sign in/up.

`router` is what `app.main.create_app` includes.
"""

from fastapi import APIRouter

from app.pages import auth, catalog, figures, fragments, glossary, lesson, profile

router = APIRouter(include_in_schema=False)
for module in (catalog, lesson, figures, fragments, glossary, profile, auth):
    router.include_router(module.router)

__all__ = ["router"]
