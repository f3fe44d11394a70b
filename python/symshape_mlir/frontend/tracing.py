"""Tracing Python functions into ``func.func`` ops and modules.

:func:`trace` runs a function once on traced tensors built from declared
inputs and returns a :class:`TracedFunction` (the MLIR text of the function,
the traced input and result shapes); :func:`trace_module` puts several
traced functions in one module (one ``iree-compile`` for all of them).

Example:
    >>> from symshape_mlir.frontend import Tensor, f32, trace
    >>> def scale(x):
    ...     return x * 2.0
    >>> traced = trace(scale, Tensor["batch", 64, f32])
    >>> [str(s) for s in traced.result_shapes]
    ['[batch, 64]']
    >>> module = traced.module                 # an mlir.ir.Module
"""

from __future__ import annotations

import inspect
import logging
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from mlir import ir

from symshape_mlir.context import new_context
from symshape_mlir.extent.expr import Const, Sym
from symshape_mlir.extent.guarantee import Exact, ShapeExtent
from symshape_mlir.frontend.dtypes import DType, i16, i64
from symshape_mlir.frontend.errors import FrontendError
from symshape_mlir.frontend.ops.constants import BLOB_ALIGNMENT
from symshape_mlir.frontend.ops.elementwise import astype
from symshape_mlir.frontend.source import SourceLocation
from symshape_mlir.frontend.tensor import Tensor, TensorSpec
from symshape_mlir.frontend.tracer import FunctionTrace, tensor_type, tracing
from symshape_mlir.shapes.shape import Shape
from symshape_mlir.walk import collect_ops

__all__ = ["TracedFunction", "input_specs", "module_text", "trace", "trace_module"]

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class TracedFunction:
    """One traced function.

    Attributes:
        name: the ``func.func`` symbol name.
        specs: the declared inputs.
        input_shapes: the traced shape of each input (``"?"`` axes are
            trace-local fresh symbols ``_dN``).
        result_shapes: the traced shape of each result.
        text: the ``func.func`` op as MLIR text.
        resources: blobs of its large constants, by ``dense_resource`` name.
        scalar_reads: per ``symshape.runtime_scalar`` in the function, in
            order, the ``(plus, minus)`` symbols its value is in the traced
            shapes (``plus - minus``: a run-time integer of unknown sign).
    """

    name: str
    specs: tuple[TensorSpec, ...]
    input_shapes: tuple[Shape, ...]
    result_shapes: tuple[Shape, ...]
    text: str
    resources: tuple[tuple[str, np.ndarray], ...] = ()
    scalar_reads: tuple[tuple[str, str], ...] = ()

    @property
    def planned(self) -> bool:
        """Whether every result extent is exact, so the runtime can plan it before a call.

        A function returning an upper-bound extent must be compiled with
        ``unplanned=[name]`` (see :func:`symshape_mlir.runtime.compile`).
        """
        return all(e.is_exact for shape in self.result_shapes for e in shape)

    @property
    def module_text(self) -> str:
        """A module holding only this function, as MLIR text."""
        return module_text([self])

    @property
    def module(self) -> ir.Module:
        """A module holding only this function (parsed in a fresh context)."""
        return trace_module([self])


def _symbol_name(name: str) -> str:
    cleaned = re.sub(r"[^A-Za-z0-9_]", "_", name)
    return cleaned if cleaned and not cleaned[0].isdigit() else f"f_{cleaned}"


def _function_location(fn: Callable[..., Any]) -> SourceLocation:
    code = getattr(fn, "__code__", None)
    if code is None:
        return SourceLocation("<unknown>", 0)
    return SourceLocation(code.co_filename, code.co_firstlineno, 1)


def input_specs(fn: Callable[..., Any]) -> tuple[TensorSpec, ...]:
    """The inputs declared by ``fn``'s parameter annotations (``x: Tensor[...]``).

    Raises:
        FrontendError: a parameter without a ``Tensor[...]`` annotation.
    """
    annotations = inspect.get_annotations(fn, eval_str=True)
    specs: list[TensorSpec] = []
    for name in inspect.signature(fn).parameters:
        spec = annotations.get(name)
        if not isinstance(spec, TensorSpec):
            raise FrontendError(
                f"parameter {name!r} of {fn.__qualname__} needs an annotation Tensor[...] "
                f"(or pass the input types explicitly)"
            )
        specs.append(spec)
    return tuple(specs)


