"""The kernel languages the site offers (#29): what a page and the API say of each.

The judge's registry (`kernels.languages.get(name)`: `title`, `suffix`, `editor_mode`)
is the authority; this table holds the same facts for the web, which needs them
without importing a language's toolchain (a page render must not import Triton).
`tests/web/test_language_seam.py` checks the two agree.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class LanguageInfo:
    name: str  # "cuda" | "triton": the API's and the database's value
    title: str  # what the learner reads on the selector ("CUDA C++")
    suffix: str  # an exercise folder's file suffix: starter<suffix>, reference<suffix>
    editor_mode: str  # KDojoEditor's mode: "cuda" (C++ highlighting) | "python"

    @property
    def instructions_stem(self) -> str:
        """`instructions.<lang>.md` for CUDA, `instructions.triton.<lang>.md` otherwise."""
        return "instructions" if self.name == DEFAULT_LANGUAGE else f"instructions.{self.name}"


DEFAULT_LANGUAGE = "cuda"  # every submission before #29, and what a request without `language` means

LANGUAGES: dict[str, LanguageInfo] = {
    "cuda": LanguageInfo("cuda", "CUDA C++", ".cu", "cuda"),
    "triton": LanguageInfo("triton", "Triton", ".triton.py", "python"),
}


def language_info(name: str) -> LanguageInfo | None:
    return LANGUAGES.get(name)
