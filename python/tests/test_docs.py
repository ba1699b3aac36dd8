"""The Python lines of README.md and python/README.md run as written: each `python -c '...'` line of the README's
Python block in a process of its own, and python/README.md's example block as a script. (The `pip install` lines
are what `./dev test` does before this; the README's Dask line is the example that
test_pandas_dask.py::test_dask_example_on_two_worker_processes runs, with fewer rows.)"""

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def blocks(path: Path, lang: str):
    """The fenced blocks of `path` whose info string is `lang`, as text."""
    if not path.exists():  # pragma: no cover (a package installed away from its source tree)
        pytest.skip(f"no {path}")
    text = path.read_text()
    return re.findall(rf"^```{lang}\n(.*?)^```$", text, re.S | re.M)


def readme_python_lines():
    """The `python -c '...'` commands of the README's shell blocks (as argument lists, comments dropped)."""
    out = []
    for block in blocks(ROOT / "README.md", "sh"):
        for line in block.splitlines():
            if line.startswith("python -c "):
                out.append(shlex.split(line, comments=True))
    return out


def test_the_readme_has_python_lines():
    # The README's Python section: at least sort, argsort and pandas.
    assert len(readme_python_lines()) >= 3


@pytest.mark.parametrize("argv", readme_python_lines(), ids=lambda a: a[2][:40])
def test_readme_python_line_runs(argv):
    r = subprocess.run(
        [sys.executable] + argv[1:], capture_output=True, text=True, timeout=300, env=dict(os.environ)
    )
    assert r.returncode == 0, f"{' '.join(argv)}\n{r.stdout}{r.stderr}"


def test_package_readme_example_runs():
    (code,) = blocks(ROOT / "python" / "README.md", "python")
    r = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=300, env=dict(os.environ)
    )
    assert r.returncode == 0, r.stdout + r.stderr


def test_the_bench_runs():
    """python/README.md's `python -m vksort.bench` line, at 10^3 and 10^4 keys (its own sizes take minutes on
    lavapipe): it exits 0 and prints a row per size and dtype."""
    r = subprocess.run(
        [sys.executable, "-m", "vksort.bench", "--sizes", "1e3,1e4", "--dtypes", "uint32,int64", "--repeat", "1"],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert r.returncode == 0, r.stderr
    for row in ("| 1,000 | uint32 |", "| 10,000 | uint32 |", "| 1,000 | int64 |", "| 10,000 | int64 |"):
        assert row in r.stdout, r.stdout
