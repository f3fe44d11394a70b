"""Static shapes for one binding of the named axes (``symshape-specialize``).

An extent becomes static only when it is *exact* and a constant once the
bindings are substituted, dividing by zero nowhere; upper bounds and
unknown extents stay dynamic. :func:`specialize_module` rewrites every
entry function (one no ``func.call`` of the module calls) in place:

.. code-block:: mlir

    // bindings: batch = 32
    func.func @f(%x: tensor<?x64xf32> {symshape.axes = #symshape.shape<[batch, 64]>})
        -> tensor<?xf32> {
      %r = symshape.reshape %x to [batch * 64] : (tensor<?x64xf32>) -> tensor<?xf32>
      ...
    // becomes
    func.func @f(%arg0: tensor<32x64xf32> {symshape.axes = #symshape.shape<[32, 64]>})
        -> tensor<2048xf32> {
      %x = tensor.cast %arg0 : tensor<32x64xf32> to tensor<?x64xf32>
      %r = symshape.reshape %arg0 to [2048] : (tensor<32x64xf32>) -> tensor<2048xf32>
      ...
"""

from __future__ import annotations

import logging
import re
from collections.abc import Mapping, Sequence

from mlir import ir
from mlir.dialects import arith, tensor

from symshape_mlir.attributes import ExtentRangeError, kind_of, shape_attr, shape_from_attr
from symshape_mlir.dialects import symshape
from symshape_mlir.extent.context import is_fresh_name
from symshape_mlir.extent.errors import ExtentError
from symshape_mlir.extent.expr import (
    INT64_MAX,
    INT64_MIN,
    CeilDiv,
    Expr,
    FloorDiv,
    Mod,
    is_identifier,
)
from symshape_mlir.extent.guarantee import ShapeExtent
from symshape_mlir.inference import InferenceState
from symshape_mlir.walk import collect_ops, functions

__all__ = ["declared_axes", "parse_bindings", "specialize_module", "zero_divisor"]

logger = logging.getLogger(__name__)

_AXES_ATTR = "symshape.axes"
_BUCKET_ATTR = "symshape.bucket"
_DYNAMIC = ir.ShapedType.get_dynamic_size()
_SYMSHAPE_PREFIX = "symshape."
# Discardable annotations (symshape.shape, symshape.value): left as recorded.
_ANNOTATION_PREFIX = "symshape."
# Ops that already are constants: nothing to replace.
_CONSTANT_OPS = frozenset({"arith.constant", "symshape.const"})
_DIVISIONS = (FloorDiv, CeilDiv, Mod)


def parse_bindings(text: str) -> tuple[dict[str, int], list[str]]:
    """Parses axis bindings such as ``batch=32, seq=128``.

    Args:
        text: Comma-separated ``NAME=VALUE`` entries (spaces around entries,
            names and values are ignored; an empty text binds nothing).

    Returns:
        The bindings, and one message per problem (a malformed entry, a name
        that is not an identifier, a value that is not an integer or is
        negative, a name bound twice). Entries with a problem are left out.
    """
    bindings: dict[str, int] = {}
    problems: list[str] = []
    if not text.strip():
        return bindings, problems
    for raw in text.split(","):
        entry = raw.strip()
        name, equals, value_text = (part.strip() for part in entry.partition("="))
        if not equals:
            problems.append(f"entry '{entry}' is not NAME=VALUE")
            continue
        if not is_identifier(name) or is_fresh_name(name):
            problems.append(f"entry '{entry}': '{name}' is not an axis name")
            continue
        if re.fullmatch(r"-?[0-9]+", value_text) is None:
            problems.append(f"entry '{entry}': '{value_text}' is not an integer")
            continue
        value = int(value_text)
        if value < 0:
            problems.append(f"axis '{name}' is bound to {value}: extents are non-negative")
            continue
        if value > INT64_MAX:
            problems.append(f"axis '{name}' is bound to {value}: beyond the int64 range")
            continue
        if name in bindings:
            problems.append(f"axis '{name}' is bound twice (to {bindings[name]} and {value})")
            continue
        bindings[name] = value
    return bindings, problems


