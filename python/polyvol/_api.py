"""predict, explore, merge and devices: the polyvol commands as Python functions."""

from __future__ import annotations

import json
import numbers
import os
import tempfile
from dataclasses import asdict, dataclass, field
from typing import Any, Dict, Iterable, List, Mapping, Optional, Sequence, Tuple, Union

from ._runner import Spec, run_json, spec_argument

__all__ = [
    "Launch",
    "Volumes",
    "InstructionClasses",
    "Loop",
    "Instructions",
    "Prediction",
    "Ranked",
    "Shard",
    "Device",
    "predict",
    "explore",
    "merge",
    "devices",
    "to_pandas",
]

Triple = Tuple[int, int, int]
TripleLike = Union[Sequence[int], int, str]
PathLike = Union[str, "os.PathLike[str]"]


def _triple(value: TripleLike, what: str) -> str:
    """A triple as polyvol's flags want it: "x,y,z" (missing entries are 1;
    an int is x alone)."""
    if isinstance(value, str):
        return value
    if isinstance(value, int):
        value = (value,)
    vals = [_integer(v, what) for v in value]
    if not 1 <= len(vals) <= 3:
        raise ValueError(f"{what} must have 1 to 3 entries, not {len(vals)}")
    vals += [1] * (3 - len(vals))
    return ",".join(str(v) for v in vals)


def _integer(v: Any, what: str) -> int:
    """v as an int; a bool, a fraction or a string is refused."""
    if isinstance(v, bool) or not (isinstance(v, numbers.Integral) or isinstance(v, numbers.Real) and float(v).is_integer()):
        raise ValueError(f"{what} entries must be integers, not {v!r}")
    return int(v)


def _t(v: Sequence[int]) -> Triple:
    return (int(v[0]), int(v[1]), int(v[2]))


@dataclass(frozen=True)
class Launch:
    """The launch as polyvol saw it (``launch`` of the JSON, docs/json.md)."""

    block: Triple
    fold: Triple
    tiling: str  # "consecutive" or "strided"
    domain: Triple
    grid: Triple
    threads_per_block: int
    blocks_per_sm: int
    blocks_per_wave: int
    waves: float
    occupancy_limiter: Optional[str]
    unstaged: bool = False  # the spec's staged fields read from global memory
    # Time steps per launch, updates computed per useful one, and lanes that
    # the warps issue over the steps per useful update's (idle lanes of
    # partly covered warps included), of a kernel with a state (temporal
    # blocking); None for a kernel without one.
    steps: Optional[int] = None
    computed_per_useful: Optional[float] = None
    issued_per_useful: Optional[float] = None

    @classmethod
    def from_json(cls, d: Dict[str, Any]) -> "Launch":
        return cls(
            block=_t(d["block"]),
            fold=_t(d["fold"]),
            tiling=d.get("tiling", "consecutive"),
            domain=_t(d["domain"]),
            grid=_t(d["grid"]),
            threads_per_block=int(d["threadsPerBlock"]),
            blocks_per_sm=int(d["blocksPerSM"]),
            blocks_per_wave=int(d["blocksPerWave"]),
            waves=float(d["wavesInGrid"]),
            occupancy_limiter=d.get("occupancyLimiter"),
            unstaged=bool(d.get("unstaged", False)),
            steps=int(d["steps"]) if "steps" in d else None,
            computed_per_useful=float(d["computedPerUseful"]) if "computedPerUseful" in d else None,
            issued_per_useful=float(d["issuedPerUseful"]) if "issuedPerUseful" in d else None,
        )


@dataclass(frozen=True)
class Volumes:
    """Bytes per lattice update (B/Lup) that each level of the memory
    hierarchy moves: the volumes the limiters use (``derived`` of the JSON:
    ``L1Load``, ``L2LoadV2``, ``L2Store``, ``memLoadV3``, ``memStoreV2``)."""

    l1_load: float
    l2_load: float
    l2_store: float
    dram_load: float
    dram_store: float

    @property
    def l2(self) -> float:
        """L2 load plus store, B/Lup."""
        return self.l2_load + self.l2_store

    @property
    def dram(self) -> float:
        """DRAM load plus store, B/Lup."""
        return self.dram_load + self.dram_store

    @classmethod
    def from_json(cls, derived: Dict[str, Any]) -> "Volumes":
        return cls(
            l1_load=float(derived["L1Load"]),
            l2_load=float(derived["L2LoadV2"]),
            l2_store=float(derived["L2Store"]),
            dram_load=float(derived["memLoadV3"]),
            dram_store=float(derived["memStoreV2"]),
        )


