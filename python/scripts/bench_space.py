#!/usr/bin/env python3
"""The cost of a tuning space of 10^6 combinations in polyvol.tuner
(docs/python.md, How many configurations a minute).

Usage:
    bench_space.py PYTHON_DIR

with the polyvol package in PYTHON_DIR (this tree's python/, or a copy of
an older one, to compare side by side): a space of 6 parameters × 10
values, of which only block_size_x changes the launch (10 distinct
launches; the other five stand for compiler switches polyvol does not
see), and prints the seconds of len() without and with a restriction
(one that half the configurations pass) and of rank() of vec-copy on
A100-40GB over the whole space.
"""

from __future__ import annotations

import os
import sys
import time

sys.path.insert(0, sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), ".."))

from polyvol.tuner import Space, rank  # noqa: E402

TUNE = {"block_size_x": [32 * i for i in range(1, 11)]}
TUNE.update({f"switch_{i}": list(range(10)) for i in range(5)})


def timed(what: str, fn):
    t0 = time.perf_counter()
    value = fn()
    print(f"{what}: {time.perf_counter() - t0:.2f} s ({value})", flush=True)
    return value


timed("len(Space), no restrictions", lambda: len(Space(TUNE)))
timed("len(Space), restriction switch_0 < 5", lambda: len(Space(TUNE, ["switch_0 < 5"])))
timed("rank(Space), no restrictions", lambda: len(rank(Space(TUNE), "vec-copy", "A100-40GB")))
