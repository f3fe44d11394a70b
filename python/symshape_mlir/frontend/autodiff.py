"""Reverse-mode differentiation of traced code: ``vjp``, ``grad``, ``value_and_grad``.

Inside a traced function (or one given to ``@symshape_mlir.jit``), these
differentiate Python code on traced tensors, as ``jax.vjp``/``jax.grad`` do:
the forward ops are recorded on a :class:`~symshape_mlir.frontend.vjp.Tape`
while ``fn`` runs, then the VJP rule of each recorded primitive
(:mod:`symshape_mlir.frontend.vjp`) emits its cotangents, last op first, into
the same function. Forward and backward are one ``func.func`` over the
function's named axes: compiled once, it serves every binding.

:func:`trace_grad` and :func:`trace_vjp` trace a whole function so
transformed, for :func:`symshape_mlir.grad` and friends, which compile it.

Example:
    >>> import symshape_mlir
    >>> from symshape_mlir.frontend import Tensor, f32, mean
    >>> def loss(w, x):
    ...     return mean((x @ w) ** 2)
    >>> @symshape_mlir.jit
    ... def step(w: Tensor[4, 2, f32], x: Tensor["batch", 4, f32]):   # noqa: F821
    ...     return w - 0.1 * grad(loss)(w, x)      # one module: forward, backward, update
"""

from __future__ import annotations

import inspect
import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from symshape_mlir.extent.expr import Const, Sym
from symshape_mlir.frontend.dtypes import DType
from symshape_mlir.frontend.errors import ContractError, FrontendError
from symshape_mlir.frontend.ops.creation import full_like
from symshape_mlir.frontend.ops.elementwise import add, astype
from symshape_mlir.frontend.ops.shape_ops import reshape
from symshape_mlir.frontend.source import SourceLocation, located, user_location
from symshape_mlir.frontend.tensor import Tensor, TensorSpec
from symshape_mlir.frontend.tracer import FunctionTrace
from symshape_mlir.frontend.tracing import TracedFunction, input_specs, trace
from symshape_mlir.frontend.vjp import RULES, ADError, Node, Tape, observed, recording, tensors_in
from symshape_mlir.shapes.shape import Shape

__all__ = [
    "Pullback",
    "TracedGrad",
    "argnums_of",
    "grad",
    "trace_grad",
    "trace_vjp",
    "value_and_grad",
    "vjp",
]

logger = logging.getLogger(__name__)

Argnums = int | Sequence[int]


def _names(fn: Callable[..., Any], count: int) -> list[str]:
    """The parameter names of ``fn`` (``arg<i>`` where it has none)."""
    try:
        names = list(inspect.signature(fn).parameters)
    except (TypeError, ValueError):
        names = []
    return [names[i] if i < len(names) else f"arg{i}" for i in range(count)]


def _qualname(fn: Callable[..., Any]) -> str:
    return str(getattr(fn, "__qualname__", getattr(fn, "__name__", "the function")))


def argnums_of(transform: str, fn: Callable[..., Any], argnums: Argnums, count: int,
               where: SourceLocation | None) -> tuple[int, ...]:
    """``argnums`` as a tuple of positions among ``count`` arguments.

    Raises:
        ADError: not an int or a sequence of ints, out of range, or repeated.
    """
    items = (argnums,) if isinstance(argnums, int) else argnums
    if isinstance(argnums, bool) or not isinstance(items, Sequence) or not items or any(
            isinstance(i, bool) or not isinstance(i, int) for i in items):
        raise ADError(f"{transform} of {_qualname(fn)}: argnums must be an int or a non-empty "
                      f"tuple of ints, not {argnums!r}", primitive=transform, location=where)
    positions = tuple(i % count if -count <= i < count else i for i in items)
    wrong = [i for i, p in zip(items, positions, strict=True) if not 0 <= p < count]
    if wrong:
        raise ADError(f"{transform} of {_qualname(fn)}: argnums {wrong[0]} is out of range for "
                      f"{count} argument{'s' if count != 1 else ''}", primitive=transform,
                      location=where)
    if len(set(positions)) != len(positions):
        raise ADError(f"{transform} of {_qualname(fn)}: argnums {tuple(items)} names an "
                      "argument twice", primitive=transform, location=where)
    return positions


