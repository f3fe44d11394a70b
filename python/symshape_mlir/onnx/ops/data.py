"""Evaluating ONNX ops on data known at import time (partial data propagation).

Exporters compute shapes with small integer graphs: ``Shape -> Gather ->
Unsqueeze -> Concat -> Reshape``, and for ``t.expand(batch, -1, -1)``
``Where(Equal(shape, ConstantOfShape(Shape(shape)) * -1), ones, shape) ->
Expand``. One evaluator per op computes such graphs element by element
while importing: an element is an extent expression (``batch``,
``seq * 12``, ``-1``; booleans are ``0`` and ``1``), so the ``Reshape`` or
``Expand`` fed by it gets a symbolic target rather than a run-time tensor.

Every question an element asks is put to the extent provers: ``Equal(batch,
-1)`` is false for every binding (axes are never negative), so it folds;
``Equal(batch, 1)`` is undecided, which raises
:class:`~symshape_mlir.onnx.values.Undecided`: the node is then imported as
a run-time computation, and a consumer that needs the data at import time
names the undecided element. Integer arithmetic keeps ONNX semantics:
``Div`` truncates toward zero and ``Mod`` takes the divisor's sign, each
folded only where the signs are proven; a symbolic divisor that may be 0
(``windows = h floordiv 7 * (w floordiv 7)``) divides anyway, and the size
that reads the quotient fails the call that divides by zero at run time.

An evaluator returns ``None`` when an input is not known data (a tensor
computed at run time); the op's importer then runs.

Example:
    >>> # x: [batch, seq, 64]; Div(Mul(Shape(x)[0], Shape(x)[1]), 8)
    >>> Known.vector([Sym("batch") * Sym("seq") // 8])     # doctest: +SKIP
"""

from __future__ import annotations

import operator
import typing
from collections.abc import Callable, Sequence

import numpy as np

from symshape_mlir.extent import canon
from symshape_mlir.extent.expr import Const, Expr
from symshape_mlir.extent.prove import (
    prove_eq,
    prove_ge,
    prove_gt,
    prove_le,
    prove_lt,
    prove_ne,
    prove_nonnegative,
)
from symshape_mlir.onnx.context import NodeContext, onnx_dtype
from symshape_mlir.onnx.registry import evaluator
from symshape_mlir.onnx.values import Known, Literal, Undecided, Value, const_values

__all__ = ["data", "from_array", "known_array", "reshape_items"]

_BOOL = np.dtype(np.bool_)
_TRUE, _FALSE = Const(1), Const(0)

#: Slice bounds at or beyond this magnitude mean "to the end" (``INT64_MAX``).
HUGE = 1 << 62


def data(node: NodeContext, index: int) -> Known | None:
    """Input ``index`` as known data, or ``None`` (absent, or computed at run time)."""
    return Known.of(node.value(index)) if node.has(index) else None


def known_array(known: Known) -> np.ndarray:
    """The elements as a numpy object array of :class:`Expr` in ``known``'s shape."""
    array = np.empty(len(known.elements), dtype=object)
    array[:] = list(known.elements)
    return array.reshape(known.shape)


def from_array(array: np.ndarray | Expr, dtype: np.dtype) -> Known:
    """A :class:`Known` holding an object array of :class:`Expr` (or one, 0-d)."""
    if not isinstance(array, np.ndarray):
        scalar = np.empty((), dtype=object)
        scalar[()] = array
        array = scalar
    return Known(tuple(int(n) for n in array.shape), tuple(array.reshape(-1)), np.dtype(dtype))


def _inputs(node: NodeContext, count: int | None = None) -> list[Known] | None:
    """Every given input (or the first ``count``) as known data, else ``None``."""
    indices = range(node.input_count if count is None else count)
    known = [data(node, i) for i in indices]
    return None if any(k is None for k in known) else known  # type: ignore[return-value]


def _decided(answer: bool | None, index: tuple[int, ...], question: str) -> bool:
    if answer is None:
        raise Undecided(index, question)
    return answer


def _flag(answer: bool) -> Expr:
    return _TRUE if answer else _FALSE


