"""The function being traced: SSA names, emitted MLIR lines, extent sources.

A :class:`FunctionTrace` collects the body of one ``func.func`` as MLIR text
while the user's Python function runs on traced tensors. It knows, for every
extent met so far, a tensor axis that carries it at run time (to size
``tensor.empty`` ops and to write fresh symbols as op-local ``dim(i, a)``
leaves), and where each upper bound came from (for contract errors).

Example:
    >>> from symshape_mlir.frontend import Tensor, f32, trace
    >>> traced = trace(lambda x: x * 2.0, Tensor["batch", 64, f32])
    >>> [str(s) for s in traced.result_shapes]
    ['[batch, 64]']
"""

from __future__ import annotations

import contextlib
import contextvars
import itertools
import logging
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from symshape_mlir.extent.expr import (
    CeilDiv,
    Const,
    Expr,
    FloorDiv,
    InputAxis,
    Max,
    Min,
    Mod,
    Prod,
    Sum,
    Sym,
)
from symshape_mlir.extent.guarantee import Exact, ShapeExtent
from symshape_mlir.frontend.dtypes import DType, i64
from symshape_mlir.frontend.errors import ContractError, FrontendError
from symshape_mlir.frontend.source import SourceLocation, user_location

if TYPE_CHECKING:
    import numpy as np

    from symshape_mlir.frontend.tensor import Tensor

__all__ = ["BoundOrigin", "FunctionTrace", "current_trace", "tensor_type", "tracing"]

logger = logging.getLogger(__name__)


def tensor_type(dims: Iterable[ShapeExtent], dtype: DType, abi: bool = False) -> str:
    """The MLIR ranked tensor type of a shape: constant exact extents are static.

    With ``abi``, the element type a function argument or result has
    (``ui8`` for ``u8``; signless inside the function).
    """
    parts = [str(d.expr.value) if d.is_exact and isinstance(d.expr, Const) else "?" for d in dims]
    return f"tensor<{'x'.join([*parts, dtype.abi if abi else dtype.mlir])}>"


@dataclass(frozen=True)
class BoundOrigin:
    """Where an upper-bound extent was introduced."""

    op: str
    location: SourceLocation
    detail: str

    def __str__(self) -> str:
        return f"{self.op} at {self.location}: {self.detail}"


