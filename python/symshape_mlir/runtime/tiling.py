"""Which static variants ``runtime.compile`` builds with ``--iree-opt-data-tiling``.

Data tiling lays out both operands of each contraction in tiles. For a
weight that IREE folds at compile time (a constant) this is free and the
tiled kernels are faster; for an activation it is a re-layout on every
call. So static variants (their weights not packed) get data tiling by
default exactly when the module convolves with constant kernels and no
contraction of it multiplies two activations (`tiles_static_variants`).
Measured ``onnxruntime time / ours`` on the static tier, one run with
interleaved rounds, off -> on:

- CNNs gain: mobilenet_v2 0.63/0.65/0.54/0.48 -> 0.92/0.76/0.70/0.61 at its
  four bindings, efficientnet at 4x128x128 0.62 -> 1.04, resnet 5.79 -> 6.89.
- Transformers lose (their scores and attention-weighted values multiply
  two activations): bert at 8x48 1.35 -> 0.82, whisper's encoder at batch 1
  1.23 -> 1.09, though both have constant weights and whisper convolves.
- Unless the constant weights carry nearly all the work: a static variant
  whose contractions with a constant operand do at least `TILED_WORK`
  multiply-adds and at least `TILED_SHARE` of all contractions' is tiled
  too (`tiles_by_work`, judged on the specialized module). One thread,
  off -> on: a 4-layer BERT of width 256 at 4x128 39.1 -> 34.8 ms, at 1x128
  11.1 -> 9.9 ms (92 % of its work on weights), GPT-2 of that size at 1x128
  11.3 -> 9.3 ms, Llama 8.75 -> 8.5 ms; a ViT of width 192 (85 %) went
  10.6 -> 11.3 ms, the zoo's tiny transformers (70-75 %, under 5 M) 2x slower.

Example: a module with

.. code-block:: mlir

    %w = arith.constant dense<...> : tensor<8x3x3x3xf32>
    %y = linalg.conv_2d_nchw_fchw ... ins(%x, %w : tensor<?x3x?x?xf32>, tensor<8x3x3x3xf32>)

and no other contraction is tiled; adding a ``linalg.batch_matmul`` of
``%q`` and ``%k`` (both computed from the function's arguments) turns it off.
"""

from __future__ import annotations

from mlir import ir

from symshape_mlir.frontend.ops.conv import NAMED_CONVOLUTIONS
from symshape_mlir.lowering.iree.contractions import contraction_macs
from symshape_mlir.walk import ArgumentFree, collect_ops, functions

__all__ = ["CONTRACTIONS", "TILED_SHARE", "TILED_WORK", "contraction_work", "tiles_by_work",
           "tiles_static_variants"]

#: Named contractions: each reads two operands it multiplies (and an init).
CONTRACTIONS = frozenset({
    "linalg.matmul", "linalg.batch_matmul", "linalg.matvec", "linalg.vecmat",
    "linalg.batch_matvec", "linalg.batch_vecmat", "linalg.dot", "linalg.batch_reduce_matmul",
})

# Named convolutions (pools read no weights).
_CONVOLUTIONS = frozenset(op for op in NAMED_CONVOLUTIONS if "pooling" not in op)
_PRODUCTS = frozenset({"arith.mulf", "arith.muli"})

#: Multiply-adds of contractions with a constant operand from which a static
#: variant may be tiled whatever else it contracts (`tiles_by_work`).
TILED_WORK = 50_000_000
#: Their least share of all contractions' multiply-adds.
TILED_SHARE = 0.9


def tiles_static_variants(module: ir.Module | ir.Operation) -> bool:
    """Whether static variants of ``module`` are compiled with data tiling
    when the caller leaves it to the runtime (see the module docstring): a
    convolution's kernel is computed from constants only, and no
    contraction (a named one, or a ``linalg.generic`` with a reduction loop
    that multiplies its two inputs) reads two values computed from the
    function's arguments."""
    convolves = False
    for func in functions(module.operation):
        constant = ArgumentFree(func)
        for op in collect_ops(func, lambda op: op.name in _CONVOLUTIONS):
            convolves = convolves or constant(op.operands[1])
        for op in collect_ops(func, _is_contraction):
            if not any(constant(operand) for operand in list(op.operands)[:2]):
                return False
    return convolves


def _is_contraction(op: ir.Operation) -> bool:
    """A named contraction, or a generic that reduces the product of its two inputs."""
    if op.name in CONTRACTIONS:
        return True
    if op.name != "linalg.generic":
        return False
    inputs = ir.DenseI32ArrayAttr(op.attributes["operandSegmentSizes"])[0]
    iterators = [str(a) for a in ir.ArrayAttr(op.attributes["iterator_types"])]
    if inputs != 2 or not any("reduction" in a for a in iterators):
        return False
    body = op.regions[0].blocks[0]
    return any(inner.operation.name in _PRODUCTS for inner in body.operations)


def contraction_work(module: ir.Module | ir.Operation) -> tuple[int, int] | None:
    """Multiply-adds of the module's contractions: those with an operand
    computed from constants only, and the others; None when a contraction
    has a dynamic size.

    A contraction's multiply-adds are the product of its loop ranges
    (`~symshape_mlir.lowering.iree.contractions.contraction_macs`).

    Example: ``linalg.matmul ins(%x, %w : tensor<128x256xf32>,
    tensor<256x1024xf32>)`` with ``%w`` a constant counts 128 * 1024 * 256
    towards the first number.
    """
    weighted = other = 0
    for func in functions(module.operation):
        constant = ArgumentFree(func)
        for op in collect_ops(func, _is_contraction):
            work = contraction_macs(op)
            if work is None:
                return None
            if any(constant(operand) for operand in list(op.operands)[:2]):
                weighted += work
            else:
                other += work
    return weighted, other


def tiles_by_work(module: ir.Module | ir.Operation) -> bool:
    """Whether a specialized module's contractions with constant operands
    do at least `TILED_WORK` multiply-adds and `TILED_SHARE` of all (see
    the module docstring)."""
    work = contraction_work(module)
    if work is None:
        return False
    weighted, other = work
    return weighted >= TILED_WORK and weighted >= TILED_SHARE * (weighted + other)