@dataclass(frozen=True)
class InstructionClasses:
    """A compiled instruction mix by class: one thread's warp instructions
    per lattice update (``instructions.classes`` of the JSON). polyvol
    leaves out some zero classes; they read 0 here."""

    fp32: float = 0.0  # single-precision arithmetic
    fp64: float = 0.0  # double-precision arithmetic
    integer: float = 0.0  # vector integer and address arithmetic
    scalar: float = 0.0  # AMDGPU's scalar instructions (no vector issue slot)
    global_loads: float = 0.0
    global_stores: float = 0.0
    shared: float = 0.0  # shared-memory (LDS) loads and stores
    constant: float = 0.0  # constant-bank or scalar-memory loads
    local: float = 0.0  # spills: local (PTX) or scratch (AMDGPU) loads and stores
    compares: float = 0.0
    branches: float = 0.0
    barriers: float = 0.0
    other: float = 0.0

    _KEYS = (
        ("fp32", "fp32"),
        ("fp64", "fp64"),
        ("integer", "integer"),
        ("scalar", "scalar"),
        ("global_loads", "globalLoads"),
        ("global_stores", "globalStores"),
        ("shared", "shared"),
        ("constant", "constant"),
        ("local", "local"),
        ("compares", "compares"),
        ("branches", "branches"),
        ("barriers", "barriers"),
        ("other", "other"),
    )

    @property
    def total(self) -> float:
        """Every class added up (AMDGPU's scalar instructions included)."""
        return sum(getattr(self, attr) for attr, _ in self._KEYS)

    @classmethod
    def from_json(cls, d: Dict[str, Any]) -> "InstructionClasses":
        return cls(**{attr: float(d.get(key, 0)) for attr, key in cls._KEYS})


@dataclass(frozen=True)
class Loop:
    """A loop the compiler left in the code, with its trip count: the
    instruction mix weighs its body by ``trip_count`` where the compiler
    knows it (else ``None``, and the body counts once per entry, a lower
    bound; ``max_trip_count`` bounds it where a constant does)."""

    depth: int  # 1 for an outermost loop
    instructions: int  # the instructions of its body, each once
    header: Optional[str] = None  # its header block as the LLVM IR names it, e.g. "for.body"
    trip_count: Optional[int] = None  # iterations per entry, where known
    max_trip_count: Optional[int] = None  # most iterations per entry, where only a bound is known

    @classmethod
    def from_json(cls, d: Dict[str, Any]) -> "Loop":
        return cls(
            depth=int(d["depth"]),
            instructions=int(d["instructions"]),
            header=d.get("header") or None,
            trip_count=int(d["tripCount"]) if d.get("tripCount") else None,
            max_trip_count=int(d["maxTripCount"]) if d.get("maxTripCount") else None,
        )


