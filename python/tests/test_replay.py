"""The Kernel Tuner replay: its pieces, and the table of docs/python.md.

test_docs_table_is_current recomputes the whole replay (a few minutes on 2
cores); set POLYVOL_SKIP_REPLAY=1 to skip it locally.
"""

from __future__ import annotations

import importlib.util
import os
import sys

import pytest

from conftest import REPO

spec = importlib.util.spec_from_file_location("replay_kernel_tuner", REPO / "python" / "scripts" / "replay_kernel_tuner.py")
replay = importlib.util.module_from_spec(spec)
assert spec.loader is not None
sys.modules[spec.name] = replay  # dataclasses look their module up
spec.loader.exec_module(replay)


def test_bounds_check_follows_the_launch_tile():
    specs = {"none": "N", "access": "A"}
    c = {"block_size_x": 64, "block_size_y": 4, "tile_size_x": 2, "tile_size_y": 4}
    assert replay.spec_of(specs, c) == "N"  # 128 and 16 divide 4096
    assert replay.spec_of(specs, dict(c, block_size_x=48)) == "A"  # 96 does not
    assert replay.spec_of(specs, dict(c, tile_size_y=3)) == "A"  # 12 does not
    assert "\nbounds_check: access\n" in replay.convolution_spec("access")
    assert "\nbounds_check: none\n" not in replay.convolution_spec("access")


def test_best_after_skips_failures():
    times = {"a": None, "b": 3.0, "c": 1.0, "d": None}
    assert replay.best_after(["a", "b", "c", "d"], times, 1) is None
    assert replay.best_after(["a", "b", "c", "d"], times, 2) == 3.0
    assert replay.best_after(["a", "b", "c", "d"], times, 3) == 1.0
    assert replay.best_after(["d", "c"], times, 50) == 1.0


def test_cache_files_are_the_convolution_sweeps():
    for file, gpu, _ in replay.GPUS:
        c = replay.read_cache(replay.TESTDATA / file)
        assert c["device_name"] == gpu
        assert c["tune_params_keys"][:4] == ["block_size_x", "block_size_y", "tile_size_x", "tile_size_y"]
        direct = [e for e in c["cache"].values() if e["use_shmem"] == 0]
        assert len(direct) == 1920
        assert all(replay.cache_key(e, c["tune_params_keys"]) in c["cache"] for e in direct)


@pytest.mark.skipif(os.environ.get("POLYVOL_SKIP_REPLAY") == "1", reason="POLYVOL_SKIP_REPLAY=1")
def test_docs_table_is_current():
    results = replay.replay()
    table = replay.table(results)
    assert replay.docs_table(replay.DOC.read_text(encoding="utf-8")) == table, (
        "docs/python.md's replay table is stale: run python/scripts/replay_kernel_tuner.py --write"
    )
    for r in results:
        assert r.sampled > 0 and r.best_ms >= r.full_best_ms
        assert all(v >= 1.0 for v in r.polyvol.values())
