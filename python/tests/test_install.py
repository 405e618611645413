"""`pip install ./python` works offline in a venv (python3-venv, no PyPI)."""

from __future__ import annotations

import os
import subprocess
import sys
import zipfile

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


def test_pip_install_editable(tmp_path, real_binary):
    venv = tmp_path / "venv"
    r = subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", str(venv)], capture_output=True, text=True)
    assert r.returncode == 0, f"no venv here (Debian: apt-get install python3-venv): {r.stderr.strip()[-200:]}"
    py = venv / "bin" / "python"
    env = dict(os.environ, PIP_NO_INDEX="1", PIP_DISABLE_PIP_VERSION_CHECK="1", POLYVOL_BIN=real_binary)
    env.pop("PYTHONPATH", None)
    r = subprocess.run([str(py), "-m", "pip", "install", "-e", str(PYTHON_DIR)], capture_output=True, text=True, env=env, cwd=tmp_path)
    assert r.returncode == 0, r.stdout + r.stderr
    code = "import polyvol, polyvol.replay; print(polyvol.__file__)"
    r = subprocess.run([str(py), "-c", code], capture_output=True, text=True, env=env, cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == str(PYTHON_DIR / "polyvol" / "__init__.py")  # this tree, not a copy


def test_wheel_declares_the_extras(tmp_path):
    # The extras the docs offer (pip install './python[test]') are in the
    # wheel's metadata, as pyproject.toml declares them.
    sys.path.insert(0, str(PYTHON_DIR / "_build"))
    try:
        import polyvol_build
    finally:
        sys.path.pop(0)
    name = polyvol_build.build_wheel(str(tmp_path))
    with zipfile.ZipFile(tmp_path / name) as whl:
        names = whl.namelist()
        meta = whl.read(next(n for n in names if n.endswith(".dist-info/METADATA"))).decode()
    assert "Provides-Extra: test\n" in meta and 'Requires-Dist: pytest; extra == "test"\n' in meta
    assert "Provides-Extra: pandas\n" in meta and 'Requires-Dist: pandas; extra == "pandas"\n' in meta
    assert "polyvol/replay.py" in names
