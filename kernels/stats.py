"""Statistics for timings: summaries, relative standard error, geometric mean."""

from __future__ import annotations

import math
from dataclasses import dataclass


@dataclass(frozen=True)
class Summary:
    """Times in milliseconds."""

    median_ms: float
    mean_ms: float
    err_ms: float  # standard error of the mean
    best_ms: float
    reps: int
    median_err_ms: float = math.inf  # standard error of the median, robust to outliers

    @property
    def rse(self) -> float:
        """Relative standard error of the median, the number the judge reports.

        One stalled sample (a context switch, a clock change) can make the mean's
        standard error as large as the mean itself; the median's, estimated from the
        median absolute deviation, barely moves."""
        return self.median_err_ms / self.median_ms if self.median_ms > 0 else math.inf


def median(values: list[float]) -> float:
    ordered = sorted(values)
    n = len(ordered)
    if n == 0:
        raise ValueError("median of nothing")
    mid = n // 2
    return ordered[mid] if n % 2 else (ordered[mid - 1] + ordered[mid]) / 2


def summarize(times_ms: list[float]) -> Summary:
    n = len(times_ms)
    if n == 0:
        raise ValueError("no samples")
    mean = sum(times_ms) / n
    var = sum((t - mean) ** 2 for t in times_ms) / (n - 1) if n > 1 else 0.0
    err = math.sqrt(var / n) if n > 1 else math.inf
    mid = median(times_ms)
    return Summary(mid, mean, err, min(times_ms), n, median_standard_error(times_ms, mid))


# sigma = 1.4826 MAD for normal samples; the median's standard error is sqrt(pi/2) sigma / sqrt(n)
_MAD_TO_SIGMA = 1.4826
_MEDIAN_SE_FACTOR = math.sqrt(math.pi / 2)


def median_standard_error(times_ms: list[float], mid: float | None = None) -> float:
    """Standard error of the median from the median absolute deviation (inf below 2 samples)."""
    n = len(times_ms)
    if n < 2:
        return math.inf
    mid = median(times_ms) if mid is None else mid
    mad = median([abs(t - mid) for t in times_ms])
    return _MEDIAN_SE_FACTOR * _MAD_TO_SIGMA * mad / math.sqrt(n)


def relative_standard_error(times_ms: list[float]) -> float:
    return summarize(times_ms).rse if len(times_ms) > 1 else math.inf


def geomean(values: list[float]) -> float:
    if not values or any(v <= 0 for v in values):
        raise ValueError("geometric mean needs positive values")
    return math.exp(sum(math.log(v) for v in values) / len(values))


def coefficient_of_variation(values: list[float]) -> float:
    n = len(values)
    if n < 2:
        return 0.0
    mean = sum(values) / n
    return math.sqrt(sum((v - mean) ** 2 for v in values) / (n - 1)) / mean
