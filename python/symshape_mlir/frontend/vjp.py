"""Differentiable primitives: the ops reverse-mode AD records, and their VJP rules.

Every frontend op is a *primitive* (:func:`primitive`) or a composition of
primitives. While a function is differentiated
(:func:`symshape_mlir.frontend.autodiff.vjp`), a :class:`Tape` records each
call of a primitive that reads a value depending on a differentiated input,
as a :class:`Node`: the primitive's name, its bound arguments, its outputs,
the user's source line and the values the op :func:`save`\\ d for its rule.
Ops a primitive calls inside it are not recorded (its own rule
differentiates it); a composite op (``getitem``, ``conv``) is no primitive,
so the primitives it calls are recorded instead.

A VJP rule (:func:`vjp_rule`), registered beside its op in one registry,
takes the node and the cotangent of the output and returns the cotangents
of the inputs by parameter name. Rules build them with the frontend's ops,
so with the same shape rules (:mod:`symshape_mlir.shapes`) the forward ops
use; they never guess an extent. A rule that needs an exact extent and finds
an upper bound or an unknown one raises the one AD error,
:class:`ADError`, naming the primitive, the user's line, the field and what
it saw.

Soundness: a cotangent that reaches an op without a rule raises
:class:`ADError` rather than being dropped, and so does one reaching a
floating-point value made outside any primitive while recording (an emitter
no rule covers), so no gradient is silently wrong.

Example:
    >>> @primitive("exp")
    ... def exp(x): ...
    >>> @vjp_rule("exp")
    ... def _exp_vjp(node: Node, ct: Tensor) -> Cotangents:
    ...     return {"x": ct * node.out}
"""

from __future__ import annotations

import contextlib
import contextvars
import functools
import inspect
import logging
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar, cast

from symshape_mlir.extent.expr import Const
from symshape_mlir.extent.guarantee import Exact, ShapeExtent, UpperBound
from symshape_mlir.frontend.errors import FrontendError
from symshape_mlir.frontend.source import SourceLocation, user_location
from symshape_mlir.frontend.tensor import Tensor
from symshape_mlir.frontend.tracer import FunctionTrace
from symshape_mlir.registry import add_unique

__all__ = [
    "COMPOSITES",
    "PRIMITIVES",
    "RULES",
    "ADError",
    "Cotangents",
    "Node",
    "Rule",
    "Tape",
    "composite",
    "observed",
    "primitive",
    "recording",
    "require_exact",
    "save",
    "tensors_in",
    "vjp_rule",
    "zero_rule",
]

logger = logging.getLogger(__name__)

F = TypeVar("F", bound=Callable[..., Any])

#: What a rule returns: per parameter name, the cotangent of the tensor it
#: holds (``None``: none), or one per tensor of a sequence argument.
Cotangents = Mapping[str, "Tensor | Sequence[Tensor | None] | None"]
Rule = Callable[["Node", Any], Cotangents]

#: Every VJP rule, by primitive name.
RULES: dict[str, Rule] = {}
#: Every primitive, by name: the qualified name of its function.
PRIMITIVES: dict[str, str] = {}
#: Public ops that are compositions of primitives, by name.
COMPOSITES: dict[str, str] = {}


class ADError(FrontendError):
    """Differentiation cannot proceed: the one structured AD error.

    Attributes:
        primitive: the op (``"reshape"``), or the transformation (``"grad"``)
            for misuse of the API.
        location: the user's source line of the op (or of the function).
        field: the metadata field that needed an exact (or static) extent,
            when that is the reason.
        guarantee: what that field held: ``"symbolic"``, ``"upper bound"``
            or ``"unknown"``.
    """

    def __init__(self, message: str, *, primitive: str, location: SourceLocation | None,
                 field: str | None = None, guarantee: str | None = None) -> None:
        super().__init__(message)
        self.primitive = primitive
        self.location = location
        self.field = field
        self.guarantee = guarantee


def observed(extent: ShapeExtent) -> str:
    """What an extent guarantees, as AD errors name it: ``"static"``,
    ``"symbolic"`` (exact, not a constant), ``"upper bound"`` or ``"unknown"``."""
    if isinstance(extent, Exact):
        return "static" if isinstance(extent.expr, Const) else "symbolic"
    return "upper bound" if isinstance(extent, UpperBound) else "unknown"


