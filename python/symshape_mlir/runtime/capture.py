"""Level 1 capture: what the host needs to plan a call, read once at compile time.

For every public function of a module, shape inference (before
``symshape-resolve``) gives each argument axis an expression (a named axis
such as ``batch``, a constant, or a fresh symbol for an unnamed dynamic axis),
each integer scalar argument the symbol it stands for when it sizes a tensor,
and each result axis the expression of its size, and each intermediate buffer
(`BufferSizes`) the expression of its size. These are kept in the stable
serialized form of `symshape_mlir.extent` beside the compiled artifact::

    >>> sizes = capture_module(module)["mlp"]
    >>> [str(e) for e in sizes.results[0].sizes]
    ['batch * 10']
    >>> FunctionSizes.from_json(sizes.to_json()) == sizes
    True

A result size that the host cannot compute before the call (a value computed
inside the function, an upper bound, an unknown extent) raises
`UnplannableSizeError` naming the op's location, unless the function is
listed in ``unplanned``. So does a buffer size outside that grammar, except
that an upper bound is enough for a buffer (its bytes are then a maximum).
"""

from __future__ import annotations

import dataclasses
import functools
import logging
from collections.abc import Collection
from typing import Any

import numpy as np
from mlir import ir

from symshape_mlir.extent import Const, Expr, Min, ShapeExtent, dumps, loads, prove_le
from symshape_mlir.extent.guarantee import UNKNOWN, Exact, UpperBound
from symshape_mlir.inference import InferenceState, infer
from symshape_mlir.inference.engine import infer_function
from symshape_mlir.inference.facts import Origin
from symshape_mlir.inference.rules.common import MAX_ELEMENTS
from symshape_mlir.locations import resolve_location
from symshape_mlir.runtime.errors import UnplannableSizeError
from symshape_mlir.runtime.sizefn import SizeFn, compile_size
from symshape_mlir.walk import collect_ops, functions

__all__ = ["ArgumentSizes", "BufferSizes", "FunctionSizes", "ResultSizes", "capture_module"]

logger = logging.getLogger(__name__)

BUCKET_ATTR = "symshape.bucket"


def _extent_json(extent: ShapeExtent) -> list[str] | None:
    if extent.expr is None:
        return None
    return ["=" if extent.is_exact else "<=", dumps(extent.expr)]


def _extent_from_json(data: list[str] | None) -> ShapeExtent:
    if data is None:
        return UNKNOWN
    kind, text = data
    expr = loads(text)
    return Exact(expr) if kind == "=" else UpperBound(expr)


@dataclasses.dataclass(frozen=True)
class ArgumentSizes:
    """What the sizes of one argument are made of.

    Attributes:
        shape: One extent per axis of a tensor argument (named axes, constants,
            fresh symbols of unnamed dynamic axes); None for a scalar.
        scalars: For an integer scalar, a 0-d integer tensor or an element of
            a short 1-D one, whose value sizes a tensor: the symbols standing
            for that value, their roles (:meth:`InferenceState.value_symbols`:
            ``value``, or ``plus`` and ``minus`` for a value of unknown sign,
            ``plus - minus``) and the element read (None: the whole value).
    """

    shape: tuple[ShapeExtent, ...] | None
    scalars: tuple[tuple[str, str, int | None], ...] = ()

    @functools.cached_property
    def positions(self) -> tuple[int | None, ...]:
        """The elements read, each once, in order (None: the whole value)."""
        return tuple(dict.fromkeys(position for _, _, position in self.scalars))

    def values(self, value: Any) -> tuple[int, ...]:
        """The integers at `positions` of an argument's value.

        An unsigned array holds the bit pattern of the module's signless
        integers, read as signed (``uint64`` ``2**64 - 1`` is ``-1``).
        """
        if isinstance(value, np.ndarray) and value.dtype.kind == "u":
            value = value.view(value.dtype.str.replace("u", "i"))
        return tuple(int(value if p is None else value[p]) for p in self.positions)

    def bind(self, value: Any, bindings: dict[str, int]) -> None:
        """Binds the scalar symbols from the argument's value."""
        read = dict(zip(self.positions, self.values(value), strict=True))
        for symbol, role, position in self.scalars:
            number = read[position]
            bindings[symbol] = number if role == "value" else \
                max(number, 0) if role == "plus" else max(-number, 0)

    def to_json(self) -> dict[str, Any]:
        """Returns a JSON-ready dict."""
        shape = None if self.shape is None else [_extent_json(e) for e in self.shape]
        return {"shape": shape, "scalars": [list(s) for s in self.scalars]}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> ArgumentSizes:
        """Rebuilds from `to_json` output."""
        shape = data["shape"]
        return cls(
            None if shape is None else tuple(_extent_from_json(e) for e in shape),
            tuple((s, r, p) for s, r, p in data["scalars"]),
        )


