"""Ranking a Kernel Tuner search space with polyvol's predictions.

Kernel Tuner (https://github.com/KernelTuner/kernel_tuner, Apache-2.0) is
not needed, nor imported: this module only speaks its documented
interfaces, as of Kernel Tuner 1.0 (the interfaces are the same in 0.4.x):

* ``tune_params``: a dict from parameter name to the list of its values;
  the search space is their Cartesian product in dict order;
* ``restrictions``: a list of strings, each a Python expression over the
  parameter names that must hold (``"block_size_x*block_size_y<=1024"``),
  or a callable that takes the configuration as a dict and returns a bool;
* cache files (``tune_kernel(..., cache="file.json")``): a JSON object with
  ``"tune_params_keys"``, ``"tune_params"`` and ``"cache"``, a dict whose
  keys are the configuration's values joined by commas in
  ``tune_params_keys`` order and whose entries hold the parameters and
  ``"time"`` (milliseconds, or a string such as ``"RuntimeFailedConfig"``
  for a configuration that failed).

Typical use: rank the space before tuning, then let Kernel Tuner measure
only the predicted best::

    space = Space(tune_params, restrictions, block=("block_size_x", "block_size_y", None),
                  fold=("tile_size_x", "tile_size_y", None), tiling="strided",
                  staging="use_shmem")
    ranking = rank(space, lambda config: "conv.yaml", "RTX-A4000")
    tune_kernel(..., tune_params=tune_params,
                restrictions=top_k_restriction(ranking, k=20))

(Pass the callable alone as ``restrictions``; to keep other restrictions,
combine them in one callable, ``lambda p: space.allowed(p) and top(p)``.)
"""

from __future__ import annotations

import gzip
import itertools
import json
import keyword
import math
import operator
import os
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import (
    Any,
    Callable,
    Dict,
    Iterator,
    List,
    Mapping,
    Optional,
    Sequence,
    Tuple,
    Union,
)

from ._api import _integer, predict
from ._runner import PolyvolError, Spec, spec_request
from ._session import Session, default_session

__all__ = [
    "LaunchOf",
    "Space",
    "rank",
    "top_k_restriction",
    "read_cache",
    "cache_key",
]

Config = Dict[str, Any]
#: An entry of a launch triple: a tune_params name, a constant, or None (1).
Entry = Union[str, int, None]
Restriction = Union[str, Callable[[Config], bool]]
#: A progress report: the stage ("enumerate" or "predict"), how many are
#: done (configurations visited, predictions answered) and of how many.
Progress = Callable[[str, int, int], None]

#: rank's default cap on the predictions (distinct launches) of one ranking.
DEFAULT_MAX_CONFIGURATIONS = 100_000
#: How many combinations rank visits between two enumeration reports.
ENUMERATION_REPORT_EVERY = 1 << 16
#: No spec: what no spec_fn returns.
_NO_SPEC = object()


@dataclass(frozen=True)
class LaunchOf:
    """The polyvol launch of one configuration."""

    block: Tuple[int, int, int]
    fold: Tuple[int, int, int]
    tiling: str  # "consecutive" or "strided"
    unstaged: bool = False  # the spec's staged fields read from global memory
    steps: Optional[int] = None  # time steps per launch; None for the spec's


#: What one prediction answers: (spec key, launch, macros).
Key = Tuple[str, LaunchOf, Tuple[Tuple[str, str], ...]]


