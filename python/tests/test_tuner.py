"""polyvol.tuner: the search space, the ranking and the restriction."""

from __future__ import annotations

import gzip
import itertools
import json

import pytest

import polyvol
from polyvol.tuner import Space, cache_key, rank, read_cache, top_k_restriction

from conftest import calls

TUNE = {
    "block_size_x": [16, 32, 48, 64],
    "block_size_y": [1, 2, 4],
    "tile_size_x": [1, 2],
    "read_only": [0, 1],
}


def test_space_restrictions_as_kernel_tuner():
    sp = Space(TUNE, ["block_size_x*block_size_y <= 64", "tile_size_x == 1 or block_size_x >= 32"])
    want = [
        dict(zip(TUNE, v))
        for v in itertools.product(*TUNE.values())
        if v[0] * v[1] <= 64 and (v[2] == 1 or v[0] >= 32)
    ]
    assert sp.configs() == want  # Kernel Tuner's order: the product in dict order
    assert len(sp) == len(want) == 22  # 16: 3 x 1 x 2, 32: 2 x 2 x 2, 48 and 64: 1 x 2 x 2
    by_callable = Space(TUNE, lambda p: p["block_size_x"] * p["block_size_y"] <= 64)
    assert len(by_callable) == len([v for v in itertools.product(*TUNE.values()) if v[0] * v[1] <= 64])
    assert len(Space(TUNE)) == 4 * 3 * 2 * 2
    assert sp.allowed({"block_size_x": 16, "block_size_y": 4, "tile_size_x": 1, "read_only": 0})
    assert not sp.allowed({"block_size_x": 16, "block_size_y": 4, "tile_size_x": 2, "read_only": 0})


def test_space_launch_mapping():
    c = {"block_size_x": 48, "block_size_y": 2, "tile_size_x": 2, "read_only": 1}
    default = Space(TUNE)
    la = default.launch(c)
    assert (la.block, la.fold, la.tiling) == ((48, 2, 1), (1, 1, 1), "consecutive")
    sp = Space(TUNE, block=("block_size_x", "block_size_y", 1), fold=("tile_size_x", None, 4), tiling="strided")
    la = sp.launch(c)
    assert (la.block, la.fold, la.tiling) == ((48, 2, 1), (2, 1, 4), "strided")
    by_fn = Space(TUNE, tiling=lambda p: "strided" if p["tile_size_x"] > 1 else "consecutive")
    assert by_fn.launch(c).tiling == "strided"
    assert by_fn.launch(dict(c, tile_size_x=1)).tiling == "consecutive"
    with pytest.raises(ValueError):
        Space(TUNE, block=("no_such_param",))
    with pytest.raises(ValueError):
        Space(TUNE, tiling="diagonal")


def test_top_k_restriction():
    ranking = [({"a": i, "b": i % 2}, 100.0 - i) for i in range(10)]
    top3 = top_k_restriction(ranking, k=3)
    assert [top3({"a": i, "b": i % 2}) for i in range(10)] == [True] * 3 + [False] * 7
    assert top3({"a": 0, "b": 0, "unrelated": 5})  # Kernel Tuner may pass more parameters
    assert not top3({"a": 0, "b": 1})  # not in the ranking
    assert not top3({"a": 0})  # lacks a ranked parameter
    share = top_k_restriction(ranking, share=0.25)  # ceil(2.5) = 3
    assert [share({"a": i, "b": i % 2}) for i in range(10)] == [True] * 3 + [False] * 7
    assert sum(top_k_restriction(ranking, share=1.0)(c) for c, _ in ranking) == 10
    assert not any(top_k_restriction(ranking, k=0)(c) for c, _ in ranking)
    with pytest.raises(ValueError):
        top_k_restriction(ranking)
    with pytest.raises(ValueError):
        top_k_restriction(ranking, k=1, share=0.5)
    with pytest.raises(ValueError):
        top_k_restriction(ranking, share=0)