@dataclass
class FunctionTrace:
    """The state of one traced ``func.func``.

    Attributes:
        name: the function's symbol name.
        lines: the body, one op per line (regions span several lines).
        arguments: ``(ssa name, type, attribute text)`` per argument.
    """

    name: str
    lines: list[str] = field(default_factory=list)
    arguments: list[tuple[str, str, str]] = field(default_factory=list)
    _counter: itertools.count[int] = field(default_factory=itertools.count)
    _fresh: itertools.count[int] = field(default_factory=itertools.count)
    _dims: dict[tuple[str, int], str] = field(default_factory=dict)
    _sources: dict[Expr, tuple[Tensor, int]] = field(default_factory=dict)
    _index_consts: dict[int, str] = field(default_factory=dict)
    bounds: list[tuple[ShapeExtent, BoundOrigin]] = field(default_factory=list)
    named_axes: set[str] = field(default_factory=set)
    #: Blobs of large constants (``dense_resource<name>``), by resource name.
    resources: dict[str, np.ndarray] = field(default_factory=dict)
    #: Under ``contract="defer"`` an upper bound used as a true size is left
    #: to the run-time check the compiled module makes, not a trace error.
    defer: bool = False
    #: The function's own location (its ``def`` line).
    location: SourceLocation | None = None
    #: The integer value read from a 0-d tensor (or an element of a 1-D
    #: argument) as a size, by what it reads: ``plus - minus`` of fresh
    #: symbols, as inference has it (see :meth:`signed_value`).
    _signed: dict[object, tuple[Sym, Sym]] = field(default_factory=dict)
    #: Per ``symshape.runtime_scalar`` emitted, in order, the ``(plus, minus)``
    #: symbol names of the value it reads.
    scalar_reads: list[tuple[str, str]] = field(default_factory=list)
    #: 0-d tensors that are one element of a 1-D tensor: value -> (source, position).
    _elements: dict[str, tuple[str, int]] = field(default_factory=dict)
    #: Called with every tensor made in this function while set (the
    #: differentiation tape watches which op made each value).
    observer: Callable[[Tensor], None] | None = None

    # -- names and lines ---------------------------------------------------------------

    def ssa(self, prefix: str = "v") -> str:
        """A new SSA value name."""
        return f"%{prefix}{next(self._counter)}"

    def fresh_symbol(self) -> Sym:
        """A trace-local fresh symbol (``_dN``) for an unnamed exact extent."""
        return Sym(f"_d{next(self._fresh)}")

    def emit(self, text: str, where: SourceLocation | None = None) -> None:
        """Appends an op (its full text, results included) located at ``where``."""
        where = where or user_location()
        self.lines.append(f"{text} {where.mlir}")

    def check(self, condition: str, message: str, where: SourceLocation) -> None:
        """Emits a run-time check: the call fails with ``message`` unless the
        ``i1`` value ``condition`` holds (``cf.assert``)."""
        text = f"{message} at {where}".replace("\\", "\\\\").replace('"', '\\"')
        self.emit(f'cf.assert {condition}, "{text}"', where)

    # -- extents -------------------------------------------------------------------------

    def signed_value(self, key: object) -> tuple[Sym, Sym]:
        """The integer read at ``key`` (a tensor value, or a tensor value and a
        position), of unknown sign: ``plus - minus`` of the two fresh symbols
        returned, the same pair for the same key (inference reads it the
        same way)."""
        known = self._signed.get(key)
        if known is None:
            known = self._signed[key] = (self.fresh_symbol(), self.fresh_symbol())
        return known

    def note_element(self, element: Tensor, source: Tensor, position: int) -> None:
        """Records that the 0-d ``element`` is ``source[position]`` (a constant index)."""
        self._elements[element.value] = (source.value, position)

    def element_of(self, tensor: Tensor) -> tuple[str, int] | None:
        """The 1-D tensor (its SSA name) and position ``tensor`` was read from, if known."""
        return self._elements.get(tensor.value)

    def argument_index(self, value: str) -> int | None:
        """The position of the argument whose SSA name is ``value``, if it is one."""
        for index, (name, _, _) in enumerate(self.arguments):
            if name == value:
                return index
        return None

    def register(self, tensor: Tensor) -> None:
        """Records ``tensor``'s axes as run-time sources of their exact extents
        (and shows it to the :attr:`observer`)."""
        if self.observer is not None:
            self.observer(tensor)
        for axis, extent in enumerate(tensor.shape):
            if isinstance(extent, Exact) and not isinstance(extent.expr, Const):
                self._sources.setdefault(extent.expr, (tensor, axis))

    def source_of(self, expr: Expr) -> tuple[Tensor, int] | None:
        """A tensor axis whose run-time size is ``expr``, if one was traced."""
        return self._sources.get(expr)

    def index_const(self, value: int, where: SourceLocation | None = None) -> str:
        """An ``index`` constant (one per value per function)."""
        name = self._index_consts.get(value)
        if name is None:
            name = self._index_consts[value] = self.ssa("c")
            self.emit(f"{name} = arith.constant {value} : index", where)
        return name

    def dim_index(self, tensor: Tensor, axis: int, where: SourceLocation | None = None) -> str:
        """The run-time size of ``tensor``'s axis as an ``index`` value."""
        key = (tensor.value, axis)
        name = self._dims.get(key)
        if name is None:
            extent = self.ssa("e")
            name = self.ssa("n")
            self.emit(f"{extent} = symshape.dim {tensor.value}, {axis} : {tensor.mlir_type}", where)
            self.emit(f"{name} = symshape.to_index {extent}", where)
            self._dims[key] = name
        return name

    def dynamic_sizes(
        self,
        dims: Sequence[ShapeExtent],
        sources: Sequence[tuple[Tensor, int] | None],
        where: SourceLocation | None = None,
    ) -> list[str]:
        """``index`` values of the non-constant extents of ``dims``.

        Args:
            dims: the extents of a tensor to create.
            sources: per extent, a tensor axis with that run-time size (or
                ``None``: look it up among traced tensors, or build it).
        """
        values: list[str] = []
        for extent, source in zip(dims, sources, strict=True):
            if extent.is_exact and isinstance(extent.expr, Const):
                continue
            if source is None and isinstance(extent, Exact):
                source = self.source_of(extent.expr)
            if source is not None:
                values.append(self.dim_index(source[0], source[1], where))
            else:
                values.append(self.materialize(extent, where))
        return values

    def materialize(self, extent: ShapeExtent, where: SourceLocation | None = None) -> str:
        """Builds an ``index`` value for an exact extent not carried by any tensor.

        Leaves are traced tensor axes (``symshape.dim``), combined with
        ``arith`` ops on ``index`` values.
        """
        if not extent.is_exact:
            raise FrontendError(f"cannot size a tensor by the bound {extent}")
        expr = extent.expr
        assert expr is not None
        if isinstance(expr, Const):
            return self.index_const(expr.value, where)
        source = self.source_of(expr)
        if source is not None:
            return self.dim_index(source[0], source[1], where)
        if isinstance(expr, Sum):
            result: str | None = None
            for term, coef in expr.terms:
                value = self.materialize(Exact(term), where)
                if abs(coef) != 1:
                    scale = self.index_const(abs(coef), where)
                    value = self._arith("arith.muli", value, scale, where)
                if result is None and coef < 0:
                    result = self._arith("arith.subi", self.index_const(0, where), value, where)
                elif result is None:
                    result = value
                else:
                    op = "arith.addi" if coef > 0 else "arith.subi"
                    result = self._arith(op, result, value, where)
            assert result is not None
            if expr.const:
                op = "arith.addi" if expr.const > 0 else "arith.subi"
                result = self._arith(op, result, self.index_const(abs(expr.const), where), where)
            return result
        if isinstance(expr, Prod):
            factors = [
                self.materialize(Exact(f), where) for f, power in expr.factors for _ in range(power)
            ]
            result = factors[0]
            for value in factors[1:]:
                result = self._arith("arith.muli", result, value, where)
            return result
        ops = {
            FloorDiv: "arith.floordivsi",
            CeilDiv: "arith.ceildivsi",
            Mod: "arith.remsi",
            Min: "arith.minsi",
            Max: "arith.maxsi",
        }
        op_name = ops.get(type(expr))
        if op_name is not None:
            children = [self.materialize(Exact(c), where) for c in expr.children]
            result = children[0]
            for value in children[1:]:
                result = self._arith(op_name, result, value, where)
            return result
        raise FrontendError(
            f"at {where or user_location()}: no traced tensor has the size {extent}, and it is not "
            "computed from sizes that tensors have")

    def _arith(self, op: str, a: str, b: str, where: SourceLocation | None) -> str:
        name = self.ssa("i")
        self.emit(f"{name} = {op} {a}, {b} : index", where)
        return name

    def payload(
        self, dims: Sequence[ShapeExtent], first_operand: int, reuse: Sequence[Tensor] = (),
        *, op: str = "", where: SourceLocation | None = None,
    ) -> tuple[str, list[Tensor]]:
        """Op-local target text for exact extents, and the shape operands it needs.

        Named symbols are written as they are; a subexpression over fresh
        (trace-local) symbols is ``dim(i, a)`` of a traced tensor axis of
        that extent when there is one (a slice by a run-time integer), and
        each fresh symbol left is ``dim(i, a)`` of one carrying it: an axis
        of one of the op's own operands ``reuse`` (numbered from 0) when it
        does, else of a shape operand appended, numbered from
        ``first_operand``.

        Args:
            op, where: the op and its location, for messages.

        Raises:
            FrontendError: a fresh symbol no traced tensor axis carries.
        """
        operands: list[Tensor] = []

        def operand_axis(tensor: Tensor, axis: int, extent: Expr) -> InputAxis:
            for index, own in enumerate(reuse):
                axes = [a for a, e in enumerate(own.shape) if e == Exact(extent)]
                if axes:
                    return InputAxis(index, axes[0])
            # By identity: `==` on traced tensors compares their elements.
            position = next((i for i, t in enumerate(operands) if t is tensor), None)
            if position is None:
                position = len(operands)
                operands.append(tensor)
            return InputAxis(first_operand + position, axis)

        texts: list[str] = []
        for extent in dims:
            expr = extent.expr
            assert expr is not None and extent.is_exact
            # Subexpressions over fresh symbols that traced axes have (the axis
            # of a slice by a run-time integer) are read from those axes.
            carried: dict[Expr, Expr] = {}
            for node in _nodes(expr):
                source = self.source_of(node) if not isinstance(node, Sym) and any(
                    n not in self.named_axes for n in node.free_symbols) else None
                if source is not None:
                    carried[node] = operand_axis(source[0], source[1], node)
            if carried:
                expr = expr.replace(carried)
            fresh = sorted(n for n in expr.free_symbols if n not in self.named_axes)
            mapping: dict[str, Expr] = {}
            for name in fresh:
                source = self.source_of(Sym(name))
                if source is None:
                    raise FrontendError(
                        f"{op} at {where or user_location()}: the target extent {extent} reads "
                        f"{name}, a value no traced axis has (a run-time integer combined "
                        "with sizes); slice or size a tensor by it first")
                mapping[name] = operand_axis(source[0], source[1], Sym(name))
            texts.append(str(expr.substitute(mapping) if mapping else expr))
        return f"[{', '.join(texts)}]", operands

    # -- upper bounds ----------------------------------------------------------------------

    def note_bound(self, extent: ShapeExtent, origin: BoundOrigin) -> None:
        """Records where an upper-bound extent was introduced."""
        self.bounds.append((extent, origin))

    def origin_of(self, extent: ShapeExtent) -> str:
        """Where an upper bound (or one it was computed from) came from, in words."""
        for known, origin in reversed(self.bounds):
            if known == extent:
                return str(origin)
        symbols = extent.free_symbols
        for known, origin in reversed(self.bounds):
            if known.free_symbols & symbols:
                return str(origin)
        return "an upper bound of unknown origin"

    def require_exact(
        self,
        op: str,
        what: str,
        dims: Sequence[ShapeExtent],
        where: SourceLocation,
        why: str = "",
    ) -> None:
        """Raises :class:`ContractError` at the first extent of ``dims`` that is not exact.

        The message reads ``<op> at <line>: <what> <index> is <extent>, only
        an upper bound<why>; <op> needs an exact extent (the bound comes from
        <origin>)``.
        """
        for index, extent in enumerate(dims):
            if extent.is_exact or self.defer:
                continue
            origin = self.origin_of(extent)
            raise ContractError(
                f"{op} at {where}: {what} {index} is {extent}, only an upper bound{why}; "
                f"{op} needs an exact extent (the bound comes from {origin})",
                op,
                origin,
                f"{what} {index}",
                extent,
            )


