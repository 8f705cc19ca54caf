"""Starter drift: the scaffold outside `// BEGIN FILL-IN` … `// END FILL-IN` must match
the reference token by token (comments and white space do not count)."""

from __future__ import annotations

import pytest

from app.authoring.drift import MarkerError, drift, scaffold

STARTER = '''// Starter comment that the reference need not repeat.
// FILL-IN: helper functions, if you want them
extern "C" __global__ void f(const float* x, float* y, int N) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    // BEGIN FILL-IN
    // TODO
    // END FILL-IN
}
'''
REFERENCE = '''/* reference */ __device__ float g(float v) { return 2 * v; }
extern "C" __global__ void f(const float* x, float* y, int N) {
    int i = blockIdx.x * blockDim.x
          + threadIdx.x;   // split over two lines: still the same tokens
    if (i < N) y[i] = g(x[i]);
}
'''


def test_matching_scaffold_passes():
    assert drift(STARTER, REFERENCE) is None


@pytest.mark.parametrize(("change", "line"), [
    (("float* y", "double* y"), 3),           # a parameter's type
    (("int N)", "int n)"), 3),                # a parameter's name
    (("int i = blockIdx.x", "int j = blockIdx.x"), 4),  # a setup line
])
def test_a_drifted_reference_names_the_starter_line(change, line):
    message = drift(STARTER, REFERENCE.replace(*change))
    assert message is not None and message.startswith(f"line {line}:")


def test_a_missing_closing_brace_is_drift():
    assert drift(STARTER, REFERENCE.rstrip().rstrip("}")) is not None


@pytest.mark.parametrize(("starter", "words"), [
    ("int a;\n// BEGIN FILL-IN\n", "never closed"),
    ("// END FILL-IN\n", "without a `// BEGIN FILL-IN`"),
    ("// BEGIN FILL-IN\n// BEGIN FILL-IN\n// END FILL-IN\n", "inside the region opened on line 1"),
    ("int a;\n", "no fill-in region"),
])
def test_bad_markers_are_refused(starter, words):
    with pytest.raises(MarkerError, match=words.replace("(", r"\(")):
        scaffold(starter)


def test_comments_inside_strings_are_kept():
    runs = scaffold('const char* s = "// not a comment";\n// BEGIN FILL-IN\n// END FILL-IN\n')
    assert '"// not a comment"' in [t.text for t in runs[0]]
