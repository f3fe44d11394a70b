"""Walking functions and applying shape rules.

For every ``func.func``, arguments are seeded from ``symshape.axes``
(``#symshape.shape<[batch, 512]>``; dynamic axes without a name get fresh
symbols ``_dN``, index and integer arguments a fresh symbol for their value),
then ops are visited in order. Each result's facts come from its op's rule
(ops without one get what their type states, unknown where dynamic), are
reconciled with the static dims of the result type (a static dim is a fact;
a provably different inferred extent is an error).

Annotations are output, never trusted input: an existing ``symshape.shape``
annotation never gives a guarantee inference does not derive. The policy
decides what happens to the annotation text, which disagreements are
errors, and (``refine`` only) which annotations are kept as claims checked
at run time:

=========  ==================================================================
policy     per axis, annotation ``A`` (existing) and inference ``I``
=========  ==================================================================
skip       ``A`` is left as written (the op is not re-annotated).
override   ``A`` is replaced by ``I``.
refine     ``A`` is kept where it is exact and more specific than an exact
           ``I`` (seed 001's order: a constant over named axes over fresh
           symbols): an equation between the result's axis and ``A``,
           checked at run time right after the op, that makes a fresh ``I``
           adopt ``A`` (later ops see ``A``); a bare name no argument
           declares only names ``I``. Otherwise ``A`` is replaced by ``I``.
           Two exact extents that are provably different, or an upper bound
           provably below an exact ``I``, are an error.
strict     ``A`` must follow from ``I`` (``?`` always does, ``ub(a)`` when
           ``I`` is provably at most ``a``, an exact ``a`` when ``I`` is
           provably exactly ``a``), anything else is an error; then ``A`` is
           replaced by ``I``.
=========  ==================================================================

.. code-block:: mlir

    // policy=refine; %n read from data, %x: [batch, 4]
    %e = tensor.empty(%n) {symshape.shape = #symshape.shape<[batch, 4]>} : ...
    // %e: [batch, 4] (was _d0), checked after the op: dim(%e, 0) == batch

Under every policy an annotation must agree with the static dims of the
result type. Errors are errors under every policy, ``skip`` included: they
are raised as :class:`~symshape_mlir.inference.errors.InferenceError` at the
op's location, never logged and dropped.

Region ops (``scf.if``/``scf.for``) and ``func.call`` rules call back into
:func:`infer_block` and :func:`infer_function`.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import NamedTuple, cast

from mlir import ir

from symshape_mlir.annotations import SHAPE_ATTR
from symshape_mlir.attributes import shape_from_attr
from symshape_mlir.extent.context import is_fresh_name
from symshape_mlir.extent.errors import ExtentError
from symshape_mlir.extent.expr import CeilDiv, Expr, FloorDiv, Mod, Sym
from symshape_mlir.extent.guarantee import Exact, ShapeExtent, Strength, UpperBound
from symshape_mlir.extent.prove import prove_eq, prove_le, prove_lt
from symshape_mlir.inference.errors import InferenceError, OpUsageError, ShapeInferenceError
from symshape_mlir.inference.facts import Origin, ValueFacts
from symshape_mlir.inference.obligations import NO_CHECK, Compare, Quantity
from symshape_mlir.inference.registry import lookup
from symshape_mlir.inference.state import CacheKind, InferenceState, describe, type_shape
from symshape_mlir.walk import enclosing_function

__all__ = [
    "AXES_ATTR",
    "FUNCTIONS",
    "SHAPE_ATTR",
    "FunctionSummary",
    "infer_block",
    "infer_function",
    "infer_module",
    "infer_nested",
    "infer_op",
    "join_facts",
]

# Strength members, hoisted (see Strength).
_EXACT = Strength.EXACT

logger = logging.getLogger(__name__)

AXES_ATTR = "symshape.axes"

_ADVANCE = ir.WalkResult.ADVANCE
_SKIP = ir.WalkResult.SKIP
_INTERRUPT = ir.WalkResult.INTERRUPT
_PRE_ORDER = ir.WalkOrder.PRE_ORDER


_NO_FACTS = ValueFacts()


class FunctionSummary(NamedTuple):
    """What callers need of an inferred function.

    Attributes:
        arguments: the entry block arguments (their facts are the
            parameters of the summary), ``None`` for a declaration.
        results: facts of the returned values (joined over every
            ``func.return``), ``None`` for a declaration.
    """

    arguments: tuple[ir.Value, ...] | None
    results: tuple[ValueFacts, ...] | None


FUNCTIONS: CacheKind[str, ir.Operation] = CacheKind("functions")
"""The module's functions by name (filled by :func:`infer_module`)."""
_SUMMARIES: CacheKind[str, FunctionSummary] = CacheKind("summaries")
_TypeInfo = tuple[tuple[ShapeExtent, ...] | None, tuple[tuple[int, Exact], ...]]
"""A type's stated extents (``None`` unless a ranked tensor), and its static axes and extents."""
_TYPES: CacheKind[ir.Type, _TypeInfo] = CacheKind("types")

