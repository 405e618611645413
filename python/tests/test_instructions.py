"""The instruction mix: instructions=, source=, macros=, kernel_name= and
Prediction.instructions, against the real binary and clang-19, which make
test installs (scripts/deps.sh): a test that needs a compile fails without
it."""

from __future__ import annotations

import json

import pytest

import polyvol
from polyvol import InstructionClasses, Instructions, Loop
from polyvol import Session
from polyvol.tuner import Space, rank

from conftest import calls, request_wrapper

# A 1-D kernel that loads a[x] and a[x + 1] and stores b[x]: two loads and
# one store per lattice update.
PAIR = {
    "name": "pair",
    "domain": [4096],
    "fields": [
        {"name": "a", "element": 4, "extent": [4097], "load": [["x"], ["x + 1"]]},
        {"name": "b", "element": 4, "extent": [4096], "store": [["x"]]},
    ],
}

# The same kernel by hand. OFFSET is a macro of the test; block_size_x is
# polyvol's launch macro (the block). Counted by hand for one thread: two
# global loads (a[i], a[i + OFFSET]), one global store (b[i]), one fp32 add.
PAIR_CU = """\
__global__ void k(const float* a, float* b) {
  int i = blockIdx.x * block_size_x + threadIdx.x;
  b[i] = a[i] + a[i + OFFSET];
}
"""

# The hand-written tile: each thread updates tile_size_x points one block
# apart (the strided tiling), unrolled; per lattice update still two loads,
# one store and one add.
TILE_CU = """\
__global__ void k(const float* a, float* b) {
  int i0 = blockIdx.x * block_size_x * tile_size_x + threadIdx.x;
#pragma unroll
  for (int t = 0; t < tile_size_x; t++) {
    int i = i0 + t * block_size_x;
    b[i] = a[i] + a[i + OFFSET];
  }
}
"""

# NLOADS loads, unrolled: the macro decides the count.
SUM_CU = """\
__global__ void k(const float* a, float* b) {
  int i = blockIdx.x * block_size_x + threadIdx.x;
  float s = a[i];
#pragma unroll
  for (int j = 1; j < NLOADS; j++) s += a[i + j];
  b[i] = s;
}
"""

# A loop of a run-time length: the compiler keeps it.
LOOP_CU = """\
__global__ void k(const float* a, float* b, int n) {
  int i = blockIdx.x * block_size_x + threadIdx.x;
  float s = 0;
  for (int j = 0; j < n; j++) s += a[i + j];
  b[i] = s;
}
"""

TWO_KERNELS_CU = """\
__global__ void one(const float* a, float* b) {
  int i = blockIdx.x * block_size_x + threadIdx.x;
  b[i] = a[i];
}
__global__ void two(const float* a, float* b) {
  int i = blockIdx.x * block_size_x + threadIdx.x;
  b[i] = a[i] + a[i + 1];
}
"""


@pytest.fixture(scope="session")
def clang() -> Instructions:
    """PAIR's compiled mix on RTX-A4000; fails where polyvol finds no clang."""
    p = polyvol.predict(PAIR, device="RTX-A4000", block=128, instructions="compiled")
    assert p.instructions is not None
    assert p.instructions.source == "compiled", f"these tests need clang-19 (scripts/deps.sh): {p.instructions.note}"
    return p.instructions


def cu(tmp_path, text: str, name: str = "k.cu"):
    path = tmp_path / name
    path.write_text(text)
    return path


def test_default_is_counted():
    ins = polyvol.predict(PAIR, device="RTX-A4000", block=128).instructions
    assert ins is not None and ins.source == "counted" and ins.note is None


