"""Time steps per launch (temporal blocking) through predict and explore."""

from __future__ import annotations

import pytest

import polyvol

SWEEP = dict(device="RTX-A4000", threads=256, folds=[(1, 1, 1)], tiles=["consecutive"], workers=2)


def test_predict_steps():
    one = polyvol.predict("hotspot", device="RTX-A4000", block=(32, 8), fold=(2, 2), tile="strided")
    four = polyvol.predict("hotspot", device="RTX-A4000", block=(32, 8), fold=(2, 2), tile="strided", steps=4)
    assert one.launch.steps == 1 and one.launch.computed_per_useful == 1 and one.launch.issued_per_useful == 1
    # Four steps recompute the neighbours' halo: more than one update per useful one.
    assert four.launch.steps == 4 and four.launch.computed_per_useful > 1
    # The grown regions (70 x 22 points at the first step) are not multiples of
    # the block's 32 x 8 threads: their last fold points leave lanes idle.
    assert four.launch.issued_per_useful > four.launch.computed_per_useful
    assert four.to_row()["steps"] == 4
    assert polyvol.predict("vec-copy").launch.steps is None


def test_explore_steps():
    rows = polyvol.explore("hotspot", steps=range(1, 4), **SWEEP)
    assert {r.steps for r in rows} == {1, 2, 3}
    g = [r.glups for r in rows]
    assert g == sorted(g, reverse=True)
    # The same sweep in polyvol's own syntax.
    same = polyvol.explore("hotspot", steps="1:3", **SWEEP)
    assert [(r.block, r.steps, r.glups) for r in same] == [(r.block, r.steps, r.glups) for r in rows]
    best = rows[0]
    alone = polyvol.predict("hotspot", device="RTX-A4000", block=best.block, fold=best.fold, steps=best.steps)
    assert alone.glups == best.glups
    two = polyvol.explore("hotspot", steps=2, **SWEEP)
    assert [(r.block, r.glups) for r in two] == [(r.block, r.glups) for r in rows if r.steps == 2]


def test_steps_without_state():
    with pytest.raises(polyvol.PolyvolError) as e:
        polyvol.explore("vec-copy", domain=65536, threads=256, folds=[(1, 1, 1)], steps=[1, 2])
    assert e.value.returncode == 2 and e.value.message.startswith("--steps: steps 2: the spec names no state")
    with pytest.raises(polyvol.PolyvolError) as e:
        polyvol.predict("vec-copy", steps=2)
    assert e.value.returncode == 2 and "--steps" in e.value.message


def test_space_steps():
    """A Kernel Tuner space whose temporal_tiling_factor is the launch's
    time steps ranks each configuration as predict does with those steps;
    on the RTX A4000 the hotspot's double-precision update is flops-bound,
    so one step per launch ranks first, as Kernel Tuner measured there
    (docs/accuracy-hardware.md)."""
    from polyvol.tuner import Space, rank

    tune_params = {"block_size_x": [32, 64], "block_size_y": [4], "temporal_tiling_factor": [1, 2, 4]}
    space = Space(tune_params, steps="temporal_tiling_factor")
    assert space.launch(next(iter(space))).steps == 1
    ranking = rank(space, "hotspot", "RTX-A4000")
    assert len(ranking) == 6
    assert ranking[0][0]["temporal_tiling_factor"] == 1
    for config, glups in ranking:
        alone = polyvol.predict(
            "hotspot", device="RTX-A4000", block=(config["block_size_x"], 4), steps=config["temporal_tiling_factor"]
        )
        assert alone.glups == glups
    with pytest.raises(ValueError, match="steps"):
        Space(tune_params, steps="time_steps")