def declared_axes(module: ir.Operation) -> frozenset[str]:
    """The axis names the module's functions declare in argument ``symshape.axes``."""
    names: set[str] = set()
    for func in functions(module):
        if "arg_attrs" not in func.attributes:
            continue
        for attrs in ir.ArrayAttr(func.attributes["arg_attrs"]):
            attrs = ir.DictAttr(attrs)
            if _AXES_ATTR in attrs:
                for extent in shape_from_attr(attrs[_AXES_ATTR]):
                    names.update(n for n in extent.free_symbols if not is_fresh_name(n))
    return frozenset(names)


def specialize_module(
    module: ir.Operation, state: InferenceState, bindings: Mapping[str, int]
) -> list[tuple[ir.Operation, str]]:
    """Specializes every entry function of ``module`` in place under ``bindings``.

    Args:
        module: The module; its functions are entries unless a ``func.call`` calls them.
        state: Inference of ``module`` as it is now.
        bindings: Axis values, each name declared by some ``symshape.axes``.

    Returns:
        One ``(op, message)`` per extent the bindings make invalid (a division
        by zero, an int64 overflow); the extent is left as it was.
    """
    problems: list[tuple[ir.Operation, str]] = []
    called = _called_functions(module)
    for func in functions(module):
        symbol = ir.StringAttr(func.attributes["sym_name"]).value
        if symbol in called:
            logger.debug("@%s is called inside the module: left dynamic", symbol)
            continue
        _FunctionSpecializer(func, state, bindings, problems).run()
    return problems


def _called_functions(module: ir.Operation) -> set[str]:
    return {
        ir.FlatSymbolRefAttr(op.attributes["callee"]).value
        for op in collect_ops(module, lambda o: o.name == "func.call")
    }


def zero_divisor(expr: Expr, bindings: Mapping[str, int]) -> Expr | None:
    """A division (``floordiv``, ``ceildiv``, ``mod``) of ``expr`` whose divisor is 0
    under ``bindings``, or None.

    Substituting can hide such a division (``(n floordiv n) * n`` becomes 0 at
    ``n = 0``): callers check this before trusting a substituted constant.
    """
    stack, seen = [expr], set()
    while stack:
        node = stack.pop()
        if node in seen:
            continue
        seen.add(node)
        if isinstance(node, _DIVISIONS):
            try:
                divisor = node.children[1].substitute(bindings).const_value
            except ExtentError:
                divisor = None
            if divisor == 0:
                return node
        stack.extend(node.children)
    return None


def _constant(extent: ShapeExtent | None, bindings: Mapping[str, int]) -> int | None:
    """The value of an exact extent that is constant under ``bindings``, else None.

    An extent that divides by zero under the bindings is not constant: it
    stays dynamic and fails at run time, where the division is guarded. Nor
    is one beyond int64: it stays computed, and lowering reports the
    overflow at the user's op.
    """
    if extent is None or not extent.is_exact or extent.expr is None:
        return None
    try:
        value = extent.expr.substitute(bindings).const_value
    except ExtentError:
        return None
    if (value is None or not INT64_MIN <= value <= INT64_MAX
            or zero_divisor(extent.expr, bindings) is not None):
        return None
    return value


def _static_type(
    type_: ir.Type, shape: Sequence[ShapeExtent] | None, bindings: Mapping[str, int]
) -> ir.RankedTensorType | None:
    """``type_`` with the dynamic dims that become constant made static; None if none do."""
    if not isinstance(type_, ir.RankedTensorType) or shape is None or len(shape) != type_.rank:
        return None
    dims = list(type_.shape)
    changed = False
    for axis, dim in enumerate(dims):
        if dim != _DYNAMIC:
            continue
        value = _constant(shape[axis], bindings)
        if value is not None and value >= 0:
            dims[axis] = value
            changed = True
    if not changed:
        return None
    return ir.RankedTensorType.get(dims, type_.element_type, type_.encoding)


