"""Interface strings of the kernel-language selector and per-language progress (#29),
Korean and English. Merged into `app.i18n_strings.STRINGS` like app/i18n_messages.py.
The languages' own names (CUDA C++, Triton) are names, the same in both."""

from __future__ import annotations

from typing import Any

LANG_KO: dict[str, Any] = {
    "error.language_unknown": "'{language}'은(는) 알 수 없는 언어입니다. {choices} 중에서 고르세요.",
    "error.language_not_offered": "이 연습은 {language}(으)로 풀 수 없습니다. 가능한 언어: {choices}.",
    "exercise.language": "커널 언어",
    "exercise.xp_share": "{xp} XP · 절반 ({languages}에서 이미 통과)",
    "exercise.xp_earned": "{language} 통과 · {xp} XP 받음",
    "exercise.xp_earned_one": "{xp} XP 받음",
    "exercise.languages_note": "이 연습은 여러 언어로 풀 수 있습니다. 언어마다 따로 통과하고, 처음 통과한 언어는 XP 전부를, 그다음 언어는 그 절반을 받습니다.",
    "leaderboard.language": "언어",
    "leaderboard.language_note": "언어마다 따로 순위를 매깁니다.",
    "me.languages": "언어별 진행",
    "table.exercises_done": "통과한 연습",
    "table.language": "언어",
}

LANG_EN: dict[str, Any] = {
    "error.language_unknown": "'{language}' is not a language we judge; choose one of {choices}.",
    "error.language_not_offered": "This exercise cannot be solved in {language}; it can in {choices}.",
    "exercise.language": "Kernel language",
    "exercise.xp_share": "{xp} XP · half: already solved in {languages}",
    "exercise.xp_earned": "Solved in {language} · {xp} XP earned",
    "exercise.xp_earned_one": "{xp} XP earned",
    "exercise.languages_note": "This exercise can be solved in more than one language. Each language is passed on its own: the first earns the full XP, each further one half of it.",
    "leaderboard.language": "Language",
    "leaderboard.language_note": "Each language is ranked on its own.",
    "me.languages": "Progress by language",
    "table.exercises_done": "Exercises passed",
    "table.language": "Language",
}
