"""Sharded explorations from Python: explore(..., shard=(k, n)) and merge,
against the unsharded exploration as the oracle."""

from __future__ import annotations

import pytest

import polyvol

SWEEP = dict(spec="transpose2d", domain=(128, 64), threads=64, folds=[(1, 1, 1), (1, 2, 1)], all_shapes=True)


def _rows(ranked):
    return [(r.rank, r.block, r.fold, r.tiling, r.glups) for r in ranked]


def test_merged_shards_are_the_exploration(tmp_path):
    whole = polyvol.explore(**SWEEP)
    shards = [polyvol.explore(**SWEEP, shard=(k, 3)) for k in (1, 2, 3)]
    assert [(s.index, s.count) for s in shards] == [(1, 3), (2, 3), (3, 3)]
    assert sum(len(s.data["rows"]) for s in shards) == len(whole)
    assert _rows(polyvol.merge(shards[::-1])) == _rows(whole)
    # Files written by save (or by polyvol explore --shard) merge as well.
    paths = []
    for s in shards:
        paths.append(tmp_path / f"shard-{s.index}.json")
        s.save(paths[-1])
    assert _rows(polyvol.merge([shards[0], *paths[1:]], top=5)) == _rows(whole)[:5]


def test_merge_refuses_an_incomplete_or_edited_set():
    shards = [polyvol.explore(**SWEEP, shard=(k, 2)) for k in (1, 2)]
    with pytest.raises(polyvol.InputError, match="shard 2/2 is missing"):
        polyvol.merge(shards[:1])
    edited = polyvol.Shard(dict(shards[1].data, rows=shards[1].data["rows"][1:]))
    with pytest.raises(polyvol.InputError, match="does not match"):
        polyvol.merge([shards[0], edited])
