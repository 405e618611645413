#!/usr/bin/env python3
"""Replays Kernel Tuner's convolution cache files in polyvol's predicted order.

For each of the four GPUs of testdata/kernel_tuner/ (Kernel Tuner's
measurements of its 15x15 convolution example), the configurations that read
their inputs from global memory (use_shmem=0) are "measured" in the order
polyvol predicts (fastest first) and in random order (20 seeds), with
polyvol.replay, the tool that replays any cache file (python -m
polyvol.replay). The table gives the best time found after k measurements
over the best time of all of them. The staged configurations (use_shmem=1,
convolution-15x15-staged) are left out of this table only because a staged
prediction costs over a second of CPU, too much for the test that
recomputes it; python -m polyvol.replay --staging use_shmem replays them.

Usage:
    replay_kernel_tuner.py            print the table
    replay_kernel_tuner.py --write    write it into docs/python.md between the markers
    replay_kernel_tuner.py --check    exit 1 when docs/python.md differs from what it computes

The binary is found as the polyvol package finds it (POLYVOL_BIN, PATH, or
the repository built with go).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Dict, Optional, Sequence

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
sys.path.insert(0, str(HERE.parent))

from polyvol.replay import measured_ms, random_best_after, replay as replay_cache  # noqa: E402
from polyvol.tuner import read_cache  # noqa: E402

TESTDATA = REPO / "testdata" / "kernel_tuner"
DOC = REPO / "docs" / "python.md"
SPEC = REPO / "examples" / "convolution-15x15.yaml"
BEGIN = "<!-- replay-table: begin (python/scripts/replay_kernel_tuner.py --write) -->"
END = "<!-- replay-table: end -->"

#: (cache file, GPU as Kernel Tuner recorded it, polyvol device): the devices
#: of accuracy/convolution.go.
GPUS = [
    ("a4000-kernel-tuner-cache.json.gz", "NVIDIA RTX A4000", "RTX-A4000"),
    ("a6000-kernel-tuner-cache.json.gz", "NVIDIA RTX A6000", "RTX-A6000"),
    ("w6600-kernel-tuner-cache.json.gz", "AMD Radeon PRO W6600", "PRO-W6600"),
    ("w7800-kernel-tuner-cache.json.gz", "AMD Radeon PRO W7800", "PRO-W7800"),
]
KS = (5, 10, 20, 50)
SEEDS = 20
#: Every EVERY-th distinct launch (block and tile) is replayed, so that the
#: replay stays within a few minutes on 2 cores (about 0.2-1.5 s per launch).
EVERY = 9
GOAL_K, GOAL = 20, 1.03
#: Garbage-collection targets of the polyvol processes that the replay runs,
#: where the environment sets none: those that polyvol explore sets
#: (procmem.QuietGC). They take about a tenth off the CPU time of these
#: short-lived estimates and change no result.
GC_TARGETS = {"GOGC": "400", "GOMEMLIMIT": "200MiB"}
OUTPUTS = 4096  # the convolution's output side


def convolution_spec(bounds_check: str) -> str:
    """The example's YAML with its bounds_check set (as accuracy/convolution.go)."""
    text = SPEC.read_text(encoding="utf-8")
    line = "\nbounds_check: none\n"
    if text.count(line) != 1:
        raise SystemExit(f"{SPEC}: want exactly one line 'bounds_check: none'")
    return text.replace(line, f"\nbounds_check: {bounds_check}\n")


def spec_of(specs: Dict[str, str], c: Dict[str, Any]) -> str:
    """A launch tile that does not divide 4096 makes the kernel check bounds on every access."""
    tx = c["block_size_x"] * c["tile_size_x"]
    ty = c["block_size_y"] * c["tile_size_y"]
    return specs["none" if OUTPUTS % tx == 0 and OUTPUTS % ty == 0 else "access"]


@dataclass
class GPUResult:
    gpu: str
    device: str
    configs: int  # use_shmem=0 configurations of the cache
    sampled: int  # configurations replayed
    launches: int  # distinct launches predicted
    failed: int  # replayed configurations that failed on the GPU (count as measurements)
    unpredicted: int  # configurations polyvol refused (measured last)
    full_best_ms: float  # best of every use_shmem=0 configuration
    best_ms: float  # best of the replayed ones
    polyvol: Dict[int, float]  # k -> best found / best, predicted order
    rand: Dict[int, float]  # k -> mean over seeds
    rand_empty: Dict[int, int]  # k -> seeds that found no working configuration
    seconds: float