def _compile(
    restrictions: Union[None, Restriction, Sequence[Restriction]], names: Sequence[str]
) -> List[Callable[[Tuple[Any, ...]], bool]]:
    """Each restriction as a test of a configuration's values (a tuple in
    the order of ``names``), true where the configuration passes.

    A string becomes a function whose arguments are the parameters, so that
    it sees them by name, as Kernel Tuner's expressions do, without a dict
    per configuration; a callable receives the configuration as a dict of
    its own, which it may change."""
    if restrictions is None:
        return []
    if callable(restrictions) or isinstance(restrictions, str):
        restrictions = [restrictions]
    values_name = "_values"
    while values_name in names:
        values_name += "_"
    # A parameter whose name no expression can spell is unpacked into a
    # name no parameter has.
    unspellable = values_name + "_unspellable"
    targets = [n if n.isidentifier() and not keyword.iskeyword(n) else unspellable for n in names]
    unpack = f"    {', '.join(targets)}, = {values_name}\n" if names else ""
    out: List[Callable[[Tuple[Any, ...]], bool]] = []
    for r in restrictions:
        if isinstance(r, str):
            filename = f"<restriction {r!r}>"
            compile(r, filename, "eval")  # a SyntaxError names the expression itself
            source = f"def restriction({values_name}):\n{unpack}    return (\n{r}\n)\n"
            scope: Dict[str, Any] = {}
            exec(compile(source, filename, "exec"), scope)
            out.append(scope.pop("restriction"))
        elif callable(r):
            out.append(lambda values, r=r: r(dict(zip(names, values))))
        else:
            raise TypeError(f"a restriction is a string or a callable, not {type(r).__name__}")
    return out