# -- functions -------------------------------------------------------------------------


def infer_module(module: ir.Operation, state: InferenceState) -> None:
    """Infers every function of ``module`` (a callee before the first caller that needs it)."""
    functions = state.cache(FUNCTIONS)
    body = [op.operation for op in module.regions[0].blocks[0].operations]
    for op in body:
        if op.name == "func.func":
            functions[ir.StringAttr(op.attributes["sym_name"]).value] = op
    for op in body:
        if op.name == "func.func":
            infer_function(op, state)


def infer_function(func: ir.Operation, state: InferenceState) -> FunctionSummary | None:
    """Infers one function once and returns its summary.

    Returns ``None`` while the function is being inferred (a recursive call).
    """
    name = ir.StringAttr(func.attributes["sym_name"]).value
    summaries = state.cache(_SUMMARIES)
    known = summaries.get(name)
    if known is not None:
        return known
    marker = ("function", name)
    if marker in state.done:
        return None
    state.done.add(marker)
    region = func.regions[0]
    if not region.blocks:
        summary = FunctionSummary(None, None)
        summaries[name] = summary
        return summary
    entry = region.blocks[0]
    arg_attrs = (
        list(ir.ArrayAttr(func.attributes["arg_attrs"])) if "arg_attrs" in func.attributes else []
    )
    arguments = tuple(entry.arguments)
    for index, arg in enumerate(arguments):
        attrs = arg_attrs[index] if index < len(arg_attrs) else None
        state.set(arg, _seed_argument(index, arg, attrs, state))
    floor = state.enter_function()
    try:
        if len(region.blocks) == 1:
            infer_nested(func, state)
        else:
            # Only the entry block surely runs; later blocks are conditional.
            infer_block(entry, state)
            state.enter_region()
            for block in list(region.blocks)[1:]:
                infer_block(block, state)
    finally:
        state.leave_region(floor)
    returned: list[list[ValueFacts]] = []
    for block in region.blocks:
        ops = block.operations
        if len(ops) and ops[len(ops) - 1].operation.name == "func.return":
            returned.append([state.facts_of(v) for v in ops[len(ops) - 1].operation.operands])
    results = None
    if returned:
        results = tuple(
            join_facts([facts[i] for facts in returned], func, state, index=i)
            for i in range(len(returned[0]))
        )
    summary = FunctionSummary(arguments, results)
    summaries[name] = summary
    return summary