@dataclass(frozen=True)
class Instructions:
    """The instruction mix of a prediction (``instructions`` of the JSON):
    one thread's warp instructions per lattice update, the issue bound's
    input. ``source`` is ``"compiled"`` (clang compiled the kernel for the
    device's architecture; ``compiler``, ``target``, ``classes``,
    ``registers`` and ``loops`` describe that compile) or ``"counted"``
    (counted from the spec; ``note`` says why, where a compile was asked
    for but could not be done). The kinds ``loads`` ... ``shared`` and
    ``total`` are what the issue bound uses, for both sources."""

    source: str  # "compiled" or "counted"
    compiler: Optional[str] = None  # e.g. "clang 19.1.7"
    target: Optional[str] = None  # the architecture compiled for: "sm_86", "gfx1030"
    classes: Optional[InstructionClasses] = None  # a compiled mix by class
    registers: Optional[int] = None  # the compiled code's registers per thread
    registers_estimated: bool = False  # registers estimated (PTX), not allocated
    spill_bytes: int = 0  # spill memory per thread
    loops: Tuple[Loop, ...] = ()
    note: Optional[str] = None
    loads: float = 0.0
    stores: float = 0.0
    fp: float = 0.0
    address: float = 0.0
    index: float = 0.0
    guard: float = 0.0
    shared: float = 0.0  # shared-memory instructions of staged fields
    total: float = 0.0

    @property
    def compiled(self) -> bool:
        """Whether the mix was read from compiled code."""
        return self.source == "compiled"

    @classmethod
    def from_json(cls, d: Dict[str, Any]) -> "Instructions":
        classes = d.get("classes")
        regs = d.get("registers")
        return cls(
            source=d["source"],
            compiler=d.get("compiler") or None,
            target=d.get("target") or None,
            classes=InstructionClasses.from_json(classes) if classes is not None else None,
            registers=int(regs) if regs is not None else None,
            registers_estimated=bool(d.get("registersEstimated", False)),
            spill_bytes=int(d.get("spillBytes", 0)),
            loops=tuple(Loop.from_json(l) for l in d.get("loops") or ()),
            note=d.get("note") or None,
            loads=float(d.get("loads", 0)),
            stores=float(d.get("stores", 0)),
            fp=float(d.get("fp", 0)),
            address=float(d.get("address", 0)),
            index=float(d.get("index", 0)),
            guard=float(d.get("guard", 0)),
            shared=float(d.get("shared", 0)),
            total=float(d.get("total", 0)),
        )


@dataclass(frozen=True)
class Prediction:
    """One ``polyvol predict --format json`` report. ``raw`` is the whole JSON
    object, for every key this class leaves out; ``notes`` are polyvol's notes
    on stderr (``polyvol: note: ...`` without the prefix); ``instructions``
    is the instruction mix, ``None`` where polyvol reports none (a kernel
    given as raw ISL maps)."""

    kernel: str
    device: str
    method: str
    model: str
    glups: float  # predicted GLup/s (10^9 lattice updates per second)
    limiter: str  # the bound that limits it: flops, issue, L1, L2, DRAM, latency, ... (prediction.limiter)
    launch: Launch
    volumes: Volumes
    raw: Dict[str, Any] = field(repr=False, compare=False)
    notes: Tuple[str, ...] = field(default=(), repr=False, compare=False)
    instructions: Optional[Instructions] = field(default=None, repr=False)

    @property
    def seconds(self) -> float:
        """Predicted kernel time: lattice points / (GLup/s · 10^9)."""
        return float(self.raw["launch"]["lupCount"]) / (self.glups * 1e9)

    @classmethod
    def from_json(cls, d: Dict[str, Any], notes: Iterable[str] = ()) -> "Prediction":
        p = d["prediction"]
        return cls(
            kernel=d["kernel"],
            device=d["device"],
            method=d["method"],
            model=p["model"],
            glups=float(p["GLups"]),
            limiter=p["limiter"],
            launch=Launch.from_json(d["launch"]),
            volumes=Volumes.from_json(d["derived"]),
            raw=d,
            notes=tuple(notes),
            instructions=Instructions.from_json(d["instructions"]) if d.get("instructions") else None,
        )

    def to_row(self) -> Dict[str, Any]:
        """A flat dict (one table row): kernel, device, launch, volumes, glups, limiter."""
        row: Dict[str, Any] = {
            "kernel": self.kernel,
            "device": self.device,
            "method": self.method,
            "model": self.model,
        }
        la = self.launch
        row.update(
            block="x".join(map(str, la.block)),
            fold="x".join(map(str, la.fold)),
            tiling=la.tiling,
            unstaged=la.unstaged,
            steps=la.steps,
            blocks_per_sm=la.blocks_per_sm,
        )
        row.update(asdict(self.volumes))
        ins = self.instructions
        row.update(
            instructions=ins.source if ins else None,
            instructions_total=ins.total if ins else None,
            registers=ins.registers if ins else None,
        )
        row.update(glups=self.glups, limiter=self.limiter)
        return row