class Space:
    """A Kernel Tuner search space and the polyvol launch of each configuration.

    ``block`` and ``fold`` give, for x, y and z, the tune_params name that
    holds that entry, a constant, or None for 1. The default block is
    Kernel Tuner's default block-size names (``block_size_x``, ``_y``,
    ``_z``) where ``tune_params`` has them; the default fold is 1,1,1.
    ``tiling`` is ``"strided"`` (a thread's tile points lie one block size
    apart, the usual hand-written tile), ``"consecutive"`` (neighbours,
    thread folding) or a callable from the configuration to one of them.
    ``staging`` is the tune_params name of a switch such as ``use_shmem``
    (a true value stages the fields the spec stages in shared memory, a
    false one reads them from global memory, ``--unstaged``), or a callable
    from the configuration to a bool; None stages as the spec says.
    ``steps`` is the tune_params name that holds the time steps per launch
    of a kernel with a state (Kernel Tuner's ``temporal_tiling_factor``
    for a temporally blocked stencil), or a constant; None keeps the
    spec's. Its predictions count useful updates, so the ranking is by time
    per step.
    """

    def __init__(
        self,
        tune_params: Mapping[str, Sequence[Any]],
        restrictions: Union[None, Restriction, Sequence[Restriction]] = None,
        *,
        block: Optional[Sequence[Entry]] = None,
        fold: Sequence[Entry] = (None, None, None),
        tiling: Union[str, Callable[[Config], str]] = "consecutive",
        staging: Union[None, str, Callable[[Config], bool]] = None,
        steps: Entry = None,
    ) -> None:
        self.tune_params: Dict[str, List[Any]] = {k: list(v) for k, v in tune_params.items()}
        self._names = tuple(self.tune_params)
        self._restrictions = _compile(restrictions, self._names)
        if block is None:
            block = tuple(n if n in self.tune_params else None for n in ("block_size_x", "block_size_y", "block_size_z"))
        self.block = self._entries(block, "block")
        self.fold = self._entries(fold, "fold")
        if isinstance(tiling, str) and tiling not in ("consecutive", "strided"):
            raise ValueError(f'tiling must be "consecutive", "strided" or a callable, not {tiling!r}')
        self.tiling = tiling
        if isinstance(staging, str) and staging not in self.tune_params:
            raise ValueError(f"staging: {staging!r} is not a tune_params name")
        self.staging = staging
        self.steps = self._entries((steps,), "steps")[0]

    def _entries(self, entries: Sequence[Entry], what: str) -> Tuple[Entry, Entry, Entry]:
        e = list(entries)
        if not 1 <= len(e) <= 3:
            raise ValueError(f"{what} needs 1 to 3 entries, not {len(e)}")
        e += [None] * (3 - len(e))
        for v in e:
            if isinstance(v, str) and v not in self.tune_params:
                raise ValueError(f"{what}: {v!r} is not a tune_params name")
        return (e[0], e[1], e[2])

    def allowed(self, config: Mapping[str, Any]) -> bool:
        """Whether the configuration passes every restriction."""
        return self._allows(tuple(config[n] for n in self._names))

    def _allows(self, values: Tuple[Any, ...]) -> bool:
        """Whether a configuration's values, in tune_params order, pass
        every restriction."""
        for r in self._restrictions:
            if not r(values):
                return False
        return True

    def combinations(self) -> int:
        """The number of configurations before the restrictions: the
        product of the value counts."""
        return math.prod(len(v) for v in self.tune_params.values())

    def _values(self) -> Iterator[Tuple[Any, ...]]:
        """The values of each configuration that passes the restrictions,
        in Kernel Tuner's order, each tested as it comes."""
        product = itertools.product(*self.tune_params.values())
        if not self._restrictions:
            return product
        return filter(self._allows, product)

    def __iter__(self) -> Iterator[Config]:
        names = self._names
        for values in self._values():
            yield dict(zip(names, values))

    def configs(self) -> List[Config]:
        """Every configuration that passes the restrictions, in Kernel Tuner's order."""
        return list(self)

    def __len__(self) -> int:
        """The number of configurations that pass the restrictions; without
        restrictions the product of the value counts, counted, not
        enumerated."""
        if not self._restrictions:
            return self.combinations()
        n = 0
        for _ in self._values():
            n += 1
        return n

    @staticmethod
    def _value(entry: Entry, config: Mapping[str, Any], what: str = "block and fold") -> int:
        if entry is None:
            return 1
        if isinstance(entry, str):
            return _integer(config[entry], f"{what}: {entry} of {dict(config)}:")
        return _integer(entry, f"{what}:")

    def launch(self, config: Mapping[str, Any]) -> LaunchOf:
        """The polyvol launch of a configuration."""
        t = self.tiling(dict(config)) if callable(self.tiling) else self.tiling
        if t not in ("consecutive", "strided"):
            raise ValueError(f"tiling of {dict(config)}: {t!r}")
        b = tuple(self._value(e, config) for e in self.block)
        f = tuple(self._value(e, config) for e in self.fold)
        staged = True
        if callable(self.staging):
            staged = bool(self.staging(dict(config)))
        elif isinstance(self.staging, str):
            staged = bool(config[self.staging])
        steps = None if self.steps is None else self._value(self.steps, config, "steps")
        return LaunchOf(block=b, fold=f, tiling=t, unstaged=not staged, steps=steps)  # type: ignore[arg-type]

    def _launch_function(self) -> Callable[[Tuple[Any, ...]], LaunchOf]:
        """A function from a configuration's values (in tune_params order)
        to its launch. Where the launch depends only on the parameters that
        block, fold, staging and steps name (tiling and staging are no callables),
        it computes each launch once, however many configurations share it."""
        names = self._names
        if callable(self.tiling) or callable(self.staging):
            return lambda values: self.launch(dict(zip(names, values)))
        used = {e for e in self.block + self.fold + (self.staging, self.steps) if isinstance(e, str)}
        indices = [i for i, n in enumerate(names) if n in used]
        launch_values: Callable[[Tuple[Any, ...]], Any] = operator.itemgetter(*indices) if indices else lambda v: ()
        launches: Dict[Any, LaunchOf] = {}

        def launch(values: Tuple[Any, ...]) -> LaunchOf:
            key = launch_values(values)
            la = launches.get(key)
            if la is None:
                la = launches[key] = self.launch(dict(zip(names, values)))
            return la

        return launch


def _spec_key(spec: Spec) -> str:
    if isinstance(spec, Mapping):
        return "json:" + json.dumps(spec, sort_keys=True)
    if isinstance(spec, os.PathLike):
        return "path:" + os.fspath(spec)
    return "str:" + str(spec)


def _macro_value(v: Any) -> str:
    if isinstance(v, bool):
        return "1" if v else "0"
    return str(v)


def _macros_of(
    config: Config,
    source: Union[None, str, "os.PathLike[str]"],
    macros: Union[None, Mapping[str, Any], Callable[[Config], Mapping[str, Any]]],
) -> Tuple[Tuple[str, str], ...]:
    """The --macro pairs of a configuration's source: its parameters (as
    Kernel Tuner defines them) and the further macros, or what the callable
    gives; none without a source."""
    if source is None:
        return ()
    if callable(macros):
        ms: Dict[str, Any] = dict(macros(dict(config)))
    else:
        ms = dict(config)
        ms.update(macros or {})
    return tuple((str(k), _macro_value(v)) for k, v in ms.items())


