"""A call that ends by its timeout or by an interrupt ends every process it
started: polyvol and the supervised child that runs its command."""

from __future__ import annotations

import os
import signal
import subprocess
import threading
import time
from pathlib import Path

import pytest

import polyvol
from polyvol.tuner import Space, rank

# An exploration that runs for far longer than the tests wait (over 25 s on
# one worker): 2 tilings × 12 folds × every block shape of 1,024 threads of
# a D3Q27 lattice Boltzmann kernel.
SLOW_EXPLORE = dict(
    spec="lbm-d3q27-aos",
    threads=1024,
    workers=1,
    tiles=["consecutive", "strided"],
    folds=[(1, 1, 1), (1, 1, 2), (1, 2, 1), (2, 1, 1), (1, 1, 4), (1, 4, 1), (4, 1, 1), (2, 2, 2), (1, 2, 2), (2, 2, 1), (2, 1, 2), (4, 4, 4)],
)

# How long the tests wait for processes to start and to end: a bound against
# hanging on a loaded machine, not a measure of speed.
PATIENCE = 30.0


def _stat(pid: int):
    """(state, ppid, start time) of a process, or None once it is gone."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except (FileNotFoundError, ProcessLookupError):
        return None
    fields = text[text.rindex(")") + 2 :].split()  # the command name may hold spaces
    return fields[0], int(fields[1]), int(fields[19])


def _descendants(root: int) -> dict:
    """root and the processes below it that live, by pid, with their start times."""
    parent, start = {}, {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            st = _stat(int(entry))
            if st is not None and st[0] != "Z":
                parent[int(entry)], start[int(entry)] = st[1], st[2]
    found = {}
    frontier = [root] if root in start else []
    while frontier:
        pid = frontier.pop()
        found[pid] = start[pid]
        frontier += [c for c, p in parent.items() if p == pid and c not in found]
    return found


def _alive(pid: int, started: int) -> bool:
    """Whether the process pid that started at started still runs (a zombie
    has ended; another start time is another process)."""
    st = _stat(pid)
    return st is not None and st[0] != "Z" and st[2] == started


class _Watcher:
    """Watches the processes that polyvol, started through a wrapper that
    writes its pid to a file, runs: once polyvol and its supervised child
    both run, ``seen`` holds them and ``on_both`` is called."""

    def __init__(self, pidfile: Path, on_both=None) -> None:
        self.pidfile = pidfile
        self.on_both = on_both
        self.seen: dict = {}
        self.thread = threading.Thread(target=self._watch, daemon=True)
        self.thread.start()

    def _watch(self) -> None:
        deadline = time.monotonic() + PATIENCE
        while time.monotonic() < deadline:
            text = self.pidfile.read_text() if self.pidfile.exists() else ""
            if text.endswith("\n"):
                procs = _descendants(int(text))
                if len(procs) >= 2:
                    self.seen = procs
                    if self.on_both is not None:
                        self.on_both()
                    return
            time.sleep(0.02)


@pytest.fixture
def pid_binary(tmp_path, monkeypatch, real_binary):
    """POLYVOL_BIN set to a wrapper that writes its pid to a file and then
    becomes the real binary (exec keeps the pid); yields the file's path."""
    pidfile = tmp_path / "polyvol.pid"
    wrapper = tmp_path / "polyvol-pid"
    wrapper.write_text(f'#!/bin/sh\necho $$ > "{pidfile}"\nexec "{real_binary}" "$@"\n')
    wrapper.chmod(0o755)
    monkeypatch.setenv("POLYVOL_BIN", str(wrapper))
    yield pidfile


def _check_all_ended(seen: dict) -> None:
    assert len(seen) >= 2, f"polyvol and its supervised child were not both seen running: {seen}"
    deadline = time.monotonic() + PATIENCE
    while time.monotonic() < deadline and any(_alive(p, s) for p, s in seen.items()):
        time.sleep(0.05)
    survivors = [p for p, s in seen.items() if _alive(p, s)]
    for p in survivors:  # leave nothing running whatever the outcome
        os.kill(p, signal.SIGKILL)
    assert not survivors, f"processes {survivors} of {sorted(seen)} still run after the call ended"


def test_timeout_ends_every_process(pid_binary):
    watcher = _Watcher(pid_binary)
    with pytest.raises(subprocess.TimeoutExpired):
        polyvol.explore(**SLOW_EXPLORE, timeout=5)
    watcher.thread.join(PATIENCE)
    _check_all_ended(watcher.seen)


def test_interrupt_ends_every_process(pid_binary):
    # The interrupt arrives as Ctrl-C's does, as SIGINT to this process,
    # once polyvol's child runs.
    watcher = _Watcher(pid_binary, on_both=lambda: os.kill(os.getpid(), signal.SIGINT))
    with pytest.raises(KeyboardInterrupt):
        polyvol.explore(**SLOW_EXPLORE, timeout=PATIENCE * 2)
    watcher.thread.join(PATIENCE)
    _check_all_ended(watcher.seen)


# A ranking that runs for far longer than the tests wait: 960 launches of
# the staged convolution, 20 ms to a few hundred ms of CPU each (about 25 s
# on 2 cores, against the 5 s timeout).
SLOW_SPACE = Space(
    {
        "block_size_x": [16 * i for i in range(1, 9)],
        "block_size_y": [1, 2, 4, 8],
        "tile_size_x": [1, 2, 3, 4, 5, 6],
        "tile_size_y": [1, 2, 3, 4, 5],
    },
    fold=("tile_size_x", "tile_size_y", None),
    tiling="strided",
)


def test_rank_timeout_ends_every_process(pid_binary):
    watcher = _Watcher(pid_binary)
    with pytest.raises(subprocess.TimeoutExpired):
        rank(SLOW_SPACE, "convolution-15x15-staged", "RTX-A4000", timeout=5)
    watcher.thread.join(PATIENCE)
    _check_all_ended(watcher.seen)
    # The next ranking starts a fresh process.
    assert [c["block_size_x"] for c, _ in rank(Space({"block_size_x": [64]}), "vec-copy", "A100-40GB")] == [64]


def test_rank_interrupt_ends_every_process(pid_binary):
    watcher = _Watcher(pid_binary, on_both=lambda: os.kill(os.getpid(), signal.SIGINT))
    with pytest.raises(KeyboardInterrupt):
        rank(SLOW_SPACE, "convolution-15x15-staged", "RTX-A4000", timeout=PATIENCE * 2)
    watcher.thread.join(PATIENCE)
    _check_all_ended(watcher.seen)
