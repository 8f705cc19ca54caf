"""The server-rendered pages (Jinja2): home (the catalog), lesson, profile, leaderboard, sign in/up.

`router` is what `app.main.create_app` includes.
"""

from fastapi import APIRouter

from app.pages import auth, figures, fragments, glossary, home, lesson, profile

router = APIRouter(include_in_schema=False)
for module in (home, lesson, figures, fragments, glossary, profile, auth):
    router.include_router(module.router)

__all__ = ["router"]
