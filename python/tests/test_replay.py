"""The Kernel Tuner replay: python -m polyvol.replay on the cache files of
testdata/kernel_tuner, its pieces, and the table of docs/python.md.

test_docs_table_is_current recomputes the sampled replay (about 3 minutes on
2 busy cores); set POLYVOL_SKIP_REPLAY=1 to skip it locally.
"""

from __future__ import annotations

import importlib.util
import json
import math
import os
import random
import statistics
import subprocess
import sys

import pytest

from conftest import REPO
from polyvol.replay import best_after, measured_ms, random_best_after, spearman
from polyvol.tuner import cache_key, read_cache

spec = importlib.util.spec_from_file_location("replay_kernel_tuner", REPO / "python" / "scripts" / "replay_kernel_tuner.py")
replay = importlib.util.module_from_spec(spec)
assert spec.loader is not None
sys.modules[spec.name] = replay  # dataclasses look their module up
spec.loader.exec_module(replay)


def test_spec_follows_the_launch_tile_and_staging():
    specs = {(s, p, b): f"{s}{p}{b}" for s in (False, True) for p in (False, True) for b in ("none", "access")}
    c = {"block_size_x": 64, "block_size_y": 4, "tile_size_x": 2, "tile_size_y": 4, "use_shmem": 0, "use_padding": 0}
    assert replay.spec_of(specs, c) == "FalseFalsenone"  # 128 and 16 divide 4096
    assert replay.spec_of(specs, dict(c, block_size_x=48)) == "FalseFalseaccess"  # 96 does not
    assert replay.spec_of(specs, dict(c, tile_size_y=3)) == "FalseFalseaccess"  # 12 does not
    assert replay.spec_of(specs, dict(c, use_shmem=1)) == "TrueFalsenone"
    assert replay.spec_of(specs, dict(c, use_shmem=1, use_padding=1, tile_size_x=3)) == "TrueTrueaccess"
    for staged, padded in ((False, False), (True, False), (True, True)):
        text = replay.convolution_spec("access", staged, padded)
        assert "\nbounds_check: access\n" in text and "\nbounds_check: none\n" not in text
        assert ("stage: {copy: block, pad: banks}" in text) == padded
        assert ("stage: {copy: block, pad: 0}" in text) == (staged and not padded)
        assert ("stage:" in text) == staged


def test_rows_restrict_polyvol_order():
    # Four configurations: two read global memory, two stage; polyvol
    # predicts the staged failure first, then b, d, a.
    entries = {
        k: {"block_size_x": 32, "block_size_y": y, "tile_size_x": 1, "tile_size_y": 1, "read_only": 0, "use_shmem": s, "use_padding": 0,
            "time": t}
        for k, y, s, t in (("a", 1, 0, 1.0), ("b", 2, 0, 2.0), ("c", 1, 1, "RuntimeFailedConfig"), ("d", 2, 1, 4.0))
    }
    r = replay.Replay(
        keys=list("abcd"), times={k: measured_ms(e) for k, e in entries.items()}, predicted=list("cbda"),
        glups={"a": 1.0, "b": 3.0, "c": 4.0, "d": 2.0},
    )
    every = replay._rows(r, entries, lambda e: True)
    assert (every.sampled, every.launches, every.failed, every.best_ms, every.rank_of_best) == (4, 4, 1, 1.0, 4)
    assert [over for _, over in every.picks] == [math.inf, 2.0, 4.0]
    direct = replay._rows(r, entries, lambda e: e["use_shmem"] == 0)
    assert (direct.sampled, direct.launches, direct.failed, direct.best_ms, direct.rank_of_best) == (2, 2, 0, 1.0, 2)
    assert [over for _, over in direct.picks] == [2.0, 1.0]
    assert direct.picks[0][0] == "32x2 tile 1x1 read_only=0" and every.picks[2][0] == "32x2 tile 1x1 staged read_only=0"


