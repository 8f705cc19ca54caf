"""Capturing what a kernel prints, in the job process.

Device `printf` goes to the process's file descriptor 1. The worker moves its
event channel to a duplicate of fd 1 and points fd 1 at a temporary file;
after each case the backend reads what was added, capped, so a printf flood
costs disk (bounded by the printf FIFO per launch) but never memory or the
event stream.
"""

from __future__ import annotations

import os
import tempfile

CAP_BYTES = 8192


class OutputCapture:
    def __init__(self) -> None:
        self._fd = -1
        self._offset = 0

    def start(self) -> int:
        """Redirect fd 1 (and 2's C-level printf users) to a file; return a new fd
        that still reaches the original stdout (the event channel)."""
        events_fd = os.dup(1)
        self._fd, path = tempfile.mkstemp(prefix="kdojo-out-")
        os.unlink(path)  # lives as long as the descriptor
        os.dup2(self._fd, 1)
        return events_fd

    def read_new(self, cap_bytes: int = CAP_BYTES) -> str:
        """Text printed since the last call, at most `cap_bytes` of it."""
        if self._fd < 0:
            return ""
        end = os.fstat(self._fd).st_size
        data = os.pread(self._fd, min(cap_bytes, max(0, end - self._offset)), self._offset)
        skipped = end - self._offset - len(data)
        self._offset = end
        text = data.decode("utf-8", "replace")
        return text + (f"\n… ({skipped} more bytes not shown)" if skipped > 0 else "")
