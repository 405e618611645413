"""One long-lived polyvol process for many requests (internal).

A :class:`Session` keeps ``polyvol serve --stdio`` running (docs/api.md):
each request is one JSON line, each answer one line with the request's id,
so a tuner that asks for thousands of predictions pays for one process
start instead of one per prediction. Requests run as the HTTP API runs
them (the same keys, checks, time budget and worker processes).
"""

from __future__ import annotations

import atexit
import itertools
import json
import os
import signal
import subprocess
import threading
import time
from collections import deque
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence

from ._runner import PolyvolError, Result, binary

__all__ = ["Session", "default_session"]

#: The kinds of a request's error that are the input's fault (exit status 2
#: on the command line); the others are polyvol's own failures (1).
_INPUT_KINDS = ("input", "work-bound", "no-fit")

#: The longest request line the process reads (serve's default body limit);
#: a longer one is refused here, since the process could not say whose
#: request it refused.
MAX_LINE_BYTES = 1 << 20


def error_of(answer: Mapping[str, Any]) -> PolyvolError:
    """The PolyvolError of an error answer line (the API's error body), of
    the class of its kind."""
    kind = answer.get("kind")
    message = str(answer.get("error", "polyvol answered without an error message"))
    return PolyvolError.from_description(answer, message, 2 if kind in _INPUT_KINDS else 1)


