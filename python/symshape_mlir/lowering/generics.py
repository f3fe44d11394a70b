"""Building all-parallel ``linalg.generic`` ops: element-wise copies and
bodies computed from the iteration indices.

Both write a fresh ``tensor.empty`` of the result's sizes:

.. code-block:: mlir

    %init = tensor.empty(%n) : tensor<?x4xf32>
    %r = linalg.generic {indexing_maps = [#id], iterator_types = ["parallel", "parallel"]}
        outs(%init : tensor<?x4xf32>) {
    ^bb0(%out: f32):
      %i = linalg.index 0 : index
      %j = linalg.index 1 : index
      %v = tensor.extract %table[%row, %j] : tensor<?x4xf32>   // the body's choice
      linalg.yield %v : f32
    } -> tensor<?x4xf32>
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from mlir import ir
from mlir.dialects import linalg, tensor

__all__ = ["generic_copy", "generic_from_body"]


def generic_from_body(result_type: ir.RankedTensorType, sizes: Sequence[ir.Value | int],
                      body: Callable[..., ir.Value],
                      inputs: Sequence[ir.Value] = ()) -> ir.Value:
    """A ``linalg.generic`` over ``result_type`` whose body computes each element
    from the iteration indices (reading other tensors with ``tensor.extract``).

    ``body(indices, *elements)`` gets the indices and the element of each of
    ``inputs`` at them (each input has the result's shape).
    """
    rank = result_type.rank
    element = result_type.element_type
    init = tensor.empty(list(sizes), element)
    identity = ir.AffineMapAttr.get(ir.AffineMap.get_identity(rank))
    generic = linalg.GenericOp([result_type], list(inputs), [init],
                               ir.ArrayAttr.get([identity] * (len(inputs) + 1)),
                               [linalg.IteratorType.parallel] * rank)
    block = generic.regions[0].blocks.append(*[element] * (len(inputs) + 1))
    with ir.InsertionPoint(block):
        indices = [linalg.IndexOp(ir.IntegerAttr.get(ir.IntegerType.get_signless(64), d)).result
                   for d in range(rank)]
        linalg.YieldOp([body(indices, *list(block.arguments)[:len(inputs)])])
    return generic.results[0]


def generic_copy(source: ir.Value, in_map: ir.AffineMap, result_type: ir.RankedTensorType,
                 sizes: Sequence[ir.Value | int]) -> ir.Value:
    """A ``linalg.generic`` that copies ``source`` through ``in_map``."""
    rank = result_type.rank
    init = tensor.empty(list(sizes), result_type.element_type)
    maps = [ir.AffineMapAttr.get(in_map),
            ir.AffineMapAttr.get(ir.AffineMap.get_identity(rank))]
    generic = linalg.GenericOp([result_type], [source], [init], ir.ArrayAttr.get(maps),
                               [linalg.IteratorType.parallel] * rank)
    element = result_type.element_type
    block = generic.regions[0].blocks.append(element, element)
    with ir.InsertionPoint(block):
        linalg.YieldOp([block.arguments[0]])
    return generic.results[0]
