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
from typing import Any, Dict, Mapping, Optional, Sequence, Tuple, Union

__all__ = [
    "InputError",
    "InternalError",
    "NoFitError",
    "PolyvolError",
    "SpecOf",
    "WorkBoundError",
    "binary",
    "run_json",
    "spec_argument",
    "spec_of",
    "spec_request",
]

#: A spec: a mapping (sent as JSON, which polyvol reads as YAML), YAML text,
#: the name of an embedded example, or a path to a spec file.
Spec = Union[Mapping[str, Any], str, "os.PathLike[str]"]

_MODULE = "module github.com/polyvol/polyvol"

_EXAMPLE_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")


class PolyvolError(Exception):
    """polyvol refused the input (exit status 2) or failed (exit status 1).

    Its subclasses say what kind of failure it is (``kind``, polyvol's own
    error kinds, docs/json.md, Errors): :class:`InputError` (``"input"``),
    :class:`WorkBoundError` (``"work-bound"``), :class:`NoFitError`
    (``"no-fit"``) and :class:`InternalError` (``"internal"``); the base
    class itself, with ``kind`` ``None``, is a failure to run polyvol at all
    (no binary) or one that names no kind (a busy server, a crashed
    process). ``message`` is polyvol's message; ``file``, ``line`` and
    ``column`` locate the error in the spec or device file at fault
    (``file`` is ``"<stdin>"`` for a spec given as a dict or as YAML text),
    ``field`` names the spec field or the flag at fault (e.g. ``"block"``
    or ``"device"``); each is ``None`` where polyvol names none.
    ``returncode`` is polyvol's exit status and ``stderr`` all it wrote.
    """

    #: The kind of polyvol's errors that the class stands for.
    KIND: Optional[str] = None

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
        kind: Optional[str] = None,
        field: Optional[str] = None,
    ) -> None:
        self.message = message
        self.kind = kind if kind is not None else self.KIND
        self.field = field
        self.file = file
        self.line = line
        self.column = column
        self.returncode = returncode
        self.stderr = stderr
        self.command = list(command)
        where = ""
        if file is not None and line is not None:
            where = f"{file}:{line}:{column}: " if column is not None else f"{file}:{line}: "
        super().__init__(where + message)

    @staticmethod
    def of_kind(kind: Optional[str]) -> type:
        """The class of the errors of ``kind``: a subclass, or
        :class:`PolyvolError` itself for ``None`` or a kind it does not know."""
        return _CLASSES.get(kind, PolyvolError) if kind is not None else PolyvolError

    @classmethod
    def from_description(
        cls, d: Mapping[str, Any], message: str, returncode: int, stderr: str = "", command: Sequence[str] = ()
    ) -> "PolyvolError":
        """The error of polyvol's description of one (docs/json.md, Errors:
        ``kind``, ``file``, ``line``, ``column``, ``field``), of the class
        of its kind, with the message given."""
        kind = d.get("kind")
        return PolyvolError.of_kind(kind)(
            message,
            file=d.get("file"),
            line=d.get("line"),
            column=d.get("column"),
            returncode=returncode,
            stderr=stderr,
            command=command,
            kind=kind,
            field=d.get("field"),
        )

    @classmethod
    def from_stderr(cls, stderr: str, returncode: int, command: Sequence[str] = ()) -> "PolyvolError":
        """The error polyvol wrote last on stderr: the JSON object of a
        command run with ``--format json``, or else the line
        ``polyvol: message`` (of a process that names no kind)."""
        lines = [l for l in stderr.splitlines() if l.strip() and not l.startswith("polyvol: note:")]
        last = lines[-1] if lines else f"polyvol: exit status {returncode}"
        try:
            d = json.loads(last)
        except ValueError:
            d = None
        if isinstance(d, dict) and isinstance(d.get("message"), str):
            return cls.from_description(d, d["message"], returncode, stderr, command)
        msg = last[len("polyvol: "):] if last.startswith("polyvol: ") else last
        return PolyvolError(msg, returncode=returncode, stderr=stderr, command=command)

    def with_file(self, file: str) -> "PolyvolError":
        """A copy of the error, of its class, that names ``file`` instead."""
        return type(self)(
            self.message, file=file, line=self.line, column=self.column, returncode=self.returncode,
            stderr=self.stderr, command=self.command, kind=self.kind, field=self.field,
        )


class InputError(PolyvolError):
    """The input is at fault: a spec, a flag or key, a device, a device file
    or a shard (exit status 2)."""

    KIND = "input"


class WorkBoundError(PolyvolError):
    """The configuration needs more counting work or memory than the
    estimate's bounds allow (``--max-work``, ``--max-memory``; exit status 2)."""

    KIND = "work-bound"


