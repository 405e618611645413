"""The code-generator adapter: specs from fields and offsets, checked against
the hand-written examples (same volumes) and small cases written by hand."""

from __future__ import annotations

import polyvol
from polyvol import codegen

VOLUME_KEYS = ("L1Load", "L2LoadV2", "L2Store", "memLoadV3", "memLoadV4", "memStoreV2", "L1Cycles")


def volumes(p: polyvol.Prediction) -> dict:
    return {k: p.raw["derived"][k] for k in VOLUME_KEYS}


def test_jacobi_equals_star3d_r1():
    src = codegen.Field("src", "double", (514, 514, 514), ghost_layers=1)
    dst = codegen.Field("dst", "double", (514, 514, 514), ghost_layers=1)
    reads = [codegen.Access(src, off) for off in codegen.STAR3D_R1]
    spec = codegen.kernel_spec("jacobi", reads, [codegen.Access(dst)], flops=7)
    assert spec["domain"] == [512, 512, 512]
    for block in ((256, 1, 2), (32, 8, 4)):
        assert volumes(polyvol.predict(spec, block=block)) == volumes(polyvol.predict("star3d-r1", block=block))


def test_d3q19_pull_equals_the_example():
    src = codegen.Field("src", "double", (258, 258, 258), ghost_layers=1, components=19, layout="separate")
    dst = codegen.Field("dst", "double", (258, 258, 258), ghost_layers=1, components=19, layout="separate")
    reads = [codegen.Access(src, tuple(-c for c in cq), q) for q, cq in enumerate(codegen.D3Q19)]
    writes = [codegen.Access(dst, (0, 0, 0), q) for q in range(19)]
    spec = codegen.kernel_spec("d3q19", reads, writes, flops=200, registers=64)
    assert len(spec["fields"]) == 38
    block = (128, 2, 2)
    ours = polyvol.predict(spec, device="H100-SXM", block=block)
    theirs = polyvol.predict("lbm-d3q19-pull", device="H100-SXM", block=block)
    assert volumes(ours) == volumes(theirs)
    assert ours.glups == theirs.glups


def test_component_layouts_by_hand():
    # Two components on a 4x2x2 interior with one ghost layer: arrays 6x4x4.
    f = codegen.Field("f", "float", (6, 4, 4), ghost_layers=1, components=2, layout="fzyx")
    g = codegen.Field("g", 4, (6, 4, 4), ghost_layers=1, components=2, layout="zyxf")
    spec = codegen.kernel_spec("layouts", [codegen.Access(f, (1, 0, -1), 1)], [codegen.Access(g, (0, 0, 0), 1)])
    load, store = spec["fields"]
    # fzyx: component 1 starts a whole 6x4x4 block later: z + 1·4, plus the ghost layer.
    assert load == {"name": "f", "element": 4, "extent": [6, 4, 8], "load": [["x + 2", "y + 1", "z + 4"]]}
    # zyxf: element 2·x + q of a row, with the ghost cell's two elements first.
    assert store == {"name": "g", "element": 4, "extent": [12, 4, 4], "store": [["2*x + 3", "y + 1", "z + 1"]]}
    assert spec["domain"] == [4, 2, 2]


def test_bad_descriptions_are_errors():
    import pytest

    with pytest.raises(ValueError, match="layout"):
        codegen.Field("f", "double", (8, 8), layout="xyz")
    with pytest.raises(ValueError, match="element type"):
        codegen.Field("f", "complex", (8, 8))
    a = codegen.Field("a", "double", (10, 10), ghost_layers=1)
    b = codegen.Field("b", "double", (12, 12), ghost_layers=1)
    with pytest.raises(ValueError, match="interior"):
        codegen.kernel_spec("k", [codegen.Access(a)], [codegen.Access(b)])


def test_best_launch_is_the_best_of_each_thread_count():
    src = codegen.Field("src", "double", (514, 514, 514), ghost_layers=1)
    dst = codegen.Field("dst", "double", (514, 514, 514), ghost_layers=1)
    spec = codegen.kernel_spec("jacobi", [codegen.Access(src, o) for o in codegen.STAR3D_R1], [codegen.Access(dst)], flops=7)
    best = codegen.best_launch(spec, device="A100-40GB", threads=(256, 512), folds=[(1, 1, 1), (1, 1, 2)])
    tops = [polyvol.explore(spec, device="A100-40GB", threads=n, folds=[(1, 1, 1), (1, 1, 2)], top=1)[0] for n in (256, 512)]
    assert best.glups == max(t.glups for t in tops)
    assert polyvol.predict(spec, device="A100-40GB", block=best.block, fold=best.fold, tile=best.tiling).glups == best.glups


def test_docs_codegen_example_runs():
    import contextlib
    import io
    import re
    from pathlib import Path

    doc = Path(__file__).resolve().parents[2] / "docs" / "python.md"
    code = re.findall(r"<!-- test: codegen -->\n```python\n(.*?)```", doc.read_text(encoding="utf-8"), flags=re.S)
    assert len(code) == 1
    out = io.StringIO()
    ns: dict = {}
    with contextlib.redirect_stdout(out):
        exec(compile(code[0], str(doc), "exec"), ns)
    best = ns["best"]
    assert out.getvalue().startswith(f"{best.block} {best.fold} {best.tiling} ")
    # The printed launch is polyvol's best of the sweep it names.
    top = polyvol.explore(ns["spec"], device="H100-SXM", threads=256, folds=[(1, 1, 1), (1, 2, 1)], top=1)[0]
    assert best.glups == top.glups