def _seed_argument(
    index: int, arg: ir.Value, attrs: ir.Attribute | None, state: InferenceState
) -> ValueFacts:
    declared = None
    if attrs is not None:
        attrs = ir.DictAttr(attrs)
        if AXES_ATTR in attrs:
            declared = shape_from_attr(attrs[AXES_ATTR])
    stated = type_shape(arg.type)
    if stated is None:
        if declared is not None:
            raise OpUsageError(
                arg.location,
                f"'{AXES_ATTR}' of argument #{index} needs a ranked tensor, got {arg.type}",
            )
        # A scalar argument may be negative, and symbols are not: its value is
        # unknown (where it is used as a size, that size gets a fresh symbol).
        return ValueFacts()
    if declared is None:
        return ValueFacts(shape=tuple(
            extent if extent.is_exact else state.fresh((arg, axis))
            for axis, extent in enumerate(stated)))
    if len(declared) != len(stated):
        raise OpUsageError(
            arg.location,
            f"'{AXES_ATTR}' of argument #{index} has {len(declared)} extents but the "
            f"argument has rank {len(stated)}",
        )
    for name in declared:
        if name.expr is not None and _divides_by_zero(name.expr):
            raise OpUsageError(
                arg.location,
                f"'{AXES_ATTR}' of argument #{index} declares '{name}', which divides by zero",
            )
        fresh = sorted(s for s in name.free_symbols if is_fresh_name(s))
        if fresh:
            raise OpUsageError(
                arg.location,
                f"'{AXES_ATTR}' of argument #{index} names '{fresh[0]}': names of the form "
                "'_dN' are reserved for fresh symbols",
            )
    extents = []
    for axis, (name, static) in enumerate(zip(declared, stated, strict=True)):
        if name.is_unknown:
            extents.append(static if static.is_exact else state.fresh((arg, axis)))
        elif isinstance(static, Exact):
            # The static size is the fact; the declaration must not contradict it.
            if _contradicts(name, static, state):
                raise ShapeInferenceError(
                    arg.location,
                    f"'{AXES_ATTR}' of argument #{index} declares axis {axis} as '{name}' "
                    f"but its type has the static extent {static}",
                )
            extents.append(static)
        else:
            extents.append(name)
    return ValueFacts(shape=tuple(extents))


def _divides_by_zero(expr: Expr) -> bool:
    """Whether ``expr`` divides by the constant 0 somewhere."""
    stack = [expr]
    while stack:
        node = stack.pop()
        if isinstance(node, (FloorDiv, CeilDiv, Mod)) and node.den.const_value == 0:
            return True
        stack.extend(node.children)
    return False


# -- blocks and ops ----------------------------------------------------------------------


def infer_nested(op: ir.Operation, state: InferenceState) -> None:
    """Infers the ops directly nested in ``op``'s regions, in order.

    Ops with regions are responsible for theirs (through their rule's region
    mode).
    """
    root = True
    failure: BaseException | None = None

    def visit(inner: ir.Operation) -> ir.WalkResult:
        nonlocal root, failure
        if root:
            root = False
            return _ADVANCE
        try:
            infer_op(inner, state)
        except BaseException as exc:  # re-raised below, outside the C++ walk
            failure = exc
            return _INTERRUPT
        return _SKIP

    op.walk(visit, _PRE_ORDER)
    if failure is not None:
        raise failure


def infer_block(block: ir.Block, state: InferenceState) -> None:
    """Infers the ops of ``block`` in order."""
    for op in block.operations:
        infer_op(op.operation, state)


def _infer_conditional(op: ir.Operation, state: InferenceState) -> None:
    """Infers the regions of ``op`` as code that may run zero or many times."""
    floor = state.enter_region()
    try:
        infer_nested(op, state)
    finally:
        state.leave_region(floor)


def infer_op(op: ir.Operation, state: InferenceState) -> None:
    """Applies ``op``'s rule and records the facts of its results."""
    entry = lookup(op.name)
    if entry is None:
        if len(op.regions):
            _infer_conditional(op, state)
        inferred: Sequence[ValueFacts | None] = ()
        typed = False
    else:
        if entry.regions == "infer" and len(op.regions):
            _infer_conditional(op, state)
        try:
            inferred = entry.fn(op, state)
        except InferenceError as error:
            # Errors about this op name it, MLIR-style ('tensor.cast' op ...).
            if not error.message.startswith("'") and error.location == op.location:
                error.message = f"'{op.name}' op {error.message}"
                error.args = (error.message,)
            raise
        except ExtentError as exc:
            # The algebra's limits (int64 overflow, expression growth) on the
            # user's extents; any other exception from a rule is a bug and
            # propagates with its traceback.
            raise ShapeInferenceError(op.location, str(exc)) from exc
        typed = entry.typed
    results = op.results
    count = len(results)
    if count == 0:
        return
    annotated = SHAPE_ATTR in op.attributes
    if count == 1:
        # The common case, kept lean.
        result = op.result
        facts = inferred[0] if inferred else None
        if facts is None or not typed:
            facts = _reconcile_with_type(op, 0, result.type, facts, state)
        if annotated:
            existing = _existing_annotation(op, 1)[0]
            if existing is not None and facts.shape is not None:
                facts = _check_annotation(op, 0, result, facts, existing, state)
        if state.generation:
            state.set(result, facts)
        else:
            state.facts[result] = facts
        state.inferred_ops.append((op, (result,)))
        return
    values = tuple(results)
    shapes = _existing_annotation(op, count) if annotated else None
    for index, result in enumerate(values):
        facts = inferred[index] if index < len(inferred) else None
        if facts is None or not typed:
            facts = _reconcile_with_type(op, index, result.type, facts, state)
        existing = shapes[index] if shapes is not None else None
        if existing is not None and facts.shape is not None:
            facts = _check_annotation(op, index, result, facts, existing, state)
        state.set(result, facts)
    state.inferred_ops.append((op, values))