class Session:
    """One ``polyvol serve --stdio`` process, started on the first request
    and shared by the threads that use the session.

    :meth:`request_many` sends requests and waits for their answers. When
    its ``timeout`` passes, or the wait is interrupted (Ctrl-C's
    ``KeyboardInterrupt``, any exception), the session kills the process
    group of polyvol, its supervised child and their workers, and raises;
    the next request starts a fresh process. :meth:`close` ends the process
    (the session is also a context manager). ``argv`` is the command prefix
    that runs polyvol; by default the binary is found as
    :func:`polyvol.binary` finds it, anew for each process start.
    """

    def __init__(self, argv: Optional[Sequence[str]] = None) -> None:
        self._argv = list(argv) if argv is not None else None
        self._lock = threading.Lock()  # guards the process and the pending answers
        self._write = threading.Lock()  # one request line at a time
        self._proc: Optional[subprocess.Popen] = None
        self._pending: Dict[int, "_Waiter"] = {}
        self._ids = itertools.count(1)
        self._stderr: deque = deque(maxlen=64)

    def __enter__(self) -> "Session":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def _command(self) -> List[str]:
        return (self._argv if self._argv is not None else list(binary())) + ["serve", "--stdio"]

    def _start(self) -> subprocess.Popen:
        """The running process, started where none runs of the binary found
        now (the binary, as POLYVOL_BIN, may have changed); self._lock is
        held."""
        cmd = self._command()
        if self._proc is not None and self._proc.poll() is None:
            if self._proc.args == cmd:
                return self._proc
            old, self._proc = self._proc, None
            if old.stdin is not None:
                old.stdin.close()  # it ends once its requests are answered
        try:
            p = subprocess.Popen(
                cmd,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
                encoding="utf-8",
                bufsize=1,
                start_new_session=True,  # a group of its own, which kill() ends whole
            )
        except OSError as e:
            raise PolyvolError(f"cannot run polyvol ({cmd[0]}): {e}", returncode=127, command=cmd) from e
        self._proc = p
        self._stderr.clear()
        threading.Thread(target=self._read_answers, args=(p,), daemon=True).start()
        threading.Thread(target=self._read_stderr, args=(p,), daemon=True).start()
        return p

    def _read_answers(self, p: subprocess.Popen) -> None:
        """Hands each answer line of p to the waiter of its id; when p's
        output ends, fails the waiters still pending."""
        assert p.stdout is not None
        for line in p.stdout:
            try:
                answer = json.loads(line)
                waiter = self._pending.pop(answer["id"], None)
            except (ValueError, KeyError, TypeError):
                continue  # no answer of a request of this session
            if waiter is not None:
                waiter.set(answer)
        code = p.wait()
        with self._lock:
            if self._proc is p:
                self._proc = None
            orphans = [w for w in self._pending.values() if w.proc is p]
            for w in orphans:
                self._pending.pop(w.id, None)
        err = PolyvolError.from_stderr("".join(self._stderr), code if code else 1, self._command())
        for w in orphans:
            w.set(err)

    def _read_stderr(self, p: subprocess.Popen) -> None:
        assert p.stderr is not None
        for line in p.stderr:
            self._stderr.append(line)

    def _kill(self, p: subprocess.Popen) -> None:
        """Kills p's process group and waits for p."""
        if p.poll() is None:
            try:
                os.killpg(p.pid, signal.SIGKILL)
            except ProcessLookupError:  # the group ended by itself
                pass
        p.wait()

    def request_many(
        self,
        requests: Sequence[Mapping[str, Any]],
        timeout: Optional[float] = None,
        answered: Optional[Callable[[int], None]] = None,
    ) -> List[Any]:
        """Sends each request (an API request body plus ``"endpoint"``) and
        returns, in the requests' order, each answer: a ``Result`` (``data``
        the endpoint's JSON, ``notes`` its notes) or a
        :class:`PolyvolError`. Raises ``subprocess.TimeoutExpired`` when
        ``timeout`` seconds pass first, after ending the process.
        ``answered``, where given, is called with the number of answers
        collected so far, in the requests' order, after each."""
        deadline = None if timeout is None else time.monotonic() + timeout
        with self._lock:
            p = self._start()
            waiters = []
            for r in requests:
                w = _Waiter(next(self._ids), p)
                self._pending[w.id] = w
                waiters.append(w)
        try:
            with self._write:
                assert p.stdin is not None
                for w, r in zip(waiters, requests):
                    line = json.dumps(dict(r, id=w.id), ensure_ascii=False)
                    if len(line.encode("utf-8")) > MAX_LINE_BYTES:
                        self._pending.pop(w.id, None)
                        w.set(PolyvolError(f"the request is larger than {MAX_LINE_BYTES} bytes (its spec, most likely)"))
                        continue
                    try:
                        p.stdin.write(line + "\n")
                    except (BrokenPipeError, OSError):
                        break  # the process ended: its reader fails the waiters
                try:
                    p.stdin.flush()
                except (BrokenPipeError, OSError):
                    pass
            out = []
            for w in waiters:
                left = None if deadline is None else max(0.0, deadline - time.monotonic())
                if not w.done.wait(left):
                    raise subprocess.TimeoutExpired(self._command(), timeout or 0.0)
                out.append(w.value)
                if answered is not None:
                    answered(len(out))
        except BaseException:
            with self._lock:
                for w in waiters:
                    self._pending.pop(w.id, None)
            self._kill(p)
            raise
        return out

    def close(self) -> None:
        """Ends the process: its input ends, and it exits once the running
        requests are answered (killed after 10 s)."""
        with self._lock:
            p, self._proc = self._proc, None
        if p is None:
            return
        try:
            if p.stdin is not None:
                p.stdin.close()
            p.wait(10)
        except (OSError, subprocess.TimeoutExpired):
            pass
        self._kill(p)


class _Waiter:
    """The answer to one request, once it has come."""

    __slots__ = ("id", "proc", "done", "value")

    def __init__(self, id: int, proc: subprocess.Popen) -> None:
        self.id = id
        self.proc = proc
        self.done = threading.Event()
        self.value: Any = None

    def set(self, answer: Any) -> None:
        """Sets the answer: an answer line's JSON, or the error of a request
        that got none."""
        if isinstance(answer, dict):
            answer = Result(answer["body"], list(answer.get("notes") or [])) if "body" in answer else error_of(answer)
        self.value = answer
        self.done.set()


_default: Optional[Session] = None
_default_lock = threading.Lock()


def default_session() -> Session:
    """The package's shared session, closed when Python exits. It finds
    the binary per process start, so a change of POLYVOL_BIN applies to
    the next start."""
    global _default
    with _default_lock:
        if _default is None:
            _default = Session()
            atexit.register(_default.close)
        return _default
