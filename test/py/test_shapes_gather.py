"""Shape rules of gathers and scatters (shapes/gather.py): constant and symbolic
extents, upper bounds passing through, and every error with its message."""

from collections.abc import Callable

import pytest

from symshape_mlir.extent import UpperBound, parse_expr
from symshape_mlir.shapes import Shape, ShapeError
from symshape_mlir.shapes.gather import (
    gather_nd_shape,
    gather_shape,
    put_along_axis_shape,
    scatter_nd_shape,
    take_along_axis_shape,
    take_shape,
)

_UB = UpperBound(parse_expr("n"))


@pytest.mark.parametrize(
    ("indices", "sizes", "collapsed", "result"),
    [
        ([4, 1], [1, 8], [0], "[4, 8]"),
        (["m", 1], [1, "d"], [0], "[m, d]"),
        (["b", "s", 2], [1, 1, "w"], [0, 1], "[b, s, w]"),
        ([_UB, 1], ["v", 3], [], "[ub(n), v, 3]"),
        ([3, 1], [1, "d"], [-2], "[3, d]"),
    ],
    ids=["constant", "symbolic", "two-collapsed", "kept-and-bound", "negative-axis"],
)
def test_gather(indices: list[object], sizes: list[object], collapsed: list[int],
                result: str) -> None:
    """The batch axes of the indices, then the slice sizes that are not collapsed."""
    assert str(gather_shape(indices, sizes, collapsed)) == result  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("a", "indices", "axis", "result"),
    [
        ([10, 4], [3], 0, "[3, 4]"),
        (["vocab", 64], ["batch", "seq"], 0, "[batch, seq, 64]"),
        (["b", "t", "d"], ["k"], 1, "[b, k, d]"),
        (["b", "t", "d"], [], -1, "[b, t]"),
        ([_UB, "d"], [2, 2], 1, "[ub(n), 2, 2]"),
    ],
    ids=["constant", "embedding", "middle", "scalar-index-negative-axis", "bound"],
)
def test_take(a: list[object], indices: list[object], axis: int, result: str) -> None:
    """``a``'s axes with ``axis`` replaced by the axes of the indices (numpy's ``take``)."""
    assert str(take_shape(a, indices, axis)) == result  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("a", "indices", "axis", "result"),
    [
        ([3, 4], [3, 9], 1, "[3, 9]"),
        (["batch", "seq"], ["batch", "k"], -1, "[batch, k]"),
        (["b", "t"], [1, "t"], 0, "[1, t]"),
        (["b", "t"], [_UB, 2], 1, "[ub(n), 2]"),
        (["b", 4], ["k", 2], 1, "[k, 2]"),
    ],
    ids=["constant", "symbolic", "shorter", "bound", "undecided-left-to-run-time"],
)
def test_take_along_axis(a: list[object], indices: list[object], axis: int,
                         result: str) -> None:
    """The indices' shape: along ``axis`` any extent; elsewhere none provably longer."""
    assert str(take_along_axis_shape(a, indices, axis)) == result  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("a", "indices", "batch_dims", "result"),
    [
        ([5, 6, 7], [4, 2], 0, "[4, 7]"),
        (["batch", "h", "w", 3], ["batch", "n", 2], 1, "[batch, n, 3]"),
        (["h", "w"], ["n", 2], 0, "[n]"),
        ([_UB, "w"], ["m", 1], 0, "[m, w]"),
    ],
    ids=["constant", "batch", "full-depth", "bound-indexed"],
)
def test_gather_nd(a: list[object], indices: list[object], batch_dims: int,
                   result: str) -> None:
    """``indices[:-1]`` then ``a``'s axes after the batch and indexed ones."""
    assert str(gather_nd_shape(a, indices, batch_dims)) == result  # type: ignore[arg-type]


def test_scatters_keep_the_data_shape() -> None:
    """Both scatters give the data's shape, bounds and names included."""
    data = Shape([_UB, "w", 4])
    assert scatter_nd_shape(data, ["k", 1], ["k", "w", 4]) == data
    assert scatter_nd_shape(data, ["k", 3], ["k"]) == data
    assert put_along_axis_shape(data, ["m", "w", 4], ["m", "w", 4], -3) == data


@pytest.mark.parametrize(
    ("rule", "message"),
    [
        (lambda: gather_shape([], [1, 2], [0]), "the indices must have rank 1 or more, not 0"),
        (lambda: gather_shape([3, 1], [1, 2], [2]), "axis 2 is out of range for rank 2"),
        (lambda: take_shape(["b", 4], [3], 2), "axis 2 is out of range for rank 2"),
        (lambda: take_shape([], [3], 0), "axis 0 is out of range for rank 0"),
        (lambda: take_along_axis_shape([3, 4], [3], 0), "indices have rank 1, not 2"),
        (lambda: take_along_axis_shape([3, 4], [2, 5], 0),
         "indices extent 5 along axis 1 exceeds 4"),
        (lambda: take_along_axis_shape(["b", 4], [parse_expr("b + 1"), 2], 1),
         "indices extent b + 1 along axis 0 exceeds b"),
        (lambda: take_along_axis_shape([3, 4], [3, 4], -3), "axis -3 is out of range for rank 2"),
        (lambda: gather_nd_shape([3, 4], [2, "k"]),
         "the last axis of the indices must have a constant extent"),
        (lambda: gather_nd_shape([3, 4], [2, _UB]),
         "the last axis of the indices must have a constant extent"),
        (lambda: gather_nd_shape([3, 4], [2, 3]), "3 indices after 0 batch axes do not fit rank 2"),
        (lambda: gather_nd_shape(["b", 4], ["b", 2], 2),
         "2 indices after 2 batch axes do not fit rank 2"),
        (lambda: gather_nd_shape(["b", 4, 4], ["b", 2], -1),
         "2 indices after -1 batch axes do not fit rank 3"),
        (lambda: scatter_nd_shape([3], [2, 2], [2]),
         "the last axis of the indices must have a constant extent from 1 to 1"),
        (lambda: scatter_nd_shape([3], [2, 0], [2, 3]),
         "the last axis of the indices must have a constant extent from 1 to 1"),
        (lambda: scatter_nd_shape([3, 4], ["k", "d"], ["k", 4]),
         "the last axis of the indices must have a constant extent from 1 to 2"),
        (lambda: scatter_nd_shape([3, 4], [2, 1], [2]),
         "updates have rank 1, not 2 (indices rank - 1 + data rank - 1)"),
        (lambda: put_along_axis_shape([3], [2, 1], [2, 1], 0),
         "data, indices and updates have ranks 1, 2 and 2, not one rank"),
        (lambda: put_along_axis_shape([3, 4], [2, 4], [2, 4], 2),
         "axis 2 is out of range for rank 2"),
    ],
    ids=["gather-rank-0", "gather-collapsed", "take-axis", "take-scalar", "along-rank",
         "along-extent", "along-symbolic-extent", "along-axis", "nd-symbolic-depth",
         "nd-bound-depth", "nd-depth", "nd-batch", "nd-negative-batch", "scatter-depth",
         "scatter-zero-depth", "scatter-symbolic-depth", "scatter-rank", "put-rank",
         "put-axis"],
)
def test_errors(rule: Callable[[], Shape], message: str) -> None:
    """Shapes a gather or scatter does not accept raise ShapeError with the reason."""
    with pytest.raises(ShapeError) as raised:
        rule()
    assert str(raised.value) == message
