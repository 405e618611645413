"""Replays a Kernel Tuner cache file in polyvol's predicted order.

    python -m polyvol.replay CACHE.json --device NAME --spec SPEC

A tuner that measured a search space left its times in a cache file
(``tune_kernel(..., cache=...)``). The replay "measures" the cached
configurations in the order polyvol predicts them, fastest first, and in
random order, and reports, for each k, the best time found after k
measurements over the best time of all (1.000: the best was found; 1.030:
3 % slower); the rank of the best configuration in polyvol's order; the
Spearman rank correlation between the predicted and the measured speed;
and the measured times of polyvol's first picks. A configuration that
failed on the GPU counts as a measurement that finds nothing, in both
orders; one that polyvol refuses is measured after all the others.

Each configuration's launch is read as :class:`polyvol.tuner.Space` reads
it: ``--block`` and ``--fold`` name the parameters of x, y and z (by
default ``block_size_*`` and ``tile_size_*`` where the cache has them),
``--tiling`` is how a thread's tile points lie (``strided`` by default, the
usual hand-written tile), ``--staging`` names a switch such as
``use_shmem`` whose false value reads the spec's staged fields from global
memory. One spec stands for every configuration: ``--restrict`` (Kernel
Tuner's restriction strings) keeps the configurations the spec describes,
e.g. ``--restrict "use_padding == 1 or use_shmem == 0"`` with a spec whose
staged rows are padded. ``--every N`` replays every N-th distinct launch
(sorted), for a quick sample.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import statistics
import sys
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Tuple, Union

from ._runner import PolyvolError, Spec
from ._session import Session
from .tuner import Config, Restriction, Space, cache_key, rank, read_cache

__all__ = [
    "Replay",
    "best_after",
    "measured_ms",
    "random_best_after",
    "replay",
    "spearman",
    "main",
]

#: The k of the table without --ks.
DEFAULT_KS = (1, 2, 5, 10, 20, 50, 100)
#: Random orders averaged for the baseline.
SEEDS = 20


def measured_ms(entry: Mapping[str, Any]) -> Optional[float]:
    """The measured time of a cache entry in ms; None for a configuration
    that failed (a string such as ``"RuntimeFailedConfig"``)."""
    t = entry.get("time")
    if isinstance(t, bool) or not isinstance(t, (int, float)) or not math.isfinite(t):
        return None
    return float(t)


def best_after(order: Sequence[str], times: Mapping[str, Optional[float]], k: int) -> Optional[float]:
    """The best time among the first k of order; None where all failed."""
    found = [t for t in (times[key] for key in order[:k]) if t is not None]
    return min(found) if found else None


def random_best_after(
    keys: Sequence[str], times: Mapping[str, Optional[float]], ks: Sequence[int], seeds: int = SEEDS
) -> Dict[int, Tuple[float, int]]:
    """For each k: the mean over ``seeds`` random orders (Python's
    ``random.Random(seed).shuffle``, seeds 0, 1, ...) of the best time after
    k measurements over the best of all, and the number of seeds that found
    no working configuration (left out of the mean)."""
    best = min(t for t in times.values() if t is not None)
    ratios: Dict[int, List[float]] = {k: [] for k in ks}
    empty = {k: 0 for k in ks}
    for seed in range(seeds):
        order = list(keys)
        random.Random(seed).shuffle(order)
        for k in ks:
            b = best_after(order, times, k)
            if b is None:
                empty[k] += 1
            else:
                ratios[k].append(b / best)
    return {k: (statistics.fmean(ratios[k]) if ratios[k] else math.nan, empty[k]) for k in ks}


def _ranks(xs: Sequence[float]) -> List[float]:
    """1-based ranks of xs, ties sharing their mean rank."""
    order = sorted(range(len(xs)), key=lambda i: xs[i])
    ranks = [0.0] * len(xs)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and xs[order[j + 1]] == xs[order[i]]:
            j += 1
        for m in range(i, j + 1):
            ranks[order[m]] = (i + j) / 2 + 1
        i = j + 1
    return ranks


def spearman(xs: Sequence[float], ys: Sequence[float]) -> float:
    """Spearman's rank correlation of xs and ys (ties share their mean
    rank); NaN for fewer than two pairs or a constant sequence."""
    if len(xs) != len(ys):
        raise ValueError(f"spearman: {len(xs)} values against {len(ys)}")
    if len(xs) < 2:
        return math.nan
    rx, ry = _ranks(xs), _ranks(ys)
    mx, my = statistics.fmean(rx), statistics.fmean(ry)
    sxy = sum((a - mx) * (b - my) for a, b in zip(rx, ry))
    sxx = sum((a - mx) ** 2 for a in rx)
    syy = sum((b - my) ** 2 for b in ry)
    return sxy / math.sqrt(sxx * syy) if sxx and syy else math.nan


@dataclass
class Replay:
    """A replayed cache: the configurations (cache keys) in Kernel Tuner's
    order, their measured times (None: failed on the GPU), polyvol's order
    (the refused configurations last) and predicted GLup/s."""

    keys: List[str]
    times: Dict[str, Optional[float]]
    predicted: List[str]
    glups: Dict[str, float]
    refused: List[Tuple[Config, PolyvolError]] = field(default_factory=list)
    launches: int = 0  # distinct launches replayed
    cached: int = 0  # configurations of the cache

    @property
    def best_ms(self) -> float:
        """The best measured time of the replayed configurations."""
        return min(t for t in self.times.values() if t is not None)

    def polyvol_best_after(self, k: int) -> float:
        """The best time after polyvol's first k over the best (inf where
        all of them failed)."""
        b = best_after(self.predicted, self.times, k)
        return math.inf if b is None else b / self.best_ms

    @property
    def rank_of_best(self) -> int:
        """The 1-based position of the (first) best configuration in
        polyvol's order."""
        best = self.best_ms
        return next(i + 1 for i, key in enumerate(self.predicted) if self.times[key] == best)

    @property
    def rho(self) -> float:
        """Spearman's ρ between the predicted GLup/s and the measured speed
        (1/time) of the configurations both predicted and measured."""
        both = [k for k in self.keys if k in self.glups and self.times[k] is not None]
        return spearman([self.glups[k] for k in both], [1 / self.times[k] for k in both])  # type: ignore[operator]