def _check_differentiable(transform: str, fn: Callable[..., Any], index: int, name: str,
                          dtype: DType, where: SourceLocation | None) -> None:
    if not dtype.is_float:
        raise ADError(
            f"{transform} of {_qualname(fn)}: argument {index} ({name!r}) is {dtype}: integer "
            "and boolean inputs are not differentiable (leave it out of argnums)",
            primitive=transform, location=where)


@dataclass
class Pullback:
    """The VJP of a recorded function: call it with one cotangent per output.

    Attributes:
        tape: what the forward run recorded.
        outputs: the function's output tensors, flattened.
        primals: the inputs it differentiates, in ``argnums`` order.
    """

    tape: Tape
    outputs: tuple[Tensor, ...]
    primals: tuple[Tensor, ...]

    def __call__(self, *cotangents: Tensor) -> tuple[Tensor, ...]:
        """The cotangents of the primals (zeros for one the outputs do not read).

        Raises:
            ADError: a cotangent reaches an op without a VJP rule, or a rule
                needs an exact extent it does not have.
            FrontendError: wrong count, shape or element type of cotangents.
        """
        if len(cotangents) != len(self.outputs):
            raise FrontendError(f"the pullback takes {len(self.outputs)} cotangents, one per "
                                f"output, not {len(cotangents)}")
        for out, ct in zip(self.outputs, cotangents, strict=True):
            if not isinstance(ct, Tensor) or ct.ndim != out.ndim:
                raise FrontendError(f"a cotangent for an output of shape {out.symbolic_shape} "
                                    f"must be a traced tensor of rank {out.ndim}, not {ct!r}")
        grads = backward(self.tape, list(zip(self.outputs, cotangents, strict=True)))
        return tuple(_or_zeros(grads.get(id(p)), p) for p in self.primals)


def vjp(fn: Callable[..., Any], *primals: Tensor,
        argnums: Argnums | None = None) -> tuple[Any, Pullback]:
    """``jax.vjp`` on traced tensors: ``fn(*primals)`` and its pullback.

    Args:
        fn: a function of traced tensors returning a tensor or a tuple of them.
        *primals: its arguments (tensors of the function being traced).
        argnums: the arguments to differentiate (all floating-point ones
            by default).

    Returns:
        ``fn``'s result, and a :class:`Pullback` taking one cotangent per
        output and returning one per differentiated argument.

    Raises:
        ADError: an integer argument in ``argnums``, a bad ``argnums``, or
            differentiating inside a function being differentiated.
    """
    where = user_location()
    tensors = [p for p in primals if isinstance(p, Tensor)]
    if len(tensors) != len(primals):
        raise ADError(f"vjp of {_qualname(fn)} at {where}: its arguments must be traced "
                      "tensors", primitive="vjp", location=where)
    if not tensors:
        raise ADError(f"vjp of {_qualname(fn)} at {where}: needs at least one argument",
                      primitive="vjp", location=where)
    names = _names(fn, len(primals))
    if argnums is None:
        chosen = tuple(i for i, p in enumerate(tensors) if p.dtype.is_float)
    else:
        chosen = argnums_of("vjp", fn, argnums, len(primals), where)
        for i in chosen:
            _check_differentiable("vjp", fn, i, names[i], tensors[i].dtype, where)
    tape = Tape(tensors[0].trace)
    for i in chosen:
        tape.watch(tensors[i])
    with recording(tape):
        result = fn(*primals)
    leaves = _leaves(result)
    outputs = tuple(tensors_in(result))
    if not outputs or len(outputs) != len(leaves):
        raise ADError(f"vjp of {_qualname(fn)}: it must return a traced tensor or (nested) "
                      f"tuples of them, not {result!r}", primitive="vjp", location=where)
    return result, Pullback(tape, outputs, tuple(tensors[i] for i in chosen))


def _leaves(value: Any) -> list[Any]:
    """The items of nested tuples and lists."""
    if isinstance(value, tuple | list):
        return [leaf for item in value for leaf in _leaves(item)]
    return [value]


