"""predict, explore and devices against the real binary."""

from __future__ import annotations

import json
import math

import pytest

import polyvol
from polyvol._runner import spec_argument
from polyvol.tuner import Space, rank

# A 2-D copy of floats: every point loads 4 bytes and stores 4 bytes once, so
# every level moves exactly 4 B/Lup each way.
COPY = {
    "name": "copy2d",
    "domain": [1024, 1024],
    "fields": [
        {"name": "a", "element": 4, "extent": [1024, 1024], "load": [["x", "y"]]},
        {"name": "b", "element": 4, "extent": [1024, 1024], "store": [["x", "y"]]},
    ],
}

COPY_YAML = """\
name: copy2d
domain: [1024, 1024]
fields:
  - name: a
    element: 4
    extent: [1024, 1024]
    load: [[x, y]]
  - name: b
    element: 4
    extent: [1024, 1024]
    store: [[x, y]]
"""

BAD_YAML = COPY_YAML.replace("load: [[x, y]]", "load: [[x, y + q]]")


def test_predict_embedded_example():
    p = polyvol.predict("star3d-r4", device="A100-40GB", block=(256, 1, 2))
    assert (p.kernel, p.device, p.method) == ("star3d-r4", "A100-40GB", "exact")
    la = p.launch
    assert la.block == (256, 1, 2) and la.fold == (1, 1, 1) and la.tiling == "consecutive"
    assert la.domain == (640, 512, 512)
    # grid = ceil(domain / (block * fold)), computed here.
    assert la.grid == tuple(-(-d // b) for d, b in zip(la.domain, la.block))
    assert la.threads_per_block == 512
    assert p.limiter in {"flops", "L1", "L2", "DRAM"}
    assert 0 < p.glups < 1000
    assert p.raw["prediction"]["GLups"] == p.glups
    # A range-4 star reads 25 doubles per point from L1; every level below
    # moves at least the compulsory 8 B load and 8 B store.
    assert p.volumes.l1_load >= 25 * 8
    assert p.volumes.l1_load >= p.volumes.l2_load >= p.volumes.dram_load >= 8
    assert p.volumes.dram_store == pytest.approx(8)
    assert p.volumes.dram == pytest.approx(p.volumes.dram_load + p.volumes.dram_store)
    assert p.seconds == pytest.approx(640 * 512 * 512 / (p.glups * 1e9))


def test_predict_dict_yaml_and_path_agree(tmp_path):
    by_dict = polyvol.predict(COPY, device="A100-40GB", block=(128, 2))
    v = by_dict.volumes
    for level in ("l1_load", "l2_load", "l2_store", "dram_load", "dram_store"):
        assert getattr(v, level) == pytest.approx(4), level
    assert by_dict.launch.block == (128, 2, 1)
    assert by_dict.limiter == "DRAM"
    by_yaml = polyvol.predict(COPY_YAML, device="A100-40GB", block="128,2,1")
    path = tmp_path / "copy.yaml"
    path.write_text(COPY_YAML)
    by_path = polyvol.predict(path, device="A100-40GB", block=[128, 2])
    by_str_path = polyvol.predict(str(path), device="A100-40GB", block=[128, 2])
    assert by_dict == by_yaml == by_path == by_str_path
    assert by_dict.raw == by_yaml.raw


def test_predict_flags_reach_polyvol():
    p = polyvol.predict("star2d-r1", device="H100-SXM", block=(32, 8), fold=(2, 1), tile="strided", model="roofline")
    assert p.device == "H100-SXM" and p.model == "roofline"
    assert p.launch.fold == (2, 1, 1) and p.launch.tiling == "strided"
    # Model roofline is the minimum of the limiters (docs/json.md: derived.perfV3).
    assert p.glups == pytest.approx(p.raw["derived"]["perfV3"])
    r = polyvol.predict("star2d-r1", method="reference", block=(32, 8))
    assert r.method == "reference"


def test_notes_are_collected():
    # 64x64 points with 256x2 blocks: three quarters of the threads idle.
    small = dict(COPY, domain=[64, 64])
    p = polyvol.predict(small, block=(256, 2))
    assert any("idle" in n for n in p.notes)
    assert not any(n.startswith("polyvol:") for n in p.notes)


def test_error_carries_line_and_column():
    with pytest.raises(polyvol.PolyvolError) as ei:
        polyvol.predict(BAD_YAML)
    e = ei.value
    lines = BAD_YAML.splitlines()
    want_line = next(i for i, l in enumerate(lines, 1) if "y + q" in l)
    assert e.file == "<stdin>"
    assert e.line == want_line
    assert e.column == lines[want_line - 1].index("y + q") + 1
    assert "unknown name" in e.message and '"q"' in e.message
    assert e.returncode == 2
    assert str(e).startswith(f"<stdin>:{want_line}:{e.column}: ")


def test_error_names_the_file(tmp_path):
    path = tmp_path / "bad.yaml"
    path.write_text(BAD_YAML)
    with pytest.raises(polyvol.PolyvolError) as ei:
        polyvol.predict(path)
    assert ei.value.file == str(path)
    assert ei.value.line == 7


def test_error_without_position():
    with pytest.raises(polyvol.PolyvolError) as ei:
        polyvol.predict("star2d-r1", device="no-such-gpu")
    e = ei.value
    assert e.file is None and e.line is None and e.column is None
    assert "unknown device" in e.message and e.returncode == 2
    with pytest.raises(polyvol.PolyvolError, match="no embedded example"):
        polyvol.predict("no-such-example")


def test_explore_top_and_order():
    rows = polyvol.explore("star3d-r4", device="A100-40GB", top=3)
    assert [r.rank for r in rows] == [1, 2, 3]
    g = [r.glups for r in rows]
    assert g == sorted(g, reverse=True)
    everything = polyvol.explore("star3d-r4", device="A100-40GB")
    # README: 262 configurations (1024 threads per block, 3 folds, 94 strided tiles).
    assert len(everything) == 262
    assert [r.prediction for r in everything[:3]] == [r.prediction for r in rows]
    assert all(r.prediction.launch.threads_per_block == 1024 for r in everything)


def test_explore_folds_and_tiles():
    rows = polyvol.explore("star3d-r4", device="A100-40GB", folds=[(1, 1, 1)], tiles=["consecutive"], workers=2)
    # Power-of-two shapes x*y*z = 1024 with z <= 64: sum over z = 2^0..2^6 of (11 - log2 z).
    assert len(rows) == sum(11 - c for c in range(7))
    assert {r.fold for r in rows} == {(1, 1, 1)}
    assert {r.tiling for r in rows} == {"consecutive"}
    assert len({r.block for r in rows}) == len(rows)


def test_devices():
    devs = polyvol.devices()
    names = [d.name for d in devs]
    assert len(names) == len(set(names)) >= 20
    a100 = next(d for d in devs if d.name == "A100-40GB")
    assert a100.sms == 108 and "A100" in a100.aliases
    assert a100.l2_bytes == 40 * 1024 * 1024 // 2  # 40 MB L2, 20 MiB per partition as modelled
    for n in ("RTX-A4000", "RTX-A6000", "PRO-W6600", "PRO-W7800"):
        assert n in names
    assert all(d.raw["name"] == d.name for d in devs)


def test_to_row_and_pandas():
    p = polyvol.predict(COPY, block=(128, 2))
    row = p.to_row()
    assert row["block"] == "128x2x1" and row["dram_load"] == pytest.approx(4)
    assert json.dumps(row)  # plain values only
    try:
        import pandas as pd
    except ImportError:  # without pandas, to_pandas says so
        with pytest.raises(ImportError, match="pandas"):
            polyvol.to_pandas([p, p])
        return
    df = polyvol.to_pandas([p, p])
    assert isinstance(df, pd.DataFrame) and len(df) == 2 and "glups" in df.columns


def test_spec_argument():
    assert spec_argument("star3d-r4") == ("star3d-r4", None)
    assert spec_argument(COPY_YAML) == ("-", COPY_YAML)
    assert spec_argument("{name: x, domain: [8]}") == ("-", "{name: x, domain: [8]}")
    arg, stdin = spec_argument(COPY)
    assert arg == "-" and json.loads(stdin) == COPY
    with pytest.raises(TypeError):
        spec_argument(42)  # type: ignore[arg-type]
    assert not math.isnan(polyvol.predict("vec-copy").glups)


def test_missing_spec_file_is_not_yaml_text(tmp_path):
    # A one-line string that looks like a path but names no file is refused
    # as such, not sent to polyvol as the YAML text of a one-word document.
    for missing in (str(tmp_path / "conv.yaml"), "specs/conv", "conv.yml"):
        with pytest.raises(polyvol.PolyvolError, match="no such file") as ei:
            polyvol.predict(missing)
        assert missing in ei.value.message
    with pytest.raises(polyvol.PolyvolError, match="no such file"):
        rank(Space({"block_size_x": [64]}), str(tmp_path / "conv.yaml"), "A100-40GB")


def test_block_entries_must_be_integers():
    for block in ((64.5, 1), (True, 2), ("64", 1)):
        with pytest.raises(ValueError, match="integers"):
            polyvol.predict("vec-copy", block=block)
    assert polyvol.predict("vec-copy", block=(64.0, 2)).launch.block == (64, 2, 1)
    with pytest.raises(ValueError, match="block_size_x"):
        Space({"block_size_x": [32, 48.5]}).launch({"block_size_x": 48.5})
    with pytest.raises(ValueError, match="integers"):
        rank(Space({"block_size_x": [32, 48.5]}), "vec-copy", "A100-40GB")


def test_polyvol_bin_not_executable(tmp_path, monkeypatch):
    plain = tmp_path / "polyvol"
    plain.write_text("not a program\n")  # no execute permission
    for env in (str(plain), str(tmp_path / "missing"), str(tmp_path)):
        monkeypatch.setenv("POLYVOL_BIN", env)
        with pytest.raises(polyvol.PolyvolError, match="POLYVOL_BIN") as ei:
            polyvol.predict("vec-copy")
        assert ei.value.returncode == 127
        with pytest.raises(polyvol.PolyvolError, match="POLYVOL_BIN"):
            rank(Space({"block_size_x": [64]}), "vec-copy", "A100-40GB")


def test_explore_idle_shapes():
    # star2d-r1 is 2-D: of the 11 power-of-two shapes of 1024 threads with
    # z = 1, x and y <= 1024, all are kept; the 45 with threads along z only
    # with all_shapes.
    two_d = polyvol.explore("star2d-r1", device="A100-40GB", folds=[(1, 1, 1)], tiles=["consecutive"], workers=2)
    assert len(two_d) == 11
    assert all(r.block[2] == 1 for r in two_d)
    every = polyvol.explore("star2d-r1", device="A100-40GB", folds=[(1, 1, 1)], tiles=["consecutive"], workers=2, all_shapes=True)
    assert len(every) == 56


def test_staging_on_and_off():
    # The staged convolution: every configuration twice, staged and read
    # from global memory; the two launches of one configuration differ in
    # the shared-memory tile (occupancy) and L1 traffic, not in block and fold.
    rows = polyvol.explore("convolution-15x15-staged", device="RTX-A4000", threads=256, folds=[(1, 1, 1)],
                           tiles=["consecutive"], workers=2, staging=["on", "off"], domain=(512, 512))
    staged = {r.block for r in rows if not r.prediction.launch.unstaged}
    unstaged = {r.block for r in rows if r.prediction.launch.unstaged}
    assert staged == unstaged and len(rows) == 2 * len(staged) > 0
    on = polyvol.predict("convolution-15x15-staged", device="RTX-A4000", block=(32, 8), domain=(512, 512))
    off = polyvol.predict("convolution-15x15-staged", device="RTX-A4000", block=(32, 8), domain=(512, 512), unstaged=True)
    assert off.launch.unstaged and not on.launch.unstaged
    assert on.raw["derived"]["perfShared"] > 0 and "perfShared" not in off.raw["derived"]
    assert on.to_row()["unstaged"] is False
