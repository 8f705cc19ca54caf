"""XP rules and levels, in one place.

XP is earned once per exercise on its first accepted `submit`, by difficulty
(or the exercise's own `xp`); tier bonuses reward real speed measured by the
judge's benchmark on a GPU (never on the emulator, whose timings mean nothing);
finishing every exercise of a lesson earns the lesson's `xp`.

Kernel languages (#29): an exercise's awards (its acceptance and each speed tier) are
earned once per language. The first language to earn one gets it in full; each
further language gets `FURTHER_LANGUAGE_SHARE` of it (rounded down): the problem is
the same, the second language is new practice with it. A lesson's XP is earned once,
when each of its exercises is solved in some language.
"""

from __future__ import annotations

from dataclasses import dataclass
from collections.abc import Mapping
from typing import Any

from kernels import targets

DIFFICULTY_XP = {"easy": 50, "medium": 100, "hard": 200}


@dataclass(frozen=True)
class Tier:
    id: str
    xp: int
    title_ko: str
    title_en: str


TIER_BEAT_FRAMEWORK = Tier("beat_framework", 30, "프레임워크 추월", "Beat the framework")
TIER_PEAK_50 = Tier("peak_50", 20, "피크 대역폭 50%", "50% of peak bandwidth")
TIER_PEAK_80 = Tier("peak_80", 40, "피크 대역폭 80%", "80% of peak bandwidth")
TIERS = (TIER_BEAT_FRAMEWORK, TIER_PEAK_50, TIER_PEAK_80)


@dataclass(frozen=True)
class Level:
    number: int
    min_xp: int
    title_ko: str
    title_en: str


# Level 0 starts at 0 XP; level 1 is reached at 100 XP.
LEVELS = (
    Level(0, 0, "입문자", "Beginner"),
    Level(1, 100, "스레드", "Thread"),
    Level(2, 250, "워프", "Warp"),
    Level(3, 500, "블록", "Block"),
    Level(4, 900, "그리드", "Grid"),
    Level(5, 1500, "스트리밍 멀티프로세서", "Streaming Multiprocessor"),
    Level(6, 2400, "텐서 코어", "Tensor Core"),
    Level(7, 3600, "커널 장인", "Kernel Artisan"),
    Level(8, 5200, "루프라인 달인", "Roofline Master"),
    Level(9, 7500, "커널 도장 사범", "Dojo Master"),
)


def exercise_xp(difficulty: str, explicit_xp: int | None = None) -> int:
    """XP for a first acceptance: the exercise's own `xp`, else by difficulty."""
    if explicit_xp:
        return int(explicit_xp)
    return DIFFICULTY_XP.get(difficulty, DIFFICULTY_XP["easy"])


FURTHER_LANGUAGE_SHARE = 0.5


def further_language_xp(full_xp: int) -> int:
    """What an award already earned in another kernel language gives in this one."""
    return int(full_xp * FURTHER_LANGUAGE_SHARE)


def language_key(key: str, language: str) -> str:
    """The award key of a further language: `exercise:<id>@triton` (the first holds `key`)."""
    return f"{key}@{language}"


def awarded_exercise(key: str) -> str | None:
    """The exercise an award's key belongs to: `exercise:<id>` and `tier:<id>:<tier>`, each
    with or without `@<language>`; None for a lesson's, an override's or any other key."""
    base = key.partition("@")[0]
    kind, _, rest = base.partition(":")
    if kind == "exercise" and rest:
        return rest
    if kind == "tier" and ":" in rest:
        return rest.rpartition(":")[0]
    return None


def language_award(full_xp: int, earned: Mapping[str, int], language: str) -> tuple[str, int]:
    """What an exercise worth `full_xp` brings in `language`, given what each language has
    earned on it (`{language: XP of its acceptance and speed tiers}`): ("earned", that XP)
    once `language` has earned; else ("full", full_xp) while no language has; else
    ("share", further_language_xp(full_xp)). The lesson page's XP badge says this."""
    if earned.get(language, 0) > 0:
        return "earned", earned[language]
    if any(xp > 0 for xp in earned.values()):
        return "share", further_language_xp(full_xp)
    return "full", full_xp


def level_for(xp: int) -> Level:
    current = LEVELS[0]
    for level in LEVELS:
        if xp >= level.min_xp:
            current = level
    return current


def next_level(xp: int) -> Level | None:
    for level in LEVELS:
        if level.min_xp > xp:
            return level
    return None


def tiers_reached(result: dict[str, Any]) -> list[Tier]:
    """Speed tiers an accepted result earns, from its benchmark (GPU only)."""
    if result.get("verdict") != "accepted" or not targets.timed(result.get("backend")):
        return []
    if (result.get("benchmark") or {}).get("refused"):
        return []  # a time below the GPU's physical floor earns nothing (#26)
    sizes = (result.get("benchmark") or {}).get("sizes") or []
    if not sizes:
        return []
    largest = sizes[-1]
    reached: list[Tier] = []
    framework_ms = (largest.get("baselines") or {}).get("framework")
    ms = largest.get("ms")
    if framework_ms and ms and ms <= framework_ms:
        reached.append(TIER_BEAT_FRAMEWORK)
    pct = largest.get("pct_of_peak") or 0.0
    if pct >= 50.0:
        reached.append(TIER_PEAK_50)
    if pct >= 80.0:
        reached.append(TIER_PEAK_80)
    return reached
