"""Shape rules of unary, reduction and matmul ops (seed 003, extended to symbols)."""

import pytest

from symshape_mlir.extent import ExtentContext, ShapeExtent, UpperBound, parse_expr
from symshape_mlir.shapes import (
    BroadcastError,
    Shape,
    ShapeError,
    concat_shape,
    elementwise_shape,
    matmul_shape,
    normalize_axes,
    reduce_all_shape,
    reduce_shape,
    unary_shape,
)
from symshape_mlir.shapes.errors import AxisConflictError


@pytest.mark.parametrize(
    "shape",
    [[], [3], ["batch", 512], [UpperBound(parse_expr("n")), 4]],
    ids=["scalar", "vector", "named", "upper_bound"],
)
def test_unary_keeps_shape(shape: list[object]) -> None:
    """A unary elementwise op returns its input shape."""
    assert unary_shape(shape) == Shape(shape)  # type: ignore[arg-type]


def test_binary_elementwise_broadcasts() -> None:
    """A binary elementwise op's shape is the broadcast of its inputs."""
    assert str(elementwise_shape(["batch", 1], [7])) == "[batch, 7]"


@pytest.mark.parametrize(
    "shape", [[], [1], [3, 4], ["batch", "seq", 512]], ids=["scalar", "one", "matrix", "symbolic"]
)
def test_full_reduction_is_rank_zero(shape: list[object]) -> None:
    """A full reduction gives rank 0, never [1]."""
    result = reduce_all_shape(shape)  # type: ignore[arg-type]
    assert result.rank == 0
    assert str(result) == "[]"


AXIS_REDUCTIONS = [
    ("first_axis", ["a", "b", "c"], [0], False, "[b, c]"),
    ("negative_axis", ["a", "b", "c"], [-1], False, "[a, b]"),
    ("several_axes", ["a", "b", "c"], [2, 0], False, "[b]"),
    ("keepdims", ["a", "b", "c"], [1], True, "[a, 1, c]"),
    ("all_axes", [3, 4], [0, 1], False, "[]"),
    ("no_axes", [3, 4], [], False, "[3, 4]"),
]


@pytest.mark.parametrize(
    ("shape", "axes", "keepdims", "result"),
    [r[1:] for r in AXIS_REDUCTIONS],
    ids=[r[0] for r in AXIS_REDUCTIONS],
)
def test_axis_reduction(shape: list[object], axes: list[int], keepdims: bool, result: str) -> None:
    """Axis reductions remove (or keep as 1) the normalized axes."""
    assert str(reduce_shape(shape, axes, keepdims=keepdims)) == result  # type: ignore[arg-type]


AXIS_ERRORS = [
    ("too_large", [3, 4], [2], ShapeError, "axis 2 is out of range for rank 2"),
    ("too_negative", [3, 4], [-3], ShapeError, "axis -3 is out of range for rank 2"),
    ("duplicate", [3, 4], [1, 1], ShapeError, "axis 1 repeats axis 1"),
    ("duplicate_after_normalizing", [3, 4], [1, -1], ShapeError, "axis -1 repeats axis 1"),
    ("scalar_has_no_axes", [], [0], ShapeError, "axis 0 is out of range for rank 0"),
    ("bool_axis", [3, 4], [True], TypeError, "a bool is not an axis"),
]


@pytest.mark.parametrize(
    ("shape", "axes", "error", "message"),
    [e[1:] for e in AXIS_ERRORS],
    ids=[e[0] for e in AXIS_ERRORS],
)
def test_axis_reduction_errors(
    shape: list[int], axes: list[int], error: type[Exception], message: str
) -> None:
    """Out-of-range and repeated axes are rejected, never silently accepted."""
    with pytest.raises(error, match=message):
        reduce_shape(shape, axes)


def test_normalize_axes() -> None:
    """Axes normalize to non-negative indices in the given order."""
    assert normalize_axes([-1, 0], 3) == (2, 0)


MATMUL = [
    ("matrices", [2, 3], [3, 4], "[2, 4]", 0),
    ("batched", [5, 2, 3], [3, 4], "[5, 2, 4]", 0),
    ("batch_broadcast", [5, 1, 2, 3], [7, 3, 4], "[5, 7, 2, 4]", 0),
    ("symbolic", ["b", "m", "k"], ["b", "k", "n"], "[b, m, n]", 0),
    ("undecided_contraction", ["m", "k"], ["j", "n"], "[m, n]", 1),
    ("undecided_batch", ["p", "m", "k"], [parse_expr("2 * q"), "k", "n"],
     "[min(max(p, 2 * q), 2 * p * q), m, n]", 1),
    ("adopted_batch", ["p", "m", "k"], ["_d0", "k", "n"], "[p, m, n]", 1),
]


