"""The adapter a stencil code generator needs: fields and access offsets in,
a polyvol spec and the best launch for a device out.

pystencils and lbmpy describe a kernel by its fields (a name, an element
type, the array's shape with its ghost layers, optionally an index
dimension such as the 19 populations of D3Q19, and a memory layout) and by
the accesses of one update: which field, at which neighbour offset, which
component. This module turns that description into a polyvol spec (a dict,
docs/guide.md) and asks polyvol for the block and fold that run it fastest:

    >>> from polyvol import codegen
    >>> src = codegen.Field("src", "double", (258, 258, 258), ghost_layers=1)
    >>> dst = codegen.Field("dst", "double", (258, 258, 258), ghost_layers=1)
    >>> reads = [codegen.Access(src, (dx, dy, dz)) for dx, dy, dz in codegen.STAR3D_R1]
    >>> spec = codegen.kernel_spec("jacobi", reads, [codegen.Access(dst)], flops=7)
    >>> best = codegen.best_launch(spec, device="A100-40GB")  # doctest: +SKIP

The iteration space is the interior of the fields: the array shape minus
the ghost layers on both sides, the same for every field. Array
dimensions and offsets are given x first (the fastest-varying index), as
polyvol's lattice is; pystencils' ``f[dx, dy, dz]`` offsets are already in
that order for its default ``fzyx``/``zyxf`` layouts.

Layouts of a field with an index dimension of Q components:

* ``"fzyx"`` (structure of arrays in one allocation, pystencils' and lbmpy's
  default): component q starts Q·(x·y·z extent) elements in, the
  array is ``[X, Y, Z·Q]`` with component q at z + q·Z;
* ``"zyxf"`` (array of structures): the components of a cell are
  neighbours, the array is ``[Q·X, Y, Z]`` with element Q·x + q;
* ``"separate"``: one allocation per component (``name_f00`` …), each with
  the field's shape, as hand-written SoA code allocates them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Dict, List, Optional, Sequence, Tuple

from ._api import Ranked, explore

#: Element sizes of the types pystencils and lbmpy use, in bytes.
ELEMENT_BYTES = {"double": 8, "float64": 8, "float": 4, "float32": 4, "half": 2, "float16": 2,
                 "int32": 4, "int64": 8, "uint32": 4, "uint64": 8}

#: The offsets of the 3D 7-point star of range 1 (Jacobi), centre first.
STAR3D_R1: Tuple[Tuple[int, int, int], ...] = (
    (0, 0, 0), (1, 0, 0), (-1, 0, 0), (0, 1, 0), (0, -1, 0), (0, 0, 1), (0, 0, -1))

#: The D3Q19 velocity set in lbmpy's order: rest, the six faces, the twelve
#: edges.
D3Q19: Tuple[Tuple[int, int, int], ...] = (
    (0, 0, 0), (1, 0, 0), (-1, 0, 0), (0, 1, 0), (0, -1, 0), (0, 0, 1), (0, 0, -1),
    (1, 1, 0), (1, -1, 0), (-1, 1, 0), (-1, -1, 0), (1, 0, 1), (1, 0, -1), (-1, 0, 1),
    (-1, 0, -1), (0, 1, 1), (0, 1, -1), (0, -1, 1), (0, -1, -1))

LAYOUTS = ("fzyx", "zyxf", "separate")


@dataclass(frozen=True)
class Field:
    """An array of the kernel: its element type (a name of ELEMENT_BYTES or a
    size in bytes), its shape x first with the ghost layers included, the
    ghost layers on each side, the number of components (0: a scalar field)
    and the layout of the components (LAYOUTS)."""

    name: str
    dtype: Any
    shape: Tuple[int, ...]
    ghost_layers: int = 0
    components: int = 0
    layout: str = "fzyx"

    def __post_init__(self) -> None:
        if not 1 <= len(self.shape) <= 3 or any(int(n) < 1 for n in self.shape):
            raise ValueError(f"field {self.name}: shape {self.shape}: want 1 to 3 positive sizes, x first")
        if self.ghost_layers < 0 or any(n - 2 * self.ghost_layers < 1 for n in self.shape):
            raise ValueError(f"field {self.name}: {self.ghost_layers} ghost layers leave no interior in {self.shape}")
        if self.layout not in LAYOUTS:
            raise ValueError(f"field {self.name}: layout {self.layout!r}: want one of {', '.join(LAYOUTS)}")
        if self.components < 0:
            raise ValueError(f"field {self.name}: {self.components} components")
        self.element()

    def element(self) -> int:
        """The element size in bytes."""
        if isinstance(self.dtype, int) and self.dtype in (1, 2, 4, 8, 16):
            return self.dtype
        if isinstance(self.dtype, str) and self.dtype in ELEMENT_BYTES:
            return ELEMENT_BYTES[self.dtype]
        raise ValueError(f"field {self.name}: element type {self.dtype!r}: want one of {', '.join(ELEMENT_BYTES)} or 1, 2, 4, 8, 16 bytes")

    def interior(self) -> Tuple[int, ...]:
        """The iteration space this field gives: its shape less the ghost layers."""
        return tuple(n - 2 * self.ghost_layers for n in self.shape)


@dataclass(frozen=True)
class Access:
    """One read or write of an update: the field, the neighbour offset (x
    first) and the component (for fields with components)."""

    field: Field
    offset: Tuple[int, ...] = (0, 0, 0)
    component: int = 0


_COORDS = ("x", "y", "z")


def _term(coord: str, k: int) -> str:
    if k == 0:
        return coord
    return f"{coord} + {k}" if k > 0 else f"{coord} - {-k}"


def _index(acc: Access, dims: int) -> List[str]:
    """The access's array index (x first) in the field's own array."""
    f, g = acc.field, acc.field.ghost_layers
    off = tuple(acc.offset) + (0,) * (3 - len(acc.offset))
    if any(off[d] != 0 for d in range(dims, 3)):
        raise ValueError(f"field {f.name}: offset {acc.offset} reaches beyond the {dims}-D domain")
    if f.components and not 0 <= acc.component < f.components:
        raise ValueError(f"field {f.name}: component {acc.component} of {f.components}")
    idx = [_term(_COORDS[d], off[d] + g) for d in range(dims)]
    if f.components and f.layout == "fzyx":  # component outermost: in the last dimension
        last = dims - 1
        idx[last] = _term(_COORDS[last], off[last] + g + acc.component * f.shape[last])
    elif f.components and f.layout == "zyxf":  # components innermost: Q·x + q
        idx[0] = f"{f.components}*x + {f.components * (off[0] + g) + acc.component}"
    return idx


def _extent(f: Field) -> List[int]:
    ext = [int(n) for n in f.shape]
    if f.components and f.layout == "fzyx":
        ext[-1] *= f.components
    elif f.components and f.layout == "zyxf":
        ext[0] *= f.components
    return ext


def _array_name(acc: Access) -> str:
    f = acc.field
    if f.components and f.layout == "separate":
        return f"{f.name}_f{acc.component:02d}"
    return f.name


def kernel_spec(name: str, reads: Sequence[Access], writes: Sequence[Access], *,
                flops: float = 0, registers: Optional[int] = None,
                description: Optional[str] = None) -> Dict[str, Any]:
    """The polyvol spec (a dict, docs/guide.md) of a kernel that, at every
    interior point, performs the reads and then the writes. Arrays appear in
    the order of their first access; each lists its loads and stores once."""
    accesses = list(reads) + list(writes)
    if not writes or not accesses:
        raise ValueError("a kernel needs at least one write")
    domain = accesses[0].field.interior()
    for a in accesses:
        if a.field.interior() != domain:
            raise ValueError(f"field {a.field.name}: interior {a.field.interior()} differs from {domain}")
    dims = len(domain)
    arrays: Dict[str, Dict[str, Any]] = {}
    for store, group in ((False, reads), (True, writes)):
        for a in group:
            key = _array_name(a)
            f = a.field
            if key not in arrays:
                # The array's first element (a ghost corner) is aligned; the
                # indices carry the ghost layers (_index).
                arrays[key] = {"name": key, "element": f.element(), "extent": _extent(f)}
            entry = arrays[key]
            lst = entry.setdefault("store" if store else "load", [])
            idx = _index(a, dims)
            if idx not in lst:
                lst.append(idx)
    spec: Dict[str, Any] = {"name": name, "domain": list(domain), "flops": flops, "fields": list(arrays.values())}
    if description:
        spec["description"] = description
    if registers is not None:
        spec["registers"] = int(registers)
    return spec


def best_launch(spec: Dict[str, Any], device: Optional[str] = None, *,
                threads: Sequence[int] = (128, 256, 512, 1024),
                folds: Optional[Sequence[Sequence[int]]] = None,
                model: Optional[str] = None) -> Ranked:
    """The launch that polyvol predicts fastest for spec on device: the best
    of ``polyvol explore`` over every block shape of each thread count in
    threads, with the given folds (polyvol's default folds when None) and
    both tilings."""
    best: Optional[Ranked] = None
    for n in threads:
        rows = explore(spec, device=device, threads=n, folds=folds, model=model, top=1)
        if rows and (best is None or rows[0].glups > best.glups):
            best = rows[0]
    if best is None:
        raise ValueError("polyvol found no launch that fits the device")
    return best
