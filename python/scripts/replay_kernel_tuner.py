#!/usr/bin/env python3
"""Replays Kernel Tuner's convolution cache files in polyvol's predicted order.

For each of the four GPUs of testdata/kernel_tuner/ (Kernel Tuner's
measurements of its 15x15 convolution example), the configurations are
"measured" in the order polyvol predicts (fastest first) and in random order
(20 seeds), with polyvol.replay, the tool that replays any cache file
(python -m polyvol.replay). Those that read their inputs from global memory
(use_shmem=0) are predicted with convolution-15x15, those that stage each
block's input tile in shared memory (use_shmem=1) with
convolution-15x15-staged, its shared rows padded where use_padding=1. The
table gives the best time found after k measurements over the best time of
all of them, staged and not, and the same for the use_shmem=0 rows alone.

Usage:
    replay_kernel_tuner.py            print the table
    replay_kernel_tuner.py --write    write it into docs/python.md between the markers
    replay_kernel_tuner.py --check    exit 1 when docs/python.md differs from what it computes

The binary is found as the polyvol package finds it (POLYVOL_BIN, PATH, or
the repository built with go).
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Tuple

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
sys.path.insert(0, str(HERE.parent))

from polyvol.replay import Replay, measured_ms, random_best_after, replay as replay_cache  # noqa: E402
from polyvol.tuner import read_cache  # noqa: E402

TESTDATA = REPO / "testdata" / "kernel_tuner"
DOC = REPO / "docs" / "python.md"
SPEC = REPO / "examples" / "convolution-15x15.yaml"
STAGED_SPEC = REPO / "examples" / "convolution-15x15-staged.yaml"
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
#: Every EVERY-th distinct launch (block, tile and staging) is replayed, so
#: that the test that recomputes the table stays within a few minutes on 2
#: cores (the whole space, 1768 launches per GPU, takes about 7).
EVERY = 3
#: How many of polyvol's first picks the table lists per GPU.
PICKS = 3
GOAL_K, GOAL = 20, 1.03
#: Garbage-collection targets of the polyvol processes that the replay runs,
#: where the environment sets none: those that polyvol explore sets
#: (procmem.QuietGC). They take about a tenth off the CPU time of these
#: short-lived estimates and change no result.
GC_TARGETS = {"GOGC": "400", "GOMEMLIMIT": "200MiB"}
OUTPUTS = 4096  # the convolution's output side
STAGE_LINE = "    stage: {copy: block, pad: banks}\n"


def _edited(path: Path, old: str, new: str) -> str:
    """The text of path with its one occurrence of old replaced by new."""
    text = path.read_text(encoding="utf-8")
    if text.count(old) != 1:
        raise SystemExit(f"{path}: want exactly one {old.strip()!r}")
    return text.replace(old, new)


def convolution_spec(bounds_check: str, staged: bool = False, padded: bool = False) -> str:
    """The example's YAML with its bounds_check set (as accuracy/convolution.go):
    convolution-15x15, or where staged convolution-15x15-staged with its shared
    rows padded by the bank rule (use_padding=1) or not (pad: 0)."""
    if not staged:
        return _edited(SPEC, "\nbounds_check: none\n", f"\nbounds_check: {bounds_check}\n")
    text = _edited(STAGED_SPEC, "\nbounds_check: none\n", f"\nbounds_check: {bounds_check}\n")
    if text.count(STAGE_LINE) != 1:
        raise SystemExit(f"{STAGED_SPEC}: want exactly one line {STAGE_LINE.strip()!r}")
    return text if padded else text.replace(STAGE_LINE, STAGE_LINE.replace("banks", "0"))


def convolution_specs() -> Dict[Tuple[bool, bool, str], str]:
    """The specs by (use_shmem, use_padding, bounds_check)."""
    return {
        (bool(shmem), bool(padded), check): convolution_spec(check, bool(shmem), bool(padded))
        for shmem, padded in ((0, 0), (1, 0), (1, 1))
        for check in ("none", "access")
    }


def spec_of(specs: Dict[Tuple[bool, bool, str], str], c: Dict[str, Any]) -> str:
    """A configuration's spec: staged or not and padded or not as use_shmem
    and use_padding say; a launch tile that does not divide 4096 makes the
    kernel check bounds on every access."""
    tx = c["block_size_x"] * c["tile_size_x"]
    ty = c["block_size_y"] * c["tile_size_y"]
    check = "none" if OUTPUTS % tx == 0 and OUTPUTS % ty == 0 else "access"
    return specs[(bool(c["use_shmem"]), bool(c["use_shmem"] and c["use_padding"]), check)]


@dataclass
class Rows:
    """The replay of one kind of rows (all, or use_shmem=0 only) on one GPU."""

    configs: int  # configurations of the cache
    sampled: int  # configurations replayed
    launches: int  # distinct launches predicted
    failed: int  # replayed configurations that failed on the GPU (count as measurements)
    unpredicted: int  # configurations polyvol refused (measured last)
    full_best_ms: float  # best of every configuration of the cache
    best_ms: float  # best of the replayed ones
    polyvol: Dict[int, float]  # k -> best found / best, predicted order
    rand: Dict[int, float]  # k -> mean over seeds
    rand_empty: Dict[int, int]  # k -> seeds that found no working configuration
    rank_of_best: int  # the best's 1-based position in polyvol's order
    rho: float  # Spearman's rho between predicted GLup/s and measured speed
    picks: List[Tuple[str, float]]  # polyvol's first picks: (configuration, measured time / best; inf: failed)


@dataclass
class GPUResult:
    gpu: str
    device: str
    all: Rows  # use_shmem 0 and 1
    direct: Rows  # use_shmem=0 only
    seconds: float


def _launch_name(entry: Mapping[str, Any]) -> str:
    """A configuration as the table names it: block, tile, staging."""
    name = f"{entry['block_size_x']}x{entry['block_size_y']} tile {entry['tile_size_x']}x{entry['tile_size_y']}"
    if entry["use_shmem"]:
        name += " staged" + (" padded" if entry["use_padding"] else "")
    return name + f" read_only={entry['read_only']}"


def _rows(r: Replay, entries: Mapping[str, Mapping[str, Any]], keep: Callable[[Mapping[str, Any]], bool]) -> Rows:
    """The figures of the replayed configurations that keep accepts, in
    polyvol's order restricted to them (the order of a ranking of them
    alone: ties keep Kernel Tuner's order either way)."""
    kept = Replay(
        keys=[k for k in r.keys if keep(entries[k])],
        times={k: t for k, t in r.times.items() if keep(entries[k])},
        predicted=[k for k in r.predicted if keep(entries[k])],
        glups={k: g for k, g in r.glups.items() if keep(entries[k])},
        refused=[(c, e) for c, e in r.refused if keep(c)],
    )
    rnd = random_best_after(kept.keys, kept.times, KS, SEEDS)
    launches = {tuple(entries[k][n] for n in LAUNCH_PARAMS) for k in kept.keys}
    cached = [e for e in entries.values() if keep(e)]
    return Rows(
        configs=len(cached),
        sampled=len(kept.keys),
        launches=len(launches),
        failed=sum(1 for t in kept.times.values() if t is None),
        unpredicted=len(kept.refused),
        full_best_ms=min(t for t in map(measured_ms, cached) if t is not None),
        best_ms=kept.best_ms,
        polyvol={k: kept.polyvol_best_after(k) for k in KS},
        rand={k: rnd[k][0] for k in KS},
        rand_empty={k: rnd[k][1] for k in KS},
        rank_of_best=kept.rank_of_best,
        rho=kept.rho,
        picks=[
            (_launch_name(entries[k]), math.inf if kept.times[k] is None else kept.times[k] / kept.best_ms)  # type: ignore[operator]
            for k in kept.predicted[:PICKS]
        ],
    )