@dataclass(frozen=True)
class Ranked:
    """One row of an exploration: its rank (1 = predicted fastest) and report."""

    rank: int
    prediction: Prediction

    @property
    def block(self) -> Triple:
        return self.prediction.launch.block

    @property
    def fold(self) -> Triple:
        return self.prediction.launch.fold

    @property
    def tiling(self) -> str:
        return self.prediction.launch.tiling

    @property
    def steps(self) -> Optional[int]:
        return self.prediction.launch.steps

    @property
    def glups(self) -> float:
        return self.prediction.glups

    @property
    def limiter(self) -> str:
        return self.prediction.limiter

    @property
    def raw(self) -> Dict[str, Any]:
        return self.prediction.raw

    def to_row(self) -> Dict[str, Any]:
        return {"rank": self.rank, **self.prediction.to_row()}


@dataclass(frozen=True)
class Device:
    """One entry of the device database (``polyvol devices --format json``,
    keyed like a device file); ``raw`` holds every key."""

    name: str
    display_name: str
    arch: str
    aliases: Tuple[str, ...]
    sms: int
    clock_ghz: float
    dram_bandwidth_gbs: float
    l2_bandwidth_gbs: float
    l1_bytes: int
    l2_bytes: int
    raw: Dict[str, Any] = field(repr=False, compare=False)

    @classmethod
    def from_json(cls, d: Dict[str, Any]) -> "Device":
        return cls(
            name=d["name"],
            display_name=d.get("display_name", d["name"]),
            arch=d.get("arch", ""),
            aliases=tuple(d.get("aliases", ())),
            sms=int(d["sms"]),
            clock_ghz=float(d["clock_ghz"]),
            dram_bandwidth_gbs=float(d["dram_bandwidth_gbs"]),
            l2_bandwidth_gbs=float(d["l2_bandwidth_gbs"]),
            l1_bytes=int(d["l1_bytes"]),
            l2_bytes=int(d["l2_bytes"]),
            raw=d,
        )

    def to_row(self) -> Dict[str, Any]:
        row = asdict(self)
        del row["raw"]
        row["aliases"] = ",".join(self.aliases)
        return row


def _common_flags(
    device: Optional[str],
    model: Optional[str],
    method: Optional[str],
    domain: Optional[TripleLike],
    registers: Optional[int],
    defines: Optional[Dict[str, Any]],
    instructions: Optional[str] = None,
    source: Optional[PathLike] = None,
    macros: Optional[Mapping[str, Any]] = None,
    kernel_name: Optional[str] = None,
) -> List[str]:
    args: List[str] = []
    if device is not None:
        args += ["--device", device]
    if model is not None:
        args += ["--model", model]
    if method is not None:
        args += ["--method", method]
    if domain is not None:
        args += ["--domain", _triple(domain, "domain")]
    if registers is not None:
        args += ["--registers", str(int(registers))]
    for k, v in (defines or {}).items():
        args += ["--define", f"{k}={v}"]
    if instructions is not None:
        if instructions not in ("compiled", "counted"):
            raise ValueError(f'instructions must be "compiled" or "counted", not {instructions!r}')
        args += ["--instructions", instructions]
    if source is not None:
        args += ["--source", os.fspath(source)]
    for k, v in (macros or {}).items():
        args += ["--macro", f"{k}={_macro_value(v)}"]
    if kernel_name is not None:
        args += ["--kernel-name", kernel_name]
    return args


def _macro_value(v: Any) -> str:
    """A macro's value as the preprocessor should read it: a bool is 1 or 0."""
    if isinstance(v, bool):
        return "1" if v else "0"
    return str(v)