def _argument(trace: FunctionTrace, index: int, label: str, spec: TensorSpec) -> Tensor:
    if spec.dtype.is_unsigned and not spec.rank:
        raise FrontendError(
            f"input {index} ({label}) is a 0-d {spec.dtype}: IREE 3.13 does not compile 0-d "
            "unsigned inputs; declare it a signed type (i16, i64)")
    # The dialect's `symshape.axes` holds exact extents only. An argument with
    # no named axis gets no attribute (its type says the static extents), so
    # its "?" axes are unnamed (fresh) symbols; one mixing names and "?" names
    # its "?" axes `<parameter>_<axis>`.
    named = any(isinstance(item, str) and item != "?" for item in spec.axes)
    dims: list[ShapeExtent] = []
    declared: list[str] = []
    for axis, item in enumerate(spec.axes):
        if isinstance(item, int):
            dims.append(Exact(Const(item)))
            declared.append(str(item))
            continue
        if item == "?" and not named:
            dims.append(Exact(trace.fresh_symbol()))
            continue
        name = f"{label}_{axis}" if item == "?" else item
        trace.named_axes.add(name)
        dims.append(Exact(Sym(name)))
        declared.append(name)
    value = f"%arg{index}"
    shape = Shape(dims)
    attribute = ""
    if named:
        attribute = f" {{symshape.axes = #symshape.shape<[{', '.join(declared)}]>}}"
    trace.arguments.append((value, tensor_type(shape, spec.dtype, abi=True), attribute))
    if spec.dtype.is_unsigned:
        # Unsigned at the boundary, signless inside (arith takes signless integers).
        value = _bitcast(trace, value, shape, spec.dtype, False, _argument_location(trace))
    return Tensor(trace, value, shape, spec.dtype)


def _labels(fn: Callable[..., Any], count: int) -> list[str]:
    try:
        names = list(inspect.signature(fn).parameters)
    except (TypeError, ValueError):
        names = []
    if len(names) != count or not all(n.isidentifier() for n in names):
        return [f"arg{i}" for i in range(count)]
    return names


def trace(
    fn: Callable[..., Any],
    *specs: TensorSpec,
    name: str | None = None,
    contract: str = "reject",
    labels: Sequence[str] | None = None,
    location: SourceLocation | None = None,
    pass_trace: bool = False,
    bucket: Sequence[str] = (),
) -> TracedFunction:
    """Traces ``fn`` on inputs of the declared types.

    Args:
        fn: the function; it takes one traced tensor per input and returns
            a tensor or a tuple of tensors.
        *specs: the input types; by default ``fn``'s annotations.
        name: the function's symbol name (``fn.__name__`` by default).
        contract: ``"reject"``: an upper bound used as a reshape or broadcast
            target is a trace error; ``"defer"``: it is traced, and the
            compiled module checks it at run time.
        labels: the inputs' names, for axes named after them
            (``fn``'s parameter names by default).
        location: the function's location (``fn``'s first line by default).
        pass_trace: call ``fn`` with the :class:`FunctionTrace` before the
            inputs, for callers that build ops from no input (constants of
            an imported graph without inputs).
        bucket: named input axes the runtime may pad with zeros up to a
            power of two (``symshape.bucket``; results are sliced back). Only
            sound where the function treats positions along the axis
            independently: nothing reduces, normalizes, concatenates, sorts
            or reshapes across it.

    Raises:
        FrontendError, ContractError, ShapeError: from the traced ops, each
            naming the op and the Python line.
    """
    if not specs and not pass_trace:
        specs = input_specs(fn)
    symbol = _symbol_name(name or str(getattr(fn, "__name__", "traced")))
    if contract not in ("reject", "defer"):
        raise ValueError(f"contract must be 'reject' or 'defer', got {contract!r}")
    state = FunctionTrace(symbol, defer=contract == "defer",
                          location=location or _function_location(fn))
    if labels is None or len(labels) != len(specs):
        labels = _labels(fn, len(specs))
    where = location or _function_location(fn)
    with tracing(state):
        args = [_argument(state, i, labels[i], spec) for i, spec in enumerate(specs)]
        attributes = _bucket_attribute(bucket, state.named_axes)
        returned = fn(state, *args) if pass_trace else fn(*args)
        results = list(returned) if isinstance(returned, tuple | list) else [returned]
        for index, result in enumerate(results):
            if not isinstance(result, Tensor) or result.trace is not state:
                name = getattr(fn, "__qualname__", symbol)
                raise FrontendError(
                    f"{name} returned {_preview(result)} as result {index}; expected traced "
                    "tensors of this function (a constant is fe.array(value))")
        results = [_returned(r, where) for r in results]
        values = ", ".join(_boundary_value(state, r, where) for r in results)
    types = ", ".join(tensor_type(r.shape, r.dtype, abi=True) for r in results)
    returns = f"func.return {values} : {types}" if results else "func.return"
    signature = ", ".join(f"{v}: {t}{a}" for v, t, a in state.arguments)
    body = "\n".join(f"    {line}" for line in [*state.lines, f"{returns} {where.mlir}"])
    text = (f"  func.func @{symbol}({signature}) -> ({types}){attributes} {{\n{body}\n"
            f"  }} {where.mlir}")
    return TracedFunction(
        symbol,
        tuple(specs),
        tuple(a.symbolic_shape for a in args),
        tuple(r.symbolic_shape for r in results),
        text,
        tuple(state.resources.items()),
        tuple(state.scalar_reads),
    )


def _returned(result: Tensor, where: SourceLocation) -> Tensor:
    """``result`` as the function returns it: a 0-d unsigned tensor as the next
    wider signed type (IREE 3.13 does not compile a 0-d unsigned result)."""
    if result.ndim or not result.dtype.is_unsigned:
        return result
    return astype(result, i16 if result.dtype.bits < 16 else i64, where)