#: The parameters of a launch: block, tile and staging (use_padding changes
#: the spec, not the launch).
LAUNCH_PARAMS = ("block_size_x", "block_size_y", "tile_size_x", "tile_size_y", "use_shmem")


def replay_gpu(file: str, gpu: str, device: str, every: int, specs: Dict[Tuple[bool, bool, str], str]) -> GPUResult:
    t0 = time.monotonic()
    cache = read_cache(TESTDATA / file)
    entries = cache["cache"]
    # The space Kernel Tuner swept: every configuration of the cache.
    restrictions = ["block_size_x * block_size_y <= 1024"]
    r = replay_cache(cache, lambda c: spec_of(specs, c), device, restrictions=restrictions, staging="use_shmem", every=every)
    return GPUResult(
        gpu=gpu,
        device=device,
        all=_rows(r, entries, lambda e: True),
        direct=_rows(r, entries, lambda e: e["use_shmem"] == 0),
        seconds=time.monotonic() - t0,
    )


def replay(every: int = EVERY) -> List[GPUResult]:
    specs = convolution_specs()
    unset = [k for k in GC_TARGETS if k not in os.environ]
    os.environ.update({k: GC_TARGETS[k] for k in unset})
    try:
        return [replay_gpu(f, g, d, every, specs) for f, g, d in GPUS]
    finally:
        for k in unset:
            del os.environ[k]


