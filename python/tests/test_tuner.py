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


#: 10^6 combinations: block_size_x changes the launch, the five switches
#: (compiler flags, say) do not.
MILLION = {"block_size_x": [32 * i for i in range(1, 11)], **{f"switch_{i}": list(range(10)) for i in range(5)}}


def test_space_counts_without_enumerating_and_tests_lazily():
    twelve = {f"p{i}": list(range(10)) for i in range(12)}
    assert len(Space(twelve)) == Space(twelve).combinations() == 10**12  # counted, not enumerated
    seen = []

    def even_last(c):
        seen.append(c["p11"])
        return c["p11"] % 2 == 0

    first = list(itertools.islice(Space(twelve, even_last), 3))
    assert [c["p11"] for c in first] == [0, 2, 4]
    assert seen == [0, 1, 2, 3, 4]  # each configuration tested as it comes, no further
    # With restrictions len counts the configurations that pass them.
    assert len(Space(MILLION, ["switch_0 < 5", "block_size_x != 64"])) == 10**6 // 2 // 10 * 9


def test_restriction_expressions_see_parameters_by_name():
    tune = {"block_size_x": [16, 32, 48], "block-size-y": [1, 2], "tile": [1, 2]}
    # Names in a comprehension resolve as in a function; a parameter no
    # expression can spell is still part of the configuration.
    sp = Space(tune, ["all(block_size_x % t == 0 for t in range(1, tile + 1))", "tile * 16 != block_size_x"])
    assert sp.configs() == [
        dict(zip(tune, v)) for v in itertools.product(*tune.values()) if v[0] % v[2] == 0 and v[2] * 16 != v[0]
    ]
    assert sp.allowed({"block_size_x": 48, "block-size-y": 2, "tile": 1, "unrelated": 0})
    with pytest.raises(SyntaxError):
        Space(tune, ["block_size_x <="])
    with pytest.raises(NameError):
        len(Space(tune, ["no_such_param > 1"]))


def test_rank_a_million_combinations_few_launches(request_log):
    events = []
    tested = []

    def restriction(c):
        tested.append(1)
        return c["switch_0"] < 5

    def progress(stage, done, total):
        events.append((stage, done, total, len(tested)))

    sp = Space(MILLION, restriction)
    ranking = rank(sp, "vec-copy", "A100-40GB", session=Session(), progress=progress)
    requests = [json.loads(l) for l in calls(request_log[1])]
    assert sorted(r["block"] for r in requests) == sorted(f"{b},1,1" for b in MILLION["block_size_x"])
    assert len(ranking) == 10**6 // 2
    enumerate_events = [e for e in events if e[0] == "enumerate"]
    predict_events = [e for e in events if e[0] == "predict"]
    assert enumerate_events[-1] == ("enumerate", 10**6, 10**6, 10**6)
    assert [e[1] for e in enumerate_events[:-1]] == list(range(1 << 16, 10**6, 1 << 16))
    # Every restriction was tested before the first prediction was answered.
    assert events.index(enumerate_events[-1]) < events.index(predict_events[0])
    assert [(e[1], e[2]) for e in predict_events] == [(n, 10) for n in range(1, 11)]
    # One prediction per block size, shared by its 50,000 configurations,
    # which keep Kernel Tuner's order.
    best = ranking[0][0]["block_size_x"]
    assert all(c["block_size_x"] == best for c, _ in ranking[: 50_000])
    assert [c["switch_4"] for c, _ in ranking[:12]] == list(range(10)) + [0, 1]


def test_rank_cap_counts_predictions(request_log):
    sp = Space(MILLION, ["switch_0 == 0", "switch_1 == 0"])  # 10,000 configurations, 10 launches
    with pytest.raises(ValueError) as ei:
        rank(sp, "vec-copy", "A100-40GB", session=Session(), max_configurations=9)
    message = str(ei.value)
    assert "10000 configurations" in message and "10 predictions" in message
    assert "max_configurations=9" in message and "pass max_configurations=10" in message
    assert calls(request_log[0]) == []  # no polyvol process ran
    assert len(rank(sp, "vec-copy", "A100-40GB", session=Session(), max_configurations=10)) == 10_000
    with pytest.raises(ValueError, match="at least 1"):
        rank(sp, "vec-copy", "A100-40GB", max_configurations=0)


def test_rank_progress_true_prints_to_stderr(capsys):
    rank(Space({"block_size_x": [64, 128], "switch": [0, 1, 2]}), "vec-copy", "A100-40GB", progress=True)
    lines = capsys.readouterr().err.splitlines()
    assert lines[0] == "polyvol rank: enumerate 6/6 combinations"
    assert lines[-1] == "polyvol rank: predict 2/2 distinct launches"
    with pytest.raises(TypeError):
        rank(Space({"block_size_x": [64]}), "vec-copy", "A100-40GB", progress="yes")