def test_compiled_for_the_device(clang):
    ins = clang  # PAIR on RTX-A4000, instructions="compiled"
    assert ins.source == "compiled" and ins.compiled
    assert ins.compiler is not None and ins.compiler.startswith("clang ")
    assert int(ins.compiler.split()[1].split(".")[0]) >= 19
    assert ins.target == "sm_86"  # RTX A4000: Ampere GA104
    assert ins.note is None
    assert isinstance(ins.classes, InstructionClasses)
    # polyvol's generated kernel for PAIR: two global loads and one store
    # per update, whatever else the compiler adds around them.
    assert ins.classes.global_loads == 2 and ins.classes.global_stores == 1
    assert ins.loads == ins.classes.global_loads and ins.stores == ins.classes.global_stores
    assert ins.registers is not None and ins.registers > 0
    # The kinds of a compiled mix add up to its total (index is 0).
    kinds = ins.loads + ins.stores + ins.fp + ins.address + ins.index + ins.guard + ins.shared
    assert kinds == pytest.approx(ins.total)
    assert ins.index == 0


def test_target_follows_the_device(clang):
    a100 = polyvol.predict(PAIR, device="A100-40GB", block=128, instructions="compiled").instructions
    assert a100 is not None and (a100.source, a100.target) == ("compiled", "sm_80")
    w6600 = polyvol.predict(PAIR, device="PRO-W6600", block=128, instructions="compiled").instructions
    assert w6600 is not None and w6600.source == "compiled"
    assert w6600.target is not None and w6600.target.startswith("gfx10")


def test_counted():
    p = polyvol.predict(PAIR, device="RTX-A4000", block=128, instructions="counted")
    ins = p.instructions
    assert ins is not None and ins.source == "counted" and not ins.compiled
    assert ins.compiler is None and ins.target is None and ins.classes is None and ins.registers is None
    assert ins.note is None  # counted as asked: nothing to explain
    # Counted from the spec: its two loads and one store.
    assert (ins.loads, ins.stores) == (2, 1)
    assert ins.total == pytest.approx(ins.loads + ins.stores + ins.fp + ins.address + ins.index + ins.guard)
    assert ins.total == p.raw["instructions"]["total"]
    row = p.to_row()
    assert row["instructions"] == "counted" and row["instructions_total"] == ins.total


def test_no_clang_falls_back_to_counted(monkeypatch, tmp_path):
    # polyvol looks for clang as POLYVOL_CLANG says; a missing one is no clang.
    monkeypatch.setenv("POLYVOL_CLANG", str(tmp_path / "no-clang"))
    p = polyvol.predict(PAIR, device="RTX-A4000", block=128, instructions="compiled")
    ins = p.instructions
    assert ins is not None and ins.source == "counted"
    assert ins.note is not None and "clang" in ins.note
    assert any("counted from the spec" in n for n in p.notes)
    # A source file needs a compile: no clang is an error, not a fallback.
    with pytest.raises(polyvol.PolyvolError, match="clang"):
        polyvol.predict(PAIR, device="RTX-A4000", block=128, source=cu(tmp_path, PAIR_CU), macros={"OFFSET": 1})


def test_source_with_macros_counted_by_hand(clang, tmp_path):
    src = cu(tmp_path, PAIR_CU)
    p = polyvol.predict(PAIR, device="RTX-A4000", block=128, source=src, macros={"OFFSET": 1})
    ins = p.instructions
    assert ins is not None and (ins.source, ins.target) == ("compiled", "sm_86")
    c = ins.classes
    assert c is not None
    assert (c.global_loads, c.global_stores, c.fp32, c.fp64) == (2, 1, 1, 0)
    assert (c.shared, c.local, c.barriers) == (0, 0, 0)
    assert (ins.loads, ins.stores, ins.fp) == (2, 1, 1)
    assert ins.loops == () and ins.spill_bytes == 0
    assert p.raw["instructions"]["classes"]["globalLoads"] == 2
    # The same with a path given as a string.
    assert polyvol.predict(PAIR, device="RTX-A4000", block=128, source=str(src), macros={"OFFSET": 1}).instructions == ins


def test_macros_change_the_code(clang, tmp_path):
    src = cu(tmp_path, SUM_CU)
    loads = [polyvol.predict(PAIR, device="RTX-A4000", block=128, source=src, macros={"NLOADS": n}).instructions.classes.global_loads
             for n in (1, 3)]
    assert loads == [1, 3]