def predict(
    spec: Spec = "star3d-r4",
    device: Optional[str] = None,
    block: Optional[TripleLike] = None,
    fold: Optional[TripleLike] = None,
    tile: Optional[str] = None,
    model: Optional[str] = None,
    method: Optional[str] = None,
    *,
    domain: Optional[TripleLike] = None,
    registers: Optional[int] = None,
    defines: Optional[Dict[str, Any]] = None,
    unstaged: bool = False,
    steps: Optional[int] = None,
    instructions: Optional[str] = None,
    source: Optional[PathLike] = None,
    macros: Optional[Mapping[str, Any]] = None,
    kernel_name: Optional[str] = None,
    timeout: Optional[float] = None,
) -> Prediction:
    """Predicts one launch: ``polyvol predict SPEC --format json``.

    ``spec`` is a dict, YAML text, an embedded example name or a path;
    ``block`` and ``fold`` are triples (a shorter sequence is padded with 1)
    or polyvol's own "x,y,z"; ``tile`` is ``"consecutive"`` (thread folding,
    the default) or ``"strided"``; ``unstaged`` reads the fields the spec
    stages in shared memory from global memory (``--unstaged``); ``steps``
    is the time steps per launch of a kernel with a state (``--steps``;
    volumes and GLup/s are then per step and useful update). ``None``
    leaves polyvol's default.

    The instruction mix (:attr:`Prediction.instructions`): ``instructions``
    is ``"counted"`` (from the spec) or ``"compiled"`` (clang compiles the
    kernel for the device's architecture; counted, with a note, where no
    clang is installed; the default, unless ``POLYVOL_INSTRUCTIONS`` says
    otherwise); ``source`` is a CUDA or
    HIP file to compile instead of the kernel polyvol writes for the spec
    (the launch reaches it as the macros ``block_size_x/y/z``,
    ``tile_size_x/y/z``, the fold, and, with time steps,
    ``temporal_tiling_factor``), ``macros`` a dict of its further
    macros (``--macro NAME=VALUE``; a bool is 1 or 0; one named like a
    launch macro replaces it) and ``kernel_name`` the ``__global__``
    function to count where it has several. Raises :class:`PolyvolError`
    when polyvol refuses the input.
    """
    arg, stdin = spec_argument(spec)
    args = ["predict", arg, "--format", "json"]
    args += _common_flags(device, model, method, domain, registers, defines, instructions, source, macros, kernel_name)
    if block is not None:
        args += ["--block", _triple(block, "block")]
    if fold is not None:
        args += ["--fold", _triple(fold, "fold")]
    if tile is not None:
        args += ["--tile", tile]
    if unstaged:
        args += ["--unstaged"]
    if steps is not None:
        args += ["--steps", str(int(steps))]
    r = run_json(args, stdin, timeout)
    return Prediction.from_json(r.data, r.notes)


def _steps_list(steps: Union[int, str, Iterable[int]]) -> str:
    """Time steps per launch as explore's --steps wants them: an int, an
    iterable of ints (a range too), or polyvol's own "1:10" or "1,2,4"."""
    if isinstance(steps, str):
        return steps
    if isinstance(steps, int):
        return str(steps)
    return ",".join(str(int(t)) for t in steps)


def explore(
    spec: Spec = "star3d-r4",
    device: Optional[str] = None,
    top: Optional[int] = None,
    threads: Optional[int] = None,
    folds: Optional[Sequence[TripleLike]] = None,
    tiles: Optional[Sequence[str]] = None,
    model: Optional[str] = None,
    method: Optional[str] = None,
    *,
    domain: Optional[TripleLike] = None,
    registers: Optional[int] = None,
    defines: Optional[Dict[str, Any]] = None,
    workers: Optional[int] = None,
    all_shapes: bool = False,
    staging: Optional[Sequence[str]] = None,
    steps: Optional[Union[int, str, Iterable[int]]] = None,
    instructions: Optional[str] = None,
    source: Optional[PathLike] = None,
    macros: Optional[Mapping[str, Any]] = None,
    kernel_name: Optional[str] = None,
    shard: Optional[Tuple[int, int]] = None,
    timeout: Optional[float] = None,
) -> Union[List[Ranked], "Shard"]:
    """Ranks block shapes of ``threads`` threads, folds and tilings:
    ``polyvol explore SPEC --format json``. Returns the ``top`` best rows
    (all when ``None``), best first. ``folds`` is a list of triples,
    ``tiles`` a list of ``"consecutive"``/``"strided"``; ``all_shapes``
    keeps the block shapes with threads along a dimension in which the
    domain has one point (``--all-shapes``); ``staging`` a list of ``"on"``
    (the spec's staged fields in shared memory, the default) and ``"off"``
    (read from global memory), tried with every configuration
    (``--staging``); ``steps`` the time steps per launch tried with every
    configuration of a kernel with a state, an int, ints (``range(1, 11)``)
    or polyvol's ``"1:10"`` (``--steps``; the spec's steps by default): the
    rows are per step and useful update, so their ranking by GLup/s is by
    time per step. ``instructions``, ``source``, ``macros`` and
    ``kernel_name`` choose the instruction mix as for :func:`predict`;
    each configuration's source is compiled with its own launch macros.

    ``shard=(k, n)`` evaluates slice ``k`` of ``n`` of the sweep only
    (``--shard k/n``, 1 <= k <= n) and returns it as a :class:`Shard`
    instead, for :func:`merge`: the shards 1 to n of one sweep, run in any
    order, on any machines with the same polyvol, merge into its ranking."""
    arg, stdin = spec_argument(spec)
    args = ["explore", arg, "--format", "json"]
    args += _common_flags(device, model, method, domain, registers, defines, instructions, source, macros, kernel_name)
    if threads is not None:
        args += ["--threads", str(int(threads))]
    if folds is not None:
        args += ["--folds", ":".join(_triple(f, "fold") for f in folds)]
    if tiles is not None:
        args += ["--tiles", ",".join(tiles)]
    if workers is not None:
        args += ["--workers", str(int(workers))]
    if all_shapes:
        args += ["--all-shapes"]
    if staging is not None:
        args += ["--staging", ",".join(staging)]
    if steps is not None:
        args += ["--steps", _steps_list(steps)]
    if shard is not None:
        k, n = shard
        args += ["--shard", f"{int(k)}/{int(n)}"]
    r = run_json(args, stdin, timeout)
    if shard is not None:
        return Shard(r.data)
    return _ranked(r.data["rows"], top)