def _existing_annotation(
    op: ir.Operation, count: int
) -> list[tuple[ShapeExtent, ...] | None]:
    attr = op.attributes[SHAPE_ATTR]
    try:
        if isinstance(attr, ir.ArrayAttr):
            shapes: list[tuple[ShapeExtent, ...] | None] = [shape_from_attr(a) for a in attr]
        else:
            shapes = [shape_from_attr(attr)]
    except TypeError:
        raise OpUsageError(
            op.location,
            f"'{SHAPE_ATTR}' must be a #symshape.shape or an array of them, got {attr}",
        ) from None
    if len(shapes) != count:
        raise OpUsageError(
            op.location,
            f"'{SHAPE_ATTR}' holds {len(shapes)} shapes but the op has {count} results",
        )
    return shapes


def _type_info(state: InferenceState, type_: ir.Type) -> _TypeInfo:
    """The stated extents of a type and its static axes with their extents (cached per run)."""
    cache = state.cache(_TYPES)
    info = cache.get(type_)
    if info is None:
        stated = type_shape(type_)
        static = () if stated is None else tuple(
            (a, e) for a, e in enumerate(stated) if isinstance(e, Exact))
        info = cache[type_] = (stated, static)
    return info


def _reconcile_with_type(
    op: ir.Operation, index: int, type_: ir.Type, facts: ValueFacts | None,
    state: InferenceState,
) -> ValueFacts:
    stated, static_axes = _type_info(state, type_)
    if stated is None:
        return facts if facts is not None else _NO_FACTS
    shape = facts.shape if facts is not None else None
    if shape is None:
        origins = None
        if len(static_axes) != len(stated):
            here = Origin(op.name, op.location)
            origins = tuple(None if e.strength is _EXACT else here for e in stated)
        if facts is None:
            return ValueFacts(stated, None, None, origins)
        return ValueFacts(stated, facts.value, facts.elements, origins)
    assert facts is not None
    if len(shape) != len(stated):
        raise ShapeInferenceError(
            op.location,
            f"result #{index} has rank {len(stated)} but its shape rule inferred rank "
            f"{len(shape)}",
        )
    extents: list[ShapeExtent] | None = None
    for axis, static in static_axes:
        have = shape[axis]
        if have is static or (isinstance(have, Exact) and have.expr is static.expr):
            continue
        if isinstance(have, Exact) and prove_eq(
                have.expr, static.expr, state.extents, fallback=False) is False:
            raise ShapeInferenceError(
                op.location,
                f"result #{index} dimension {axis} is {static} but the inferred extent is {have}",
            )
        if isinstance(have, UpperBound) and prove_lt(
                have.expr, static.expr, state.extents, fallback=False) is True:
            raise ShapeInferenceError(
                op.location,
                f"result #{index} dimension {axis} is {static} but the inferred extent is {have}",
            )
        if have.strength is _EXACT:
            # The type states the size (the op guarantees it): a fresh symbol
            # for it adopts it.
            state.unify(have, static, op, describe("result #{} dimension {}", index, axis),
                        NO_CHECK)
        else:
            # A static size where only a bound is known: a specialization,
            # which the result's size checks right after the op.
            state.require_exact(have, op, f"result #{index} static dimension {axis}",
                                (Compare("eq", Quantity.dim(op.results[index], axis),
                                         Quantity(static.expr)),),
                                facts.origin(axis), checked_after=True)
        if extents is None:
            extents = list(shape)
        extents[axis] = static
    origins = facts.origins
    weak = [axis for axis, e in enumerate(extents or shape) if e.strength is not _EXACT]
    if weak and (origins is None or any(origins[a] is None for a in weak)):
        here = Origin(op.name, op.location)
        filled = list(origins or (None,) * len(shape))
        for axis in weak:
            filled[axis] = filled[axis] or here
        origins = tuple(filled)
    if extents is None and origins is facts.origins:
        return facts
    final = tuple(extents) if extents is not None else shape
    if origins is not None:
        origins = tuple(o if final[a].strength is not _EXACT else None
                        for a, o in enumerate(origins))
    return ValueFacts(final, facts.value, facts.elements, origins)