def test_launch_macros_reach_the_source(clang, tmp_path):
    # tile_size_x is the fold: the unrolled tile loop does two loads and a
    # store per point, so per lattice update the counts stay, for every fold.
    src = cu(tmp_path, TILE_CU)
    for fold in (1, 4):
        ins = polyvol.predict(PAIR, device="RTX-A4000", block=128, fold=fold, tile="strided", source=src,
                              macros={"OFFSET": 1}).instructions
        assert ins.classes.global_loads == 2 and ins.classes.global_stores == 1 and ins.classes.fp32 == 1, fold
    # The single-point kernel under fold 2 updates half the points it is
    # counted for: one load per lattice update.
    half = polyvol.predict(PAIR, device="RTX-A4000", block=128, fold=2, tile="strided", source=cu(tmp_path, PAIR_CU),
                           macros={"OFFSET": 1}).instructions
    assert (half.classes.global_loads, half.classes.global_stores) == (1, 0.5)


def test_loops_the_compiler_keeps(clang, tmp_path):
    p = polyvol.predict(PAIR, device="RTX-A4000", block=128, source=cu(tmp_path, LOOP_CU))
    ins = p.instructions
    assert ins.loops and all(isinstance(l, Loop) and l.depth == 1 and l.instructions > 0 for l in ins.loops)
    assert all(l.trip_count is None for l in ins.loops)  # n is an argument
    assert any("loop" in n for n in p.notes)


def test_kernel_name(clang, tmp_path):
    src = cu(tmp_path, TWO_KERNELS_CU)
    one = polyvol.predict(PAIR, device="RTX-A4000", block=128, source=src, kernel_name="one").instructions
    two = polyvol.predict(PAIR, device="RTX-A4000", block=128, source=src, kernel_name="two").instructions
    assert (one.classes.global_loads, two.classes.global_loads) == (1, 2)
    with pytest.raises(polyvol.PolyvolError, match="name the one to count") as ei:
        polyvol.predict(PAIR, device="RTX-A4000", block=128, source=src)
    assert ei.value.file is None


def test_bad_source(clang, tmp_path):
    src = cu(tmp_path, "not CUDA at all\n", "bad.cu")
    with pytest.raises(polyvol.PolyvolError) as ei:
        polyvol.predict(PAIR, device="RTX-A4000", block=128, source=src)
    e = ei.value
    assert "clang could not compile" in e.message
    # The clang position inside the message is not taken for polyvol's.
    assert e.file is None and e.line is None


def test_explore_with_source(clang, tmp_path):
    rows = polyvol.explore(PAIR, device="RTX-A4000", threads=128, folds=[(1, 1, 1), (2, 1, 1)], tiles=["strided"],
                           source=cu(tmp_path, TILE_CU), macros={"OFFSET": 1}, workers=2)
    assert {r.fold for r in rows} == {(1, 1, 1), (2, 1, 1)}
    for r in rows:
        ins = r.prediction.instructions
        assert ins.source == "compiled" and ins.target == "sm_86"
        assert (ins.classes.global_loads, ins.classes.global_stores) == (2, 1)
    counted = polyvol.explore(PAIR, device="RTX-A4000", threads=128, folds=[(1, 1, 1)], instructions="counted")
    assert counted and all(r.prediction.instructions.source == "counted" for r in counted)


def test_flags_reach_polyvol(logging_binary, tmp_path):
    src = cu(tmp_path, PAIR_CU)
    polyvol.predict(PAIR, device="RTX-A4000", block=128, instructions="counted")
    try:
        polyvol.predict(PAIR, device="RTX-A4000", block=128, instructions="compiled", source=src,
                        macros={"OFFSET": 1, "USE_X": True, "NOT_Y": False}, kernel_name="k")
    except polyvol.PolyvolError:
        pass  # no clang here: only the arguments matter
    try:
        polyvol.explore(PAIR, device="RTX-A4000", threads=128, folds=[(1, 1, 1)], source=src, macros={"OFFSET": 1})
    except polyvol.PolyvolError:
        pass
    log = calls(logging_binary)
    assert len(log) == 3
    assert "--instructions counted" in log[0] and "--source" not in log[0]
    assert (f"--instructions compiled --source {src} --macro OFFSET=1 --macro USE_X=1 --macro NOT_Y=0 "
            "--kernel-name k") in log[1]
    assert log[2].startswith("explore - ") and f"--source {src} --macro OFFSET=1" in log[2]
    with pytest.raises(ValueError, match="compiled"):
        polyvol.predict(PAIR, instructions="exact")
    assert len(calls(logging_binary)) == 3  # refused before running polyvol


