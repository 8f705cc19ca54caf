"""`kdojo lessons new <id>`: a lesson folder that already validates.

The scaffold is a tiny working exercise (`y[i] = 3 x[i] + 1`): an author replaces
it piece by piece and runs `kdojo lessons validate` after each step.
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

ID_RE = re.compile(r"^[a-z0-9][a-z0-9-]{0,62}$")
EXERCISE = "affine"


class ScaffoldError(ValueError):
    pass


def _orders(lessons_dir: Path) -> dict[int, tuple[str, str]]:
    """Every order in use under `lessons_dir`: order -> (track, folder name).

    Folders are named by their order (`NN-id`), so an order is taken once in
    the whole lessons folder, whichever track holds it."""
    taken: dict[int, tuple[str, str]] = {}
    for toml in sorted(lessons_dir.glob("*/lesson.toml")):
        try:
            data = tomllib.loads(toml.read_text(encoding="utf-8"))
        except (OSError, tomllib.TOMLDecodeError, UnicodeDecodeError):
            continue
        if isinstance(data.get("order"), int):
            taken.setdefault(data["order"], (str(data.get("track", "")), toml.parent.name))
    return taken


def pick_order(lessons_dir: Path, track: str, wanted: int | None = None) -> int:
    """`wanted` when no lesson has it; else the first free order after the
    track's last lesson (so the new lesson comes last in its track)."""
    taken = _orders(lessons_dir)
    if wanted is not None:
        if wanted < 1:
            raise ScaffoldError(f"order {wanted}: must be 1 or more")
        if wanted in taken:
            other_track, folder = taken[wanted]
            raise ScaffoldError(f"order {wanted} is taken by {folder} (track {other_track!r}); "
                                "leave --order out to take the next free one")
        return wanted
    order = max([o for o, (t, _) in taken.items() if t == track], default=0) + 1
    while order in taken:
        order += 1
    return order


def _files(lesson_id: str, track: str, order: int) -> dict[str, str]:
    ex_id = f"{lesson_id}.{EXERCISE}"
    e = f"exercises/{EXERCISE}"
    return {
        "lesson.toml": LESSON_TOML.format(id=lesson_id, track=track, order=order, exercise=EXERCISE),
        "ko.md": KO_MD.format(id=lesson_id),
        "en.md": EN_MD.format(id=lesson_id),
        f"{e}/exercise.toml": EXERCISE_TOML.format(id=ex_id),
        f"{e}/reference.py": REFERENCE_PY.format(id=ex_id),
        f"{e}/instructions.ko.md": INSTRUCTIONS_KO,
        f"{e}/instructions.en.md": INSTRUCTIONS_EN,
        f"{e}/starter.cu": STARTER_CU,
        f"{e}/reference.cu": REFERENCE_CU,
        f"{e}/solutions/correct/grid_stride.cu": CORRECT_CU,
        f"{e}/solutions/wrong/missing_bounds_check.cu": WRONG_BOUNDS_CU,
        f"{e}/solutions/wrong/forgets_the_offset.cu": WRONG_OFFSET_CU,
    }


def create(lessons_dir: Path, lesson_id: str, track: str = "foundations", order: int | None = None) -> Path:
    """Write the folder `<lessons_dir>/<NN>-<id>/` (`NN`: `order`, or the next
    free one, `pick_order`); returns it. Raises ScaffoldError."""
    from app.content.translation import stamp

    if not ID_RE.match(lesson_id):
        raise ScaffoldError(f"lesson id {lesson_id!r}: use lower-case letters, digits and '-'")
    if not ID_RE.match(track):
        raise ScaffoldError(f"track {track!r}: use lower-case letters, digits and '-'")
    if not lessons_dir.is_dir():
        raise ScaffoldError(f"{lessons_dir}: no such folder")
    if any(p.name.split("-", 1)[-1] == lesson_id for p in lessons_dir.iterdir() if p.is_dir()):
        raise ScaffoldError(f"{lessons_dir}: a folder for {lesson_id!r} already exists")
    order = pick_order(lessons_dir, track, order)
    folder = lessons_dir / f"{order:02d}-{lesson_id}"
    for relative, text in _files(lesson_id, track, order).items():
        path = folder / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    stamp(folder)
    return folder


LESSON_TOML = '''id = "{id}"
track = "{track}"
order = {order}
minutes = 10
tags = ["{id}"]
difficulty = "easy"           # easy | medium | hard
xp = 20                       # lesson-completion XP
prerequisites = []            # lesson ids
status = "draft"              # draft (instructors and admins only) | published
exercises = ["{exercise}"]
'''

