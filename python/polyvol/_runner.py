"""Finding and running the polyvol binary (internal).

See the docstring of the :mod:`polyvol` package for why the package runs the
binary rather than linking polyvol or talking to ``polyvol serve``.
"""

from __future__ import annotations

import atexit
import json
import os
import re
import shutil
import signal
import subprocess
import tempfile
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping, Optional, Sequence, Union

__all__ = ["PolyvolError", "binary", "run_json", "spec_argument"]

#: A spec: a mapping (sent as JSON, which polyvol reads as YAML), YAML text,
#: the name of an embedded example, or a path to a spec file.
Spec = Union[Mapping[str, Any], str, "os.PathLike[str]"]

_MODULE = "module github.com/polyvol/polyvol"

# polyvol's user errors: one line "polyvol: FILE:LINE:COL: message", or,
# without a position, "polyvol: message" (docs/guide.md, exit codes). FILE
# holds no ": ", so that a message that quotes a position further on
# ("polyvol: block 128,1,1 ...: k.cu: clang could not compile it for sm_86:
# k.cu:1:1: error: ...") is not read as one.
_POSITIONED = re.compile(r"^polyvol: (?P<file>(?:(?!: ).)+?):(?P<line>\d+):(?P<column>\d+): (?P<message>.*)$")
_EXAMPLE_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")


class PolyvolError(Exception):
    """polyvol refused the input (exit status 2) or failed (exit status 1).

    ``file``, ``line`` and ``column`` are those of the error line
    ``polyvol: FILE:LINE:COL: message`` (``file`` is ``"<stdin>"`` for a spec
    given as a dict or as YAML text); they are ``None`` when polyvol names no
    position (a bad flag, an unknown device). ``message`` is the rest of the
    line, ``returncode`` polyvol's exit status and ``stderr`` all it wrote.
    """

    def __init__(
        self,
        message: str,
        *,
        file: Optional[str] = None,
        line: Optional[int] = None,
        column: Optional[int] = None,
        returncode: int = 2,
        stderr: str = "",
        command: Sequence[str] = (),
    ) -> None:
        self.message = message
        self.file = file
        self.line = line
        self.column = column
        self.returncode = returncode
        self.stderr = stderr
        self.command = list(command)
        where = f"{file}:{line}:{column}: " if file is not None else ""
        super().__init__(where + message)

    @classmethod
    def from_stderr(cls, stderr: str, returncode: int, command: Sequence[str] = ()) -> "PolyvolError":
        """Parses polyvol's error line (the last line that is not a note)."""
        lines = [l for l in stderr.splitlines() if l.strip() and not l.startswith("polyvol: note:")]
        last = lines[-1] if lines else f"polyvol: exit status {returncode}"
        m = _POSITIONED.match(last)
        if m:
            return cls(
                m["message"],
                file=m["file"],
                line=int(m["line"]),
                column=int(m["column"]),
                returncode=returncode,
                stderr=stderr,
                command=command,
            )
        msg = last[len("polyvol: "):] if last.startswith("polyvol: ") else last
        return cls(msg, returncode=returncode, stderr=stderr, command=command)


@dataclass(frozen=True)
class _Binary:
    argv: tuple  # the command prefix that runs polyvol
    how: str  # "POLYVOL_BIN", "PATH" or "go build of REPO"


_lock = threading.Lock()
_built: Optional[_Binary] = None


def _repository() -> Optional[Path]:
    """The polyvol repository this package sits in (python/polyvol/), if any."""
    here = Path(__file__).resolve().parent.parent.parent
    gomod = here / "go.mod"
    try:
        if gomod.is_file() and _MODULE in gomod.read_text(encoding="utf-8").splitlines()[0]:
            return here
    except (OSError, IndexError):
        pass
    return None


def _go() -> Optional[str]:
    go = shutil.which("go")
    if go is None and os.access("/usr/local/go/bin/go", os.X_OK):
        go = "/usr/local/go/bin/go"
    return go