def replay(
    cache: Mapping[str, Any],
    spec_fn: Union[Callable[[Config], Spec], Spec],
    device: str,
    *,
    restrictions: Sequence[Restriction] = (),
    block: Optional[Sequence[Any]] = None,
    fold: Optional[Sequence[Any]] = None,
    tiling: str = "strided",
    staging: Optional[str] = None,
    every: int = 1,
    session: Optional[Session] = None,
    timeout: Optional[float] = None,
) -> Replay:
    """Replays a cache (:func:`polyvol.tuner.read_cache`): its
    configurations that pass ``restrictions``, of every ``every``-th
    distinct launch in sorted order, ranked by :func:`polyvol.tuner.rank`.
    ``block``, ``fold``, ``tiling`` and ``staging`` are those of
    :class:`polyvol.tuner.Space`; ``block`` and ``fold`` default to the
    parameters ``block_size_*`` and ``tile_size_*`` the cache has."""
    if every < 1:
        raise ValueError(f"every must be at least 1, not {every}")
    names = cache["tune_params_keys"]
    entries = cache["cache"]
    params = {n: cache["tune_params"][n] for n in names}
    if block is None:
        block = tuple(n if n in params else None for n in ("block_size_x", "block_size_y", "block_size_z"))
    if fold is None:
        fold = tuple(n if n in params else None for n in ("tile_size_x", "tile_size_y", "tile_size_z"))
    cached = list(restrictions) + [lambda c: cache_key(c, names) in entries]
    space = Space(params, cached, block=block, fold=fold, tiling=tiling, staging=staging)
    launches = sorted({space.launch(c) for c in space}, key=lambda la: (la.block, la.fold, la.tiling, la.unstaged))
    sample = set(launches[::every])
    sampled = Space(params, cached + [lambda c: space.launch(c) in sample], block=block, fold=fold, tiling=tiling, staging=staging)
    keys = [cache_key(c, names) for c in sampled]
    if not keys:
        raise ValueError("no configuration of the cache passes the restrictions")
    times = {k: measured_ms(entries[k]) for k in keys}
    if all(t is None for t in times.values()):
        raise ValueError("every replayed configuration failed on the GPU: there is no best to find")
    refused: List[Tuple[Config, PolyvolError]] = []
    ranking = rank(sampled, spec_fn, device, failures=refused, session=session, timeout=timeout)
    glups = {cache_key(c, names): g for c, g in ranking}
    predicted = [cache_key(c, names) for c, _ in ranking] + [cache_key(c, names) for c, _ in refused]
    return Replay(keys, times, predicted, glups, refused, launches=len(sample), cached=len(entries))


