"""GET /api/me/progress, POST /api/progress/merge (browser-local progress at sign-in)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter
from pydantic import BaseModel, Field

from app.achievements import ACHIEVEMENTS
from app.deps import CatalogDep, CurrentUser, OwnerDep, RequireUser, SessionDep
from app.routing import SessionRoute
from app.services import progress, progress_merge

router = APIRouter(route_class=SessionRoute, prefix="/api", tags=["progress"])


ItemId = Annotated[str, Field(max_length=128)]


class MergeIn(BaseModel):
    """What the browser says it completed: exercises count as unverified progress
    (no XP, no achievement), lessons without exercises as read (app.services.progress).
    An exercise id alone is a CUDA pass; `<id>@triton` a pass in Triton (#29)."""

    exercise_ids: list[ItemId] = Field(default_factory=list, max_length=1000)
    lesson_ids: list[ItemId] = Field(default_factory=list, max_length=1000)


@router.get("/me/progress")
def my_progress(session: SessionDep, user: CurrentUser, catalog: CatalogDep) -> dict:
    summary = progress.learner_summary(session, user, catalog)
    unlocked = set(summary.achievement_ids)
    return {
        "signed_in": user is not None,
        **summary.as_dict(),
        "achievements": [
            {"id": a.id, "title_ko": a.title_ko, "title_en": a.title_en,
             "description_ko": a.description_ko, "description_en": a.description_en,
             "unlocked": a.id in unlocked}
            for a in ACHIEVEMENTS
        ],
    }


@router.post("/progress/merge")
def merge(body: MergeIn, session: SessionDep, user: RequireUser, owner: OwnerDep, catalog: CatalogDep) -> dict:
    outcome = progress_merge.merge_local_progress(
        session, user, catalog, body.exercise_ids, body.lesson_ids, owner.anon_id
    )
    session.commit()
    return {**outcome, "progress": progress.learner_summary(session, user, catalog).as_dict()}