def rank(
    space: Space,
    spec_fn: Union[Callable[[Config], Spec], Spec],
    device: str,
    *,
    model: Optional[str] = None,
    method: Optional[str] = None,
    workers: Optional[int] = None,
    failures: Optional[List[Tuple[Config, PolyvolError]]] = None,
    instructions: Optional[str] = None,
    source: Union[None, str, "os.PathLike[str]"] = None,
    macros: Union[None, Mapping[str, Any], Callable[[Config], Mapping[str, Any]]] = None,
    kernel_name: Optional[str] = None,
    session: Optional[Session] = None,
    timeout: Optional[float] = None,
    max_configurations: Optional[int] = DEFAULT_MAX_CONFIGURATIONS,
    progress: Union[None, bool, Progress] = None,
) -> List[Tuple[Config, float]]:
    """Ranks the configurations of ``space`` by polyvol's predicted GLup/s on
    ``device``, fastest first: a list of (configuration, GLup/s).

    ``spec_fn`` maps a configuration to its spec (a configuration may change
    the kernel, e.g. its bounds checks), or is one spec for all. Each
    distinct (spec, launch) is predicted once; configurations that differ
    only in parameters polyvol does not see share that prediction, and
    ties keep Kernel Tuner's order.

    The distinct launches go, as one batch, to one long-lived polyvol
    process (``polyvol serve --stdio``; ``session``, a :class:`polyvol.Session`,
    default the package's shared one), which predicts as many at once as there are CPUs: there
    is no process start per launch. With a ``source`` file, or a spec file
    polyvol must read by its name, one ``polyvol predict`` runs per
    distinct launch instead, ``workers`` at a time (default: the CPU
    count). ``polyvol explore`` cannot stand for a whole space: it sweeps
    only power-of-two block shapes of one thread count, while tuners try
    block sizes such as 48 or 80.

    The space is enumerated first, in Kernel Tuner's order, each
    configuration's restrictions tested as it comes; no estimate starts
    before the whole space is enumerated. ``max_configurations`` caps the
    predictions, that is the distinct (spec, launch) pairs (with a source,
    (spec, launch, macros)), not the configurations: a space of 10^6 configurations whose launches are few
    ranks in seconds, while one that needs more predictions than the cap
    raises ValueError, before predicting any, saying how many
    configurations pass the restrictions and how many predictions they
    need; pass a larger cap, or None for none. ``progress`` reports the
    enumeration and the predictions: True prints a line to standard error
    at most once a second and at the end of each stage; a callable is
    called as ``progress(stage, done, total)``, with stage ``"enumerate"``
    (done of total combinations of the product visited, every 65,536 and
    at the end) or ``"predict"`` (done of total predictions answered, after
    each).

    ``timeout`` bounds the whole ranking in seconds: when it passes, or the
    ranking is interrupted (Ctrl-C), the polyvol processes it started are
    killed, and ``subprocess.TimeoutExpired`` or the interrupt is raised.

    Configurations whose prediction polyvol refuses (a launch the device
    cannot run) are left out of the ranking; pass a list as ``failures`` to
    receive them with the error. An error that is not the launch's (an
    unknown device, a bad spec) raises :class:`PolyvolError`.

    ``instructions`` (``"counted"`` or ``"compiled"``) chooses the
    instruction mix as for :func:`polyvol.predict`; without it a ranking
    counts the mix as ``polyvol explore`` does (a compile per distinct
    launch takes a second or more cold), unless ``POLYVOL_INSTRUCTIONS``
    says otherwise, and a source is compiled. ``source``
    is the kernel Kernel Tuner tunes (a CUDA or HIP file), compiled for
    each configuration instead of the kernel polyvol writes for the spec.
    As Kernel Tuner does, it sees every parameter of the configuration as
    a macro (a bool as 1 or 0), beside the launch's ``block_size_x/y/z``,
    ``tile_size_x/y/z`` and, with time steps, ``temporal_tiling_factor``;
    ``macros`` is a dict of further macros (which
    replace parameters of the same name) or a callable that maps the
    configuration to all the macros to pass. With a source, each distinct
    (spec, launch, macros) is predicted once. ``kernel_name`` names the
    ``__global__`` function to count where the source has several.
    """
    if source is None and (macros is not None or kernel_name is not None):
        raise ValueError("macros and kernel_name apply to a source file")
    if max_configurations is not None and max_configurations < 1:
        raise ValueError(f"max_configurations must be at least 1 or None, not {max_configurations}")
    if instructions is None and source is None and not os.environ.get("POLYVOL_INSTRUCTIONS"):
        instructions = "counted"
    report = _reporter(progress)
    configs, slots, distinct, specs = _enumerate(space, spec_fn, source, macros, max_configurations, report)
    requests = {k: spec_request(spec) for k, spec in specs.items()} if source is None else {}
    if source is None and all(r is not None for r in requests.values()):
        values = [_predict_request(requests[sk], device, la, model, method, instructions) for sk, la, _ in distinct]
        answered = None if report is None else (lambda n: report("predict", n, len(distinct)))
        answers = (session or default_session()).request_many(values, timeout=timeout, answered=answered)
        results = [_glups_of(a, requests[key[0]]) for key, a in zip(distinct, answers)]
    else:
        results = _predict_each(
            distinct, specs, device, model, method, instructions, source, kernel_name, workers, timeout, report
        )
    ranking: List[Tuple[Config, float]] = []
    for c, slot in zip(configs, slots):
        r = results[slot]
        if isinstance(r, PolyvolError):
            if not _refuses_launch(r):
                raise r
            if failures is not None:
                failures.append((c, r))
            continue
        ranking.append((c, r))
    ranking.sort(key=operator.itemgetter(1), reverse=True)  # stable: ties keep Kernel Tuner's order
    return ranking


