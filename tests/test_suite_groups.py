"""The suite's own grouping (#30): under `./dev test`'s `--dist loadgroup`, the tests of a
module that share a module-scoped fixture run on one worker, so the fixture (a server, a
browser, a judged corpus) is built once. pytest 9 with pytest-xdist 3.8 dropped the groups
without a word and each worker built every such fixture again; this runs a small suite
through pytest-xdist with tests/conftest.py's hook and looks at which process ran what."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]

SHARED = textwrap.dedent('''
    import os
    import pytest

    @pytest.fixture(scope="module")
    def built(tmp_path_factory):
        (OUT / f"built-{os.getpid()}").write_text("")
        return os.getpid()

    @pytest.mark.parametrize("k", range(8))
    def test_shared(built, k):
        (OUT / f"ran-shared-{k}-{os.getpid()}").write_text("")

    @pytest.mark.parametrize("k", range(8))
    def test_alone(k):
        import time
        time.sleep(0.05)
''')


def test_a_modules_shared_fixture_is_built_once_across_workers(tmp_path: Path) -> None:
    pytest.importorskip("xdist")
    out = tmp_path / "out"
    out.mkdir()
    suite = tmp_path / "suite"
    suite.mkdir()
    (suite / "conftest.py").write_text(
        f"import sys\nsys.path.insert(0, {str(REPO)!r})\n"
        "from tests.conftest import pytest_collection_modifyitems  # noqa: F401  the hook under test\n")
    (suite / "test_grouped.py").write_text(f"from pathlib import Path\nOUT = Path({str(out)!r})\n" + SHARED)
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-n", "3",
                           "--dist", "loadgroup", "--rootdir", str(suite), str(suite)],
                          capture_output=True, text=True, timeout=120, cwd=suite)
    assert done.returncode == 0, done.stdout + done.stderr
    built = list(out.glob("built-*"))
    ran_in = {path.name.rsplit("-", 1)[1] for path in out.glob("ran-shared-*")}
    assert len(list(out.glob("ran-shared-*"))) == 8
    assert len(built) == 1, f"the module fixture was built in {len(built)} workers"
    assert ran_in == {built[0].name.split("-", 1)[1]}