def _map(
    node: NodeContext,
    inputs: Sequence[Known],
    fn: Callable[[tuple[int, ...], list[Expr]], Expr],
    dtype: np.dtype,
) -> Known:
    """``fn`` applied to each element of the inputs broadcast together (numpy rules)."""
    shapes = {k.shape for k in inputs if k.shape != ()}
    if len(shapes) <= 1:  # equal shapes and scalars: element by element, without numpy
        shape = shapes.pop() if shapes else ()
        count = len(next(k for k in inputs if k.shape == shape).elements)
        columns = [k.elements if k.shape == shape else k.elements * count for k in inputs]
        indices = list(np.ndindex(shape)) if count > 1 or shape else [()]
        items = tuple(fn(index, list(row))
                      for index, row in zip(indices, zip(*columns, strict=True), strict=True))
        return Known(shape, items, np.dtype(dtype))
    try:
        arrays = np.broadcast_arrays(*(known_array(k) for k in inputs))
    except ValueError:
        node.error(f"cannot broadcast shapes {[list(k.shape) for k in inputs]}")
    out = np.empty(arrays[0].shape, dtype=object)
    for index in np.ndindex(out.shape):
        out[index] = fn(index, [typing.cast(Expr, a[index]) for a in arrays])
    return from_array(out, dtype)


# -- arithmetic ---------------------------------------------------------------------------


def _truncated(a: Expr, b: Expr) -> Expr:
    """``a / b`` truncated toward zero for ``b > 0``, exact at every sign of ``a``.

    ``max(a, 0) floordiv b - max(-a, 0) floordiv b``: the floor of ``a / b``
    when ``a >= 0``, minus the floor of ``-a / b`` when ``a < 0``.
    """
    if prove_nonnegative(a):
        return canon.floordiv(a, b)
    positive = canon.floordiv(canon.maximum(a, 0), b)
    return canon.sub(positive, canon.floordiv(canon.maximum(canon.neg(a), 0), b))


def _divide(index: tuple[int, ...], a: Expr, b: Expr) -> Expr:
    """ONNX integer ``Div``: the quotient truncated toward zero."""
    if isinstance(a, Const) and isinstance(b, Const):
        quotient = abs(a.value) // abs(b.value)
        return Const(quotient if (a.value >= 0) == (b.value > 0) else -quotient)
    # A divisor that may be 0 at some binding divides by it there: the size
    # that reads the quotient fails that call with a division-by-zero check.
    if prove_nonnegative(b):
        return _truncated(a, b)
    if prove_le(b, 0):
        return canon.neg(_truncated(a, canon.neg(b)))
    raise Undecided(index, f"the sign of the divisor {b}")


def _remainder(index: tuple[int, ...], a: Expr, b: Expr, fmod: bool) -> Expr:
    """ONNX integer ``Mod``: the sign of the divisor, or of the dividend with ``fmod``."""
    if not fmod:
        return canon.mod(a, b)
    return canon.sub(a, canon.mul(b, _divide(index, a, b)))


def _nonzero_divisors(node: NodeContext, divisors: Known) -> None:
    """Constant zero divisors are errors; symbolic ones are checked where the result sizes
    a tensor (a run-time division-by-zero check)."""
    for index, b in zip(np.ndindex(divisors.shape), divisors.elements, strict=True):
        if isinstance(b, Const) and b.value == 0:
            node.error(f"element {list(index)} of the divisor is 0")


_ARITHMETIC: dict[str, Callable[[Expr, Expr], Expr]] = {
    "Add": canon.add,
    "Sub": canon.sub,
    "Mul": canon.mul,
    "Max": canon.maximum,
    "Min": canon.minimum,
    "Sum": canon.add,
}


@evaluator("Add", "Sub", "Mul", "Div", "Max", "Min", "Sum", since=13)
def arithmetic(node: NodeContext) -> list[Value] | None:
    inputs = _inputs(node)
    if not inputs or any(k.dtype.kind not in "iu" for k in inputs):
        return None
    op = node.node.op_type
    if op == "Div":
        _nonzero_divisors(node, inputs[1])
        return [_map(node, inputs, lambda i, e: _divide(i, e[0], e[1]), inputs[0].dtype)]
    fn = _ARITHMETIC[op]
    result = inputs[0]
    for other in inputs[1:]:
        result = _map(node, [result, other], lambda _, e: fn(e[0], e[1]), inputs[0].dtype)
    return [result]