def _enumerate(
    space: Space,
    spec_fn: Union[Callable[[Config], Spec], Spec],
    source: Union[None, str, "os.PathLike[str]"],
    macros: Union[None, Mapping[str, Any], Callable[[Config], Mapping[str, Any]]],
    max_configurations: Optional[int],
    report: Optional[Progress],
) -> Tuple[List[Config], List[int], List[Key], Dict[str, Spec]]:
    """The configurations that pass the restrictions, in Kernel Tuner's
    order; for each, the index of its prediction in the distinct keys; the
    distinct keys; and the specs by key. Predicts nothing: raises
    ValueError, with the counts, where the distinct keys outnumber
    ``max_configurations``."""
    names = space._names
    launch_of = space._launch_function()
    configs: List[Config] = []
    slots: List[int] = []
    distinct: Dict[Key, int] = {}
    specs: Dict[str, Spec] = {}
    last_spec: Any = _NO_SPEC
    last_spec_key = _spec_key(spec_fn) if not callable(spec_fn) else ""
    total = space.combinations()
    visited = 0
    for visited, values in enumerate(itertools.product(*space.tune_params.values()), 1):
        if report is not None and visited % ENUMERATION_REPORT_EVERY == 0 and visited < total:
            report("enumerate", visited, total)
        if not space._allows(values):
            continue
        c = dict(zip(names, values))
        if callable(spec_fn):
            spec = spec_fn(dict(c))
            if spec is not last_spec:  # a spec_fn that returns one object pays one key
                last_spec, last_spec_key = spec, _spec_key(spec)
        else:
            spec = spec_fn
        specs.setdefault(last_spec_key, spec)
        key = (last_spec_key, launch_of(values), _macros_of(c, source, macros))
        slot = distinct.setdefault(key, len(distinct))
        configs.append(c)
        slots.append(slot)
    if report is not None:
        report("enumerate", visited, total)
    if max_configurations is not None and len(distinct) > max_configurations:
        raise ValueError(
            f"rank: the {len(configs)} configurations that pass the restrictions need {len(distinct)} "
            f"predictions (distinct launches), more than max_configurations={max_configurations}; "
            f"pass max_configurations={len(distinct)} (or None, no cap) to rank them, or restrict the space"
        )
    return configs, slots, list(distinct), specs


