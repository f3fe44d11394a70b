"""What ``symshape-resolve{target=iree}`` adds for IREE: upper bounds as
hints, and shields around forms IREE 3.13 miscompiles (each ``shield_*``
function, and `merge_equal_elementwise`, names its IREE failure;
``test/py/test_iree_known_bugs.py`` keeps an upstream-only reproducer of
each).

IREE's ops are not registered in this MLIR, so they are built in generic
form, which ``iree-compile`` parses; the context must allow unregistered
dialects.

In the order ``symshape-resolve`` runs them:

* :mod:`~symshape_mlir.lowering.iree.hints`: constant upper bounds as
  ``util.assume.int`` hints (`insert_upper_bound_hints`);
* :mod:`~symshape_mlir.lowering.iree.casts`: checked casts to a static
  size (`shield_static_casts`);
* :mod:`~symshape_mlir.lowering.iree.captures`: the tensors loops start
  from (`shield_loop_inits`) and fills a loop or branch body reads
  (`shield_captured_tensors`);
* :mod:`~symshape_mlir.lowering.iree.reductions`: ops over an axis of
  extent 0 (`shield_empty_reductions`);
* :mod:`~symshape_mlir.lowering.iree.branches`: choices between dynamic
  tensors (`tie_branch_results`);
* :mod:`~symshape_mlir.lowering.iree.slices`: slices, element reads and
  insertions (`shield_reads_of_nothing`, `shield_slices_of_fills`,
  `shield_empty_slice_offsets`, `shield_read_offsets`,
  `shield_insertions`, `shield_gathered_sources`);
* :mod:`~symshape_mlir.lowering.iree.broadcasts`: broadcasts over extents
  of 1 (`shield_unit_broadcasts`);
* :mod:`~symshape_mlir.lowering.iree.reshapes`: run-time reshape sizes
  (`shield_reshape_sizes`) and the loop, branch or barrier results such
  reshapes read (`shield_reshape_sources`);
* :mod:`~symshape_mlir.lowering.iree.elementwise`: equal elementwise
  tensors (`merge_equal_elementwise`).

What several of them share: :mod:`~symshape_mlir.lowering.iree.barriers`
(barriers, ties to sizes, the op a value comes from) and
:mod:`~symshape_mlir.lowering.iree.folding` (what folds to a constant,
the operands of a slice).
"""

from __future__ import annotations

from symshape_mlir.lowering.iree.branches import tie_branch_results
from symshape_mlir.lowering.iree.broadcasts import shield_unit_broadcasts
from symshape_mlir.lowering.iree.captures import shield_captured_tensors, shield_loop_inits
from symshape_mlir.lowering.iree.casts import shield_static_casts
from symshape_mlir.lowering.iree.elementwise import merge_equal_elementwise
from symshape_mlir.lowering.iree.hints import insert_upper_bound_hints
from symshape_mlir.lowering.iree.layouts import convolutions_channels_last
from symshape_mlir.lowering.iree.reductions import shield_empty_reductions
from symshape_mlir.lowering.iree.reshapes import (
    shield_reshape_sizes,
    shield_reshape_sources,
)
from symshape_mlir.lowering.iree.slices import (
    shield_empty_slice_offsets,
    shield_gathered_sources,
    shield_insertions,
    shield_read_offsets,
    shield_reads_of_nothing,
    shield_slices_of_fills,
)

__all__ = [
    "convolutions_channels_last",
    "insert_upper_bound_hints",
    "merge_equal_elementwise",
    "shield_captured_tensors",
    "shield_empty_reductions",
    "shield_empty_slice_offsets",
    "shield_gathered_sources",
    "shield_insertions",
    "shield_loop_inits",
    "shield_read_offsets",
    "shield_reads_of_nothing",
    "shield_reshape_sizes",
    "shield_reshape_sources",
    "shield_slices_of_fills",
    "shield_static_casts",
    "shield_unit_broadcasts",
    "tie_branch_results",
]