def _rows_table(results: Sequence[GPUResult], rows: Callable[[GPUResult], Rows], what: str, picks: bool) -> List[str]:
    """The markdown of one kind of rows: the sample, the best found after k
    measurements, the goal, and where picks is set polyvol's first picks."""
    lines = [
        f"| GPU (polyvol device) | replayed of {what} | failed on the GPU | best replayed / best of all, ms | rank of the best | Spearman ρ |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for g in results:
        r = rows(g)
        lines.append(
            f"| {g.gpu} ({g.device}) | {r.sampled} of {r.configs} ({r.launches} launches) | {r.failed} "
            f"| {r.best_ms:.4f} / {r.full_best_ms:.4f} | {r.rank_of_best} | {r.rho:.3f} |"
        )
    lines.append("")
    cols = " | ".join(f"k={k}" for k in KS)
    lines.append(f"| GPU | order | {cols} |")
    lines.append("|---|---|" + "---:|" * len(KS))
    for g in results:
        r = rows(g)
        lines.append(f"| {g.gpu} | polyvol | " + " | ".join(f"{r.polyvol[k]:.3f}" for k in KS) + " |")
        cells = []
        for k in KS:
            c = f"{r.rand[k]:.3f}"
            if r.rand_empty[k]:
                c += f" ({r.rand_empty[k]} seeds found none)"
            cells.append(c)
        lines.append(f"| | random, mean of {SEEDS} seeds | " + " | ".join(cells) + " |")
    met = [g.gpu for g in results if rows(g).polyvol[GOAL_K] <= GOAL]
    missed = [f"{g.gpu} ({rows(g).polyvol[GOAL_K]:.3f})" for g in results if rows(g).polyvol[GOAL_K] > GOAL]
    lines.append("")
    if not missed:
        lines.append(f"Goal (within {GOAL - 1:.0%} of the best after {GOAL_K} measurements): met on every GPU.")
    else:
        lines.append(
            f"Goal (within {GOAL - 1:.0%} of the best after {GOAL_K} measurements): "
            f"met on {len(met)} of {len(results)} GPUs; missed on " + ", ".join(missed) + "."
        )
    if not picks:
        return lines
    lines.append("")
    lines.append("| GPU | " + " | ".join(f"polyvol's pick {i + 1}: measured / best" for i in range(PICKS)) + " |")
    lines.append("|---|" + "---|" * PICKS)
    for g in results:
        cells = [f"{name}: " + ("failed" if math.isinf(over) else f"{over:.3f}") for name, over in rows(g).picks]
        lines.append(f"| {g.gpu} | " + " | ".join(cells) + " |")
    return lines


def _ordinal(n: int) -> str:
    """n as an English ordinal: 2nd, 3rd, 9th, 11th, 21st."""
    suffix = "th" if n % 100 in (11, 12, 13) else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def table(results: Sequence[GPUResult], every: int = EVERY) -> str:
    """The markdown written into docs/python.md (no timings: it must be reproducible)."""
    lines = ["All configurations, use_shmem 0 and 1:", ""]
    lines += _rows_table(results, lambda g: g.all, "all", picks=True)
    lines += ["", "The use_shmem=0 configurations alone (polyvol's order restricted to them):", ""]
    lines += _rows_table(results, lambda g: g.direct, "use_shmem=0", picks=False)
    lines.append("")
    if every == 1:
        lines.append("Sample: every distinct launch (block, tile and staging), with all its read_only and use_padding variants.")
    else:
        lines.append(
            f"Sample: every {_ordinal(every)} distinct launch (block, tile and staging) in sorted order, "
            "with all its read_only and use_padding variants."
        )
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
        print(f"{r.gpu}: {r.all.launches} launches, {r.all.sampled} configurations, {r.seconds:.0f} s", file=sys.stderr)
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
