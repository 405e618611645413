"""A PEP 517 build backend in the standard library only.

`pip install ./python` builds in an isolated environment into which pip
would first download the backend named in pyproject.toml (setuptools) from
PyPI; with this in-tree backend (`backend-path`) nothing is downloaded, so
the install works offline. It builds a pure-Python wheel of the package
`polyvol`, an editable wheel (`pip install -e ./python`: a .pth file that
puts this directory on sys.path, PEP 660) and an sdist of this directory.
"""

from __future__ import annotations

import base64
import hashlib
import io
import os
import re
import tarfile
import zipfile

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PACKAGE = "polyvol"


def _project() -> dict:
    with open(os.path.join(HERE, "pyproject.toml"), encoding="utf-8") as f:
        text = f.read()
    project = text.split("[project]", 1)[1].split("\n[", 1)[0]
    out = {}
    for key in ("name", "version", "description", "requires-python"):
        m = re.search(rf'^{re.escape(key)}\s*=\s*"([^"]*)"', project, flags=re.M)
        if m:
            out[key] = m.group(1)
    return out


def _extras() -> dict:
    """The [project.optional-dependencies] of pyproject.toml: each extra's
    requirements, from lines `name = ["req", ...]`."""
    with open(os.path.join(HERE, "pyproject.toml"), encoding="utf-8") as f:
        text = f.read()
    if "[project.optional-dependencies]" not in text:
        return {}
    table = text.split("[project.optional-dependencies]", 1)[1].split("\n[", 1)[0]
    extras = {}
    for m in re.finditer(r"^([A-Za-z0-9_.-]+)\s*=\s*\[([^\]]*)\]", table, flags=re.M):
        extras[m.group(1)] = re.findall(r'"([^"]+)"', m.group(2))
    return extras


def _metadata() -> str:
    p = _project()
    lines = [
        "Metadata-Version: 2.1",
        f"Name: {p['name']}",
        f"Version: {p['version']}",
        f"Summary: {p.get('description', '')}",
        "License: Apache-2.0",
        f"Requires-Python: {p.get('requires-python', '>=3.9')}",
    ]
    for extra, reqs in _extras().items():
        lines.append(f"Provides-Extra: {extra}")
        lines += [f'Requires-Dist: {r}; extra == "{extra}"' for r in reqs]
    readme = os.path.join(HERE, "README.md")
    body = ""
    if os.path.exists(readme):
        lines.append("Description-Content-Type: text/markdown")
        with open(readme, encoding="utf-8") as f:
            body = "\n" + f.read()
    return "\n".join(lines) + "\n" + body


def _files():
    pkg = os.path.join(HERE, PACKAGE)
    for name in sorted(os.listdir(pkg)):
        if name.endswith(".py") or name == "py.typed":
            yield f"{PACKAGE}/{name}", os.path.join(pkg, name)


def _digest(data: bytes) -> str:
    return "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()


def get_requires_for_build_wheel(config_settings=None):
    return []


def get_requires_for_build_sdist(config_settings=None):
    return []


def get_requires_for_build_editable(config_settings=None):
    return []


def _wheel(wheel_directory: str, contents) -> str:
    """Writes the wheel of contents, (archive name, bytes) pairs, with its
    metadata, and returns its file name."""
    p = _project()
    dist = f"{p['name']}-{p['version']}"
    name = f"{dist}-py3-none-any.whl"
    records = []
    with zipfile.ZipFile(os.path.join(wheel_directory, name), "w", zipfile.ZIP_DEFLATED) as whl:

        def add(arc: str, data: bytes) -> None:
            whl.writestr(arc, data)
            records.append(f"{arc},{_digest(data)},{len(data)}")

        for arc, data in contents:
            add(arc, data)
        add(f"{dist}.dist-info/METADATA", _metadata().encode())
        add(f"{dist}.dist-info/WHEEL", b"Wheel-Version: 1.0\nGenerator: polyvol_build\nRoot-Is-Purelib: true\nTag: py3-none-any\n")
        records.append(f"{dist}.dist-info/RECORD,,")
        whl.writestr(f"{dist}.dist-info/RECORD", "\n".join(records) + "\n")
    return name


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    def contents():
        for arc, path in _files():
            with open(path, "rb") as f:
                yield arc, f.read()

    return _wheel(wheel_directory, contents())


def build_editable(wheel_directory, config_settings=None, metadata_directory=None):
    return _wheel(wheel_directory, [(f"__editable__.{PACKAGE}.pth", (HERE + "\n").encode())])


def build_sdist(sdist_directory, config_settings=None):
    p = _project()
    dist = f"{p['name']}-{p['version']}"
    name = f"{dist}.tar.gz"
    with tarfile.open(os.path.join(sdist_directory, name), "w:gz") as tar:
        for rel in ["pyproject.toml", "README.md", "_build/polyvol_build.py"] + [a for a, _ in _files()]:
            path = os.path.join(HERE, rel)
            if os.path.exists(path):
                tar.add(path, arcname=f"{dist}/{rel}")
        info = tarfile.TarInfo(f"{dist}/PKG-INFO")
        data = _metadata().encode()
        info.size = len(data)
        tar.addfile(info, io.BytesIO(data))
    return name