@evaluator("Mod", since=13)
def mod(node: NodeContext) -> list[Value] | None:
    inputs = _inputs(node)
    if not inputs or inputs[0].dtype.kind not in "iu":
        return None
    _nonzero_divisors(node, inputs[1])
    fmod = bool(node.attr("fmod", 0))
    return [_map(node, inputs, lambda i, e: _remainder(i, e[0], e[1], fmod), inputs[0].dtype)]


def _abs(index: tuple[int, ...], a: Expr) -> Expr:
    if prove_nonnegative(a):
        return a
    if prove_le(a, 0):
        return canon.neg(a)
    return canon.maximum(a, canon.neg(a))


def _sign(index: tuple[int, ...], a: Expr) -> Expr:
    if prove_gt(a, 0):
        return Const(1)
    if prove_lt(a, 0):
        return Const(-1)
    if _decided(prove_eq(a, 0), index, f"the sign of {a}"):
        return Const(0)
    raise Undecided(index, f"the sign of {a}")


_UNARY: dict[str, Callable[[tuple[int, ...], Expr], Expr]] = {
    "Abs": _abs,
    "Neg": lambda _, a: canon.neg(a),
    "Sign": _sign,
}


@evaluator("Abs", "Neg", "Sign", since=13)
def unary(node: NodeContext) -> list[Value] | None:
    inputs = _inputs(node)
    if not inputs or inputs[0].dtype.kind not in "iu":
        return None
    fn = _UNARY[node.node.op_type]
    return [_map(node, inputs, lambda i, e: fn(i, e[0]), inputs[0].dtype)]


# -- comparisons and logic ----------------------------------------------------------------

_COMPARE: dict[str, tuple[Callable[[Expr, Expr], bool | None], str]] = {
    "Equal": (prove_eq, "=="),
    "Less": (prove_lt, "<"),
    "LessOrEqual": (prove_le, "<="),
    "Greater": (prove_gt, ">"),
    "GreaterOrEqual": (prove_ge, ">="),
}


@evaluator("Equal", "Less", "Greater", since=13)
@evaluator("LessOrEqual", "GreaterOrEqual", since=12)
def compare(node: NodeContext) -> list[Value] | None:
    inputs = _inputs(node)
    if not inputs:
        return None
    prove, symbol = _COMPARE[node.node.op_type]

    def element(index: tuple[int, ...], e: list[Expr]) -> Expr:
        return _flag(_decided(prove(e[0], e[1]), index, f"{e[0]} {symbol} {e[1]}"))

    return [_map(node, inputs, element, _BOOL)]


_LOGIC: dict[str, Callable[[bool, bool], bool]] = {
    "And": operator.and_,
    "Or": operator.or_,
    "Xor": operator.xor,
}


def _truth(e: Expr) -> bool:
    assert isinstance(e, Const), "known booleans are constants"
    return bool(e.value)


@evaluator("And", "Or", "Xor", since=7)
def logical(node: NodeContext) -> list[Value] | None:
    inputs = _inputs(node)
    if not inputs or any(k.dtype != _BOOL for k in inputs):
        return None
    fn = _LOGIC[node.node.op_type]
    return [_map(node, inputs, lambda _, e: _flag(fn(_truth(e[0]), _truth(e[1]))), _BOOL)]


@evaluator("Not", since=1)
def logical_not(node: NodeContext) -> list[Value] | None:
    inputs = _inputs(node)
    if not inputs or inputs[0].dtype != _BOOL:
        return None
    return [_map(node, inputs, lambda _, e: _flag(not _truth(e[0])), _BOOL)]


@evaluator("Where", since=9)
def where(node: NodeContext) -> list[Value] | None:
    inputs = _inputs(node)
    if not inputs or inputs[0].dtype != _BOOL or inputs[1].dtype != inputs[2].dtype:
        return None
    return [_map(node, inputs, lambda _, e: e[1] if _truth(e[0]) else e[2], inputs[1].dtype)]


def _cast(node: NodeContext, known: Known, to: np.dtype) -> Value | None:
    if to.kind == "b":
        def truth(index: tuple[int, ...], e: list[Expr]) -> Expr:
            return _flag(_decided(prove_ne(e[0], 0), index, f"{e[0]} != 0"))

        return _map(node, [known], truth, _BOOL)
    if to.kind in "iu":
        return Known(known.shape, known.elements, to)
    const = known.constant
    return Literal(const.astype(to)) if const is not None else None