def _reporter(progress: Union[None, bool, Progress]) -> Optional[Progress]:
    """rank's progress argument as a function to report to, or None."""
    if progress is None or progress is False:
        return None
    if progress is True:
        return _print_progress()
    if callable(progress):
        return progress
    raise TypeError(f"progress is True, False, None or a callable, not {type(progress).__name__}")


def _print_progress(min_interval: float = 1.0) -> Progress:
    """A progress report that prints a line to standard error at most once
    every min_interval seconds, and at the end of each stage."""
    last = [-math.inf]

    def report(stage: str, done: int, total: int) -> None:
        now = time.monotonic()
        if done < total and now - last[0] < min_interval:
            return
        last[0] = now
        what = "combinations" if stage == "enumerate" else "distinct launches"
        print(f"polyvol rank: {stage} {done}/{total} {what}", file=sys.stderr, flush=True)

    return report


def _predict_request(
    spec: Any, device: str, la: LaunchOf, model: Optional[str], method: Optional[str], instructions: Optional[str]
) -> Dict[str, Any]:
    """The predict request of a launch for the long-lived process: the
    spec's keys (spec_request) and the launch's flags in their CLI forms."""
    keys, _ = spec
    r: Dict[str, Any] = dict(keys, endpoint="predict", device=device, tile=la.tiling)
    r["block"] = ",".join(map(str, la.block))
    r["fold"] = ",".join(map(str, la.fold))
    if la.unstaged:
        r["unstaged"] = True
    if la.steps is not None:
        r["steps"] = str(la.steps)
    for key, v in (("model", model), ("method", method), ("instructions", instructions)):
        if v is not None:
            r[key] = v
    return r


def _glups_of(answer: Any, spec: Any) -> Union[float, PolyvolError]:
    """The predicted GLup/s of an answer, or its error, which names the
    spec's file where it names the text sent for it."""
    _, path = spec
    if isinstance(answer, PolyvolError):
        if path is not None and answer.file == "<stdin>":
            answer = answer.with_file(path)
        return answer
    return float(answer.data["prediction"]["GLups"])


def _predict_each(
    distinct: Sequence[Key],
    specs: Mapping[str, Spec],
    device: str,
    model: Optional[str],
    method: Optional[str],
    instructions: Optional[str],
    source: Union[None, str, "os.PathLike[str]"],
    kernel_name: Optional[str],
    workers: Optional[int],
    timeout: Optional[float],
    report: Optional[Progress],
) -> List[Union[float, PolyvolError]]:
    """Predicts each distinct launch with one polyvol process of its own,
    ``workers`` at a time, all within ``timeout`` seconds, in the order of
    ``distinct``; reports each answer, in that order, to ``report``."""
    deadline = None if timeout is None else time.monotonic() + timeout

    def one(key: Key) -> Union[float, PolyvolError]:
        sk, la, ms = key
        left = None if deadline is None else max(0.001, deadline - time.monotonic())
        try:
            p = predict(
                specs[sk], device=device, block=la.block, fold=la.fold, tile=la.tiling, model=model, method=method,
                unstaged=la.unstaged, steps=la.steps, instructions=instructions, source=source,
                macros=dict(ms) if source is not None else None, kernel_name=kernel_name, timeout=left,
            )
        except PolyvolError as e:
            return e
        return p.glups

    n = workers or os.cpu_count() or 2
    results: List[Union[float, PolyvolError]] = []
    with ThreadPoolExecutor(max_workers=max(1, n)) as pool:
        for r in pool.map(one, distinct):
            results.append(r)
            if report is not None:
                report("predict", len(results), len(distinct))
    return results


def _refuses_launch(e: PolyvolError) -> bool:
    """Whether polyvol refused the launch (a block too large, a tile that
    does not fit), rather than the spec (an error at a position in it) or
    the device (an unknown one)."""
    if e.file is not None or e.field in ("device", "spec", "example"):
        return False
    return not e.message.startswith(("unknown device", "spec "))