@dataclass(eq=False)
class Node:
    """One recorded call of a primitive.

    Attributes:
        name: the primitive (the key of its rule).
        label: the op as the user knows it, for messages (``elementwise``'s
            op name; otherwise ``name``).
        args: the call's arguments by parameter name (defaults applied).
        outputs: the tensors it returned.
        where: the user's source line of the call.
        saved: values the op saved for its rule (:func:`save`).
        trace: the function being traced.
    """

    name: str
    label: str
    args: dict[str, Any]
    outputs: tuple[Tensor, ...]
    where: SourceLocation
    saved: dict[str, Any]
    trace: FunctionTrace
    _active: frozenset[int] = field(default=frozenset(), repr=False)

    @property
    def out(self) -> Tensor:
        """The (first) output."""
        return self.outputs[0]

    def needs(self, param: str) -> bool:
        """Whether argument ``param`` holds a tensor that needs a cotangent."""
        return any(id(t) in self._active for t in tensors_in(self.args.get(param)))

    def wants(self, tensor: Any) -> bool:
        """Whether ``tensor`` (an input of the node) needs a cotangent."""
        return isinstance(tensor, Tensor) and id(tensor) in self._active

    def describe(self) -> str:
        """``<label> at <line>`` for messages."""
        return f"{self.label} at {self.where}"


def require_exact(node: Node, what: str, extents: Sequence[ShapeExtent]) -> None:
    """Raises :class:`ADError` at the first of ``extents`` that is not exact.

    Args:
        node: the op whose rule needs them.
        what: the field, counted per extent (``"input extent"`` names
            ``input extent 1``).
    """
    for index, extent in enumerate(extents):
        if extent.is_exact or node.trace.defer:
            continue
        kind = observed(extent)
        origin = f" (the bound comes from {node.trace.origin_of(extent)})" \
            if kind == "upper bound" else ""
        field_name = f"{what} {index}"
        raise ADError(
            f"{node.describe()}: its VJP needs an exact {field_name}, but it is {extent}, "
            f"{'an' if kind == 'unknown' else 'only an'} {kind}{origin}; a gradient cannot "
            "be built from it", primitive=node.label, location=node.where, field=field_name,
            guarantee=kind)


def tensors_in(value: Any) -> Iterator[Tensor]:
    """The tensors of an argument or result: itself, or those of a list or tuple."""
    if isinstance(value, Tensor):
        yield value
    elif isinstance(value, list | tuple):
        for item in value:
            yield from tensors_in(item)


_MADE_BY = re.compile(r"^\s*(%[\w.$-]+)(?:, %[\w.$-]+)* = ([\w.]+)")