def _cast_input(node: NodeContext, to: np.dtype) -> list[Value] | None:
    """Input 0 cast to ``to``: known data element by element, or a constant
    (a float constant cast to an integer, as the newer exporter writes
    ``arange(n)``'s start and step: ``CastLike(0.0, n)``)."""
    known = data(node, 0)
    if known is not None:
        result = _cast(node, known, to)
        return None if result is None else [result]
    value = node.value(0)
    if isinstance(value, Literal) and value.array.dtype.kind == "f" and to.kind in "iub":
        with np.errstate(invalid="ignore"):
            return [Literal(value.array.astype(to))]
    return None


@evaluator("Cast", since=13)
def cast(node: NodeContext) -> list[Value] | None:
    dtype = onnx_dtype(node.attr("to"))
    return None if dtype is None else _cast_input(node, dtype.numpy)


@evaluator("CastLike", since=15)
def cast_like(node: NodeContext) -> list[Value] | None:
    return _cast_input(node, node.dtype(1).numpy)


# -- shapes and data movement -------------------------------------------------------------


@evaluator("Identity", since=13)
def identity(node: NodeContext) -> list[Value] | None:
    known = data(node, 0)
    return None if known is None else [known]


def reshape_items(node: NodeContext, dims: Sequence[Expr], target: Known) -> list[int | Expr]:
    """``Reshape``'s target: ``0`` copies the input's extent (unless ``allowzero``), ``-1``
    is inferred."""
    allowzero = bool(node.attr("allowzero", 0))
    items: list[int | Expr] = []
    for i, e in enumerate(target.elements):
        if isinstance(e, Const) and e.value == 0 and not allowzero:
            if i >= len(dims):
                node.error(f"shape element {i} is 0 (copy) but the input has rank {len(dims)}")
            items.append(dims[i])
        elif isinstance(e, Const) and e.value < 0:
            if e.value != -1:
                node.error(f"shape element {i} is {e.value}")
            items.append(-1)
        else:
            items.append(e.value if isinstance(e, Const) else e)
    if allowzero and -1 in items and any(isinstance(i, int) and i == 0 for i in items):
        node.error("with allowzero=1 the shape cannot hold both 0 and -1")
    return items


def _static_dims(known: Known) -> list[Expr]:
    return [Const(n) for n in known.shape]


@evaluator("Reshape", since=13)
def reshape(node: NodeContext) -> list[Value] | None:
    known, target = data(node, 0), data(node, 1)
    if known is None or target is None:
        return None
    items = reshape_items(node, _static_dims(known), target)
    sizes = const_values(Const(i) if isinstance(i, int) else i for i in items)
    if sizes is None:
        return None
    count = len(known.elements)
    if -1 in sizes:
        rest = int(np.prod([s for s in sizes if s != -1]))
        sizes[sizes.index(-1)] = count // rest if rest else 0
    if int(np.prod(sizes)) != count:
        node.error(f"cannot reshape {count} elements to {sizes}")
    return [Known(tuple(sizes), known.elements, known.dtype)]


@evaluator("Flatten", since=13)
def flatten(node: NodeContext) -> list[Value] | None:
    known = data(node, 0)
    if known is None:
        return None
    rank = len(known.shape)
    axis = node.attr("axis", 1)
    if not -rank <= axis <= rank:
        node.error(f"axis {axis} is out of range for rank {rank}")
    axis = axis + rank if axis < 0 else axis
    shape = (int(np.prod(known.shape[:axis])), int(np.prod(known.shape[axis:])))
    return [Known(shape, known.elements, known.dtype)]


def axes_operand(node: NodeContext, rank: int, index: int = 1) -> list[int] | None:
    """The ``axes`` attribute or input, normalized (``None`` when absent)."""
    if node.has_attr("axes"):
        axes = list(node.attr("axes"))
    elif node.has(index):
        axes = node.ints(index, "axes")
    else:
        return None
    normalized = [node.axis(a, rank, "axis") for a in axes]
    if len(set(normalized)) != len(normalized):
        node.error(f"axes {axes} repeat")
    return normalized


@evaluator("Squeeze", since=13)
def squeeze(node: NodeContext) -> list[Value] | None:
    known = data(node, 0)
    if known is None:
        return None
    axes = axes_operand(node, len(known.shape))
    if axes is None:
        axes = [a for a, n in enumerate(known.shape) if n == 1]
    for a in axes:
        if known.shape[a] != 1:
            node.error(f"axis {a} has extent {known.shape[a]}, not 1")
    kept = tuple(n for a, n in enumerate(known.shape) if a not in axes)
    return [Known(kept, known.elements, known.dtype)]