@dataclasses.dataclass(frozen=True)
class ResultSizes:
    """The size of every axis of one result.

    Attributes:
        sizes: One expression per axis over the argument symbols; None for a
            scalar result or a function that is not planned.
        location: Where the result is made (``file:line:column``), for
            messages; None when unknown.
    """

    sizes: tuple[Expr, ...] | None
    location: str | None = None

    @functools.cached_property
    def functions(self) -> tuple[SizeFn, ...]:
        """The sizes compiled for the host (see `compile_size`)."""
        return tuple(compile_size(e) for e in self.sizes or ())

    def to_json(self) -> dict[str, Any]:
        """Returns a JSON-ready dict."""
        sizes = None if self.sizes is None else [dumps(e) for e in self.sizes]
        return {"sizes": sizes, "location": self.location}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> ResultSizes:
        """Rebuilds from `to_json` output."""
        sizes = data["sizes"]
        return cls(None if sizes is None else tuple(loads(t) for t in sizes), data["location"])


@dataclasses.dataclass(frozen=True)
class BufferSizes:
    """An intermediate buffer: new storage a call makes that it does not return.

    Buffers are the values that own storage: ``tensor.empty`` (the
    destination a ``linalg`` op writes into) and the result of any op that
    is neither a view of an operand (``tensor.cast``, ``extract_slice``,
    ``expand_shape``, ``symshape.reshape``, ...) nor written into an operand
    (``linalg`` ops, ``insert_slice``, ``scf`` results); a value the
    function returns is a result, not a buffer. IREE may fuse or reuse
    them, so their sum bounds what the call allocates beside its results::

        %e = tensor.empty(%n) : tensor<?x64xf32>            // a buffer: n * 64 * 4 bytes
        %f = linalg.fill ins(%z : f32) outs(%e : ...)        // writes into %e
        %r = symshape.reshape %f to [n * 64] : ...           // a view of %f

    Attributes:
        op: The name of the op that makes it.
        location: Its source location, as MLIR prints it.
        itemsize: Bytes per element.
        sizes: One expression per axis over the argument symbols.
        bounded: Whether some axis is only an upper bound (then the bytes
            are a maximum).
    """

    op: str
    location: str
    itemsize: int
    sizes: tuple[Expr, ...]
    bounded: bool = False

    @functools.cached_property
    def functions(self) -> tuple[SizeFn, ...]:
        """The sizes compiled for the host (see `compile_size`)."""
        return tuple(compile_size(e) for e in self.sizes)

    def to_json(self) -> dict[str, Any]:
        """Returns a JSON-ready dict."""
        return {
            "op": self.op,
            "location": self.location,
            "itemsize": self.itemsize,
            "sizes": [dumps(e) for e in self.sizes],
            "bounded": self.bounded,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> BufferSizes:
        """Rebuilds from `to_json` output."""
        return cls(
            data["op"],
            data["location"],
            data["itemsize"],
            tuple(loads(t) for t in data["sizes"]),
            data["bounded"],
        )


@dataclasses.dataclass(frozen=True)
class FunctionSizes:
    """The captured sizes of one function.

    Attributes:
        name: The function's name.
        arguments: One entry per argument.
        results: One entry per result.
        planned: Whether result sizes are computed before each call.
        buffers: The intermediate buffers whose size is not a constant
            (empty when the function is not planned).
        buckets: The named axes calls pad up to a power of two
            (``symshape.bucket`` on the function).
    """

    name: str
    arguments: tuple[ArgumentSizes, ...]
    results: tuple[ResultSizes, ...]
    planned: bool = True
    buffers: tuple[BufferSizes, ...] = ()
    buckets: tuple[str, ...] = ()

    @property
    def named_axes(self) -> tuple[str, ...]:
        """The axis names the arguments declare, sorted (fresh symbols excluded)."""
        names: set[str] = set()
        for argument in self.arguments:
            for extent in argument.shape or ():
                names |= {n for n in extent.free_symbols if not n.startswith("_")}
        return tuple(sorted(names))

    @property
    def is_static(self) -> bool:
        """Whether every argument and result extent is a constant."""
        for argument in self.arguments:
            if argument.scalars:
                return False
            for extent in argument.shape or ():
                if extent.expr is None or extent.expr.const_value is None:
                    return False
        return self.planned and all(
            all(e.const_value is not None for e in r.sizes or ()) for r in self.results
        )

    def to_json(self) -> dict[str, Any]:
        """Returns a JSON-ready dict."""
        return {
            "name": self.name,
            "planned": self.planned,
            "arguments": [a.to_json() for a in self.arguments],
            "results": [r.to_json() for r in self.results],
            "buffers": [b.to_json() for b in self.buffers],
            "buckets": list(self.buckets),
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> FunctionSizes:
        """Rebuilds from `to_json` output."""
        return cls(
            name=data["name"],
            arguments=tuple(ArgumentSizes.from_json(a) for a in data["arguments"]),
            results=tuple(ResultSizes.from_json(r) for r in data["results"]),
            planned=data["planned"],
            buffers=tuple(BufferSizes.from_json(b) for b in data["buffers"]),
            buckets=tuple(data["buckets"]),
        )


def _sizing_positions(type_: ir.Type) -> tuple[int | None, ...]:
    """The parts of an argument whose integer value may size a tensor: the
    whole of a scalar or 0-d tensor (None), each element of a short 1-D one."""
    if isinstance(type_, (ir.IndexType, ir.IntegerType)):
        return (None,)
    if not isinstance(type_, ir.RankedTensorType) or \
            not isinstance(type_.element_type, (ir.IndexType, ir.IntegerType)):
        return ()
    if type_.rank == 0:
        return (None,)
    if type_.rank == 1 and 0 <= type_.shape[0] <= MAX_ELEMENTS:
        return tuple(range(type_.shape[0]))
    return ()


def _first_mention(state: InferenceState, symbol: str) -> ir.Operation | None:
    """The first inferred op with a result whose facts mention ``symbol``."""
    for op, results in state.inferred_ops:
        for value in results:
            facts = state.facts_of(value)
            extents = [*(facts.shape or ()), *([facts.value] if facts.value else [])]
            if any(symbol in state.resolve(e).free_symbols for e in extents):
                return op
    return None


def _capture_function(func: ir.Operation, state: InferenceState, planned: bool) -> FunctionSizes:
    name = ir.StringAttr(func.attributes["sym_name"]).value
    summary = infer_function(func, state)
    assert summary is not None and summary.arguments is not None
    arguments: list[ArgumentSizes] = []
    allowed: set[str] = set()
    for arg in summary.arguments:
        # Only symbols still free (not unified with an axis) are bound here.
        scalars = tuple(sorted(
            ((symbol, role, position)
             for position in _sizing_positions(arg.type)
             for symbol, role in state.value_symbols(arg, position).items()
             if symbol not in state.substitution),
            key=lambda s: (-1 if s[2] is None else s[2], s[0])))
        allowed |= {symbol for symbol, _, _ in scalars}
        shape = state.facts_of(arg).shape
        if shape is not None and isinstance(arg.type, ir.RankedTensorType):
            resolved = tuple(state.resolve(e) for e in shape)
            for extent in resolved:
                allowed |= extent.free_symbols
            arguments.append(ArgumentSizes(resolved, scalars))
        else:
            arguments.append(ArgumentSizes(None, scalars))
    body = func.regions[0].blocks[0]
    returned = list(body.operations)[-1].operation
    results: list[ResultSizes] = []
    for index, facts in enumerate(summary.results or ()):
        if facts.shape is None or not planned:
            results.append(ResultSizes(None))
            continue
        value = returned.operands[index] if index < len(returned.operands) else None
        where = _owner_location(value, func)
        sizes = []
        for axis, raw in enumerate(facts.shape):
            subject = f"result {index} axis {axis}"
            sizes.append(_size(state, raw, facts.origin(axis), allowed, name, subject, where)[0])
        found = resolve_location(where)
        results.append(ResultSizes(tuple(sizes), None if found is None else str(found)))
    buffers = _capture_buffers(func, name, state, allowed, returned) if planned else ()
    buckets = _buckets(func, name, planned)
    return FunctionSizes(name, tuple(arguments), tuple(results), planned, buffers, buckets)


def _buckets(func: ir.Operation, name: str, planned: bool) -> tuple[str, ...]:
    """The axes ``symshape.bucket`` lets calls pad (the dialect verified the names).

    Raises:
        ValueError: The function is bucketed but not planned: its results
            could not be sliced back to their true shapes.
    """
    if BUCKET_ATTR not in func.attributes:
        return ()
    if not planned:
        raise ValueError(
            f"{func.location}: @{name} declares '{BUCKET_ATTR}', so its results are sliced "
            "back to their planned shapes: it cannot be listed in unplanned=")
    return tuple(ir.StringAttr(a).value for a in ir.ArrayAttr(func.attributes[BUCKET_ATTR]))


def _size(
    state: InferenceState,
    raw: ShapeExtent,
    origin: Origin | None,
    allowed: set[str],
    function: str,
    subject: str,
    where: ir.Location,
    *,
    bound_ok: bool = False,
) -> tuple[Expr, bool]:
    """The expression of one size over ``allowed`` symbols, and whether it
    is only an upper bound (accepted where ``bound_ok``).

    Raises:
        UnplannableSizeError: The size is unknown, only bounded where that
            is not enough, or mentions a value computed inside the function.
    """
    extent = state.resolve(raw)
    if extent.expr is None or not (extent.is_exact or bound_ok):
        what = "an upper bound" if extent.is_upper_bound else "unknown"
        reason = f"its size is {what}" + (f" (from {origin.op_name})" if origin else "")
        loc = origin.location if origin is not None else where
        raise UnplannableSizeError(function, subject, reason, str(loc))
    outside = sorted(extent.free_symbols - allowed)
    if outside and bound_ok:
        # A data-dependent size with a range: the range's upper end bounds it.
        upper = _upper_end(extent.expr, allowed, state)
        if upper is not None:
            return upper, True
    if outside:
        source = _first_mention(state, outside[0])
        loc = source.location if source is not None else where
        op_name = f" by {source.name}" if source is not None else ""
        raise UnplannableSizeError(
            function,
            subject,
            f"its size {extent.expr} depends on '{outside[0]}', a value computed "
            f"inside the function{op_name}",
            str(loc),
        )
    return extent.expr, not extent.is_exact


def _upper_end(expr: Expr, allowed: set[str], state: InferenceState) -> Expr | None:
    """An upper bound of ``expr`` over ``allowed`` symbols only: the other
    symbols replaced by the upper ends of their ranges (when the provers show
    that bounds ``expr``), else ``None``.

    A minimum is at most each of its arguments, so ``min(max(0, _d0 - _d1),
    4 * batch)`` (a count clamped to a known size) is bounded by ``4 * batch``
    whatever the range of ``_d0``.
    """
    if isinstance(expr, Min):
        for arg in expr.args:
            found = _upper_end(arg, allowed, state)
            if found is not None:
                return found
        return None
    ctx = state.extents
    upper = expr
    for _ in range(8):
        outside = upper.free_symbols - allowed
        if not outside:
            break
        ends: dict[str, Expr] = {}
        for name in outside:
            limits = ctx.limits(name)
            high = limits[1] if limits is not None else ctx.range_of(name)[1]
            if high is None:
                return None
            ends[name] = high if isinstance(high, Expr) else Const(high)
        upper = upper.substitute(ends)
    if upper.free_symbols - allowed or prove_le(expr, upper, ctx) is not True:
        return None
    return upper


# Ops whose tensor result is a view of their first operand's storage.
_VIEWS = frozenset({
    "tensor.cast", "tensor.bitcast", "tensor.expand_shape", "tensor.collapse_shape",
    "tensor.reshape", "tensor.extract_slice", "symshape.reshape", "symshape.dynamic_truncate",
})
# Ops whose tensor result is written into an operand (its destination).
_DESTINATIONS = {"tensor.insert_slice": 1, "tensor.insert": 1}


def _storage(value: ir.Value) -> ir.Value:
    """The value that owns ``value``'s storage: through views, ``linalg``
    inits, insertion destinations and ``scf.for`` iteration arguments."""
    while True:
        owner = value.owner
        if not isinstance(owner, (ir.Operation, ir.OpView)):
            return value
        op = owner.operation
        index = ir.OpResult(value).result_number
        if op.name in _VIEWS:
            value = op.operands[0]
        elif op.name in _DESTINATIONS:
            value = op.operands[_DESTINATIONS[op.name]]
        elif op.name.startswith("linalg.") and len(op.results) > 0:
            value = op.operands[len(op.operands) - len(op.results) + index]
        elif op.name == "scf.for":
            value = op.operands[3 + index]
        else:
            return value


def _makes_storage(op: ir.Operation) -> bool:
    """Whether ``op``'s tensor results own new storage (see `BufferSizes`)."""
    name = op.name
    return not (name in _VIEWS or name in _DESTINATIONS or name == "arith.constant"
                or name.startswith(("linalg.", "scf.", "util.")))


def _itemsize(type_: ir.Type) -> int:
    if isinstance(type_, ir.ComplexType):
        return 2 * _itemsize(type_.element_type)
    if isinstance(type_, ir.IndexType):
        return 8
    width = type_.width if isinstance(type_, (ir.IntegerType, ir.FloatType)) else 8
    return max(1, (width + 7) // 8)


def _capture_buffers(
    func: ir.Operation,
    name: str,
    state: InferenceState,
    allowed: set[str],
    returned: ir.Operation,
) -> tuple[BufferSizes, ...]:
    """The intermediate buffers of ``func`` whose size is not a constant."""
    results = {_storage(v) for v in returned.operands}
    buffers: list[BufferSizes] = []
    for op in collect_ops(func):
        if not _makes_storage(op):
            continue
        for value in op.results:
            if not isinstance(value.type, ir.RankedTensorType) or value in results:
                continue
            type_ = ir.RankedTensorType(value.type)
            if type_.has_static_shape:
                continue
            facts = state.facts_of(value)
            if facts.shape is None:
                continue
            sizes: list[Expr] = []
            bounded = False
            for axis, raw in enumerate(facts.shape):
                subject = f"the {op.name} buffer, axis {axis}"
                expr, is_bound = _size(state, raw, facts.origin(axis), allowed, name,
                                       subject, op.location, bound_ok=True)
                sizes.append(expr)
                bounded |= is_bound
            if all(e.const_value is not None for e in sizes):
                continue
            itemsize = _itemsize(type_.element_type)
            buffers.append(BufferSizes(op.name, str(op.location), itemsize, tuple(sizes), bounded))
    return tuple(buffers)


def _owner_location(value: ir.Value | None, func: ir.Operation) -> ir.Location:
    if value is not None:
        owner = value.owner
        if isinstance(owner, (ir.Operation, ir.OpView)):
            return owner.location
    return func.location


def _is_private(func: ir.Operation) -> bool:
    if "sym_visibility" not in func.attributes:
        return False
    return bool(ir.StringAttr(func.attributes["sym_visibility"]).value == "private")


def capture_module(
    module: ir.Module | ir.Operation, unplanned: bool | Collection[str] = (),
    state: InferenceState | None = None,
) -> dict[str, FunctionSizes]:
    """Captures the sizes of every public function of a module.

    Args:
        module: The module, before ``symshape-resolve`` (it is not changed).
        unplanned: Names of functions whose results are not planned (or True
            for all): their result sizes are read after each call.
        state: The module's inference with default options (the one the
            compile pipeline then reuses); inferred here when not given.

    Returns:
        The sizes, by function name.

    Raises:
        UnplannableSizeError: A planned function has a result or buffer size
            that the host cannot compute before the call.
        ValueError: A function declaring ``symshape.bucket`` is unplanned.
        InferenceError: Shape inference fails.
    """
    operation = module.operation
    state = state or infer(operation)
    captured: dict[str, FunctionSizes] = {}
    for func in functions(operation):
        if _is_private(func):
            continue
        name = ir.StringAttr(func.attributes["sym_name"]).value
        planned = unplanned is not True and name not in (unplanned or ())
        captured[name] = _capture_function(func, state, planned)
    return captured