# -- policies ------------------------------------------------------------------------------


def _check_annotation(
    op: ir.Operation,
    index: int,
    result: ir.Value,
    inferred: ValueFacts,
    existing: tuple[ShapeExtent, ...],
    state: InferenceState,
) -> ValueFacts:
    """Checks an existing annotation against the inferred facts under the policy.

    Returns the facts of the result: those inferred, except where ``refine``
    adopts a more specific annotation (then checked at run time). Under
    ``skip`` the annotation is kept as written by :func:`~.annotate.annotate`.
    """
    shape = inferred.shape
    assert shape is not None
    policy = state.options.policy
    if len(existing) != len(shape):
        raise ShapeInferenceError(
            op.location,
            f"'{SHAPE_ATTR}' of result #{index} has rank {len(existing)} but the result "
            f"has rank {len(shape)}",
        )
    if policy == "skip":
        state.kept_annotations.add(op)
    adopted: list[ShapeExtent] | None = None
    for axis, (old, new) in enumerate(zip(existing, shape, strict=True)):
        if policy == "strict" and not implied(old, new, state):
            raise ShapeInferenceError(
                op.location,
                f"result #{index} dimension {axis}: annotation '{old}' does not follow "
                f"from the inferred extent '{new}' (policy=strict)",
            )
        if policy == "refine" and isinstance(new, Exact) and _contradicts(old, new, state):
            raise ShapeInferenceError(
                op.location,
                f"result #{index} dimension {axis}: annotation '{old}' contradicts the "
                f"inferred extent '{new}' (policy=refine)",
            )
        if policy == "refine" and isinstance(old, Exact) and isinstance(new, Exact):
            refined = _refined(op, index, result, axis, old, new, state)
            if refined is not None:
                adopted = adopted or list(shape)
                adopted[axis] = refined
    stated, static_axes = _type_info(state, result.type)
    if stated is not None:
        for axis, static in static_axes:
            kept = existing[axis]
            if _contradicts(kept, static, state):
                raise ShapeInferenceError(
                    op.location,
                    f"result #{index} dimension {axis}: annotation '{kept}' contradicts the "
                    f"static extent {static}",
                )
    if adopted is None:
        return inferred
    return ValueFacts(tuple(adopted), inferred.value, inferred.elements, inferred.origins)


def _specificity(expr: Expr) -> int:
    """Seed 001's order: a constant (2) over named axes (1) over fresh symbols (0)."""
    symbols = expr.free_symbols
    if any(is_fresh_name(s) for s in symbols):
        return 0
    return 1 if symbols else 2