def _scalar(transform: str, fn: Callable[..., Any], out: Any,
            where: SourceLocation | None) -> Tensor:
    """``out`` checked to be a 0-d floating-point tensor."""
    if not isinstance(out, Tensor):
        raise ADError(f"{transform} of {_qualname(fn)}: the function must return a scalar "
                      f"(a 0-d floating-point tensor), not {out!r}", primitive=transform,
                      location=where)
    if out.ndim:
        raise ADError(
            f"{transform} of {_qualname(fn)}: the function must return a scalar, but its output "
            f"has shape {out.symbolic_shape}; reduce it (sum, mean) or use vjp",
            primitive=transform, location=where)
    if not out.dtype.is_float:
        raise ADError(f"{transform} of {_qualname(fn)}: the function returned a {out.dtype} "
                      "scalar; only floating-point outputs have gradients",
                      primitive=transform, location=where)
    return out


def value_and_grad(fn: Callable[..., Any], argnums: Argnums = 0, *,
                   has_aux: bool = False) -> Callable[..., tuple[Any, Any]]:
    """``jax.value_and_grad`` on traced tensors.

    The returned function gives ``(value, grads)`` (``((value, aux), grads)``
    with ``has_aux``, ``fn`` returning ``(value, aux)``); ``grads`` is one
    tensor for an int ``argnums``, else a tuple.

    Raises:
        ADError: (when called) a non-scalar or integer output, an integer
            argument in ``argnums``, a bad ``argnums``.
    """

    def transformed(*args: Tensor) -> tuple[Any, Any]:
        where = user_location()
        chosen = argnums_of("grad", fn, argnums, len(args), where)
        names = _names(fn, len(args))
        for i in chosen:
            if isinstance(args[i], Tensor):
                _check_differentiable("grad", fn, i, names[i], args[i].dtype, where)
        result, pullback = vjp(fn, *args, argnums=chosen)
        value = result
        if has_aux:
            if not isinstance(result, tuple | list) or len(result) != 2:
                raise ADError(f"grad of {_qualname(fn)} with has_aux: the function must return "
                              f"a pair (value, aux), not {result!r}", primitive="grad",
                              location=where)
            value = result[0]
        out = _scalar("grad", fn, value, where)
        aux_outputs = pullback.outputs[1:] if has_aux else ()
        seeds = [full_like(out, 1.0), *(full_like(a, 0.0) for a in aux_outputs)]
        grads = pullback(*seeds)
        packed = grads[0] if isinstance(argnums, int) else grads
        return (tuple(result) if has_aux else value), packed

    transformed.__name__ = f"value_and_grad_{getattr(fn, '__name__', 'fn')}"
    return transformed


def grad(fn: Callable[..., Any], argnums: Argnums = 0, *,
         has_aux: bool = False) -> Callable[..., Any]:
    """``jax.grad`` on traced tensors (see :func:`value_and_grad`)."""
    both = value_and_grad(fn, argnums, has_aux=has_aux)

    def transformed(*args: Tensor) -> Any:
        (value, grads) = both(*args)
        return (grads, value[1]) if has_aux else grads

    transformed.__name__ = f"grad_{getattr(fn, '__name__', 'fn')}"
    return transformed


def backward(tape: Tape, seeds: Sequence[tuple[Tensor, Tensor]]) -> dict[int, Tensor]:
    """Runs the VJP rules of ``tape``'s nodes, last first, from ``seeds``
    (output, cotangent); returns the cotangent of every tensor reached, by id.

    Raises:
        ADError: a cotangent reaches an op without a rule, or a rule cannot
            build it (an extent it needs is not exact).
    """
    cts: dict[int, Tensor] = {}
    for out, ct in seeds:
        if tape.is_active(out):
            _accumulate(cts, out, ct)
    for node in reversed(tape.nodes):
        made = [tape.producer(o) is node for o in node.outputs]
        pending = [cts.pop(id(o), None) if m else None
                   for o, m in zip(node.outputs, made, strict=True)]
        if all(ct is None for ct in pending):
            continue
        rule = RULES.get(node.name)
        if rule is None:
            raise _no_rule(node)
        if len(node.outputs) == 1:
            incoming: Any = pending[0]
        else:
            incoming = tuple(
                ct if ct is not None or not (m and o.dtype.is_float) else full_like(o, 0.0)
                for o, ct, m in zip(node.outputs, pending, made, strict=True))
        with located(node.where):
            try:
                result = rule(node, incoming)
            except ContractError as err:
                raise _contract_error(node, err) from None
            _collect(tape, node, result, cts)
    return cts