def test_sample_names_its_ordinal():
    got = [replay._ordinal(n) for n in (1, 2, 3, 4, 9, 11, 12, 13, 21, 22, 103, 111)]
    assert got == ["1st", "2nd", "3rd", "4th", "9th", "11th", "12th", "13th", "21st", "22nd", "103rd", "111th"]


def test_best_after_skips_failures():
    times = {"a": None, "b": 3.0, "c": 1.0, "d": None}
    assert best_after(["a", "b", "c", "d"], times, 1) is None
    assert best_after(["a", "b", "c", "d"], times, 2) == 3.0
    assert best_after(["a", "b", "c", "d"], times, 3) == 1.0
    assert best_after(["d", "c"], times, 50) == 1.0


def test_spearman():
    assert spearman([1, 2, 3, 4], [10, 20, 30, 40]) == pytest.approx(1.0)
    assert spearman([1, 2, 3, 4], [4, 3, 2, 1]) == pytest.approx(-1.0)
    # Ties share their mean rank: ranks (1.5, 1.5, 3) and (1, 2, 3).
    assert spearman([5, 5, 7], [1, 2, 3]) == pytest.approx(0.8660254, abs=1e-6)
    assert math.isnan(spearman([1, 1], [1, 2]))
    assert measured_ms({"time": 1.5}) == 1.5 and measured_ms({"time": "RuntimeFailedConfig"}) is None


def test_random_baseline_is_the_mean_over_seeds():
    times = {"a": 1.0, "b": 2.0, "c": None}
    got = random_best_after(["a", "b", "c"], times, [1, 3], seeds=20)
    assert got[3] == (1.0, 0)  # all three measured: the best is found
    firsts = []
    for seed in range(20):  # the documented orders: random.Random(seed).shuffle
        order = ["a", "b", "c"]
        random.Random(seed).shuffle(order)
        firsts.append(order[0])
    assert sum(1 for f in firsts if f == "c") == got[1][1]  # seeds whose first measurement failed
    assert got[1][0] == pytest.approx(statistics.fmean([times[f] for f in firsts if f != "c"]))


def _tool(*args: str) -> dict:
    """Runs python -m polyvol.replay ARGS --json as a user would and
    returns its figures."""
    env = dict(os.environ, PYTHONPATH=str(REPO / "python"))
    r = subprocess.run([sys.executable, "-m", "polyvol.replay", *args, "--json"], capture_output=True, text=True, env=env, cwd=REPO)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def _check_figures(rep: dict, cache: dict) -> None:
    """The figures agree with the cache: the first picks' times are the
    cached ones, the best after all measurements is the best, and the
    rank of the best is where polyvol's order reaches 1.000."""
    best_after = {row["k"]: row["polyvol"] for row in rep["best_after"]}
    for pick in rep["first_picks"]:
        t = cache["cache"][pick["config"]]["time"]
        assert pick["ms"] == (t if isinstance(t, float) else None)
        assert pick["over_best"] is None or pick["over_best"] == pytest.approx(pick["ms"] / rep["best_ms"])
    ks = sorted(best_after)
    assert all(best_after[a] >= best_after[b] for a, b in zip(ks, ks[1:]))  # more measurements never find worse
    assert best_after[rep["configurations"]] == 1.0
    assert best_after[rep["rank_of_best"]] == 1.0
    assert rep["rank_of_best"] == 1 or best_after[rep["rank_of_best"] - 1] > 1.0
    assert -1.0 <= rep["rho"] <= 1.0


def test_tool_replays_unstaged_rows():
    cache = read_cache(replay.TESTDATA / "a6000-kernel-tuner-cache.json.gz")
    rep = _tool(
        "testdata/kernel_tuner/a6000-kernel-tuner-cache.json.gz", "--device", "RTX-A6000",
        "--spec", "examples/convolution-15x15.yaml", "--restrict", "use_shmem == 0", "--every", "60", "--ks", "all", "--picks", "8",
    )
    assert rep["configurations"] == 2 * rep["launches"] == 32  # read_only 0 and 1 of each launch
    assert [row["k"] for row in rep["best_after"]] == list(range(1, 33))
    assert len(rep["first_picks"]) == 8
    _check_figures(rep, cache)