@evaluator("Unsqueeze", since=13)
def unsqueeze(node: NodeContext) -> list[Value] | None:
    known = data(node, 0)
    if known is None:
        return None
    axes = axes_operand(node, len(known.shape) + len(node.ints(1, "axes")))
    assert axes is not None
    shape = list(known.shape)
    for a in sorted(axes):
        shape.insert(a, 1)
    return [Known(tuple(shape), known.elements, known.dtype)]


@evaluator("Transpose", since=13)
def transpose(node: NodeContext) -> list[Value] | None:
    known = data(node, 0)
    if known is None:
        return None
    rank = len(known.shape)
    perm = node.attr("perm", list(reversed(range(rank))))
    if sorted(perm) != list(range(rank)):
        node.error(f"perm {perm} is not a permutation of {rank} axes")
    return [from_array(np.transpose(known_array(known), perm), known.dtype)]


@evaluator("Concat", since=13)
def concat(node: NodeContext) -> list[Value] | None:
    inputs = _inputs(node)
    if not inputs:
        return None
    if all(len(k.shape) == 1 for k in inputs):  # shape vectors, the common case
        node.axis(node.attr("axis"), 1)
        return [Known.vector([e for k in inputs for e in k.elements], inputs[0].dtype)]
    arrays = [known_array(k) for k in inputs]
    if len({a.ndim for a in arrays}) != 1:
        node.error("inputs have different ranks")
    axis = node.axis(node.attr("axis"), arrays[0].ndim)
    try:
        joined = np.concatenate(arrays, axis=axis)
    except ValueError as err:
        node.error(str(err))
    return [from_array(joined, inputs[0].dtype)]


@evaluator("Gather", since=13)
def gather(node: NodeContext) -> list[Value] | None:
    known, indices = data(node, 0), data(node, 1)
    if known is None or indices is None:
        return None
    axis = node.axis(node.attr("axis", 0), len(known.shape))
    extent = known.shape[axis]
    pick = indices.elements[0] if indices.shape == () else None
    if len(known.shape) == 1 and isinstance(pick, Const):  # one element of a shape vector
        if not -extent <= pick.value < extent:
            node.error(f"indices {pick.value} are out of range for extent {extent}")
        return [Known((), (known.elements[pick.value],), known.dtype)]
    picks = indices.constant
    if picks is None:
        return None
    if np.any((picks < -extent) | (picks >= extent)):
        node.error(f"indices {picks.tolist()} are out of range for extent {extent}")
    return [from_array(np.take(known_array(known), picks, axis=axis), known.dtype)]


@evaluator("Slice", since=13)
def slice_(node: NodeContext) -> list[Value] | None:
    known = data(node, 0)
    bounds = [data(node, i) for i in (1, 2)]
    if known is None or bounds[0] is None or bounds[1] is None:
        return None
    lows, highs = bounds[0].constant, bounds[1].constant
    if lows is None or highs is None:
        return None
    array = known_array(known)
    axes = axes_operand(node, array.ndim, 3) or list(range(len(lows)))
    steps = node.ints(4, "steps") if node.has(4) else [1] * len(lows)
    if not len(lows) == len(highs) == len(axes) == len(steps):
        node.error("starts, ends, axes and steps differ in length")
    key: list[slice] = [slice(None)] * array.ndim
    for a, low, high, step in zip(axes, lows.tolist(), highs.tolist(), steps, strict=True):
        if step == 0:
            node.error("a step is 0")
        key[a] = slice(max(min(low, HUGE), -HUGE), max(min(high, HUGE), -HUGE), step)
    return [from_array(array[tuple(key)], known.dtype)]


@evaluator("Expand", since=13)
def expand(node: NodeContext) -> list[Value] | None:
    known, target = data(node, 0), data(node, 1)
    shape = None if target is None else target.constant
    if known is None or shape is None:
        return None
    try:
        result = np.broadcast_shapes(known.shape, tuple(int(n) for n in shape.reshape(-1)))
    except ValueError:
        node.error(f"cannot broadcast shape {list(known.shape)} to {shape.tolist()}")
    return [from_array(np.broadcast_to(known_array(known), result), known.dtype)]


