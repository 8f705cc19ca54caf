import math

import pytest

from kernels.stats import coefficient_of_variation, geomean, median, summarize


def test_summary_of_known_samples():
    s = summarize([1.0, 2.0, 3.0, 4.0])
    assert s.median_ms == 2.5
    assert s.mean_ms == 2.5
    assert s.best_ms == 1.0
    assert s.reps == 4
    assert s.err_ms == pytest.approx(math.sqrt((1.5**2 * 2 + 0.5**2 * 2) / 3 / 4))
    # the median's error: |x - 2.5| = 1.5, 0.5, 0.5, 1.5 -> MAD 1.0
    assert s.median_err_ms == pytest.approx(math.sqrt(math.pi / 2) * 1.4826 * 1.0 / 2)
    assert s.rse == pytest.approx(s.median_err_ms / 2.5)


def test_one_stalled_sample_does_not_swamp_the_medians_error():
    # 39 samples near 11 us and one 40x stall: the mean's error is a third of the mean,
    # the median's stays near the spread of the others
    times = [0.011 + 0.0001 * (i % 3) for i in range(39)] + [0.44]
    s = summarize(times)
    assert s.err_ms / s.mean_ms > 0.3
    assert s.rse < 0.01


def test_single_sample_has_infinite_error():
    assert math.isinf(summarize([3.0]).rse)


def test_median_odd_and_empty():
    assert median([5.0, 1.0, 3.0]) == 3.0
    with pytest.raises(ValueError):
        median([])


def test_geomean():
    assert geomean([1.0, 100.0]) == pytest.approx(10.0)
    with pytest.raises(ValueError):
        geomean([1.0, 0.0])


def test_coefficient_of_variation():
    assert coefficient_of_variation([2.0, 2.0, 2.0]) == 0.0
    assert coefficient_of_variation([1.0, 3.0]) == pytest.approx(math.sqrt(2) / 2)