def _no_rule(node: Node) -> ADError:
    if node.name == "<no primitive>":
        return ADError(
            f"a value made by {node.label} at {node.where} is differentiated, but no VJP rule "
            "covers it (it was made outside the frontend's differentiable ops)",
            primitive=node.label, location=node.where)
    return ADError(f"{node.describe()}: {node.label} has no VJP rule, and the gradient needs it",
                   primitive=node.label, location=node.where)


def _contract_error(node: Node, err: ContractError) -> ADError:
    """A rule's op met an upper bound where it needs an exact extent."""
    kind = observed(err.extent) if err.extent is not None else "upper bound"
    field_name = f"{err.op} {err.field}".strip()
    return ADError(
        f"{node.describe()}: its VJP needs an exact {field_name}, but it is "
        f"{err.extent}, {'an' if kind == 'unknown' else 'only an'} {kind} (the bound comes from "
        f"{err.origin}); a gradient cannot be built from it", primitive=node.label,
        location=node.where, field=field_name, guarantee=kind)


def _collect(tape: Tape, node: Node, result: Any, cts: dict[int, Tensor]) -> None:
    """Adds the cotangents a rule returned to the inputs that need them."""
    for param, grad_ in result.items():
        value = node.args[param]
        if grad_ is None:
            continue
        pairs: list[tuple[Any, Tensor | None]] = [(value, grad_)] if isinstance(value, Tensor) \
            else list(zip(value, grad_, strict=True))
        for tensor, ct in pairs:
            if ct is None or not isinstance(tensor, Tensor) or not tape.is_active(tensor):
                continue
            if ct.ndim != tensor.ndim:
                raise FrontendError(
                    f"the VJP rule of {node.describe()} gave a cotangent of shape "
                    f"{ct.symbolic_shape} for {param} of shape {tensor.symbolic_shape}")
            if ct.dtype != tensor.dtype:
                ct = astype(ct, tensor.dtype, node.where)
            _accumulate(cts, tensor, ct)


def _or_zeros(ct: Tensor | None, primal: Tensor) -> Tensor:
    return ct if ct is not None else full_like(primal, 0.0)


def _accumulate(cts: dict[int, Tensor], tensor: Tensor, ct: Tensor) -> None:
    known = cts.get(id(tensor))
    cts[id(tensor)] = ct if known is None else add(known, ct)


# -- whole functions, for symshape_mlir.grad and friends -------------------------------


def _location(fn: Callable[..., Any]) -> SourceLocation:
    code = getattr(fn, "__code__", None)
    if code is None:
        return SourceLocation("<unknown>", 0)
    return SourceLocation(code.co_filename, code.co_firstlineno, 1)


@dataclass(frozen=True)
class TracedGrad:
    """A function's ``value_and_grad`` traced as one function.

    Attributes:
        traced: its results are the value, then the tensors of ``aux``,
            then one gradient per differentiated argument.
        argnums: the differentiated arguments.
        aux: with ``has_aux``, how many tensors ``aux`` holds and whether it
            is a single tensor (else a tuple); ``None`` without.
    """

    traced: TracedFunction
    argnums: tuple[int, ...]
    aux: tuple[int, bool] | None


