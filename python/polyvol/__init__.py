"""polyvol from Python: GPU kernel memory volumes and performance predictions.

    >>> import polyvol
    >>> p = polyvol.predict("star3d-r4", device="A100-40GB", block=(256, 1, 2))
    >>> p.limiter
    'DRAM'

How the package reaches polyvol
-------------------------------
``predict``, ``explore``, ``merge`` and ``devices`` run the ``polyvol`` binary once per
call, with the spec on standard input (``polyvol predict - --format json``)
or, for a path or an embedded example name, as its argument, and decode the
JSON it prints (docs/json.md). This is deliberate:

* the binary is self-contained (ISL linked in through cgo): no Go toolchain,
  no shared library and no ABI to match from Python, and the package stays
  standard library only;
* each call is independent, so calls run in parallel from threads;
* errors map 1:1: with ``--format json`` polyvol writes its error as one
  JSON object (docs/json.md, Errors), and the package raises the
  :class:`PolyvolError` subclass of its kind (:class:`InputError`,
  :class:`WorkBoundError`, :class:`NoFitError`, :class:`InternalError`)
  with its message, file, line, column and field;
* the JSON is a versioned contract, so the Python side only reads it.

A process start per call costs tens of milliseconds, as much as a simple
estimate. ``polyvol.tuner.rank``, which asks for thousands, sends its
launches instead to one long-lived ``polyvol serve --stdio`` process (JSON
lines, docs/api.md), kept in a process group of its own for the life of the
Python process: a timeout or Ctrl-C kills that group, and the next call
starts a fresh one.

The binary is, in this order: the path in the environment variable
``POLYVOL_BIN``; ``polyvol`` on ``PATH``; or, when this package sits in the
polyvol repository (``python/polyvol``) and Go is installed, the
repository built once per process with ``go build`` into a temporary
directory (what ``go run .`` does, without rebuilding on every call).
"""

from __future__ import annotations

from ._api import (
    Device,
    InstructionClasses,
    Instructions,
    Launch,
    Loop,
    Prediction,
    Ranked,
    Shard,
    Volumes,
    devices,
    explore,
    merge,
    predict,
    to_pandas,
)
from ._runner import InputError, InternalError, NoFitError, PolyvolError, WorkBoundError, binary
from ._session import Session

__all__ = [
    "Device",
    "InstructionClasses",
    "InputError",
    "Instructions",
    "InternalError",
    "Launch",
    "Loop",
    "NoFitError",
    "Prediction",
    "PolyvolError",
    "Ranked",
    "Session",
    "Shard",
    "Volumes",
    "WorkBoundError",
    "binary",
    "devices",
    "explore",
    "merge",
    "predict",
    "to_pandas",
]

__version__ = "0.1.0.dev0"
