"""What ``symshape-resolve{target=iree}`` adds for IREE: upper bounds as
hints, and shields around forms IREE 3.13 miscompiles or rejects.

:mod:`~symshape_mlir.lowering.iree.shields` holds every IREE workaround of
the compiler in one ordered table, :data:`SHIELDS`: each entry names its
phase, the IREE symptom, the strict-xfail reproducers in
``test/py/test_iree_known_bugs.py`` and the fuzzer findings it closed.
``symshape-resolve`` runs the entries of its phases in table order
(:func:`apply_shields`); one module per family makes them:

* :mod:`~symshape_mlir.lowering.iree.hints`: constant upper bounds as
  ``util.assume.int`` hints;
* :mod:`~symshape_mlir.lowering.iree.casts`: checked casts to a static size;
* :mod:`~symshape_mlir.lowering.iree.captures`: the tensors loops start
  from and fills a loop or branch body reads;
* :mod:`~symshape_mlir.lowering.iree.reductions`: ops over an axis of
  extent 0;
* :mod:`~symshape_mlir.lowering.iree.calls`: call operands with an axis
  of extent 0;
* :mod:`~symshape_mlir.lowering.iree.branches`: choices between dynamic
  tensors;
* :mod:`~symshape_mlir.lowering.iree.slices`: slices, element reads and
  insertions;
* :mod:`~symshape_mlir.lowering.iree.broadcasts`: broadcasts over extents
  of 1;
* :mod:`~symshape_mlir.lowering.iree.reshapes`: run-time reshape sizes and
  the loop, branch or barrier results such reshapes read;
* :mod:`~symshape_mlir.lowering.iree.contractions`: transposes of
  contraction results, kept out of the contraction's dispatch;
* :mod:`~symshape_mlir.lowering.iree.elementwise`: equal elementwise
  tensors;
* :mod:`~symshape_mlir.lowering.iree.layouts`: convolutions channels-last,
  :mod:`~symshape_mlir.lowering.iree.sinking` the transposes around them,
  :mod:`~symshape_mlir.lowering.iree.widths` their widths rounded up to
  whole tiles, :mod:`~symshape_mlir.lowering.iree.patches` those over
  dynamic spatial sizes as matrix products (the
  ``symshape-relayout-convolutions`` pass).

IREE's ops are not registered in this MLIR, so they are built in generic
form, which ``iree-compile`` parses; the context must allow unregistered
dialects:

.. code-block:: mlir

    %b = "util.optimization_barrier"(%t) : (tensor<?xf32>) -> tensor<?xf32>
    %s = "flow.tensor.tie_shape"(%b, %d) : (tensor<?xf32>, index) -> tensor<?xf32>

What several of them share: :mod:`~symshape_mlir.lowering.iree.barriers`
(barriers, ties to sizes, the op a value comes from) and
:mod:`~symshape_mlir.lowering.iree.folding` (what folds to a constant,
the operands of a slice).
"""

from __future__ import annotations

from symshape_mlir.lowering.iree.layouts import convolutions_channels_last
from symshape_mlir.lowering.iree.shields import (
    RESOLVE_PHASES,
    SHIELDS,
    Shield,
    ShieldInputs,
    apply_shields,
)

__all__ = [
    "RESOLVE_PHASES",
    "SHIELDS",
    "Shield",
    "ShieldInputs",
    "apply_shields",
    "convolutions_channels_last",
]
