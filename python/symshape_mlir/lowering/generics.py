"""Building ``linalg.generic`` ops: any one from its maps, iterators and a
body over its operands' elements (`generic`), and two all-parallel kinds,
element-wise copies and bodies computed from the iteration indices.

The all-parallel ones write a fresh ``tensor.empty`` of the result's sizes:

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

__all__ = ["generic", "generic_copy", "generic_from_body"]


def generic(inputs: Sequence[ir.Value], init: ir.Value, maps: Sequence[ir.AffineMap],
            iterators: Sequence[ir.Attribute], body: Callable[..., ir.Value]) -> ir.Value:
    """A ``linalg.generic`` reading ``inputs`` into ``init`` through ``maps``
    (one per input, then the init's) over loops of ``iterators``; ``body``
    gets the block's arguments (each input's element, then the init's) and
    returns the value yielded."""
    generic_op = linalg.GenericOp([init.type], list(inputs), [init],
                                  ir.ArrayAttr.get([ir.AffineMapAttr.get(m) for m in maps]),
                                  list(iterators))
    block = generic_op.regions[0].blocks.append(
        *[ir.RankedTensorType(v.type).element_type for v in [*inputs, init]])
    with ir.InsertionPoint(block):
        linalg.YieldOp([body(*block.arguments)])
    return generic_op.results[0]


def generic_from_body(result_type: ir.RankedTensorType, sizes: Sequence[ir.Value | int],
                      body: Callable[..., ir.Value],
                      inputs: Sequence[ir.Value] = ()) -> ir.Value:
    """A ``linalg.generic`` over ``result_type`` whose body computes each element
    from the iteration indices (reading other tensors with ``tensor.extract``).

    ``body(indices, *elements)`` gets the indices and the element of each of
    ``inputs`` at them (each input has the result's shape).
    """
    rank = result_type.rank
    init = tensor.empty(list(sizes), result_type.element_type)
    identity = ir.AffineMap.get_identity(rank)

    def indexed(*elements: ir.Value) -> ir.Value:
        indices = [linalg.IndexOp(ir.IntegerAttr.get(ir.IntegerType.get_signless(64), d)).result
                   for d in range(rank)]
        return body(indices, *elements[:len(inputs)])

    return generic(inputs, init, [identity] * (len(inputs) + 1),
                   [linalg.IteratorType.parallel] * rank, indexed)


def generic_copy(source: ir.Value, in_map: ir.AffineMap, result_type: ir.RankedTensorType,
                 sizes: Sequence[ir.Value | int]) -> ir.Value:
    """A ``linalg.generic`` that copies ``source`` through ``in_map``."""
    rank = result_type.rank
    init = tensor.empty(list(sizes), result_type.element_type)
    return generic([source], init, [in_map, ir.AffineMap.get_identity(rank)],
                   [linalg.IteratorType.parallel] * rank, lambda element, _: element)