def test_rank_predicts_each_launch_once(logging_binary):
    sp = Space(
        {"block_size_x": [32, 64, 96], "block_size_y": [2, 4], "read_only": [0, 1], "tile": [1, 2]},
        ["block_size_x * block_size_y <= 256"],
        fold=("tile", None, None),
        tiling="strided",
    )
    configs = sp.configs()
    ranking = rank(sp, "star2d-r1", "A100-40GB", workers=2)
    lines = calls(logging_binary)
    launches = {(sp.launch(c).block, sp.launch(c).fold) for c in configs}
    assert len(lines) == len(launches) == len(configs) // 2  # read_only does not change the launch
    assert all(l.startswith("predict star2d-r1 --format json --device A100-40GB") for l in lines)
    assert sorted(map(json.dumps, (c for c, _ in ranking))) == sorted(map(json.dumps, configs))
    g = [x for _, x in ranking]
    assert g == sorted(g, reverse=True)
    # Ties (read_only 0 and 1) keep Kernel Tuner's order.
    for (c1, g1), (c2, g2) in zip(ranking, ranking[1:]):
        if g1 == g2 and {k: v for k, v in c1.items() if k != "read_only"} == {k: v for k, v in c2.items() if k != "read_only"}:
            assert (c1["read_only"], c2["read_only"]) == (0, 1)
    # The ranked value is what predict says for that launch.
    best, best_g = ranking[0]
    la = sp.launch(best)
    assert polyvol.predict("star2d-r1", device="A100-40GB", block=la.block, fold=la.fold, tile="strided").glups == best_g


def test_rank_spec_per_config_and_failures():
    copy = {
        "name": "copy",
        "domain": [4096, 64],
        "fields": [
            {"name": "a", "element": 4, "extent": [4096, 64], "load": [["x", "y"]]},
            {"name": "b", "element": 4, "extent": [4096, 64], "store": [["x", "y"]]},
        ],
    }
    wide = dict(copy, fields=[dict(f, element=8) for f in copy["fields"]])
    sp = Space({"block_size_x": [64, 2048], "double": [0, 1]})
    failures = []
    ranking = rank(sp, lambda c: wide if c["double"] else copy, "A100-40GB", failures=failures)
    # 2048 threads per block exceed every GPU's limit: polyvol refuses them.
    assert sorted(c["double"] for c, _ in failures) == [0, 1]
    assert all(c["block_size_x"] == 2048 for c, _ in failures)
    assert all(isinstance(e, polyvol.PolyvolError) for _, e in failures)
    assert [c["double"] for c, _ in ranking] == [0, 1]  # floats move half the bytes of doubles
    assert ranking[0][1] > ranking[1][1]


def test_restriction_from_rank_keeps_the_fastest():
    sp = Space({"block_size_x": [32, 64, 128, 256], "block_size_y": [1, 2, 4]})
    ranking = rank(sp, "star2d-r1", "V100")
    keep = top_k_restriction(ranking, k=2)
    kept = [c for c in sp if keep(c)]
    assert len(kept) == 2
    assert min(keep_g for c, keep_g in ranking if keep(c)) >= max(g for c, g in ranking if not keep(c))


def test_read_cache(tmp_path):
    tune = {"block_size_x": [32, 64], "tile": [1, 2]}
    keys = list(tune)
    entries = {}
    for v in itertools.product(*tune.values()):
        c = dict(zip(keys, v))
        entries[cache_key(c, keys)] = dict(c, time=float(v[0] + v[1]))
    doc = {"device_name": "X", "tune_params_keys": keys, "tune_params": tune, "cache": entries}
    p = tmp_path / "c.json.gz"
    with gzip.open(p, "wt") as f:
        json.dump(doc, f)
    assert read_cache(p) == doc
    assert "64,2" in read_cache(p)["cache"]
    # Kernel Tuner appends entries while tuning; an unfinished file lacks the closing braces.
    text = json.dumps(doc, indent=1)
    unfinished = text[: text.rstrip().rstrip("}").rstrip().rstrip("}").rstrip().__len__()] + ",\n"
    q = tmp_path / "c.json"
    q.write_text(unfinished)
    assert read_cache(q) == doc


def test_staging_switch():
    # use_shmem as the staging switch: 0 reads the input from global memory,
    # which predicts exactly what the spec without the stage key predicts.
    tune = {"block_size_x": [32, 64], "block_size_y": [4], "use_shmem": [0, 1]}
    sp = Space(tune, staging="use_shmem")
    assert [sp.launch(c).unstaged for c in sp] == [True, False, True, False]
    assert not Space(tune).launch({"block_size_x": 32, "block_size_y": 4, "use_shmem": 0}).unstaged
    with pytest.raises(ValueError):
        Space(tune, staging="use_smem")
    ranking = dict(
        ((c["block_size_x"], c["use_shmem"]), g)
        for c, g in rank(sp, "convolution-15x15-staged", "RTX-A4000", workers=2)
    )
    for bx in (32, 64):
        plain = polyvol.predict("convolution-15x15", device="RTX-A4000", block=(bx, 4)).glups
        assert ranking[(bx, 0)] == plain
        assert ranking[(bx, 1)] != plain