def _boundary_value(trace: FunctionTrace, result: Tensor, where: SourceLocation) -> str:
    """The SSA value returning ``result``: unsigned at the boundary."""
    if not result.dtype.is_unsigned:
        return result.value
    return _bitcast(trace, result.value, result.symbolic_shape, result.dtype, True, where)


def _bitcast(trace: FunctionTrace, value: str, shape: Shape, dtype: DType, to_abi: bool,
             where: SourceLocation) -> str:
    """``tensor.bitcast`` between the signless and the unsigned type of ``dtype``."""
    types = [tensor_type(shape, dtype), tensor_type(shape, dtype, abi=True)]
    source, target = types if to_abi else types[::-1]
    name = trace.ssa("u")
    trace.emit(f"{name} = tensor.bitcast {value} : {source} to {target}", where)
    return name


def _argument_location(trace: FunctionTrace) -> SourceLocation:
    """Where ops on the arguments themselves are located: the function's line."""
    return trace.location or SourceLocation("<unknown>", 0)


def _preview(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _bucket_attribute(bucket: Sequence[str], named: set[str]) -> str:
    """`` attributes {symshape.bucket = [...]}`` for ``bucket`` (empty: none).

    Raises:
        FrontendError: a name that is no named input axis, or one given twice.
    """
    if isinstance(bucket, str):
        raise FrontendError(f"bucket must be a sequence of axis names, got {bucket!r}")
    for name in bucket:
        if name not in named:
            known = ", ".join(sorted(named)) or "none"
            raise FrontendError(
                f"bucket axis {name!r} is not a named axis of the inputs (named: {known})")
    if len(set(bucket)) != len(bucket):
        raise FrontendError(f"bucket names an axis twice: {list(bucket)}")
    if not bucket:
        return ""
    names = ", ".join(f'"{name}"' for name in bucket)
    return f" attributes {{symshape.bucket = [{names}]}}"


def _checked(functions: Iterable[TracedFunction]) -> tuple[str, dict[str, np.ndarray]]:
    """The MLIR text of a module holding ``functions`` without their constants'
    blobs, and the blobs by resource name.

    Raises:
        FrontendError: two functions or two blobs with one name.
    """
    functions = list(functions)
    names = [f.name for f in functions]
    if len(set(names)) != len(names):
        raise FrontendError(f"function names repeat: {names}")
    blobs = {name: blob for f in functions for name, blob in f.resources}
    if len(blobs) != sum(len(f.resources) for f in functions):
        raise FrontendError("constant resource names repeat across functions")
    return "module {\n" + "\n".join(f.text for f in functions) + "\n}\n", blobs


def module_text(functions: Iterable[TracedFunction]) -> str:
    """The MLIR text of a module holding ``functions``, their constants' blobs in its
    ``dialect_resources`` section (for files and tools; `trace_module` builds the
    module without writing the blobs as text)."""
    text, blobs = _checked(functions)
    if blobs:
        # A blob is its alignment (a little-endian uint32) then the bytes.
        alignment = BLOB_ALIGNMENT.to_bytes(4, "little").hex()
        entries = ",\n".join(
            f'      {name}: "0x{alignment}{blob.tobytes().hex()}"' for name, blob in blobs.items()
        )
        text += f"{{-#\n  dialect_resources: {{\n    builtin: {{\n{entries}\n    }}\n  }}\n#-}}\n"
    return text


#: What a blob's name is prefixed with in the text `trace_module` parses: the
#: parser makes a blob-less resource of that name, which the blob then replaces.
_PENDING = "symshape.pending."


def trace_module(
    functions: Sequence[TracedFunction], context: ir.Context | None = None
) -> ir.Module:
    """A module holding ``functions`` (in ``context`` or a fresh one).

    The ops are parsed from the traced text; each large constant's blob is
    wrapped as it is (``DenseResourceElementsAttr.get_from_buffer``, no copy
    and no hex text), so a model's weights cost no formatting or parsing:

        %k0 = arith.constant dense_resource<main_k0> : tensor<768x768xf32>
    """
    text, blobs = _checked(functions)
    if blobs:
        text = text.replace("dense_resource<", f"dense_resource<{_PENDING}")
    ctx = context or new_context()
    with ctx, ir.Location.unknown():
        module = ir.Module.parse(text)
        if blobs:
            _wrap_blobs(module, blobs)
    return module


def _wrap_blobs(module: ir.Module, blobs: dict[str, np.ndarray]) -> None:
    """Gives every constant that names a pending resource its blob from ``blobs``."""
    prefix = f"dense_resource<{_PENDING}"

    def pending(op: ir.Operation) -> bool:
        return op.name == "arith.constant" and str(op.attributes["value"]).startswith(prefix)

    for op in collect_ops(module.operation, pending):
        name = str(op.attributes["value"])[len(prefix):].split(">", 1)[0]
        op.attributes["value"] = ir.DenseResourceElementsAttr.get_from_buffer(
            blobs[name].reshape(-1).view(np.uint8), name, op.result.type,
            alignment=BLOB_ALIGNMENT)
