"""Shared fixtures. The tests run the real polyvol binary, found as the
package finds it: POLYVOL_BIN (make test sets it to bin/polyvol), polyvol on
PATH, or a go build of this repository."""

from __future__ import annotations

import os
import stat
import sys
from pathlib import Path

import pytest

PYTHON_DIR = Path(__file__).resolve().parent.parent
REPO = PYTHON_DIR.parent
sys.path.insert(0, str(PYTHON_DIR))  # the package of this tree, installed or not

import polyvol  # noqa: E402

# The tests count the instruction mix unless they choose one: a compile per
# distinct kernel would take minutes.
os.environ.setdefault("POLYVOL_INSTRUCTIONS", "counted")


@pytest.fixture(scope="session")
def real_binary() -> str:
    argv = polyvol.binary()
    assert len(argv) == 1
    return argv[0]


@pytest.fixture
def logging_binary(tmp_path, monkeypatch, real_binary):
    """POLYVOL_BIN set to a wrapper that logs each call's arguments, one
    line per call, and runs the real binary; yields the log's path."""
    log = tmp_path / "calls.log"
    wrapper = tmp_path / "polyvol-logged"
    wrapper.write_text(f'#!/bin/sh\necho "$*" >> "{log}"\nexec "{real_binary}" "$@"\n')
    wrapper.chmod(wrapper.stat().st_mode | stat.S_IXUSR)
    monkeypatch.setenv("POLYVOL_BIN", str(wrapper))
    yield log


def calls(log: Path) -> list:
    return log.read_text().splitlines() if log.exists() else []



def request_wrapper(tmp_path: Path, real_binary: str) -> tuple:
    """A wrapper of the real binary that logs each call's arguments, one
    line per call, and the lines it is sent on standard input (the requests
    of polyvol serve --stdio); returns the wrapper's, the arguments' and
    the requests' paths."""
    args, lines = tmp_path / "session-calls.log", tmp_path / "session-requests.log"
    wrapper = tmp_path / "polyvol-requests"
    wrapper.write_text(f'#!/bin/sh\necho "$*" >> "{args}"\ntee -a "{lines}" | "{real_binary}" "$@"\n')
    wrapper.chmod(0o755)
    return wrapper, args, lines


@pytest.fixture
def request_log(tmp_path, monkeypatch, real_binary):
    """POLYVOL_BIN set to request_wrapper's wrapper; yields the paths of its
    two logs."""
    wrapper, args, lines = request_wrapper(tmp_path, real_binary)
    monkeypatch.setenv("POLYVOL_BIN", str(wrapper))
    yield args, lines