def _finite(v: float) -> Optional[float]:
    """v, or None (JSON's null) for NaN and infinity."""
    return v if math.isfinite(v) else None


def report(r: Replay, ks: Sequence[int], picks: int = 5, seeds: int = SEEDS) -> Dict[str, Any]:
    """The replay's figures as a JSON-ready dict: ``best_after`` (per k,
    polyvol's order and the random mean; None where every configuration
    measured failed), ``rank_of_best``, ``rho`` (None where undefined) and
    ``first_picks``."""
    ks = [k for k in ks if k <= len(r.keys)]
    rnd = random_best_after(r.keys, r.times, ks, seeds)
    return {
        "configurations": len(r.keys),
        "launches": r.launches,
        "cached": r.cached,
        "failed_on_gpu": sum(1 for t in r.times.values() if t is None),
        "refused": len(r.refused),
        "best_ms": r.best_ms,
        "rank_of_best": r.rank_of_best,
        "rho": _finite(r.rho),
        "best_after": [
            {"k": k, "polyvol": _finite(r.polyvol_best_after(k)), "random": _finite(rnd[k][0]), "random_seeds_found_none": rnd[k][1]}
            for k in ks
        ],
        "first_picks": [
            {"rank": i + 1, "config": key, "glups": r.glups.get(key), "ms": r.times[key],
             "over_best": None if r.times[key] is None else r.times[key] / r.best_ms}  # type: ignore[operator]
            for i, key in enumerate(r.predicted[:picks])
        ],
    }


def _text(name: str, device: str, rep: Dict[str, Any], seeds: int) -> str:
    def ratio(v: Optional[float]) -> str:
        return "none" if v is None else f"{v:.3f}"

    out = [
        f"{name} on {device}: {rep['configurations']} configurations of {rep['cached']} "
        f"({rep['launches']} launches), {rep['failed_on_gpu']} failed on the GPU, {rep['refused']} refused by polyvol",
        f"best measured: {rep['best_ms']:.4f} ms, rank {rep['rank_of_best']} in polyvol's order",
        f"Spearman rho, predicted GLup/s against measured speed: {ratio(rep['rho'])}",
        "",
        f"{'k':>5}  {'polyvol':>8}  {f'random ({seeds} seeds)':>18}",
    ]
    for row in rep["best_after"]:
        none = f" ({row['random_seeds_found_none']} found none)" if row["random_seeds_found_none"] else ""
        out.append(f"{row['k']:>5}  {ratio(row['polyvol']):>8}  {ratio(row['random']):>18}{none}")
    out += ["", f"polyvol's first picks: {'rank':>4}  {'GLup/s':>8}  {'ms':>9}  {'/ best':>6}  configuration"]
    for p in rep["first_picks"]:
        g = "refused" if p["glups"] is None else f"{p['glups']:.2f}"
        ms = "failed" if p["ms"] is None else f"{p['ms']:.4f}"
        over = "-" if p["over_best"] is None else f"{p['over_best']:.3f}"
        out.append(f"{'':22} {p['rank']:>4}  {g:>8}  {ms:>9}  {over:>6}  {p['config']}")
    return "\n".join(out) + "\n"