def trace_grad(fn: Callable[..., Any], specs: Sequence[TensorSpec] | None = None, *,
               argnums: Argnums = 0, has_aux: bool = False,
               name: str | None = None) -> TracedGrad:
    """Traces ``value_and_grad(fn, argnums, has_aux=has_aux)`` as one function.

    Raises:
        ADError: see :func:`value_and_grad`; the arguments are checked before tracing.
    """
    specs = tuple(specs) if specs is not None else input_specs(fn)
    where = _location(fn)
    chosen = argnums_of("grad", fn, argnums, len(specs), where)
    names = _names(fn, len(specs))
    for i in chosen:
        _check_differentiable("grad", fn, i, names[i], specs[i].dtype, where)
    both = value_and_grad(fn, chosen, has_aux=has_aux)
    layout: list[tuple[int, bool]] = []

    def combined(*args: Tensor) -> tuple[Tensor, ...]:
        value, grads = both(*args)
        if not has_aux:
            return (value, *grads)
        out, aux = value
        items = list(tensors_in(aux))
        if not items or (not isinstance(aux, Tensor) and len(items) != len(aux)):
            raise ADError(f"grad of {_qualname(fn)} with has_aux: aux must be a traced tensor "
                          f"or a tuple of them, not {aux!r}", primitive="grad", location=where)
        layout.append((len(items), isinstance(aux, Tensor)))
        return (out, *items, *grads)

    symbol = name or f"{getattr(fn, '__name__', 'fn')}_grad"
    traced = trace(combined, *specs, name=symbol, labels=names, location=where)
    return TracedGrad(traced, chosen, layout[0] if layout else None)


def trace_vjp(fn: Callable[..., Any], specs: Sequence[TensorSpec] | None = None, *,
              name: str | None = None) -> TracedFunction:
    """Traces ``fn``'s VJP as one function: arguments ``(*primals, *cotangents)``
    (one cotangent per output, of its shape), results ``(*outputs,
    *input cotangents)`` (one per floating-point primal).

    A cotangent's axes are the output's named axes where they are; other
    symbolic axes get their own names (``ct<i>_<axis>``), checked at run time
    to equal the output's.
    """
    specs = tuple(specs) if specs is not None else input_specs(fn)
    where = _location(fn)
    names = _names(fn, len(specs))
    dtypes: list[DType] = []

    def forward(*args: Tensor) -> Any:
        result = fn(*args)
        dtypes.extend(t.dtype for t in tensors_in(result))
        return result

    shapes = trace(forward, *specs, name="forward", labels=names, location=where).result_shapes
    ct_specs = tuple(_cotangent_spec(shape, dtype)
                     for shape, dtype in zip(shapes, dtypes, strict=True))
    count = len(specs)

    def combined(*args: Tensor) -> tuple[Tensor, ...]:
        primals, given = args[:count], args[count:]
        _, pullback = vjp(fn, *primals)
        outputs = pullback.outputs
        cts = [_as_output_shape(ct, out) for ct, out in zip(given, outputs, strict=True)]
        return (*outputs, *pullback(*cts))

    symbol = name or f"{getattr(fn, '__name__', 'fn')}_vjp"
    labels = [*names, *(f"ct{i}" for i in range(len(ct_specs)))]
    return trace(combined, *specs, *ct_specs, name=symbol, labels=labels, location=where)


def _cotangent_spec(shape: Shape, dtype: DType) -> TensorSpec:
    """The declared type of the cotangent of an output of ``shape``: its
    constant extents and named axes, ``"?"`` for any other extent."""
    items: list[int | str] = []
    for extent in shape:
        expr = extent.expr if extent.is_exact else None
        if isinstance(expr, Const):
            items.append(expr.value)
        elif isinstance(expr, Sym) and not expr.name.startswith("_"):
            items.append(expr.name)
        else:
            items.append("?")
    return TensorSpec(items, dtype)


def _as_output_shape(ct: Tensor, out: Tensor) -> Tensor:
    """A cotangent argument with its output's shape (a reshape to the output's
    extents, checked at run time, where they are not the same names)."""
    if all(a == b for a, b in zip(ct.shape, out.shape, strict=True)):
        return ct
    trace: FunctionTrace = ct.trace
    for axis, (have, want) in enumerate(zip(ct.shape, out.shape, strict=True)):
        if have == want:
            continue
        equal = trace.ssa("i")
        trace.emit(f"{equal} = arith.cmpi eq, {trace.dim_index(ct, axis)}, "
                   f"{trace.materialize(want)} : index")
        trace.check(equal, f"cotangent axis {axis} must have the output's extent {want}",
                    user_location())
    return reshape(ct, list(out.shape))