def test_tool_replays_staged_rows():
    # use_shmem=1 rows, staged as convolution-15x15-staged says (padded:
    # use_padding=1), beside the use_shmem=0 rows that read global memory.
    cache = read_cache(replay.TESTDATA / "w6600-kernel-tuner-cache.json.gz")
    rep = _tool(
        "testdata/kernel_tuner/w6600-kernel-tuner-cache.json.gz", "--device", "PRO-W6600",
        "--spec", "convolution-15x15-staged", "--staging", "use_shmem", "--restrict", "use_padding == 1 or use_shmem == 0",
        "--every", "120", "--ks", "all", "--picks", "1000",
    )
    assert len(rep["first_picks"]) == rep["configurations"]  # every replayed configuration in polyvol's order
    use_shmem = cache["tune_params_keys"].index("use_shmem")
    staged = [p for p in rep["first_picks"] if p["config"].split(",")[use_shmem] == "1"]
    assert 0 < len(staged) < rep["configurations"]  # both kinds of rows replayed
    assert all(p["glups"] is not None for p in staged)  # and predicted, none refused
    _check_figures(rep, cache)


def test_tool_refuses_bad_input(tmp_path):
    env = dict(os.environ, PYTHONPATH=str(REPO / "python"))
    bad = tmp_path / "bad.json"
    bad.write_text('{"tune_params_keys": [}')
    for args, want in (
        ([str(bad), "--device", "RTX-A4000", "--spec", "vec-copy"], f"{bad}:1:"),
        (["testdata/kernel_tuner/a4000-kernel-tuner-cache.json.gz", "--device", "no-gpu", "--spec", "convolution-15x15"], "unknown device"),
        (["testdata/kernel_tuner/a4000-kernel-tuner-cache.json.gz", "--device", "RTX-A4000", "--spec", "vec-copy", "--restrict", "use_shmem == 7"],
         "no configuration"),
    ):
        r = subprocess.run([sys.executable, "-m", "polyvol.replay", *args], capture_output=True, text=True, env=env, cwd=REPO)
        assert r.returncode == 2 and r.stderr.startswith("polyvol.replay: ") and want in r.stderr, r.stderr


def test_cache_files_are_the_convolution_sweeps():
    for file, gpu, _ in replay.GPUS:
        c = read_cache(replay.TESTDATA / file)
        assert c["device_name"] == gpu
        assert c["tune_params_keys"][:4] == ["block_size_x", "block_size_y", "tile_size_x", "tile_size_y"]
        direct = [e for e in c["cache"].values() if e["use_shmem"] == 0]
        assert len(direct) == 1920
        assert all(cache_key(e, c["tune_params_keys"]) in c["cache"] for e in direct)


@pytest.mark.skipif(os.environ.get("POLYVOL_SKIP_REPLAY") == "1", reason="POLYVOL_SKIP_REPLAY=1")
def test_docs_table_is_current():
    results = replay.replay()
    table = replay.table(results)
    assert replay.docs_table(replay.DOC.read_text(encoding="utf-8")) == table, (
        "docs/python.md's replay table is stale: run python/scripts/replay_kernel_tuner.py --write"
    )
    for g in results:
        assert g.all.sampled > g.direct.sampled > 0 and g.direct.best_ms >= g.all.best_ms
        for r in (g.all, g.direct):
            assert r.unpredicted == 0  # polyvol predicts every configuration, staged or not
            assert r.best_ms >= r.full_best_ms and all(v >= 1.0 for v in r.polyvol.values())
            assert all(v == 1.0 for k, v in r.polyvol.items() if k >= r.rank_of_best)
            assert all(v > 1.0 for k, v in r.polyvol.items() if k < r.rank_of_best)
