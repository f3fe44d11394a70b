"""Shapes with named axes and the shape rules of the core op families: the
one source of shape semantics for inference, the frontend and the runtime.

* :func:`equality`, :func:`broadcastable` — the :class:`Verdict` on two
  extents that must agree (proven, refuted, two named axes, undecided, not
  exact); inference and the frontend each apply their policy to it;
* :class:`Shape` — exact rank, one :class:`~symshape_mlir.extent.ShapeExtent`
  per axis, named axes;
* :func:`broadcast_shapes` — numpy broadcasting with the symbolic policy
  documented in :mod:`symshape_mlir.shapes.broadcast`;
* :func:`matmul_shape`, :func:`reduce_shape`, :func:`reduce_all_shape`,
  :func:`unary_shape`, :func:`elementwise_shape`, :func:`concat_shape` — the
  op-family rules; reshape's ``-1`` (:mod:`~symshape_mlir.shapes.reshape`),
  slices and ranges (:mod:`~symshape_mlir.shapes.slices`), sliding
  windows (:mod:`~symshape_mlir.shapes.windows`) and gathers and scatters
  (:mod:`~symshape_mlir.shapes.gather`) in their own modules;
* :func:`extract_bindings` — axis bindings from concrete input shapes;
* :func:`unify_shapes` — name unification.

Example:
    >>> from symshape_mlir.shapes import broadcast_shapes
    >>> str(broadcast_shapes(["batch", 1, 512], [7, 512]))
    '[batch, 7, 512]'
"""

from symshape_mlir.shapes.bindings import extract_bindings
from symshape_mlir.shapes.broadcast import broadcast_shapes
from symshape_mlir.shapes.checks import ShapeCheck
from symshape_mlir.shapes.compare import Verdict, broadcastable, equality
from symshape_mlir.shapes.errors import (
    AxisBindingError,
    AxisConflictError,
    BroadcastError,
    ShapeError,
)
from symshape_mlir.shapes.rules import (
    concat_shape,
    elementwise_shape,
    matmul_shape,
    normalize_axes,
    reduce_all_shape,
    reduce_shape,
    unary_shape,
)
from symshape_mlir.shapes.shape import (
    Shape,
    ShapeItem,
    ShapeLike,
    as_shape,
    axis_name,
    is_placeholder,
)
from symshape_mlir.shapes.unify import unify_extents, unify_shapes

__all__ = [
    "AxisBindingError",
    "AxisConflictError",
    "BroadcastError",
    "Shape",
    "ShapeCheck",
    "ShapeError",
    "ShapeItem",
    "ShapeLike",
    "Verdict",
    "as_shape",
    "axis_name",
    "broadcast_shapes",
    "broadcastable",
    "concat_shape",
    "elementwise_shape",
    "equality",
    "extract_bindings",
    "is_placeholder",
    "matmul_shape",
    "normalize_axes",
    "reduce_all_shape",
    "reduce_shape",
    "unary_shape",
    "unify_extents",
    "unify_shapes",
]