def _resolve() -> _Binary:
    env = os.environ.get("POLYVOL_BIN")
    if env:
        return _Binary((env,), "POLYVOL_BIN")
    found = shutil.which("polyvol")
    if found:
        return _Binary((found,), "PATH")
    global _built
    with _lock:
        if _built is not None:
            return _built
        repo = _repository()
        go = _go()
        if repo is None or go is None:
            raise PolyvolError(
                "polyvol binary not found: set POLYVOL_BIN, put polyvol on PATH "
                "(go install github.com/polyvol/polyvol@latest), or use the package "
                "from within the polyvol repository with Go installed",
                returncode=127,
            )
        # What `go run` does, once per process instead of once per call: the
        # build cache makes it cheap after the first time.
        tmp = tempfile.mkdtemp(prefix="polyvol-python-")
        atexit.register(shutil.rmtree, tmp, ignore_errors=True)
        exe = os.path.join(tmp, "polyvol")
        r = subprocess.run([go, "build", "-o", exe, "."], cwd=repo, capture_output=True, text=True)
        if r.returncode != 0:
            raise PolyvolError(f"go build of {repo} failed: {r.stderr.strip()}", returncode=1, stderr=r.stderr)
        _built = _Binary((exe,), f"go build of {repo}")
        return _built


def binary() -> Sequence[str]:
    """The command prefix that runs polyvol, found as the package docstring says."""
    return _resolve().argv


def spec_argument(spec: Spec) -> tuple:
    """Returns (argument, stdin) for a spec: a path or example name is passed
    as polyvol's SPEC argument (so errors name the file); a mapping (as JSON)
    or YAML text goes to standard input as ``-``."""
    if isinstance(spec, Mapping):
        return "-", json.dumps(spec)
    if isinstance(spec, os.PathLike):
        return os.fspath(spec), None
    if not isinstance(spec, str):
        raise TypeError(f"spec must be a dict, a YAML string, an example name or a path, not {type(spec).__name__}")
    if "\n" not in spec and (os.path.exists(spec) or _EXAMPLE_NAME.match(spec)):
        return spec, None
    return "-", spec


class Result:
    """polyvol's decoded JSON output and its notes (stderr lines ``polyvol: note: ...``)."""

    __slots__ = ("data", "notes")

    def __init__(self, data: Any, notes: list) -> None:
        self.data = data
        self.notes = notes


def _run_group(cmd: Sequence[str], stdin: Optional[str], timeout: Optional[float]) -> subprocess.CompletedProcess:
    """Runs cmd as subprocess.run does, in a session and process group of its
    own, and kills that whole group when ``timeout`` seconds pass
    (subprocess.TimeoutExpired) or anything else interrupts the wait
    (KeyboardInterrupt): polyvol runs its command in a supervised child
    process, which killing polyvol alone would leave running."""
    p = subprocess.Popen(
        cmd,
        stdin=subprocess.DEVNULL if stdin is None else subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    with p:
        try:
            out, err = p.communicate(stdin, timeout=timeout)
        except BaseException:
            if p.returncode is None:  # not reaped: the group's id names no other group
                try:
                    os.killpg(p.pid, signal.SIGKILL)
                except ProcessLookupError:  # the group ended by itself
                    pass
            p.wait()
            raise
    return subprocess.CompletedProcess(cmd, p.returncode, out, err)


def run_json(args: Sequence[str], stdin: Optional[str] = None, timeout: Optional[float] = None) -> Result:
    """Runs polyvol with args (``--format json`` is the caller's) and decodes stdout."""
    cmd = list(binary()) + list(args)
    try:
        r = _run_group(cmd, stdin, timeout)
    except FileNotFoundError as e:
        raise PolyvolError(f"cannot run polyvol ({cmd[0]}): {e}", returncode=127, command=cmd) from e
    if r.returncode != 0:
        raise PolyvolError.from_stderr(r.stderr, r.returncode, cmd)
    notes = [l[len("polyvol: note: "):] for l in r.stderr.splitlines() if l.startswith("polyvol: note: ")]
    try:
        data = json.loads(r.stdout)
    except json.JSONDecodeError as e:
        raise PolyvolError(f"polyvol printed no JSON: {e}", returncode=1, stderr=r.stderr, command=cmd) from e
    return Result(data, notes)