def replay_gpu(file: str, gpu: str, device: str, every: int, specs: Dict[str, str]) -> GPUResult:
    t0 = time.monotonic()
    cache = read_cache(TESTDATA / file)
    direct = [e for e in cache["cache"].values() if e["use_shmem"] == 0]
    # The space Kernel Tuner swept, restricted to use_shmem=0 (use_padding
    # only matters with staging).
    restrictions = ["use_shmem == 0", "use_padding == 0", "block_size_x * block_size_y <= 1024"]
    r = replay_cache(cache, lambda c: spec_of(specs, c), device, restrictions=restrictions, every=every)
    rnd = random_best_after(r.keys, r.times, KS, SEEDS)
    return GPUResult(
        gpu=gpu,
        device=device,
        configs=len(direct),
        sampled=len(r.keys),
        launches=r.launches,
        failed=sum(1 for t in r.times.values() if t is None),
        unpredicted=len(r.refused),
        full_best_ms=min(t for t in map(measured_ms, direct) if t is not None),
        best_ms=r.best_ms,
        polyvol={k: r.polyvol_best_after(k) for k in KS},
        rand={k: rnd[k][0] for k in KS},
        rand_empty={k: rnd[k][1] for k in KS},
        seconds=time.monotonic() - t0,
    )


def replay(every: int = EVERY) -> List[GPUResult]:
    specs = {"none": convolution_spec("none"), "access": convolution_spec("access")}
    unset = [k for k in GC_TARGETS if k not in os.environ]
    os.environ.update({k: GC_TARGETS[k] for k in unset})
    try:
        return [replay_gpu(f, g, d, every, specs) for f, g, d in GPUS]
    finally:
        for k in unset:
            del os.environ[k]


def table(results: Sequence[GPUResult], every: int = EVERY) -> str:
    """The markdown written into docs/python.md (no timings: it must be reproducible)."""
    head = "| GPU (polyvol device) | replayed of use_shmem=0 | failed on the GPU | best replayed / best of all, ms |"
    lines = [head, "|---|---:|---:|---:|"]
    for r in results:
        lines.append(
            f"| {r.gpu} ({r.device}) | {r.sampled} of {r.configs} ({r.launches} launches) | {r.failed} "
            f"| {r.best_ms:.4f} / {r.full_best_ms:.4f} |"
        )
    lines.append("")
    cols = " | ".join(f"k={k}" for k in KS)
    lines.append(f"| GPU | order | {cols} |")
    lines.append("|---|---|" + "---:|" * len(KS))
    for r in results:
        lines.append(f"| {r.gpu} | polyvol | " + " | ".join(f"{r.polyvol[k]:.3f}" for k in KS) + " |")
        cells = []
        for k in KS:
            c = f"{r.rand[k]:.3f}"
            if r.rand_empty[k]:
                c += f" ({r.rand_empty[k]} seeds found none)"
            cells.append(c)
        lines.append(f"| | random, mean of {SEEDS} seeds | " + " | ".join(cells) + " |")
    met = [r.gpu for r in results if r.polyvol[GOAL_K] <= GOAL]
    missed = [f"{r.gpu} ({r.polyvol[GOAL_K]:.3f})" for r in results if r.polyvol[GOAL_K] > GOAL]
    lines.append("")
    if not missed:
        lines.append(f"Goal (within {GOAL - 1:.0%} of the best after {GOAL_K} measurements): met on every GPU.")
    else:
        lines.append(
            f"Goal (within {GOAL - 1:.0%} of the best after {GOAL_K} measurements): "
            f"met on {len(met)} of {len(results)} GPUs; missed on " + ", ".join(missed) + "."
        )
    if every == 1:
        lines.append("Sample: every distinct launch (block and tile), with all its read_only variants.")
    else:
        lines.append(f"Sample: every {every}th distinct launch (block and tile) in sorted order, with all its read_only variants.")
    return "\n".join(lines) + "\n"


def docs_table(text: str) -> str:
    i, j = text.find(BEGIN), text.find(END)
    if i < 0 or j < i:
        raise SystemExit(f"{DOC}: markers not found")
    return text[i + len(BEGIN) : j].strip("\n") + "\n"


def write_docs(t: str) -> None:
    text = DOC.read_text(encoding="utf-8")
    i, j = text.find(BEGIN), text.find(END)
    if i < 0 or j < i:
        raise SystemExit(f"{DOC}: markers not found")
    DOC.write_text(text[: i + len(BEGIN)] + "\n" + t + text[j:], encoding="utf-8")


def main(argv: Optional[Sequence[str]] = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--write", action="store_true", help="write the table into docs/python.md")
    ap.add_argument("--check", action="store_true", help="fail when docs/python.md holds another table")
    ap.add_argument("--every", type=int, default=EVERY, help="replay every N-th launch (the docs use %(default)s)")
    a = ap.parse_args(argv)
    results = replay(a.every)
    for r in results:
        print(f"{r.gpu}: {r.launches} launches, {r.sampled} configurations, {r.seconds:.0f} s", file=sys.stderr)
    t = table(results, a.every)
    print(t, end="")
    if a.write:
        write_docs(t)
    if a.check and docs_table(DOC.read_text(encoding="utf-8")) != t:
        print(f"{DOC}: the replay table differs from the computed one; run {Path(__file__).name} --write", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