def test_instructions_from_json():
    ins = Instructions.from_json({
        "source": "compiled", "compiler": "clang 19.1.7", "target": "gfx1030",
        "classes": {"fp32": 4, "integer": 2.5, "scalar": 3, "globalLoads": 2, "local": 1, "barriers": 1},
        "registers": 40, "spillBytes": 16, "loops": [{"depth": 1, "instructions": 12, "header": "for.body", "tripCount": 4},
                                                    {"depth": 2, "instructions": 5, "maxTripCount": 9}],
        "loads": 2, "stores": 0, "fp": 4, "address": 3.5, "guard": 0, "shared": 1, "total": 10.5,
    })
    assert ins.classes == InstructionClasses(fp32=4, integer=2.5, scalar=3, global_loads=2, local=1, barriers=1)
    assert ins.classes.total == 13.5
    assert (ins.registers, ins.registers_estimated, ins.spill_bytes) == (40, False, 16)
    assert ins.loops == (Loop(1, 12, header="for.body", trip_count=4), Loop(2, 5, max_trip_count=9))
    assert (ins.index, ins.shared, ins.total, ins.note) == (0, 1, 10.5, None)
    counted = Instructions.from_json({"source": "counted", "note": "why", "loads": 1, "total": 1})
    assert (counted.classes, counted.registers, counted.loops, counted.note) == (None, None, (), "why")


def test_tuner_passes_the_configuration_as_macros(logging_binary, tmp_path, clang, real_binary):
    tune = {"block_size_x": [64, 128], "tile_size_x": [1, 2], "read_only": [0, 1]}
    space = Space(tune, fold=("tile_size_x", None, None), tiling="strided")
    src = cu(tmp_path, TILE_CU)
    reports = []
    ranking = rank(
        space, PAIR, "RTX-A4000", source=src, macros={"OFFSET": 1}, workers=4,
        progress=lambda *report: reports.append(report),
    )
    assert reports == [("enumerate", 8, 8)] + [("predict", n, 8) for n in range(1, 9)]
    log = calls(logging_binary)
    # read_only is no launch parameter, but it is a macro of the source: each
    # of the 8 configurations is compiled and predicted.
    assert len(ranking) == 8 and len(log) == 8
    for c in space:
        want = (f"--source {src} --macro block_size_x={c['block_size_x']} --macro tile_size_x={c['tile_size_x']} "
                f"--macro read_only={c['read_only']} --macro OFFSET=1")
        assert sum(want in line for line in log) == 1, want
    # Without a source the launches alone decide: 4 predictions, sent to one
    # long-lived process.
    wrapper, args, lines = request_wrapper(tmp_path, real_binary)
    assert len(rank(space, PAIR, "RTX-A4000", instructions="counted", session=Session([str(wrapper)]))) == 8
    requests = [json.loads(l) for l in calls(lines)]
    assert calls(args) == ["serve --stdio"]
    assert len(requests) == 4 and all(r["instructions"] == "counted" and "macro" not in r for r in requests)
    # A callable gives all the macros itself.
    logging_binary.unlink()
    rank(space, PAIR, "RTX-A4000", source=src, macros=lambda c: {"OFFSET": 1, "TILE": c["tile_size_x"]})
    log = calls(logging_binary)
    assert len(log) == 4 and all("--macro OFFSET=1 --macro TILE=" in line and "block_size_x=" not in line for line in log)
    with pytest.raises(ValueError, match="source"):
        rank(space, PAIR, "RTX-A4000", macros={"OFFSET": 1})
