"""Transposes of contraction results, kept out of the contraction's dispatch.

IREE 3.13 fuses a ``linalg.transpose`` into the contraction that makes its
input (through elementwise ops and reshapes: a bias, the split into heads)
by permuting the contraction's output map. The CPU backend then tiles and
vectorizes the contraction along the permuted output axes, and the kernel
runs at a fraction of its speed: attention's head merge after ``P·V``
(``[b, h, s, d] -> [b, s, h, d]``) and the key projection written
``[b, h, d, s]`` (BERT-base at 4 x 384, one thread: 29 and 52 ms against 16
and 20 ms unfused, and 0.9 ms for the transpose on its own). A barrier on
the transpose's input keeps the contraction in its natural layout; IREE
still fuses the transpose into its consumer, or runs it on its own:

.. code-block:: mlir

    %c = linalg.generic {... iterator_types = [..., "reduction"]}
        ins(%p, %v : ...) outs(%z : tensor<4x12x384x64xf32>) {...}
    %t = linalg.transpose ins(%c : tensor<4x12x384x64xf32>)
        outs(%e : tensor<4x384x12x64xf32>) permutation = [0, 2, 1, 3]
    // becomes
    %b = "iree_tensor_ext.compute_barrier.start"(%c)
        : (tensor<4x12x384x64xf32>) -> tensor<4x12x384x64xf32>
    %t = linalg.transpose ins(%b : tensor<4x12x384x64xf32>)
        outs(%e : tensor<4x384x12x64xf32>) permutation = [0, 2, 1, 3]

A dynamic input goes through the barrier with its sizes, so that IREE still
knows them (`~symshape_mlir.lowering.iree.barriers.unfused`). A contraction of
fewer than ``MIN_MACS`` multiply-adds (static sizes) keeps its transpose:
there the transpose's own dispatch costs more than the slower kernel
(BERT, GPT-2 and Llama test configs at 7 tokens: 10-14 us per call more
with the barrier, against 40-60 us).
"""

from __future__ import annotations

import math

from mlir import ir

from symshape_mlir.lowering.iree.barriers import chain, unfused
from symshape_mlir.walk import collect_ops

__all__ = ["MIN_MACS", "contraction_macs", "separate_contraction_transposes"]

#: The fewest multiply-adds of a contraction whose transpose is kept apart.
MIN_MACS = 1 << 20

# Named linalg contractions (the frontend and the importer write generics).
_NAMED = frozenset({
    "linalg.matmul", "linalg.batch_matmul", "linalg.batch_reduce_matmul", "linalg.matvec",
    "linalg.vecmat", "linalg.dot", "linalg.contract", "linalg.mmt4d",
})
# Ops IREE fuses between a contraction and the transpose of its result.
_RESHAPES = frozenset({"tensor.expand_shape", "tensor.collapse_shape"})
# How far back through elementwise ops and reshapes (casts are free) a
# contraction is looked for.
_DEPTH = 8


def _iterators(op: ir.Operation) -> list[str]:
    return [str(attr) for attr in ir.ArrayAttr(op.attributes["iterator_types"])]


def _inputs(op: ir.Operation) -> list[ir.Value]:
    count = int(ir.DenseI32ArrayAttr(op.attributes["operandSegmentSizes"])[0])
    return list(op.operands)[:count]


def _is_contraction(op: ir.Operation) -> bool:
    """A named contraction, or a ``linalg.generic`` with a reduction loop over
    two or more inputs whose body multiplies and adds."""
    if op.name in _NAMED:
        return True
    if op.name != "linalg.generic" or len(_inputs(op)) < 2:
        return False
    if not any("reduction" in it for it in _iterators(op)):
        return False
    body = {inner.name for inner in op.regions[0].blocks[0].operations}
    return bool(body & {"arith.mulf", "arith.muli"}) and bool(body & {"arith.addf",
                                                                       "arith.addi"})


def _static_shape(value: ir.Value) -> list[int]:
    """The shape of ``value``, each axis taken from the most static type
    among it and the sources of the casts it comes from (lowering casts
    static tensors to the dynamic types of the symbolic program)."""
    dynamic = ir.ShapedType.get_dynamic_size()
    shape = list(ir.RankedTensorType(value.type).shape)
    for source in chain(value)[1:]:
        other = ir.RankedTensorType(source.type).shape
        shape = [o if s == dynamic else s for s, o in zip(shape, other, strict=True)]
    return shape


def contraction_macs(op: ir.Operation) -> int | None:
    """The multiply-adds of a contraction: the product of its loop extents,
    read off its inputs (a named op's: its first input's shape times its
    second input's last axis); None where one is dynamic."""
    inputs = _inputs(op) if "operandSegmentSizes" in op.attributes else list(op.operands)[:2]
    shapes = [_static_shape(value) for value in inputs]
    if "indexing_maps" in op.attributes:
        extents: dict[int, int] = {}
        maps = [ir.AffineMapAttr(m).value for m in ir.ArrayAttr(op.attributes["indexing_maps"])]
        for shape, amap in zip(shapes, maps, strict=False):
            for axis, expr in enumerate(amap.results):
                if isinstance(expr, ir.AffineDimExpr):
                    extents[expr.position] = shape[axis]
        sizes = list(extents.values())
    else:
        sizes = [*shapes[0], *shapes[1][-1:]]
    if any(size == ir.ShapedType.get_dynamic_size() for size in sizes):
        return None
    return math.prod(sizes)


def _is_elementwise(op: ir.Operation) -> bool:
    return op.name == "linalg.generic" and all("parallel" in it for it in _iterators(op))


def _from_contraction(value: ir.Value, depth: int = _DEPTH) -> bool:
    """Whether ``value`` is the result of a contraction of at least
    ``MIN_MACS`` multiply-adds (or of dynamic size), or made of one by
    elementwise ops and reshapes (within ``depth`` of them) and casts."""
    value = chain(value)[-1]
    owner = value.owner
    if depth == 0 or not isinstance(owner, ir.OpView):
        return False
    if _is_contraction(owner.operation):
        macs = contraction_macs(owner.operation)
        return macs is None or macs >= MIN_MACS
    if owner.name in _RESHAPES:
        return _from_contraction(owner.operands[0], depth - 1)
    if _is_elementwise(owner.operation):
        return any(_from_contraction(v, depth - 1) for v in _inputs(owner.operation))
    return False


def separate_contraction_transposes(func: ir.Operation) -> int:
    """Puts a barrier on the input of each ``linalg.transpose`` that reads the
    result of a large contraction (see the module docstring); returns how
    many."""
    transposes = collect_ops(func, lambda op: op.name == "linalg.transpose"
                             and _from_contraction(op.operands[0]))
    for op in transposes:
        with ir.InsertionPoint(op), op.location:
            op.operands[0] = unfused(op.operands[0])
    return len(transposes)
