"""Shape-changing ops: reshape, transpose, broadcast_to, expand_dims, squeeze,
concatenate and dynamic_truncate.

Targets may be symbolic: an item is an ``int`` (``-1`` once in a reshape),
an axis name, an :class:`~symshape_mlir.extent.Expr` or an extent from
``x.shape`` (with extent arithmetic). Reshape and broadcast targets must be
*exact*: an upper bound there (from ``dynamic_truncate(..., stage=
"upper_bound")``) is a :class:`~symshape_mlir.frontend.errors.ContractError`
naming the op, the line and where the bound came from.

Example:
    >>> def f(x):                                   # x: [batch, seq, 64]
    ...     b, s, _ = x.shape
    ...     flat = x.reshape(b * s, 64)             # symshape.reshape to [batch * seq, 64]
    ...     return flat.reshape(-1, s, 64)          # -1 is batch
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any, Literal

import numpy as np

from symshape_mlir.extent import canon
from symshape_mlir.extent.expr import Const, Expr, Sym
from symshape_mlir.extent.guarantee import Exact, ShapeExtent, UpperBound
from symshape_mlir.extent.prove import prove_eq
from symshape_mlir.frontend.dtypes import DType, i64
from symshape_mlir.frontend.errors import AxisConflictError, FrontendError, ShapeError
from symshape_mlir.frontend.index import Index, IndexBuilder, is_runtime_integer
from symshape_mlir.frontend.ops.broadcasting import (
    emit_broadcast_in_dim,
    is_one,
    located_broadcast_error,
    same_extent,
)
from symshape_mlir.frontend.ops.generic import (
    Body,
    Operand,
    emit_empty,
    emit_fill,
    emit_generic,
    emit_index_vector,
)
from symshape_mlir.frontend.source import SourceLocation, user_location
from symshape_mlir.frontend.tensor import Tensor
from symshape_mlir.frontend.tracer import BoundOrigin, FunctionTrace, tensor_type
from symshape_mlir.frontend.vjp import (
    Cotangents,
    Node,
    composite,
    primitive,
    require_exact,
    save,
    vjp_rule,
)
from symshape_mlir.shapes.broadcast import broadcast_shapes
from symshape_mlir.shapes.errors import BroadcastError
from symshape_mlir.shapes.reshape import factors, never_divides, numel, reshape_hole
from symshape_mlir.shapes.rules import concat_shape, normalize_axes
from symshape_mlir.shapes.shape import Shape, axis_name

__all__ = [
    "ShapeTarget",
    "broadcast_to",
    "concatenate",
    "drop_unit_axes",
    "dynamic_truncate",
    "embed_slice",
    "expand_dims",
    "expand_like",
    "extract_slice",
    "insert_unit_axes",
    "reshape",
    "squeeze",
    "sum_axes",
    "sum_to_shape",
    "swapaxes",
    "transpose",
]

ShapeTarget = int | str | Expr | ShapeExtent | Tensor


def _target_extent(
    trace: FunctionTrace, op: str, item: ShapeTarget, where: SourceLocation
) -> ShapeExtent:
    if isinstance(item, ShapeExtent):
        return item
    if isinstance(item, Expr):
        return Exact(item)
    if isinstance(item, str):
        if item not in trace.named_axes:
            raise FrontendError(
                f"{op} at {where}: unknown axis name {item!r} (the inputs name "
                f"{sorted(trace.named_axes)})"
            )
        return Exact(Sym(item))
    if isinstance(item, bool) or not isinstance(item, int):
        raise FrontendError(f"{op} at {where}: {item!r} is not an extent")
    if item < 0:
        raise FrontendError(f"{op} at {where}: negative extent {item}")
    return Exact(Const(item))


def _const(extent: ShapeExtent) -> int | None:
    return extent.expr.value if extent.is_exact and isinstance(extent.expr, Const) else None


def _listed(shape: Sequence[Any]) -> str:
    """A reshape target as the user wrote it: ``(batch, 4, -1)``."""
    return "(" + ", ".join(str(item) for item in shape) + ")"


def _divides(a: tuple[int, list[Expr]], b: tuple[int, list[Expr]]) -> bool:
    remaining = list(b[1])
    for factor in a[1]:
        if factor not in remaining:
            return False
        remaining.remove(factor)
    return a[0] != 0 and b[0] % a[0] == 0


def reshape_groups(
    source: Sequence[ShapeExtent], target: Sequence[ShapeExtent]
) -> list[tuple[list[int], list[int]]] | None:
    """Contiguous groups of source and target axes with equal products, if provable.

    ``[batch, seq, 4] -> [batch * seq, 4]`` is ``[([0, 1], [0]), ([2], [1])]``.
    Extent-1 axes left over join the last group. ``None`` when the reshape is
    not provably a split or merge of contiguous axes.
    """
    groups: list[tuple[list[int], list[int]]] = []
    i = j = 0
    while i < len(source) and j < len(target):
        gs, gt = [i], [j]
        ps, pt = factors([source[i]]), factors([target[j]])
        i, j = i + 1, j + 1
        while (ps[0], sorted(map(str, ps[1]))) != (pt[0], sorted(map(str, pt[1]))):
            if _divides(ps, pt) and i < len(source):
                gs.append(i)
                ps = factors([source[k] for k in gs])
                i += 1
            elif _divides(pt, ps) and j < len(target):
                gt.append(j)
                pt = factors([target[k] for k in gt])
                j += 1
            else:
                return None
        groups.append((gs, gt))
    rest_s, rest_t = list(range(i, len(source))), list(range(j, len(target)))
    if not all(is_one(source[k]) for k in rest_s) or not all(is_one(target[k]) for k in rest_t):
        return None
    if groups:
        groups[-1][0].extend(rest_s)
        groups[-1][1].extend(rest_t)
    elif rest_s or rest_t:
        return None
    return groups


def _reshape_by_groups(x: Tensor, target: Shape, where: SourceLocation) -> Tensor | None:
    """A split/merge reshape as ``tensor.collapse_shape`` then ``tensor.expand_shape``."""
    # Only exact extents on both sides make a split or merge provable (under
    # contract="defer" a bound target reaches here, and its run-time check
    # needs the target itself: symshape.reshape).
    if not x.symbolic_shape.is_exact or not all(d.is_exact for d in target.dims):
        return None
    groups = reshape_groups(x.shape, target.dims)
    if groups is None or (not groups and (x.ndim or target.rank)):
        return None
    trace = x.trace
    current = x
    if any(len(gs) != 1 for gs, _ in groups):
        merged = Shape([numel([x.shape[k] for k in gs]) for gs, _ in groups])
        name = trace.ssa("q")
        trace.emit(
            f"{name} = tensor.collapse_shape {x.value} {_reassociation([gs for gs, _ in groups])}"
            f" : {x.mlir_type} into {tensor_type(merged, x.dtype)}",
            where,
        )
        current = Tensor(trace, name, merged, x.dtype)
    if any(len(gt) != 1 for _, gt in groups) or current.ndim != target.rank:
        sizes: list[str] = []
        for extent in target.dims:
            value = _const(extent)
            sizes.append(str(value) if value is not None else trace.materialize(extent, where))
        name = trace.ssa("x")
        trace.emit(
            f"{name} = tensor.expand_shape {current.value} "
            f"{_reassociation([gt for _, gt in groups])} output_shape [{', '.join(sizes)}] : "
            f"{current.mlir_type} into {tensor_type(target, x.dtype)}",
            where,
        )
        current = Tensor(trace, name, target, x.dtype)
    return current


@primitive("reshape")
def reshape(x: Tensor, shape: Sequence[ShapeTarget]) -> Tensor:
    """``numpy.reshape`` with symbolic targets (``symshape.reshape``).

    Raises:
        ContractError: a target extent (or the input, when ``-1`` is
            inferred from it) is only an upper bound.
        ShapeError: the element counts provably differ; more than one ``-1``.
    """
    where = user_location()
    trace = x.trace
    shape = [int(item) if isinstance(item, np.integer) else item for item in shape]
    if any(is_runtime_integer(item) for item in shape):
        return _reshape_to_values(x, shape, where)
    holes = [i for i, item in enumerate(shape) if isinstance(item, int) and item == -1]
    if len(holes) > 1:
        raise ShapeError(f"reshape at {where}: more than one -1 in {list(shape)}")
    dims: list[ShapeExtent | None] = [
        None if i in holes else _target_extent(trace, "reshape", item, where)
        for i, item in enumerate(shape)
    ]
    known = [d for d in dims if d is not None]
    trace.require_exact("reshape", "target extent", [d or Exact(0) for d in dims], where)
    if holes:
        trace.require_exact(
            "reshape",
            "input extent",
            x.shape,
            where,
            f", and target extent {holes[0]} (-1) would be inferred from it",
        )
        divisor = numel(known)
        if _const(divisor) == 0:
            raise ShapeError(f"reshape at {where}: cannot infer -1 with a zero-size target")
        if never_divides(x.shape, known):
            raise ShapeError(
                f"reshape at {where}: cannot reshape {x.symbolic_shape} "
                f"({numel(x.shape).expr} elements) into {_listed(shape)}: the element count "
                f"is never a multiple of {divisor.expr}")
        dims[holes[0]] = reshape_hole(x.shape, known)
    target = Shape([d for d in dims if d is not None])
    before, after = numel(x.shape), numel(target.dims)
    if isinstance(before, Exact) and isinstance(after, Exact) and \
            prove_eq(before.expr, after.expr) is False:
        raise ShapeError(
            f"reshape at {where}: cannot reshape {x.symbolic_shape} ({before.expr} elements) "
            f"into {target} ({after.expr} elements)"
        )
    grouped = _reshape_by_groups(x, target, where)
    if grouped is not None:
        return grouped
    payload, operands = trace.payload(target.dims, 1, reuse=[x], op="reshape", where=where)
    name = trace.ssa("r")
    values = ", ".join(t.value for t in [x, *operands])
    types = ", ".join(t.mlir_type for t in [x, *operands])
    trace.emit(
        f"{name} = symshape.reshape {values} to {payload} : ({types}) -> "
        f"{tensor_type(target, x.dtype)}",
        where,
    )
    return Tensor(trace, name, target, x.dtype)


def _reshape_to_values(x: Tensor, shape: Sequence[Any], where: SourceLocation) -> Tensor:
    """A reshape with run-time integers among its targets: ``tensor.reshape`` to
    an ``i64`` shape tensor of ``index`` values (a ``-1`` is the element count
    ``floordiv`` the others'; the count is checked at run time)."""
    trace = x.trace
    b = IndexBuilder(trace, where)
    holes = [i for i, item in enumerate(shape) if isinstance(item, int) and item == -1]
    if len(holes) > 1:
        raise ShapeError(f"reshape at {where}: more than one -1 in {list(shape)}")
    trace.require_exact("reshape", "input extent", x.shape, where)
    sizes: list[Index | None] = [
        None if i in holes else b.size(item, "reshape", f"target extent {i}")
        for i, item in enumerate(shape)]
    for size in sizes:
        if size is not None and size.const is not None and size.const < 0:
            raise FrontendError(f"reshape at {where}: negative extent {size.const}")
    if holes:
        numel = functools.reduce(b.mul, [b.dim(x, a) for a in range(x.ndim)], b.const(1))
        known = functools.reduce(b.mul, [s for s in sizes if s is not None], b.const(1))
        if known.const == 0:
            raise ShapeError(f"reshape at {where}: cannot infer -1 with a zero-size target")
        sizes[holes[0]] = b.floordiv(numel, known)
    targets = [s for s in sizes if s is not None]
    target = Shape([s.extent for s in targets])
    shape_value = emit_index_vector(trace, [b.ssa(s) for s in targets], i64, where)
    name = trace.ssa("r")
    trace.emit(
        f"{name} = tensor.reshape {x.value}({shape_value.value}) : ({x.mlir_type}, "
        f"{shape_value.mlir_type}) -> {tensor_type(target, x.dtype)}", where)
    return Tensor(trace, name, target, x.dtype)


@primitive("transpose")
def transpose(x: Tensor, axes: Sequence[int] | None = None) -> Tensor:
    """``numpy.transpose`` (``linalg.transpose``)."""
    where = user_location()
    perm = tuple(reversed(range(x.ndim))) if axes is None else tuple(axes)
    try:
        perm = normalize_axes(perm, x.ndim)
    except ShapeError as err:
        raise ShapeError(f"transpose at {where}: {err}") from None
    if len(perm) != x.ndim:
        raise ShapeError(f"transpose at {where}: axes {list(perm)} do not match rank {x.ndim}")
    save(perm=perm)
    trace = x.trace
    shape = Shape([x.shape[p] for p in perm])
    init = emit_empty(trace, shape, x.dtype, [(x, p) for p in perm], where)
    name = trace.ssa("tr")
    trace.emit(
        f"{name} = linalg.transpose ins({x.value} : {x.mlir_type}) outs({init} : "
        f"{tensor_type(shape, x.dtype)}) permutation = [{', '.join(map(str, perm))}]",
        where,
    )
    return Tensor(trace, name, shape, x.dtype)


@composite
def swapaxes(x: Tensor, axis1: int, axis2: int) -> Tensor:
    """``numpy.swapaxes``: ``x`` with two axes exchanged (``linalg.transpose``)."""
    where = user_location()
    try:
        a, b = (normalize_axes((axis,), x.ndim)[0] for axis in (axis1, axis2))
    except ShapeError as err:
        raise ShapeError(f"swapaxes at {where}: {err}") from None
    perm = list(range(x.ndim))
    perm[a], perm[b] = perm[b], perm[a]
    return transpose(x, perm)


@primitive("broadcast_to")
def broadcast_to(x: Tensor, shape: Sequence[ShapeTarget]) -> Tensor:
    """``numpy.broadcast_to`` (``symshape.broadcast_in_dim``).

    Raises:
        BroadcastError: an input extent that is provably neither 1 nor the target's.
        ContractError: a target extent is only an upper bound.
    """
    where = user_location()
    trace = x.trace
    target = Shape([_target_extent(trace, "broadcast_to", item, where) for item in shape])
    if target.rank < x.ndim:
        raise ShapeError(
            f"broadcast_to at {where}: cannot broadcast {x.symbolic_shape} to {target} "
            f"of lower rank"
        )
    try:
        result = broadcast_shapes(x.symbolic_shape, target)
    except BroadcastError as err:
        raise located_broadcast_error(
            "broadcast_to", where, err, [x.symbolic_shape, target]
        ) from None
    offset = target.rank - x.ndim
    for axis, extent in enumerate(x.shape):
        want = target[axis + offset]
        if not (same_extent(extent, want) or is_one(extent)) and is_one(result[axis + offset]):
            raise located_broadcast_error(
                "broadcast_to",
                where,
                BroadcastError(axis + offset, (extent, want), (0, 1)),
                [x.symbolic_shape, target],
            )
    return emit_broadcast_in_dim(
        trace, "broadcast_to", x, range(offset, target.rank), target, where
    )


def _groups(rank: int, kept: Sequence[int]) -> list[list[int]]:
    """Reassociation of ``rank`` axes where ``kept`` axes each own a group.

    Unit axes before the first kept axis join its group; others join the
    group of the kept axis before them.
    """
    if not kept:
        return []
    groups: list[list[int]] = [[k] for k in kept]
    for axis in range(rank):
        if axis in kept:
            continue
        owner = max((i for i, k in enumerate(kept) if k < axis), default=0)
        groups[owner].append(axis)
    return [sorted(g) for g in groups]


def _reassociation(groups: list[list[int]]) -> str:
    return "[" + ", ".join("[" + ", ".join(map(str, g)) + "]" for g in groups) + "]"


@primitive("insert_unit_axes")
def insert_unit_axes(x: Tensor, positions: Sequence[int], where: SourceLocation) -> Tensor:
    """``x`` with extent-1 axes at ``positions`` of the result (``tensor.expand_shape``)."""
    trace = x.trace
    rank = x.ndim + len(positions)
    units = set(positions)
    kept = [a for a in range(rank) if a not in units]
    dims: list[ShapeExtent] = []
    sizes: list[str] = []
    source = iter(range(x.ndim))
    for axis in range(rank):
        if axis in units:
            dims.append(Exact(Const(1)))
            sizes.append("1")
            continue
        k = next(source)
        dims.append(x.shape[k])
        value = _const(x.shape[k])
        sizes.append(str(value) if value is not None else trace.dim_index(x, k, where))
    shape = Shape(dims)
    name = trace.ssa("x")
    trace.emit(
        f"{name} = tensor.expand_shape {x.value} {_reassociation(_groups(rank, kept))} "
        f"output_shape [{', '.join(sizes)}] : {x.mlir_type} into {tensor_type(shape, x.dtype)}",
        where,
    )
    return Tensor(trace, name, shape, x.dtype)


@primitive("drop_unit_axes")
def drop_unit_axes(x: Tensor, positions: Sequence[int], where: SourceLocation) -> Tensor:
    """``x`` without the extent-1 axes at ``positions`` (``tensor.collapse_shape``)."""
    trace = x.trace
    drop = set(positions)
    kept = [a for a in range(x.ndim) if a not in drop]
    shape = Shape([x.shape[a] for a in kept])
    name = trace.ssa("q")
    trace.emit(
        f"{name} = tensor.collapse_shape {x.value} {_reassociation(_groups(x.ndim, kept))} : "
        f"{x.mlir_type} into {tensor_type(shape, x.dtype)}",
        where,
    )
    return Tensor(trace, name, shape, x.dtype)


@composite
def expand_dims(x: Tensor, axis: int | Sequence[int]) -> Tensor:
    """``numpy.expand_dims``."""
    where = user_location()
    axes = (axis,) if isinstance(axis, int) else tuple(axis)
    try:
        positions = normalize_axes(axes, x.ndim + len(axes))
    except ShapeError as err:
        raise ShapeError(f"expand_dims at {where}: {err}") from None
    return insert_unit_axes(x, sorted(positions), where)


@composite
def squeeze(x: Tensor, axis: int | Sequence[int] | None = None) -> Tensor:
    """``numpy.squeeze``: axes of extent 1 (all statically-1 axes by default).

    Raises:
        ShapeError: a named axis whose extent is not provably 1.
    """
    where = user_location()
    if axis is None:
        positions = tuple(a for a, e in enumerate(x.shape) if is_one(e))
    else:
        try:
            positions = normalize_axes((axis,) if isinstance(axis, int) else axis, x.ndim)
        except ShapeError as err:
            raise ShapeError(f"squeeze at {where}: {err}") from None
        for a in positions:
            if not is_one(x.shape[a]):
                raise ShapeError(f"squeeze at {where}: axis {a} has extent {x.shape[a]}, not 1")
    return drop_unit_axes(x, sorted(positions), where)


@primitive("concatenate")
def concatenate(tensors: Sequence[Tensor], axis: int = 0) -> Tensor:
    """``numpy.concatenate`` (``tensor.concat``).

    Raises:
        AxisConflictError: the other axes cannot be the same (two different
            names, or provably different extents).
    """
    where = user_location()
    tensors = list(tensors)
    if not tensors:
        raise FrontendError(f"concatenate at {where}: needs at least one tensor")
    first = tensors[0]
    ranks = {t.ndim for t in tensors}
    if len(ranks) != 1:
        raise ShapeError(f"concatenate at {where}: ranks differ: {sorted(ranks)}")
    dtypes: set[DType] = {t.dtype for t in tensors}
    if len(dtypes) != 1:
        raise FrontendError(f"concatenate at {where}: element types differ")
    try:
        (axis,) = normalize_axes((axis,), first.ndim)
    except ShapeError as err:
        raise ShapeError(f"concatenate at {where}: {err}") from None
    try:
        shape = concat_shape([t.shape for t in tensors], axis)
    except AxisConflictError as err:
        names = [axis_name(e) or str(e) for e in err.extents]
        conflict = AxisConflictError(
            f"concatenate at {where}: axis {err.axis} of input 0 ({names[0]}) and of input "
            f"{err.operand} ({names[1]}) must be the same: {err.reason}", err.extents)
        conflict.axis, conflict.operand = err.axis, err.operand
        raise conflict from None
    save(axis=axis)
    trace = first.trace
    name = trace.ssa("cat")
    trace.emit(
        f"{name} = tensor.concat dim({axis}) {', '.join(t.value for t in tensors)} : "
        f"({', '.join(t.mlir_type for t in tensors)}) -> {tensor_type(shape, first.dtype)}",
        where,
    )
    return Tensor(trace, name, shape, first.dtype)


@primitive("dynamic_truncate")
def dynamic_truncate(
    x: Tensor,
    size: Tensor,
    axis: int = 0,
    stage: Literal["upper_bound", "exact"] = "upper_bound",
) -> Tensor:
    """Keeps the first ``size`` entries of ``axis`` (``x[:max(size, 0)]`` along it).

    ``size`` is a 0-d integer tensor (a scalar input). With
    ``stage="upper_bound"`` the kept extent is only known to be at most the
    input's (``ub(batch)``): it cannot size a reshape or a broadcast. With
    ``stage="exact"`` it is an exact (unnamed) extent.
    """
    where = user_location()
    if size.ndim != 0 or size.dtype.is_float:
        raise FrontendError(
            f"dynamic_truncate at {where}: the size must be a 0-d integer tensor, not "
            f"{size.mlir_type}"
        )
    if stage not in ("upper_bound", "exact"):
        raise FrontendError(f"dynamic_truncate at {where}: unknown stage {stage!r}")
    try:
        (axis,) = normalize_axes((axis,), x.ndim)
    except ShapeError as err:
        raise ShapeError(f"dynamic_truncate at {where}: {err}") from None
    save(axis=axis)
    trace = x.trace
    before = x.shape[axis]
    kept: ShapeExtent
    if stage == "exact" or trace.defer:
        # Under contract="defer" the kept size is some exact value at run
        # time: uses that need it are checked by the compiled module.
        kept = Exact(trace.fresh_symbol())
    else:
        kept = UpperBound(before.expr) if before.expr is not None else before
    dims = list(x.shape)
    dims[axis] = kept
    shape = Shape(dims)
    name = trace.ssa("trunc")
    trace.emit(
        f"{name} = symshape.dynamic_truncate {x.value}, {size.value} axis {axis} stage {stage} "
        f": ({x.mlir_type}, {size.mlir_type}) -> {tensor_type(shape, x.dtype)}",
        where,
    )
    if not kept.is_exact:
        trace.note_bound(
            kept,
            BoundOrigin(
                "dynamic_truncate",
                where,
                f"axis {axis} keeps at most {before} entries (stage upper_bound)",
            ),
        )
    return Tensor(trace, name, shape, x.dtype)


@primitive("extract_slice")
def extract_slice(x: Tensor, offsets: Sequence[Index], sizes: Sequence[Index],
                  strides: Sequence[int], shape: Shape, where: SourceLocation) -> Tensor:
    """``tensor.extract_slice`` of ``x``: ``sizes`` entries from ``offsets`` every
    ``strides`` along each axis; ``shape`` is the result's (an axis of size 1
    left out of it is dropped). The transpose of :func:`embed_slice`.

    A slice with a size of 0 reads nothing and is a ``tensor.empty``: MLIR
    rejects a static offset at or past the end of an axis even then (offset 0
    of an axis of 0 entries, ``x[10:]`` of 10)."""
    trace = x.trace
    if any(size.const == 0 for size in sizes):
        empty = emit_empty(trace, shape, x.dtype, [None] * shape.rank, where)
        return Tensor(trace, empty, shape, x.dtype)
    name = trace.ssa("sl")
    trace.emit(
        f"{name} = tensor.extract_slice {x.value}[{', '.join(o.value for o in offsets)}] "
        f"[{', '.join(s.value for s in sizes)}] [{', '.join(map(str, strides))}] : "
        f"{x.mlir_type} to {tensor_type(shape, x.dtype)}",
        where,
    )
    return Tensor(trace, name, shape, x.dtype)


@primitive("embed_slice")
def embed_slice(x: Tensor, shape: Shape, sources: Sequence[tuple[Tensor, int] | None],
                offsets: Sequence[Index], sizes: Sequence[Index], strides: Sequence[int],
                where: SourceLocation) -> Tensor:
    """``x`` written into zeros of ``shape`` (sized from ``sources`` where given) at
    ``offsets``, ``sizes`` and ``strides`` (``tensor.insert_slice``; ``x`` may
    leave out axes of size 1). The transpose of :func:`extract_slice`."""
    trace = x.trace
    zero: float | int = 0.0 if x.dtype.is_float else 0
    target = tensor_type(shape, x.dtype)
    zeros = emit_fill(trace, emit_empty(trace, shape, x.dtype, sources, where), x.dtype, zero,
                      target, where)
    if any(size.const == 0 for size in sizes):
        # Nothing to write (and MLIR rejects a static offset past the end).
        return Tensor(trace, zeros, shape, x.dtype)
    name = trace.ssa("ins")
    trace.emit(
        f"{name} = tensor.insert_slice {x.value} into {zeros}"
        f"[{', '.join(o.value for o in offsets)}] [{', '.join(s.value for s in sizes)}] "
        f"[{', '.join(map(str, strides))}] : {x.mlir_type} into {target}",
        where,
    )
    return Tensor(trace, name, shape, x.dtype)


def sum_axes(x: Tensor, axes: Sequence[int], where: SourceLocation) -> Tensor:
    """The sum of ``x`` over ``axes`` (dropped from the result), one ``linalg.generic``."""
    trace, dtype = x.trace, x.dtype
    reduced = set(axes)
    kept = [a for a in range(x.ndim) if a not in reduced]
    shape = Shape([x.shape[a] for a in kept])
    init = emit_empty(trace, shape, dtype, [(x, a) for a in kept], where)
    zero: float | int = 0.0 if dtype.is_float else 0
    filled = emit_fill(trace, init, dtype, zero, tensor_type(shape, dtype), where)
    add = "arith.addf" if dtype.is_float else "arith.addi"

    def body(block: Body, args: list[str]) -> str:
        return block.op(f"{add} {args[1]}, {args[0]}", dtype.mlir)

    return emit_generic(
        trace, [Operand(x, tuple(f"d{a}" for a in range(x.ndim)))], x.ndim,
        ["reduction" if a in reduced else "parallel" for a in range(x.ndim)],
        [f"d{a}" for a in kept], shape, dtype, filled, body, where)


def sum_to_shape(ct: Tensor, like: Tensor, where: SourceLocation) -> Tensor:
    """The cotangent ``ct`` of a broadcast of ``like`` summed back to ``like``'s shape.

    Per axis, as broadcasting read it (:func:`~symshape_mlir.frontend.ops.
    broadcasting.read_leading_axes`): leading axes ``like`` lacks and axes
    where it is a static 1 are summed; equal extents are kept; an axis
    broadcast at run time (``like``'s ``n`` against ``R``, ``n`` being 1 or
    ``R`` at the call) is reshaped to ``[n, R floordiv max(n, 1)]`` and summed
    over the second: one module is right whether ``n`` is 1 or ``R``.

    Raises:
        ContractError: such an axis whose extent is only an upper bound.
    """
    lead = ct.ndim - like.ndim
    summed = list(range(lead))
    units: list[int] = []
    runtime: list[int] = []
    for axis, extent in enumerate(like.shape):
        have = ct.shape[lead + axis]
        if same_extent(extent, have):
            continue
        if is_one(extent):
            summed.append(lead + axis)
            units.append(axis)
        else:
            runtime.append(axis)
    if summed:
        ct = sum_axes(ct, summed, where)
        if units:
            ct = insert_unit_axes(ct, units, where)
    for axis in runtime:
        ct = _fold_broadcast(ct, axis, like.shape[axis], where)
    return ct


def _fold_broadcast(ct: Tensor, axis: int, extent: ShapeExtent, where: SourceLocation) -> Tensor:
    """``ct`` with axis ``axis`` of extent ``R`` summed down to ``extent`` (1 or ``R``)."""
    trace = ct.trace
    trace.require_exact("broadcast", "operand extent", [extent, ct.shape[axis]], where)
    total = ct.shape[axis]
    assert isinstance(extent, Exact) and isinstance(total, Exact)
    repeat = Exact(canon.floordiv(total.expr, canon.maximum(extent.expr, 1)))
    split = [*ct.shape[:axis], extent, repeat, *ct.shape[axis + 1:]]
    return sum_axes(reshape(ct, split), [axis + 1], where)


def expand_like(ct: Tensor, like: Tensor, where: SourceLocation) -> Tensor:
    """``ct`` (of ``like``'s rank, a static 1 where ``like`` is not) repeated to
    ``like``'s shape by a ``linalg.generic`` reading those axes at 0: no
    broadcast target, so ``like``'s extents may be upper bounds."""
    trace = ct.trace
    reads = []
    for axis, (have, want) in enumerate(zip(ct.shape, like.shape, strict=True)):
        if same_extent(have, want):
            reads.append(f"d{axis}")
        else:
            assert is_one(have), (have, want)
            reads.append("0")
    init = emit_empty(trace, like.symbolic_shape, ct.dtype, [(like, a) for a in range(like.ndim)],
                      where)

    def body(block: Body, args: list[str]) -> str:
        return args[0]

    loops = [f"d{a}" for a in range(like.ndim)]
    return emit_generic(trace, [Operand(ct, tuple(reads))], like.ndim, ["parallel"] * like.ndim,
                        loops, like.symbolic_shape, ct.dtype, init, body, where)


# -- VJP rules -------------------------------------------------------------------------


@vjp_rule("reshape")
def _reshape_vjp(node: Node, ct: Tensor) -> Cotangents:
    x: Tensor = node.args["x"]
    require_exact(node, "input extent", x.shape)
    return {"x": reshape(ct, list(x.shape))}


@vjp_rule("transpose")
def _transpose_vjp(node: Node, ct: Tensor) -> Cotangents:
    perm: tuple[int, ...] = node.saved["perm"]
    return {"x": transpose(ct, [perm.index(a) for a in range(len(perm))])}


@vjp_rule("broadcast_to")
def _broadcast_to_vjp(node: Node, ct: Tensor) -> Cotangents:
    return {"x": sum_to_shape(ct, node.args["x"], node.where)}


@vjp_rule("insert_unit_axes")
def _insert_unit_axes_vjp(node: Node, ct: Tensor) -> Cotangents:
    return {"x": drop_unit_axes(ct, sorted(node.args["positions"]), node.where)}


@vjp_rule("drop_unit_axes")
def _drop_unit_axes_vjp(node: Node, ct: Tensor) -> Cotangents:
    return {"x": insert_unit_axes(ct, sorted(node.args["positions"]), node.where)}


@vjp_rule("concatenate")
def _concatenate_vjp(node: Node, ct: Tensor) -> Cotangents:
    axis: int = node.saved["axis"]
    b = IndexBuilder(ct.trace, node.where)
    offset = b.const(0)
    pieces: list[Tensor | None] = []
    for part in node.args["tensors"]:
        size = b.dim(part, axis)
        if node.wants(part):
            offsets = [offset if a == axis else b.const(0) for a in range(ct.ndim)]
            sizes = [b.dim(part, a) for a in range(ct.ndim)]
            pieces.append(extract_slice(ct, offsets, sizes, [1] * ct.ndim, part.symbolic_shape,
                                        node.where))
        else:
            pieces.append(None)
        offset = b.add(offset, size)
    return {"tensors": pieces}


@vjp_rule("dynamic_truncate")
def _dynamic_truncate_vjp(node: Node, ct: Tensor) -> Cotangents:
    # The kept entries go back to the front of zeros of the input's shape: the
    # cotangent's own sizes say how many were kept.
    x: Tensor = node.args["x"]
    b = IndexBuilder(ct.trace, node.where)
    sizes = [b.dim(ct, a) for a in range(ct.ndim)]
    return {"x": embed_slice(ct, x.symbolic_shape, [(x, a) for a in range(x.ndim)],
                             [b.const(0)] * ct.ndim, sizes, [1] * ct.ndim, node.where)}


@vjp_rule("extract_slice")
def _extract_slice_vjp(node: Node, ct: Tensor) -> Cotangents:
    x: Tensor = node.args["x"]
    return {"x": embed_slice(ct, x.symbolic_shape, [(x, a) for a in range(x.ndim)],
                             node.args["offsets"], node.args["sizes"], node.args["strides"],
                             node.where)}


@vjp_rule("embed_slice")
def _embed_slice_vjp(node: Node, ct: Tensor) -> Cotangents:
    x: Tensor = node.args["x"]
    return {"x": extract_slice(ct, node.args["offsets"], node.args["sizes"],
                               node.args["strides"], x.symbolic_shape, node.where)}
