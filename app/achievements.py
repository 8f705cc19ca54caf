"""The 12 achievements, defined here and nowhere else.

Each is a predicate over `LearnerStats`, a snapshot the services compute from
the database after a verdict, a comment or a bug report. Unlocking is
idempotent: `user_achievements` has a unique (user, achievement) index.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field


@dataclass(frozen=True)
class LearnerStats:
    accepted_exercises: int = 0  # distinct exercises accepted (submit mode)
    lessons_done: int = 0
    tracks_done: int = 0
    hard_accepted: int = 0
    first_try_accepts: int = 0  # exercises accepted on their first submit
    max_failures_before_accept: int = 0  # most failed submits on one exercise before it passed
    compile_error_then_accepted: bool = False
    beat_framework: bool = False
    best_pct_of_peak: float = 0.0
    comments: int = 0
    replies_received: int = 0
    bug_reports: int = 0
    xp: int = 0
    extra: dict[str, int] = field(default_factory=dict)


@dataclass(frozen=True)
class Achievement:
    id: str
    title_ko: str
    title_en: str
    description_ko: str
    description_en: str
    unlocked: Callable[[LearnerStats], bool]
    gpu_only: bool = False  # needs a GPU's timings: a server judging on the emulator says so (#28)


ACHIEVEMENTS: tuple[Achievement, ...] = (
    Achievement("first_kernel", "첫 커널", "First kernel",
                "처음으로 연습 문제를 통과했다.", "Pass your first exercise.",
                lambda s: s.accepted_exercises >= 1),
    Achievement("first_try", "한 번에", "First try",
                "첫 제출에 통과했다.", "Pass an exercise on its first submit.",
                lambda s: s.first_try_accepts >= 1),
    Achievement("persistent", "끈기", "Persistence",
                "세 번 이상 실패한 뒤 통과했다.", "Pass an exercise after 3 or more failed submits.",
                lambda s: s.max_failures_before_accept >= 3),
    Achievement("from_the_ashes", "재기", "From the ashes",
                "컴파일 오류를 고쳐 통과했다.", "Pass an exercise after a compile error on it.",
                lambda s: s.compile_error_then_accepted),
    Achievement("five_exercises", "다섯 개", "Five down",
                "연습 문제 5개를 통과했다.", "Pass 5 exercises.",
                lambda s: s.accepted_exercises >= 5),
    Achievement("first_lesson", "첫 레슨 완료", "Lesson complete",
                "레슨 하나의 연습 문제를 모두 통과했다.", "Complete every exercise of a lesson.",
                lambda s: s.lessons_done >= 1),
    Achievement("track_complete", "트랙 완주", "Track complete",
                "한 트랙의 레슨을 모두 마쳤다.", "Complete every lesson of a track.",
                lambda s: s.tracks_done >= 1),
    Achievement("hard_mode", "고난도", "Hard mode",
                "어려움 난이도 연습 문제를 통과했다.", "Pass a hard exercise.",
                lambda s: s.hard_accepted >= 1),
    Achievement("beat_framework", "프레임워크 추월", "Faster than the framework",
                "GPU에서 프레임워크 기준선보다 빨랐다.", "Beat the framework baseline on a GPU.",
                lambda s: s.beat_framework, gpu_only=True),
    # pct_of_peak exists only for exercises with a byte model (bandwidth-bound), and
    # only an accepted GPU result counts (app.services.awards._largest_pct)
    Achievement("roofline_80", "루프라인 근처", "Near the roofline",
                "대역폭이 한계인 연습 문제를 GPU에서 피크 대역폭의 80% 이상으로 통과했다.",
                "Pass a bandwidth-bound exercise at 80% or more of peak bandwidth on a GPU.",
                lambda s: s.best_pct_of_peak >= 80.0, gpu_only=True),
    Achievement("helpful", "대화 시작", "Conversation starter",
                "댓글에 답글을 받았다.", "Receive a reply to one of your comments.",
                lambda s: s.replies_received >= 1),
    Achievement("bug_hunter", "버그 사냥꾼", "Bug hunter",
                "문제를 신고했다.", "Report a problem with a lesson.",
                lambda s: s.bug_reports >= 1),
)

BY_ID = {a.id: a for a in ACHIEVEMENTS}


def unlocked_ids(stats: LearnerStats) -> list[str]:
    return [a.id for a in ACHIEVEMENTS if a.unlocked(stats)]
