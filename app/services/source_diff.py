"""What changed between two of a learner's attempts (#28): a unified line diff of
the submitted sources, for the attempts list and /me."""

from __future__ import annotations

import difflib

CONTEXT_LINES = 2
# A diff longer than this many lines is cut (two sources of the size limit can differ
# on every line); the learner still has both sources in full.
MAX_DIFF_LINES = 400


def source_diff(previous: str | None, current: str) -> str | None:
    """`current` against `previous` as unified-diff lines without the file header;
    None without a previous attempt, "" when the sources are the same."""
    if previous is None:
        return None
    lines = list(difflib.unified_diff(previous.splitlines(), current.splitlines(), lineterm="", n=CONTEXT_LINES))
    body = lines[2:]  # the "---"/"+++" header names no files here
    if len(body) > MAX_DIFF_LINES:
        body = body[:MAX_DIFF_LINES] + ["…"]
    return "\n".join(body)
