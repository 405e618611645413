"""predict, explore and devices: the polyvol commands as Python functions."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Dict, Iterable, List, Optional, Sequence, Tuple, Union

from ._runner import Spec, run_json, spec_argument

__all__ = [
    "Launch",
    "Volumes",
    "Prediction",
    "Ranked",
    "Device",
    "predict",
    "explore",
    "devices",
    "to_pandas",
]

Triple = Tuple[int, int, int]
TripleLike = Union[Sequence[int], str]


def _triple(value: TripleLike, what: str) -> str:
    """A triple as polyvol's flags want it: "x,y,z" (missing entries are 1)."""
    if isinstance(value, str):
        return value
    vals = [int(v) for v in value]
    if not 1 <= len(vals) <= 3:
        raise ValueError(f"{what} must have 1 to 3 entries, not {len(vals)}")
    vals += [1] * (3 - len(vals))
    return ",".join(str(v) for v in vals)


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
class Prediction:
    """One ``polyvol predict --format json`` report. ``raw`` is the whole JSON
    object, for every key this class leaves out; ``notes`` are polyvol's notes
    on stderr (``polyvol: note: ...`` without the prefix)."""

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
            blocks_per_sm=la.blocks_per_sm,
        )
        row.update(asdict(self.volumes))
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
    return args


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
    timeout: Optional[float] = None,
) -> Prediction:
    """Predicts one launch: ``polyvol predict SPEC --format json``.

    ``spec`` is a dict, YAML text, an embedded example name or a path;
    ``block`` and ``fold`` are triples (a shorter sequence is padded with 1)
    or polyvol's own "x,y,z"; ``tile`` is ``"consecutive"`` (thread folding,
    the default) or ``"strided"``; ``unstaged`` reads the fields the spec
    stages in shared memory from global memory (``--unstaged``). ``None``
    leaves polyvol's default. Raises
    :class:`PolyvolError` when polyvol refuses the input.
    """
    arg, stdin = spec_argument(spec)
    args = ["predict", arg, "--format", "json"]
    args += _common_flags(device, model, method, domain, registers, defines)
    if block is not None:
        args += ["--block", _triple(block, "block")]
    if fold is not None:
        args += ["--fold", _triple(fold, "fold")]
    if tile is not None:
        args += ["--tile", tile]
    if unstaged:
        args += ["--unstaged"]
    r = run_json(args, stdin, timeout)
    return Prediction.from_json(r.data, r.notes)


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
    timeout: Optional[float] = None,
) -> List[Ranked]:
    """Ranks block shapes of ``threads`` threads, folds and tilings:
    ``polyvol explore SPEC --format json``. Returns the ``top`` best rows
    (all when ``None``), best first. ``folds`` is a list of triples,
    ``tiles`` a list of ``"consecutive"``/``"strided"``; ``all_shapes``
    keeps the block shapes with threads along a dimension in which the
    domain has one point (``--all-shapes``); ``staging`` a list of ``"on"``
    (the spec's staged fields in shared memory, the default) and ``"off"``
    (read from global memory), tried with every configuration
    (``--staging``)."""
    arg, stdin = spec_argument(spec)
    args = ["explore", arg, "--format", "json"]
    args += _common_flags(device, model, method, domain, registers, defines)
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
    r = run_json(args, stdin, timeout)
    rows = r.data["rows"]
    if top is not None:
        rows = rows[: max(0, int(top))]
    return [Ranked(i + 1, Prediction.from_json(row)) for i, row in enumerate(rows)]


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