def _refined(
    op: ir.Operation, index: int, result: ir.Value, axis: int, old: Exact, new: Exact,
    state: InferenceState,
) -> Exact | None:
    """The annotation's extent where ``refine`` keeps it (more specific than the
    inferred one), else ``None``.

    A kept extent over the function's named axes (or a constant) is an
    equation checked at run time after the op (:meth:`InferenceState.unify`,
    which makes a fresh symbol adopt it); a bare name no argument declares
    only names the inferred fresh symbol.
    """
    if _specificity(old.expr) <= _specificity(new.expr):
        return None
    func = enclosing_function(op)
    declared = state.argument_axes(func).keys() if func is not None else set()
    what = describe("result #{} dimension {} and its annotation", index, axis)
    if old.expr.free_symbols <= declared:
        state.unify(new, old, op, what,
                    (Compare("eq", Quantity.dim(result, axis), Quantity(old.expr)),),
                    checked_after=True)
        return old
    if isinstance(old.expr, Sym) and isinstance(new.expr, Sym) and \
            is_fresh_name(new.expr.name):
        state.unify(new, old, op, what, NO_CHECK)
        return old
    return None


def _contradicts(claim: ShapeExtent, static: Exact, state: InferenceState) -> bool:
    """Whether ``claim`` provably cannot describe an axis of exact size ``static``."""
    if isinstance(claim, Exact):
        return prove_eq(claim.expr, static.expr, state.extents) is False
    if isinstance(claim, UpperBound):
        return prove_lt(claim.expr, static.expr, state.extents) is True
    return False


def implied(old: ShapeExtent, new: ShapeExtent, state: InferenceState) -> bool:
    """Whether ``old`` follows from ``new``: every size ``new`` allows, ``old`` allows
    (an annotation from what was inferred; a loop's carried extent from what
    an iteration yields).

    ``unknown`` follows from anything; an exact extent only from an equal
    exact one; an upper bound from anything provably at most it.
    """
    claimed, known = old.expr, new.expr
    if claimed is None:
        return True
    if known is None:
        return False
    if isinstance(old, Exact):
        return isinstance(new, Exact) and (
            claimed is known or prove_eq(claimed, known, state.extents) is True)
    return claimed is known or prove_le(known, claimed, state.extents) is True


# -- joins -----------------------------------------------------------------------------------


def join_facts(
    alternatives: Sequence[ValueFacts], op: ir.Operation, state: InferenceState,
    local_mark: int | None = None, index: int = 0,
) -> ValueFacts:
    """Facts of a value that is one of ``alternatives``, chosen at run time
    (branches, returns): result ``index`` of ``op``.

    Per axis (and for an integer's value and elements)
    :meth:`InferenceState.choose`: provably equal exact extents stay exact,
    other exact ones are a data-dependent size (a fresh symbol ranging
    between them), an upper bound gives ``ub(max(...))``, else unknown. An
    extent that mentions a fresh symbol made after ``local_mark`` (local to
    one branch) is a fresh symbol without a range if exact, unknown
    otherwise. Weakened axes get ``op`` as origin.

    .. code-block:: mlir

        %r = scf.if %p -> tensor<?xf32> {     // yields [batch] or [4]
        ...
        // %r: [_d0] with min(4, batch) <= _d0 <= max(4, batch)
    """
    here = Origin(op.name, op.location)
    first = alternatives[0]

    def one(extents: Sequence[ShapeExtent], role: object, sizes: bool = False) -> ShapeExtent:
        return state.choose(extents, (op, index, role), local_mark, sizes=sizes)

    shape = origins = None
    shapes = [a.shape for a in alternatives]
    if all(s is not None and len(s) == len(shapes[0] or ()) for s in shapes):
        shape = tuple(one([cast(tuple[ShapeExtent, ...], s)[axis] for s in shapes], axis, True)
                      for axis in range(len(shapes[0] or ())))
        origins = tuple(
            None if e.strength is _EXACT else
            next((o for a in alternatives if (o := a.origin(i)) is not None), here)
            for i, e in enumerate(shape))
    value = None
    values = [a.value for a in alternatives]
    if all(v is not None for v in values):
        value = one(cast(list[ShapeExtent], values), "value")
    elements = None
    lists = [a.elements for a in alternatives]
    if all(e is not None and len(e) == len(first.elements or ()) for e in lists):
        elements = tuple(one([cast(tuple[ShapeExtent, ...], e)[i] for e in lists], ("element", i))
                         for i in range(len(first.elements or ())))
    return ValueFacts(shape, value, elements, origins)
