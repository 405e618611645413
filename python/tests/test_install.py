"""`pip install ./python` works offline in a venv (python3-venv, no PyPI)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from conftest import PYTHON_DIR


def test_pip_install_offline(tmp_path, real_binary):
    venv = tmp_path / "venv"
    r = subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", str(venv)], capture_output=True, text=True)
    assert r.returncode == 0, f"no venv here (Debian: apt-get install python3-venv): {r.stderr.strip()[-200:]}"
    py = venv / "bin" / "python"
    env = dict(os.environ, PIP_NO_INDEX="1", PIP_DISABLE_PIP_VERSION_CHECK="1", POLYVOL_BIN=real_binary)
    env.pop("PYTHONPATH", None)
    r = subprocess.run([str(py), "-m", "pip", "install", str(PYTHON_DIR)], capture_output=True, text=True, env=env, cwd=tmp_path)
    assert r.returncode == 0, r.stdout + r.stderr
    code = "import polyvol, polyvol.tuner; print(polyvol.__file__); print(polyvol.predict('vec-copy').limiter)"
    r = subprocess.run([str(py), "-c", code], capture_output=True, text=True, env=env, cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    where, limiter = r.stdout.split()
    assert where.startswith(str(venv))  # the installed copy, not this tree
    assert limiter == "DRAM"  # a streaming copy is DRAM-bound