@pytest.mark.parametrize(
    ("lhs", "rhs", "result", "checks"), [m[1:] for m in MATMUL], ids=[m[0] for m in MATMUL]
)
def test_matmul(lhs: list[object], rhs: list[object], result: str, checks: int) -> None:
    """Matmul: batch dims broadcast, then [M, N]; undecided sizes record checks."""
    shape = matmul_shape(lhs, rhs)  # type: ignore[arg-type]
    assert str(shape) == result
    assert len(shape.checks) == checks


def test_matmul_contraction_check() -> None:
    """An undecided contraction records an equality check on both axes."""
    (check,) = matmul_shape(["m", "k"], ["j", "n"]).checks
    assert (check.kind, check.operands, check.dim) == ("equal", ((0, 1), (1, 0)), None)
    assert check.condition == "k == j"


MATMUL_ERRORS = [
    ("vector_lhs", [3], [3, 4], ShapeError, "input 0 \\[3\\] has rank 1"),
    ("scalar_rhs", [2, 3], [], ShapeError, "input 1 \\[\\] has rank 0"),
    (
        "contraction_mismatch",
        [2, 3],
        [4, 5],
        ShapeError,
        "input 0 axis 1 has 3, input 1 axis 0 has 4",
    ),
    ("batch_mismatch", [2, 2, 3], [5, 3, 4], BroadcastError, "dimension 0: 2 \\(input 0\\) vs 5"),
]


@pytest.mark.parametrize(
    ("lhs", "rhs", "error", "message"),
    [e[1:] for e in MATMUL_ERRORS],
    ids=[e[0] for e in MATMUL_ERRORS],
)
def test_matmul_errors(
    lhs: list[int], rhs: list[int], error: type[Exception], message: str
) -> None:
    """Matmul rejects low ranks, mismatched contraction sizes and batch dims."""
    with pytest.raises(error, match=message):
        matmul_shape(lhs, rhs)


def test_matmul_symbolic_contraction_mismatch() -> None:
    """Contraction sizes proven different fail statically."""
    with pytest.raises(ShapeError, match="contraction extents differ"):
        matmul_shape(["m", "k"], [parse_expr("k + 1"), "n"], ctx=ExtentContext())


def test_concat_sums_its_axis_and_unifies_the_others() -> None:
    """The other axes unify; the concatenated axis is the sum."""
    shape = concat_shape([["batch", 4], ["batch", "n"], ["batch", 1]], 1)
    assert str(shape) == "[batch, n + 5]"
    bounded = concat_shape([[UpperBound(parse_expr("m")), 2], [3, 2]], 0)
    assert str(bounded) == "[ub(m + 3), 2]"


def test_concat_names_the_conflicting_operand_and_axis() -> None:
    with pytest.raises(AxisConflictError) as info:
        concat_shape([["batch", 4], ["batch", 4], ["time", 4]], 1)
    assert (info.value.axis, info.value.operand) == (0, 2)
    assert str(info.value) == "axis 0: batch and time are different axes unless proven equal"
    with pytest.raises(ShapeError, match=r"ranks differ: \[1, 2\]"):
        concat_shape([[4], [4, 4]], 0)


def test_concat_unifies_through_the_given_rule() -> None:
    """A caller's unification (inference records obligations) sees each other axis of each
    later operand, with the extent kept so far; the concatenated axis is still summed."""
    seen: list[tuple[str, str, int, int]] = []

    def unify(kept: ShapeExtent, extent: ShapeExtent, axis: int, operand: int) -> ShapeExtent:
        seen.append((str(kept), str(extent), axis, operand))
        return extent

    shape = concat_shape([["a", 4, "x"], ["b", "n", "y"], ["c", 1, "z"]], 1, unify)
    assert str(shape) == "[c, n + 5, z]"
    assert seen == [("a", "b", 0, 1), ("x", "y", 2, 1), ("b", "c", 0, 2), ("y", "z", 2, 2)]