def _triple_names(value: Optional[str], flag: str) -> Optional[Tuple[Any, ...]]:
    """--block and --fold: comma-separated parameter names or integers, "1"
    or "-" for an entry of 1."""
    if value is None:
        return None
    entries: List[Any] = []
    for part in value.split(","):
        part = part.strip()
        if part in ("", "-"):
            entries.append(None)
        elif part.isdigit():
            entries.append(int(part))
        else:
            entries.append(part)
    if not 1 <= len(entries) <= 3:
        raise argparse.ArgumentTypeError(f"{flag} takes 1 to 3 entries, not {len(entries)}")
    return tuple(entries)


def _ks(value: str) -> Optional[List[int]]:
    if value == "all":
        return None
    try:
        ks = sorted({int(v) for v in value.split(",")})
    except ValueError:
        raise argparse.ArgumentTypeError(f"--ks {value!r}: expected integers separated by commas, or all") from None
    if not ks or ks[0] < 1:
        raise argparse.ArgumentTypeError(f"--ks {value!r}: each k must be at least 1")
    return ks


def main(argv: Optional[Sequence[str]] = None) -> int:
    """The command line; returns the exit status (2 for a bad input)."""
    ap = argparse.ArgumentParser(prog="python -m polyvol.replay", description=__doc__.split("\n\n")[0])
    ap.add_argument("cache", help="a Kernel Tuner cache file (.json or .json.gz)")
    ap.add_argument("--device", required=True, help="the polyvol device of the GPU that measured the cache")
    ap.add_argument("--spec", required=True, help="the kernel's spec: a file or an embedded example name")
    ap.add_argument("--block", help="parameters (or integers) of block x,y,z (default: block_size_x,block_size_y,block_size_z)")
    ap.add_argument("--fold", help="parameters (or integers) of the fold x,y,z (default: tile_size_x,tile_size_y,tile_size_z)")
    ap.add_argument("--tiling", choices=("strided", "consecutive"), default="strided", help="how a thread's tile points lie")
    ap.add_argument("--staging", help="the parameter that switches staging in shared memory, e.g. use_shmem")
    ap.add_argument("--restrict", action="append", default=[], metavar="EXPR", help="a restriction (repeatable)")
    ap.add_argument("--every", type=int, default=1, help="replay every N-th distinct launch (default: all)")
    ap.add_argument("--ks", type=_ks, default=list(DEFAULT_KS), help="the k of the table, e.g. 1,5,20, or all (default: %(default)s)")
    ap.add_argument("--picks", type=int, default=5, help="how many of polyvol's first picks to list")
    ap.add_argument("--seeds", type=int, default=SEEDS, help="random orders averaged")
    ap.add_argument("--json", action="store_true", help="print the figures as JSON")
    a = ap.parse_args(argv)
    try:
        cache = read_cache(a.cache)
        r = replay(
            cache, a.spec, a.device, restrictions=a.restrict, block=_triple_names(a.block, "--block"),
            fold=_triple_names(a.fold, "--fold"), tiling=a.tiling, staging=a.staging, every=a.every,
        )
    except (OSError, ValueError, SyntaxError, NameError, PolyvolError, argparse.ArgumentTypeError) as e:
        print(f"polyvol.replay: {e}", file=sys.stderr)
        return 2
    ks = a.ks if a.ks is not None else list(range(1, len(r.keys) + 1))
    rep = report(r, ks, a.picks, a.seeds)
    if a.json:
        print(json.dumps(rep, indent=1))
    else:
        print(_text(a.cache, a.device, rep, a.seeds), end="")
    return 0


if __name__ == "__main__":
    sys.exit(main())
