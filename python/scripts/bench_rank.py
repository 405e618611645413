#!/usr/bin/env python3
"""The per-configuration floor of polyvol.tuner.rank (docs/python.md, How
many configurations a minute).

Usage:
    bench_rank.py PYTHON_DIR

ranks star3d-r4 over 84 block shapes and vec-copy over 32 block sizes and 3
folds on A100-40GB with the polyvol package in PYTHON_DIR (this tree's
python/, or a copy of an older one, to compare side by side), and prints,
per configuration, the wall time and the CPU time: of this process, of its
waited children (the per-launch processes of a package without
polyvol.Session), and of the live process tree of the session's polyvol
process, read from /proc before the session ends.
"""

from __future__ import annotations

import os
import resource
import sys
import time

sys.path.insert(0, sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), ".."))

from polyvol.tuner import Space, rank  # noqa: E402

try:
    from polyvol import Session  # noqa: E402
except ImportError:  # a package from before the long-lived process
    Session = None

TICK = os.sysconf("SC_CLK_TCK")


def tree_cpu(root: int) -> float:
    """CPU seconds of root and its descendants (their own and their waited
    children's), from /proc."""
    children: dict = {}
    cpu: dict = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                stat = f.read()
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2 :].split()
        children.setdefault(int(fields[1]), []).append(int(entry))
        cpu[int(entry)] = sum(int(v) for v in fields[11:15]) / TICK  # utime, stime, cutime, cstime
    total, todo = 0.0, [root]
    while todo:
        pid = todo.pop()
        total += cpu.get(pid, 0.0)
        todo += children.get(pid, [])
    return total


def own_cpu() -> float:
    s, c = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return s.ru_utime + s.ru_stime + c.ru_utime + c.ru_stime


CASES = {
    "star3d-r4": Space(
        {"block_size_x": [32 * i for i in range(1, 33)], "block_size_y": [1, 2, 4], "block_size_z": [1, 2]},
        ["block_size_x*block_size_y*block_size_z<=1024"],
    ),
    "vec-copy": Space({"block_size_x": [32 * i for i in range(1, 33)], "tile_size_x": [1, 2, 4]}, fold=("tile_size_x",)),
}

for name, space in CASES.items():
    n = len(space)
    session = Session() if Session is not None else None
    kw = {"session": session} if session is not None else {}
    c0, t0 = own_cpu(), time.perf_counter()
    ranked = rank(space, name, "A100-40GB", **kw)
    wall = time.perf_counter() - t0
    c = own_cpu() - c0
    if session is not None:
        c += tree_cpu(session._proc.pid)  # the process is alive until close
        session.close()
    print(
        f"{name}: {n} configurations ({len(ranked)} ranked): {1000 * wall / n:.1f} ms wall, "
        f"{1000 * c / n:.1f} ms CPU per configuration; {60 * n / wall:.0f}/min wall, {60 * n / c:.0f}/min per core of CPU"
    )
