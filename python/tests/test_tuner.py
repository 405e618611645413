"""polyvol.tuner: the search space, the ranking and the restriction."""

from __future__ import annotations

import gzip
import itertools
import json

import pytest

import polyvol
from polyvol import Session
from polyvol.tuner import Space, cache_key, rank, read_cache, top_k_restriction

from conftest import calls, request_log  # noqa: F401 (a fixture)

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


def test_rank_predicts_each_launch_once(request_log):
    sp = Space(
        {"block_size_x": [32, 64, 96], "block_size_y": [2, 4], "read_only": [0, 1], "tile": [1, 2]},
        ["block_size_x * block_size_y <= 256"],
        fold=("tile", None, None),
        tiling="strided",
    )
    configs = sp.configs()
    ranking = rank(sp, "star2d-r1", "A100-40GB", session=Session())
    args, lines = request_log
    assert calls(args) == ["serve --stdio"]  # one process for the whole ranking
    requests = [json.loads(l) for l in calls(lines)]
    launches = {(sp.launch(c).block, sp.launch(c).fold) for c in configs}
    assert len(requests) == len(launches) == len(configs) // 2  # read_only does not change the launch
    assert {(r["block"], r["fold"]) for r in requests} == {
        (",".join(map(str, b)), ",".join(map(str, f))) for b, f in launches
    }
    assert all(r["endpoint"] == "predict" and r["example"] == "star2d-r1" and r["device"] == "A100-40GB" for r in requests)
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


def test_rank_raises_on_device_and_spec_errors(tmp_path):
    sp = Space({"block_size_x": [64, 128]})
    with pytest.raises(polyvol.PolyvolError, match="unknown device") as ei:
        rank(sp, "vec-copy", "no-such-gpu")
    assert ei.value.field == "device" and ei.value.returncode == 2
    bad = {"name": "bad", "domain": [64], "fields": [{"name": "a", "element": 3, "load": [["x"]]}]}
    with pytest.raises(polyvol.PolyvolError, match="element") as ei:
        rank(sp, bad, "A100-40GB")
    assert ei.value.file == "<stdin>" and ei.value.line is not None
    path = tmp_path / "bad.yaml"
    path.write_text("name: bad\ndomain: [64]\nfields:\n  - name: a\n    element: 3\n    load: [[x]]\n")
    with pytest.raises(polyvol.PolyvolError) as ei:
        rank(sp, path, "A100-40GB")
    assert (ei.value.file, ei.value.line) == (str(path), 5)  # the file's name, not <stdin>
    # A launch the device refuses is a failure of that configuration only.
    failures = []
    assert [c["block_size_x"] for c, _ in rank(Space({"block_size_x": [64, 4096]}), "vec-copy", "A100-40GB", failures=failures)] == [64]
    assert [c["block_size_x"] for c, _ in failures] == [4096]


def test_session_answers_by_id_and_survives_bad_requests():
    with Session() as s:
        answers = s.request_many([
            {"endpoint": "predict", "example": "vec-copy", "block": "64"},
            {"endpoint": "predict", "example": "vec-copy", "block": "0"},
            {"endpoint": "nope"},
            {"endpoint": "predict", "example": "vec-copy", "block": "128"},
        ])
        assert [a.data["launch"]["block"] for a in (answers[0], answers[3])] == [[64, 1, 1], [128, 1, 1]]
        assert isinstance(answers[1], polyvol.PolyvolError) and answers[1].field == "block"
        assert isinstance(answers[2], polyvol.PolyvolError) and answers[2].field == "endpoint"
        assert answers[0].notes == []
        pid = s._proc.pid
        (again, huge) = s.request_many([
            {"endpoint": "predict", "example": "vec-copy", "block": "64"},
            {"endpoint": "predict", "spec": "#" * (2 << 20)},
        ])
        assert s._proc.pid == pid  # the same process answers the next batch
        assert again.data["prediction"] == answers[0].data["prediction"]
        assert isinstance(huge, polyvol.PolyvolError) and "larger than" in huge.message


def test_read_cache_names_file_and_position(tmp_path):
    broken = tmp_path / "broken.json"
    broken.write_text('{"tune_params_keys": ["a"],\n "tune_params": {"a": [1]},\n "cache": {"1": {"a": 1, "time": 2.0}} x\n')
    with pytest.raises(ValueError, match=f"^{broken}:3:"):
        read_cache(broken)
    for doc, where in (
        ([1, 2], "top level"),
        ({"tune_params": {}, "cache": {}}, "tune_params_keys"),
        ({"tune_params_keys": ["a"], "tune_params": {"a": [1]}, "cache": []}, "cache"),
        ({"tune_params_keys": ["b"], "tune_params": {"a": [1]}, "cache": {}}, r"tune_params_keys\[0\]"),
        ({"tune_params_keys": ["a"], "tune_params": {"a": [1]}, "cache": {"1": {"a": 1}}}, r"cache\['1'\]: no 'time'"),
    ):
        p = tmp_path / "shape.json"
        p.write_text(json.dumps(doc))
        with pytest.raises(ValueError, match=f"^{p}: {where}"):
            read_cache(p)