def _ranked(rows: Sequence[Dict[str, Any]], top: Optional[int]) -> List[Ranked]:
    """The first ``top`` rows of an exploration (all when ``None``), ranked."""
    if top is not None:
        rows = rows[: max(0, int(top))]
    return [Ranked(i + 1, Prediction.from_json(row)) for i, row in enumerate(rows)]


@dataclass(frozen=True)
class Shard:
    """One slice of an exploration, ``explore(..., shard=(k, n))``'s result:
    ``data`` is polyvol's JSON of it (``polyvol explore --shard k/n``,
    docs/json.md), which :func:`merge` takes, as it takes the files that
    ``polyvol explore --shard`` writes; :meth:`save` writes such a file."""

    data: Dict[str, Any]

    @property
    def index(self) -> int:
        """k, from 1."""
        return int(self.data["shard"]["index"])

    @property
    def count(self) -> int:
        """n, the number of shards of the sweep."""
        return int(self.data["shard"]["count"])

    def save(self, path: PathLike) -> None:
        """Writes the shard's JSON to ``path``, a file ``polyvol merge`` reads."""
        with open(path, "w", encoding="utf-8") as f:
            json.dump(self.data, f)


def merge(
    shards: Sequence[Union[Shard, PathLike]],
    top: Optional[int] = None,
    *,
    timeout: Optional[float] = None,
) -> List[Ranked]:
    """Merges the shards 1 to n of one exploration, each a :class:`Shard` or
    the path of a file that ``polyvol explore --shard`` wrote, in any order,
    into its ranking: ``polyvol merge FILE... --format json``. Returns the
    ``top`` best rows (all when ``None``), best first: the rows
    :func:`explore` without ``shard`` returns. A set that is not one
    sweep's shards, each once, raises :class:`InputError`."""
    with tempfile.TemporaryDirectory(prefix="polyvol-merge-") as tmp:
        paths = []
        for i, s in enumerate(shards):
            if isinstance(s, Shard):
                path = os.path.join(tmp, f"shard-{i + 1}.json")
                s.save(path)
                paths.append(path)
            else:
                paths.append(os.fspath(s))
        r = run_json(["merge", *paths, "--format", "json"], None, timeout)
    return _ranked(r.data["rows"], top)


def devices(*, timeout: Optional[float] = None) -> List[Device]:
    """The device database: ``polyvol devices --format json``."""
    r = run_json(["devices", "--format", "json"], None, timeout)
    return [Device.from_json(d) for d in r.data]


def to_pandas(items: Iterable[Any]) -> Any:
    """A pandas DataFrame with one row per Prediction, Ranked or Device
    (their ``to_row()``). Needs pandas, which the package itself does not."""
    try:
        import pandas as pd  # type: ignore[import-not-found]
    except ImportError as e:  # pragma: no cover - depends on the environment
        raise ImportError("to_pandas needs pandas (pip install pandas); to_row() gives plain dicts") from e
    return pd.DataFrame([it.to_row() for it in items])