def _nodes(expr: Expr) -> list[Expr]:
    """The subexpressions of ``expr``, outermost first (each once)."""
    seen: dict[Expr, None] = {}
    stack = [expr]
    while stack:
        node = stack.pop()
        if node not in seen:
            seen[node] = None
            stack.extend(node.children)
    return list(seen)


_CURRENT: contextvars.ContextVar[FunctionTrace | None] = contextvars.ContextVar(
    "symshape_current_trace", default=None)


@contextlib.contextmanager
def tracing(trace: FunctionTrace) -> Iterator[None]:
    """Makes ``trace`` the function ops without a tensor operand emit into
    (``arange(3)``, ``zeros((2, 2))``) while the block runs."""
    token = _CURRENT.set(trace)
    try:
        yield
    finally:
        _CURRENT.reset(token)


def current_trace(op: str, where: SourceLocation) -> FunctionTrace:
    """The function being traced, for an op without tensor operands.

    Raises:
        FrontendError: called outside a traced function.
    """
    trace = _CURRENT.get()
    if trace is None:
        raise FrontendError(
            f"{op} at {where}: called outside a traced function (use it inside a function "
            "given to jit or trace)")
    return trace


def scalar_type(dtype: DType = i64) -> str:
    """The MLIR type of a 0-d tensor of ``dtype``."""
    return f"tensor<{dtype.mlir}>"
