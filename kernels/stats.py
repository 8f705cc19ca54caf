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

    @property
    def rse(self) -> float:
        return self.err_ms / self.mean_ms if self.mean_ms > 0 else math.inf


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
    return Summary(median(times_ms), mean, err, min(times_ms), n)


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
