"""GET /api/exercises/{id}/attempts (the asker's own), GET /api/exercises/{id}/leaderboard."""

from __future__ import annotations

from fastapi import APIRouter

from app.content import Catalog
from app.deps import CatalogDep, OwnerDep, SessionDep
from app.routing import SessionRoute
from app.services import catalog_view
from app.services import submissions as service
from app.services.errors import NotFound

router = APIRouter(route_class=SessionRoute, prefix="/api/exercises", tags=["exercises"])


def _known(catalog: Catalog, exercise_id: str, user: object = None) -> None:
    if exercise_id not in catalog_view.exercises(catalog, catalog_view.sees_drafts(user)):
        raise NotFound(f"There is no exercise {exercise_id!r}.")


@router.get("/{exercise_id}/attempts")
def attempts(exercise_id: str, session: SessionDep, owner: OwnerDep, catalog: CatalogDep) -> dict:
    _known(catalog, exercise_id, owner.user)
    rows = service.list_attempts(session, owner.user, exercise_id, anon_id=owner.anon_id)
    return {"exercise_id": exercise_id, "attempts": rows}


@router.get("/{exercise_id}/leaderboard")
def leaderboard(exercise_id: str, session: SessionDep, catalog: CatalogDep) -> dict:
    _known(catalog, exercise_id)
    return {"exercise_id": exercise_id, "entries": service.leaderboard(session, exercise_id)}