def top_k_restriction(
    ranking: Sequence[Tuple[Mapping[str, Any], float]],
    k: Optional[int] = None,
    share: Optional[float] = None,
) -> Callable[[Config], bool]:
    """A Kernel Tuner restriction (a callable taking the configuration dict)
    that keeps the first ``k`` configurations of ``ranking``, or the first
    ``share`` (0 < share <= 1, rounded up) of them; give exactly one.

    A configuration matches on the parameters of the ranking's
    configurations; one that is not in the ranking (not predicted) is
    rejected. The callable has the attributes ``kept`` (the kept
    configurations' value tuples) and ``names`` (the parameters compared).
    """
    if (k is None) == (share is None):
        raise ValueError("give exactly one of k and share")
    if share is not None:
        if not 0 < share <= 1:
            raise ValueError(f"share must be in (0, 1], not {share}")
        k = math.ceil(share * len(ranking))
    assert k is not None
    if k < 0:
        raise ValueError(f"k must be at least 0, not {k}")
    names: Tuple[str, ...] = tuple(ranking[0][0]) if ranking else ()
    kept = frozenset(tuple(c[n] for n in names) for c, _ in ranking[:k])

    def restriction(params: Mapping[str, Any]) -> bool:
        try:
            return tuple(params[n] for n in names) in kept
        except KeyError:
            return False

    restriction.kept = kept  # type: ignore[attr-defined]
    restriction.names = names  # type: ignore[attr-defined]
    return restriction


def cache_key(config: Mapping[str, Any], tune_params_keys: Sequence[str]) -> str:
    """Kernel Tuner's cache key of a configuration: its values joined by commas."""
    return ",".join(str(config[k]) for k in tune_params_keys)


def read_cache(path: Union[str, "os.PathLike[str]"]) -> Dict[str, Any]:
    """Reads a Kernel Tuner cache file (JSON, or gzip-compressed JSON).

    Kernel Tuner writes the file while it tunes, so an unfinished one lacks
    its closing braces; like Kernel Tuner, this closes it before parsing.
    A file that is no JSON raises ValueError naming the file, line and
    column; one of another shape (no ``tune_params_keys``, ``tune_params``
    or ``cache``, an entry without a parameter or ``time``) names the file
    and the key at fault.
    """
    p = os.fspath(path)
    opener = gzip.open if p.endswith(".gz") else open
    try:
        with opener(p, "rt", encoding="utf-8") as f:  # type: ignore[operator]
            text = f.read()
    except (UnicodeDecodeError, EOFError, gzip.BadGzipFile) as e:
        raise ValueError(f"{p}: not a Kernel Tuner cache file: {e}") from e
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as first:
        try:
            doc = json.loads(text.rstrip().rstrip(",") + "}}")
        except json.JSONDecodeError:
            raise ValueError(f"{p}:{first.lineno}:{first.colno}: not a Kernel Tuner cache file: {first.msg}") from None
    _check_cache(p, doc)
    return doc


def _check_cache(path: str, doc: Any) -> None:
    """Raises ValueError, naming path and the key at fault, where doc is not
    shaped as a Kernel Tuner cache file."""

    def bad(where: str, what: str) -> ValueError:
        return ValueError(f"{path}: {where}: {what} (not a Kernel Tuner cache file)")

    if not isinstance(doc, dict):
        raise bad("top level", f"expected a JSON object, got {type(doc).__name__}")
    for key, want in (("tune_params_keys", list), ("tune_params", dict), ("cache", dict)):
        if key not in doc:
            raise bad(key, "missing")
        if not isinstance(doc[key], want):
            raise bad(key, f"expected a JSON {'array' if want is list else 'object'}, got {type(doc[key]).__name__}")
    names = doc["tune_params_keys"]
    for i, n in enumerate(names):
        if not isinstance(n, str) or n not in doc["tune_params"]:
            raise bad(f"tune_params_keys[{i}]", f"{n!r} is not a key of tune_params")
    for key, entry in doc["cache"].items():
        if not isinstance(entry, dict):
            raise bad(f"cache[{key!r}]", f"expected a JSON object, got {type(entry).__name__}")
        for n in list(names) + ["time"]:
            if n not in entry:
                raise bad(f"cache[{key!r}]", f"no {n!r}")