class _FunctionSpecializer:
    """Specializes one entry function (see :func:`specialize_module`)."""

    def __init__(
        self,
        func: ir.Operation,
        state: InferenceState,
        bindings: Mapping[str, int],
        problems: list[tuple[ir.Operation, str]],
    ) -> None:
        self.problems = problems
        self.func = func
        self.state = state
        self.bindings = bindings
        self.block = func.regions[0].blocks[0]
        #: The static value behind each ``tensor.cast`` back to a dynamic type
        #: that this pass inserted.
        self.static_of: dict[ir.Value, ir.Value] = {}

    def run(self) -> None:
        ops = self._body_ops()
        with self.func.context, self.func.location:
            type_attr = ir.TypeAttr(self.func.attributes["function_type"])
            function_type = ir.FunctionType(type_attr.value)
            # Results first: their facts are those of the returned values,
            # which may be arguments about to be replaced by their casts.
            results = self._specialize_results(list(function_type.results))
            inputs = self._specialize_arguments(list(function_type.inputs))
            if inputs is not None or results is not None:
                self.func.attributes["function_type"] = ir.TypeAttr.get(
                    ir.FunctionType.get(
                        inputs if inputs is not None else list(function_type.inputs),
                        results if results is not None else list(function_type.results),
                    )
                )
            self._substitute_axes()
            for op in ops:
                self._substitute_payload(op)
                self._specialize_op(op)

    def _body_ops(self) -> list[ir.Operation]:
        """Every op of the body (nested ones too), collected before any change."""
        return collect_ops(self.func, lambda op: op != self.func)

    def _specialize_arguments(self, inputs: list[ir.Type]) -> list[ir.Type] | None:
        changed = False
        for index, arg in enumerate(self.block.arguments):
            old = arg.type
            new = _static_type(old, self.state.facts_of(arg).shape, self.bindings)
            if new is None:
                continue
            arg.set_type(new)
            with ir.InsertionPoint.at_block_begin(self.block), self.func.location:
                cast = tensor.CastOp(old, arg)
            arg.replace_all_uses_except(cast.result, cast.operation)
            self.static_of[cast.result] = arg
            inputs[index] = new
            changed = True
        return inputs if changed else None

    def _returns(self) -> list[ir.Operation]:
        return [
            op.operation
            for block in self.func.regions[0].blocks
            for op in block.operations
            if op.operation.name == "func.return"
        ]

    def _specialize_results(self, results: list[ir.Type]) -> list[ir.Type] | None:
        returns = self._returns()
        if not returns:
            return None
        changed = False
        for index, old in enumerate(results):
            candidates = {
                _static_type(old, self.state.facts_of(ret.operands[index]).shape, self.bindings)
                for ret in returns
            }
            if len(candidates) != 1:
                continue
            new = candidates.pop()
            if new is None:
                continue
            for ret in returns:
                with ir.InsertionPoint(ret), ret.location:
                    cast = tensor.CastOp(new, ret.operands[index])
                ret.operands[index] = cast.result
            results[index] = new
            changed = True
        return results if changed else None

    def _substitute_shape(self, attr: ir.Attribute, where: ir.Operation, what: str
                          ) -> ir.Attribute:
        """``attr`` (a ``#symshape.shape``) with the bound names replaced by their values.

        An extent that divides by zero under the bindings is an error: the
        value the algebra would give it (``0 * (0 floordiv 0)`` is 0) would
        hide the division from the program.
        """
        extents = shape_from_attr(attr)
        for index, extent in enumerate(extents):
            division = None if extent.expr is None else zero_divisor(extent.expr, self.bindings)
            if division is not None:
                self.problems.append((
                    where,
                    f"{what} extent {index} '{extent.expr}' divides by zero under the bindings "
                    f"({_format_bindings(self.bindings)}): '{division}'",
                ))
                return attr
        substituted = tuple(e.substitute(self.bindings) for e in extents)
        if substituted == extents:
            return attr
        try:
            return shape_attr(substituted, self.func.context)
        except ExtentRangeError as error:
            bound = _format_bindings(self.bindings)
            self.problems.append((where, f"{what} under the bindings ({bound}): {error}"))
            return attr

    def _substitute_axes(self) -> None:
        """Replaces bound names by their values in the arguments' ``symshape.axes``
        and drops them from the function's ``symshape.bucket``."""
        if "arg_attrs" not in self.func.attributes:
            return
        entries = []
        changed = False
        for attrs in ir.ArrayAttr(self.func.attributes["arg_attrs"]):
            named = {a.name: a.attr for a in ir.DictAttr(attrs)}
            if _AXES_ATTR in named:
                new = self._substitute_shape(named[_AXES_ATTR], self.func, _AXES_ATTR)
                changed = changed or new != named[_AXES_ATTR]
                named[_AXES_ATTR] = new
            entries.append(ir.DictAttr.get(named))
        if changed:
            self.func.attributes["arg_attrs"] = ir.ArrayAttr.get(entries)
        if _BUCKET_ATTR in self.func.attributes:
            kept = [a for a in ir.ArrayAttr(self.func.attributes[_BUCKET_ATTR])
                    if ir.StringAttr(a).value not in self.bindings]
            if kept:
                self.func.attributes[_BUCKET_ATTR] = ir.ArrayAttr.get(kept)
            else:
                del self.func.attributes[_BUCKET_ATTR]

    def _substitute_payload(self, op: ir.Operation) -> None:
        """Replaces bound names by their values in the op's shape attributes (targets, sizes)."""
        for name in list(op.attributes):
            if name.startswith(_ANNOTATION_PREFIX):
                continue  # what inference recorded before: kept for check-guarantees
            attr = op.attributes[name]
            if kind_of(attr) == "shape":
                new = self._substitute_shape(attr, op, f"'{op.name}' {name}")
                if new != attr:
                    op.attributes[name] = new

    def _specialize_op(self, op: ir.Operation) -> None:
        if op.name in _CONSTANT_OPS:
            return
        symshape_op = op.name.startswith(_SYMSHAPE_PREFIX)
        if symshape_op:
            # Our own ops take static operands and results as they are: their
            # lowering then sees the static types directly.
            for index, operand in enumerate(op.operands):
                static = self.static_of.get(operand)
                if static is not None:
                    op.operands[index] = static
        for result in op.results:
            if result not in self.state.facts:
                continue
            # As known where the op is: a later unification's check runs later.
            facts = self.state.defined_facts(result)
            if isinstance(result.type, ir.IndexType) or symshape.is_extent_type(result.type):
                self._replace_value(op, result, facts.value)
            elif isinstance(result.type, ir.RankedTensorType):
                self._make_static(op, result, facts.shape, in_place=symshape_op)

    def _replace_value(self, op: ir.Operation, result: ir.Value, extent: ShapeExtent | None
                       ) -> None:
        value = _constant(extent, self.bindings)
        if value is None or not any(True for _ in result.uses):
            return
        with ir.InsertionPoint(op), op.location:
            if isinstance(result.type, ir.IndexType):
                constant = arith.ConstantOp(result.type, value).result
            else:
                # The generated op classes are star-imported: invisible to mypy.
                constant = symshape.ConstOp(result.type, value).result  # type: ignore[attr-defined]
        result.replace_all_uses_with(constant)

    def _make_static(self, op: ir.Operation, result: ir.Value,
                     shape: Sequence[ShapeExtent] | None, *, in_place: bool) -> None:
        """Gives ``result`` its static type: in place, or through a ``tensor.cast`` pair."""
        new = _static_type(result.type, shape, self.bindings)
        if new is None or not any(True for _ in result.uses):
            return
        old = result.type
        with ir.InsertionPoint.after(op), op.location:
            if in_place:
                result.set_type(new)
                static = result
                back = tensor.CastOp(old, result)
                keep = back.operation
            else:
                to_static = tensor.CastOp(new, result)
                static = to_static.result
                back = tensor.CastOp(old, static)
                keep = to_static.operation
        result.replace_all_uses_except(back.result, keep)
        self.static_of[back.result] = static


def _format_bindings(bindings: Mapping[str, int]) -> str:
    return ", ".join(f"{name} = {value}" for name, value in bindings.items())