KO_MD = '''+++
title = "{id} (제목을 쓰세요)"
summary = "이 레슨에서 배우는 것을 한 문장으로."
+++

## 무엇을, 왜

여기에 설명을 씁니다. 코드 블록은 두 언어에서 똑같이 둡니다.

```cuda
int i = blockIdx.x * blockDim.x + threadIdx.x;
```
'''

EN_MD = '''+++
title = "{id} (write the title)"
summary = "What this lesson teaches, in one sentence."
+++

## What and why

Write the lesson here. Code blocks stay identical in both languages.

```cuda
int i = blockIdx.x * blockDim.x + threadIdx.x;
```
'''

EXERCISE_TOML = '''# y = 3 x + 1 over N floats: replace with your exercise (docs/architecture.md, "The exercise spec").
id = "{id}"
title = {{ ko = "아핀 변환", en = "Affine map" }}
difficulty = "easy"
xp = 20
hints = {{ ko = ["전역 인덱스는 blockIdx.x * blockDim.x + threadIdx.x입니다."], en = ["The global index is blockIdx.x * blockDim.x + threadIdx.x."] }}

[[kernels]]
name = "affine"
signature = "const float* x, float* y, int N"

[dims]
names = ["N"]

[[buffers]]
name = "x"
dtype = "float32"
shape = ["N"]
role = "in"

[[buffers]]
name = "y"
dtype = "float32"
shape = ["N"]
role = "out"

[[launch]]
kernel = "affine"
grid = "ceil_div(N, 256)"
block = 256
args = ["x", "y", "N"]

[check]
rtol = 1e-5
atol = 1e-6

[tests]
sizes = [1, 2, 3, 4, 255, 256, 1000, 4097, 65536]

[benchmark]
sizes = [1048576, 16777216]
bytes = "8 * N"
'''

REFERENCE_PY = '''"""Trusted inputs and the fp64 reference for {id}."""

from __future__ import annotations

import numpy as np


def generate(case, rng):
    # Values in [0.5, 2.5): the expected output is never ~0, so zeros cannot pass.
    n = int(case["N"])
    return {{"x": rng.random(n, dtype=np.float32) * np.float32(2.0) + np.float32(0.5)}}


def reference(inputs, case):
    return {{"y": 3.0 * inputs["x"].astype(np.float64) + 1.0}}
'''

INSTRUCTIONS_KO = '''`affine(const float* x, float* y, int N)`를 작성하세요: `[0, N)`의 모든 `i`에 대해 `y[i] = 3 * x[i] + 1`.

블록마다 256개 thread, `ceil_div(N, 256)`개 블록으로 실행됩니다.
'''

INSTRUCTIONS_EN = '''Write `affine(const float* x, float* y, int N)`: for every `i` in `[0, N)`, `y[i] = 3 * x[i] + 1`.

It is launched with blocks of 256 threads, `ceil_div(N, 256)` of them.
'''

STARTER_CU = '''// y[i] = 3 * x[i] + 1 for every i in [0, N).
// Launch: ceil_div(N, 256) blocks of 256 threads.
extern "C" __global__ void affine(const float* x, float* y, int N) {
    // BEGIN FILL-IN
    // TODO: compute this thread's index and, inside the bounds, write y.
    // END FILL-IN
}
'''

REFERENCE_CU = '''// Reference: one element per thread, with a bounds check.
extern "C" __global__ void affine(const float* x, float* y, int N) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < N) {
        y[i] = 3.0f * x[i] + 1.0f;
    }
}
'''

CORRECT_CU = '''// Correct: a grid-stride loop (works for any grid size).
extern "C" __global__ void affine(const float* x, float* y, int N) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < N; i += gridDim.x * blockDim.x) {
        y[i] = fmaf(3.0f, x[i], 1.0f);
    }
}
'''

WRONG_BOUNDS_CU = '''// Wrong: no bounds check; the last block writes past the end of y.
extern "C" __global__ void affine(const float* x, float* y, int N) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    y[i] = 3.0f * x[i] + 1.0f;
}
'''

WRONG_OFFSET_CU = '''// Wrong: forgets the + 1.
extern "C" __global__ void affine(const float* x, float* y, int N) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < N) {
        y[i] = 3.0f * x[i];
    }
}
'''