class Tape:
    """What one differentiated function computed, in order.

    Attributes:
        trace: the function being traced.
        nodes: the recorded calls, in order.
    """

    def __init__(self, trace: FunctionTrace) -> None:
        self.trace = trace
        self.nodes: list[Node] = []
        self._producers: dict[int, Node] = {}
        self._watched: dict[int, Tensor] = {}
        # Every tensor seen stays referenced, so no id is reused.
        self._seen: list[Tensor] = []
        self._depth = 0
        self._frames: list[dict[str, Any]] = []
        self._fresh: set[int] = set()

    def watch(self, tensor: Tensor) -> None:
        """Marks ``tensor`` as a differentiated input."""
        self._seen.append(tensor)
        self._watched[id(tensor)] = tensor

    def is_active(self, tensor: Tensor) -> bool:
        """Whether ``tensor`` depends on a differentiated input (as far as recorded)."""
        return id(tensor) in self._watched or id(tensor) in self._producers

    def producer(self, tensor: Tensor) -> Node | None:
        """The node that made ``tensor``, if it is active and not an input."""
        return self._producers.get(id(tensor))

    def observe(self, tensor: Tensor) -> None:
        """Sees a tensor being made: inside a primitive, or (a float) outside any."""
        self._seen.append(tensor)
        if self._depth:
            self._fresh.add(id(tensor))
        elif tensor.dtype.is_float:
            # Made by no primitive: whatever reads it gets no gradient
            # through it, so a cotangent reaching it is an error.
            where = user_location()
            node = Node("<no primitive>", self._made_by(tensor), {}, (tensor,), where, {},
                        self.trace)
            self.nodes.append(node)
            self._producers[id(tensor)] = node

    def _made_by(self, tensor: Tensor) -> str:
        """The MLIR op that defines ``tensor`` (for messages)."""
        for line in reversed(self.trace.lines):
            match = _MADE_BY.match(line)
            if match and tensor.value in line.split("=", 1)[0]:
                return match.group(2)
        return "an emitter"

    def call(self, name: str, label_from: str | None, signature: inspect.Signature,
             fn: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        """Calls the primitive ``fn``, recording it when it is not inside another one."""
        self._frames.append({})
        if self._depth:
            self._depth += 1
            try:
                return fn(*args, **kwargs)
            finally:
                self._depth -= 1
                self._frames.pop()
        where = user_location()
        self._fresh = set()
        self._depth = 1
        try:
            result = fn(*args, **kwargs)
        finally:
            self._depth = 0
            saved = self._frames.pop()
        bound = signature.bind(*args, **kwargs)
        bound.apply_defaults()
        arguments = dict(bound.arguments)
        label = str(arguments[label_from]) if label_from else name
        self._record(name, label, arguments, result, where, saved)
        return result

    def _record(self, name: str, label: str, arguments: dict[str, Any], result: Any,
                where: SourceLocation, saved: dict[str, Any]) -> None:
        active = frozenset(id(t) for t in tensors_in(list(arguments.values()))
                           if self.is_active(t))
        if not active:
            return
        outputs = tuple(tensors_in(result))
        # Values made by this call (not an input handed back) that can carry a gradient.
        made = [o for o in outputs if id(o) in self._fresh and o.dtype.is_float]
        if not made:
            return
        node = Node(name, label, arguments, outputs, where, saved, self.trace, active)
        self.nodes.append(node)
        for output in made:
            self._producers[id(output)] = node

    def save(self, values: dict[str, Any]) -> None:
        """Stores values for the rule of the primitive being called."""
        if self._frames:
            self._frames[-1].update(values)


_TAPE: contextvars.ContextVar[Tape | None] = contextvars.ContextVar(
    "symshape_vjp_tape", default=None)


@contextlib.contextmanager
def recording(tape: Tape) -> Iterator[Tape]:
    """Records the primitives called in the block on ``tape``.

    Raises:
        ADError: a tape is already recording (differentiating inside a
            differentiated function is not supported).
    """
    if _TAPE.get() is not None:
        raise ADError(
            f"at {user_location()}: differentiating inside a function being differentiated "
            "(a gradient of a gradient) is not supported", primitive="grad",
            location=user_location())
    token = _TAPE.set(tape)
    previous = tape.trace.observer
    tape.trace.observer = tape.observe
    try:
        yield tape
    finally:
        tape.trace.observer = previous
        _TAPE.reset(token)


def save(**values: Any) -> None:
    """Called by a primitive while it runs: keeps ``values`` (``index`` values,
    offsets it computed) for its VJP rule (``node.saved``). Nothing is kept
    when no function is being differentiated."""
    tape = _TAPE.get()
    if tape is not None:
        tape.save(values)


def primitive(name: str, *, label_from: str | None = None) -> Callable[[F], F]:
    """Declares a function a primitive named ``name`` (see the module docstring).

    Args:
        name: the primitive's name, the key of its VJP rule.
        label_from: a parameter holding the name users know the op by
            (``elementwise``'s ``op``), for messages.

    Raises:
        ValueError: ``name`` is already a primitive.
    """

    def wrap(fn: F) -> F:
        add_unique(PRIMITIVES, name, fn.__qualname__, "primitive")
        signature = inspect.signature(fn)

        @functools.wraps(fn)
        def call(*args: Any, **kwargs: Any) -> Any:
            tape = _TAPE.get()
            if tape is None:
                return fn(*args, **kwargs)
            return tape.call(name, label_from, signature, fn, args, kwargs)

        call.__dict__["primitive"] = name
        return cast(F, call)

    return wrap


def composite(fn: F) -> F:
    """Declares a public op a composition of primitives: it is not recorded
    itself, the primitives it calls are (``getitem``, ``conv``, ``stack``).

    Raises:
        ValueError: an op of that name is already declared composite.
    """
    add_unique(COMPOSITES, fn.__name__, fn.__qualname__, "composite op")
    fn.__dict__["composite"] = True
    return fn


def vjp_rule(*names: str) -> Callable[[Rule], Rule]:
    """Registers a VJP rule for the primitives ``names``.

    The rule is called as ``rule(node, ct)`` with the cotangent of the
    output (a tuple of them, ``None`` where an output has none, for a
    primitive with several outputs) and returns cotangents by parameter
    name; ops it calls are located at the node's line and not recorded.

    Raises:
        ValueError: one of ``names`` already has a rule.
    """

    def wrap(rule: Rule) -> Rule:
        for name in names:
            add_unique(RULES, name, rule, "VJP rule")
        return rule

    return wrap


def zero_rule(node: Node, ct: Any) -> Cotangents:
    """The rule of an op whose output does not change with its inputs' values
    (``floor``, ``sign``, ``zeros_like``): no cotangent for any input."""
    return {}