class NoFitError(PolyvolError):
    """The configuration does not fit on the device: no block fits on an
    SM, or a staged tile is too large for its shared memory (exit status 2)."""

    KIND = "no-fit"


class InternalError(PolyvolError):
    """A failure of polyvol itself or of its environment (exit status 1)."""

    KIND = "internal"


_CLASSES = {c.KIND: c for c in (InputError, WorkBoundError, NoFitError, InternalError)}


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
        if not (os.path.isfile(env) and os.access(env, os.X_OK)):
            why = "is not an executable file" if os.path.exists(env) else "does not exist"
            raise PolyvolError(f"POLYVOL_BIN={env}: {why}; set it to the polyvol binary", returncode=127)
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
                "(go build -o bin/polyvol . in the polyvol repository, docs/building.md), "
                "or use the package from within the polyvol repository with Go installed",
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


#: The suffixes of the spec files that the long-lived process reads as text
#: (a polyvol spec or a JSCoP is told by its keys, not its name).
_TEXT_SPEC_SUFFIXES = (".yaml", ".yml", ".json")


@dataclass(frozen=True)
class SpecOf:
    """What a spec is: ``kind`` ``"path"`` (``value`` the path), ``"example"``
    (the name) or ``"text"`` (YAML or JSON text; a mapping as JSON)."""

    kind: str
    value: str


def spec_of(spec: Spec) -> SpecOf:
    """Tells what a spec is. A string of one line is a path when such a file
    exists, YAML text when it starts with ``{`` or holds ``": "``, and
    else an example name; one that looks like a path (a ``/`` or a YAML or
    JSON suffix) but names no file raises :class:`PolyvolError` instead of
    being read as YAML text. A string of several lines is YAML text."""
    if isinstance(spec, Mapping):
        return SpecOf("text", json.dumps(spec))
    if isinstance(spec, os.PathLike):
        return SpecOf("path", os.fspath(spec))
    if not isinstance(spec, str):
        raise TypeError(f"spec must be a dict, a YAML string, an example name or a path, not {type(spec).__name__}")
    if "\n" in spec or spec.lstrip().startswith("{") or ": " in spec:
        return SpecOf("text", spec)
    if os.path.exists(spec):
        return SpecOf("path", spec)
    if _EXAMPLE_NAME.match(spec) and not spec.endswith(_TEXT_SPEC_SUFFIXES):
        return SpecOf("example", spec)
    raise PolyvolError(f"spec {spec!r}: no such file (nor an example name or YAML text)")


def spec_argument(spec: Spec) -> tuple:
    """Returns (argument, stdin) for a spec (:func:`spec_of`): a path or
    example name is passed as polyvol's SPEC argument (so errors name the
    file); a mapping (as JSON) or YAML text goes to standard input as ``-``."""
    s = spec_of(spec)
    if s.kind == "text":
        return "-", s.value
    return s.value, None


def spec_request(spec: Spec) -> Optional[Tuple[Dict[str, str], Optional[str]]]:
    """The request keys of a spec for the long-lived process (``"spec"``
    with its text, or ``"example"``) and the path that its errors name
    instead of ``<stdin>``; None for a spec file that the process cannot
    be given as text (an imported C kernel, say)."""
    s = spec_of(spec)
    if s.kind == "example":
        return {"example": s.value}, None
    if s.kind == "text":
        return {"spec": s.value}, None
    if not s.value.endswith(_TEXT_SPEC_SUFFIXES):
        return None
    try:
        with open(s.value, encoding="utf-8") as f:
            return {"spec": f.read()}, s.value
    except (OSError, UnicodeDecodeError) as e:
        raise PolyvolError(f"spec {s.value}: {e}") from e


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
    """Runs polyvol with args (``--format json`` is the caller's, which makes
    polyvol write its error as JSON too) and decodes stdout; a failure
    raises the :class:`PolyvolError` subclass of its kind."""
    cmd = list(binary()) + list(args)
    try:
        r = _run_group(cmd, stdin, timeout)
    except OSError as e:  # not found, not executable, not a program
        raise PolyvolError(f"cannot run polyvol ({cmd[0]}): {e}", returncode=127, command=cmd) from e
    if r.returncode != 0:
        raise PolyvolError.from_stderr(r.stderr, r.returncode, cmd)
    notes = [l[len("polyvol: note: "):] for l in r.stderr.splitlines() if l.startswith("polyvol: note: ")]
    try:
        data = json.loads(r.stdout)
    except json.JSONDecodeError as e:
        raise PolyvolError(f"polyvol printed no JSON: {e}", returncode=1, stderr=r.stderr, command=cmd) from e
    return Result(data, notes)
