"""Shape rules of ``linalg`` ops.

Every linalg op here is in destination-passing style: result ``i`` has the
shape of init ``i``. The rules also check that operand extents agree where
the op's indexing maps tie them to the same loop (a matmul's ``K``), and
report a :class:`ShapeInferenceError` when they provably differ.

.. code-block:: mlir

    %y = linalg.matmul ins(%x, %w : tensor<?x64xf32>, tensor<64x10xf32>)
                       outs(%init : tensor<?x10xf32>) -> tensor<?x10xf32>
    // [batch, 10], the shape of %init
"""

from __future__ import annotations

from mlir import ir

from symshape_mlir.extent.guarantee import ShapeExtent
from symshape_mlir.extent.prove import prove_eq
from symshape_mlir.inference.errors import ShapeInferenceError
from symshape_mlir.inference.facts import ValueFacts
from symshape_mlir.inference.registry import register
from symshape_mlir.inference.rules.common import with_origins
from symshape_mlir.inference.state import InferenceState

__all__: list[str] = []

Facts = list[ValueFacts | None]

_DPS_OPS = (
    "linalg.generic", "linalg.map", "linalg.reduce", "linalg.fill", "linalg.copy",
    "linalg.transpose", "linalg.broadcast", "linalg.matmul", "linalg.batch_matmul",
    "linalg.matvec", "linalg.vecmat", "linalg.dot", "linalg.softmax",
    "linalg.elementwise", "linalg.add", "linalg.sub", "linalg.mul", "linalg.div",
    "linalg.exp", "linalg.max", "linalg.min",
)


def _inits(op: ir.Operation) -> list[ir.Value]:
    operands = list(op.operands)
    results = len(op.results)
    return operands[len(operands) - results:] if results else []


def _maps(op: ir.Operation) -> list[ir.AffineMap] | None:
    if "indexing_maps" not in op.attributes:
        return None
    return [ir.AffineMapAttr(m).value for m in ir.ArrayAttr(op.attributes["indexing_maps"])]


_CONTRACTIONS = {
    # op: (lhs axis, rhs axis) pairs that must agree, counted from the end.
    "linalg.matmul": [(-1, -2)],
    "linalg.batch_matmul": [(-1, -2), (0, 0)],
    "linalg.matvec": [(-1, -1)],
    "linalg.vecmat": [(-1, -2)],
    "linalg.dot": [(-1, -1)],
}


def _check_agree(op: ir.Operation, state: InferenceState, what: str,
                 a: ShapeExtent, b: ShapeExtent) -> None:
    if a.is_exact and b.is_exact and \
            prove_eq(a.expr, b.expr, state.extents, fallback=False) is False:  # type: ignore[arg-type]
        raise ShapeInferenceError(op.location, f"'{op.name}' {what}: {a} vs {b}")


def _check_loops(op: ir.Operation, state: InferenceState) -> None:
    """Operand axes mapped to the same loop dimension must agree."""
    maps = _maps(op)
    if maps is None:
        return
    seen: dict[int, tuple[int, int, ShapeExtent]] = {}
    for index, (value, amap) in enumerate(zip(op.operands, maps)):
        if not isinstance(value.type, ir.RankedTensorType):
            continue
        shape = state.shape(value, op)
        for axis, result in enumerate(amap.results):
            if not isinstance(result, ir.AffineDimExpr):
                continue
            loop = result.position
            extent = shape[axis]
            if loop in seen:
                other_index, other_axis, other = seen[loop]
                _check_agree(op, state,
                             f"loop dimension {loop} has extent {other} on operand "
                             f"#{other_index} axis {other_axis} and {extent} on operand "
                             f"#{index} axis {axis}", other, extent)
            else:
                seen[loop] = (index, axis, extent)


@register(*_DPS_OPS)
def _destination_passing(op: ir.Operation, state: InferenceState) -> Facts:
    pairs = _CONTRACTIONS.get(op.name)
    if pairs is not None:
        lhs, rhs = (state.shape(v, op) for v in list(op.operands)[:2])
        for a, b in pairs:
            _check_agree(op, state, "contraction extents differ", lhs[a], rhs[b])
    _check_loops(op, state)
    return [with_origins(state.shape(v, op), state.origins(v)) for v in _inits(op)]