@evaluator("Tile", since=13)
def tile(node: NodeContext) -> list[Value] | None:
    known, repeats = data(node, 0), data(node, 1)
    counts = None if repeats is None else repeats.constant
    if known is None or counts is None:
        return None
    if counts.size != len(known.shape) or np.any(counts < 0):
        node.error(f"repeats {counts.tolist()} must give a non-negative count per axis")
    return [from_array(np.tile(known_array(known), counts.tolist()), known.dtype)]


@evaluator("ConstantOfShape", since=9)
def constant_of_shape(node: NodeContext) -> list[Value] | None:
    target = data(node, 0)
    shape = None if target is None else target.constant
    if shape is None:
        return None
    fill = node.attr("value")
    fill = np.zeros(1, np.float32) if fill is None else np.asarray(fill).reshape(-1)
    return [Literal(np.full([int(v) for v in shape.reshape(-1)], fill[0], dtype=fill.dtype))]


@evaluator("Range", since=11)
def range_(node: NodeContext) -> list[Value] | None:
    values = [node.value(i) for i in range(3)]
    arrays = [v.array for v in values if isinstance(v, Literal) and v.array.ndim == 0]
    if len(arrays) == 3:
        if arrays[2].item() == 0:
            node.error("delta is 0")
        start, limit, delta = (a.item() for a in arrays)
        return [Literal(np.arange(start, limit, delta, dtype=arrays[0].dtype))]
    known = [Known.of(v) for v in values]
    consts = [None if k is None or k.shape != () else k.constant for k in known]
    if any(c is None for c in consts):
        return None
    start, limit, delta = (int(c) for c in consts)  # type: ignore[arg-type]
    if delta == 0:
        node.error("delta is 0")
    return [Literal(np.arange(start, limit, delta, dtype=known[0].dtype))]  # type: ignore[union-attr]


_REDUCE: dict[str, Callable[..., Expr]] = {
    "ReduceSum": canon.add,
    "ReduceProd": canon.mul,
    "ReduceMax": canon.maximum,
    "ReduceMin": canon.minimum,
}


@evaluator("ReduceSum", "ReduceProd", "ReduceMax", "ReduceMin", since=13)
def reduce(node: NodeContext) -> list[Value] | None:
    known = data(node, 0)
    if known is None or known.dtype.kind not in "iu":
        return None
    if node.has(1) and not node.has_attr("axes"):
        axes_data = data(node, 1)
        if axes_data is None or axes_data.constant is None:
            return None
    array = known_array(known)
    axes = axes_operand(node, array.ndim)
    if not axes:
        if node.attr("noop_with_empty_axes", 0):
            return [known]
        axes = list(range(array.ndim))
    fn = _REDUCE[node.node.op_type]
    keepdims = bool(node.attr("keepdims", 1))
    moved = np.moveaxis(array, axes, list(range(array.ndim - len(axes), array.ndim)))
    kept = moved.shape[: array.ndim - len(axes)]
    flat = moved.reshape((*kept, -1))
    if flat.shape[-1] == 0 and fn not in (canon.add, canon.mul):
        node.error("reducing an empty axis has no maximum or minimum")
    out = np.empty(kept, dtype=object)
    for index in np.ndindex(kept):
        items = list(flat[index])
        out[index] = fn(*items) if items else Const(0 if fn is canon.add else 1)
    if keepdims:
        out = out.reshape([1 if a in axes else n for a, n in enumerate(array.shape)])
    return [from_array(out, known.dtype)]


@evaluator("ScatterND", since=13)
def scatter_nd(node: NodeContext) -> list[Value] | None:
    inputs = _inputs(node, 3)
    if inputs is None or node.attr("reduction", "none") != "none":
        return None
    known, indices, updates = inputs
    picks = indices.constant
    if picks is None:
        return None
    array = known_array(known).copy()
    depth = picks.shape[-1]
    rows = picks.reshape(-1, depth)
    values = known_array(updates).reshape((rows.shape[0], *array.shape[depth:]))
    for row, value in zip(rows, values, strict=True):
        if np.any((row < -np.array(array.shape[:depth])) | (row >= np.array(array.shape[:depth]))):
            node.error(f"index {row.tolist()} is out of range for shape {list(array.shape)}")
        array[tuple(row)] = value
    return [from_array(array, known.dtype)]
