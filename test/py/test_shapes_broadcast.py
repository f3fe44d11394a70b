"""Broadcasting: the seed examples, numpy agreement, invariants and the symbolic policy."""

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from symshape_mlir.extent import UNKNOWN, ExtentContext, Sym, UpperBound, parse_expr
from symshape_mlir.shapes import BroadcastError, Shape, ShapeCheck, ShapeError, broadcast_shapes

SEED_EXAMPLES = [
    ("scalar_broadcast", [], [3, 4, 5], [3, 4, 5]),
    ("leading_dimension", [1, 5], [3, 5], [3, 5]),
    ("multi_dimensional", [3, 1, 5], [1, 4, 5], [3, 4, 5]),
    ("rank_mismatch", [5], [3, 4, 5], [3, 4, 5]),
    ("zero_extent", [0, 1], [1, 4], [0, 4]),
]


@pytest.mark.parametrize(
    ("lhs", "rhs", "result"), [e[1:] for e in SEED_EXAMPLES], ids=[e[0] for e in SEED_EXAMPLES]
)
def test_seed_examples(lhs: list[int], rhs: list[int], result: list[int]) -> None:
    """The normative examples broadcast as specified."""
    shape = broadcast_shapes(lhs, rhs)
    assert shape.as_ints() == tuple(result)
    assert shape.checks == ()


def test_seed_incompatible_example() -> None:
    """[3, 4] with [3, 5] fails at dimension 1, naming both extents."""
    with pytest.raises(
        BroadcastError, match="cannot broadcast dimension 1: 4 \\(input 0\\) vs 5 \\(input 1\\)"
    ) as info:
        broadcast_shapes([3, 4], [3, 5])
    assert info.value.dim == 1
    assert [str(e) for e in info.value.extents] == ["4", "5"]
    assert info.value.inputs == (0, 1)
    assert isinstance(info.value, ValueError)


def test_failing_dimension_is_aligned_index() -> None:
    """The dimension index counts in the right-aligned result."""
    with pytest.raises(BroadcastError) as info:
        broadcast_shapes([2, 3], [7, 4, 3])
    assert info.value.dim == 1


shapes_strategy = st.lists(
    st.lists(st.sampled_from([0, 1, 2, 3]), max_size=4), min_size=1, max_size=4
)


def _expected_failing_dim(shapes: list[list[int]]) -> int:
    rank = max(len(s) for s in shapes)
    aligned = [[1] * (rank - len(s)) + s for s in shapes]
    for dim in range(rank):
        if len({row[dim] for row in aligned} - {1}) > 1:
            return dim
    raise AssertionError("shapes are compatible")


@settings(max_examples=300, deadline=None)
@given(shapes_strategy)
def test_agrees_with_numpy(shapes: list[list[int]]) -> None:
    """Concrete results and failures (with the failing dimension) match numpy."""
    try:
        expected = np.broadcast_shapes(*(tuple(s) for s in shapes))
    except ValueError:
        with pytest.raises(BroadcastError) as info:
            broadcast_shapes(*shapes)
        assert info.value.dim == _expected_failing_dim(shapes)
        i, j = info.value.inputs
        rank = max(len(s) for s in shapes)
        values = [shapes[k][info.value.dim - (rank - len(shapes[k]))] for k in (i, j)]
        assert [str(e) for e in info.value.extents] == [str(v) for v in values]
        assert 1 not in values and values[0] != values[1]
        return
    result = broadcast_shapes(*shapes)
    assert result.as_ints() == tuple(expected)
    assert result.checks == ()


@settings(max_examples=200, deadline=None)
@given(shapes_strategy)
def test_invariants(shapes: list[list[int]]) -> None:
    """Commutativity, associativity, identities and determinism on concrete shapes."""
    try:
        result = broadcast_shapes(*shapes)
    except BroadcastError as err:
        with pytest.raises(BroadcastError) as again:
            broadcast_shapes(*shapes)
        assert again.value.dim == err.dim
        return
    for order in itertools.permutations(shapes):
        assert broadcast_shapes(*order) == result
    folded = Shape([])
    for s in shapes:
        folded = broadcast_shapes(folded, s)
    assert folded == result
    if len(shapes) >= 3:
        assert broadcast_shapes(shapes[0], broadcast_shapes(*shapes[1:])) == result
    assert broadcast_shapes(result, []) == result
    assert broadcast_shapes(result, [1] * result.rank) == result
    assert broadcast_shapes(*shapes) == result


symbolic_item = st.sampled_from([0, 1, 2, 3, "a", "b"])
symbolic_shapes = st.lists(st.lists(symbolic_item, max_size=3), min_size=1, max_size=3)


@settings(max_examples=200, deadline=None)
@given(symbolic_shapes)
def test_symbolic_policy_never_assumes(shapes: list[list[int | str]]) -> None:
    """For every binding, the symbolic result plus its checks behaves exactly like numpy."""
    try:
        result = broadcast_shapes(*shapes)
        static_error = None
    except BroadcastError as err:
        result, static_error = None, err
    for a_val, b_val in itertools.product(range(4), repeat=2):
        bindings = {"a": a_val, "b": b_val}
        concrete = [tuple(bindings[d] if isinstance(d, str) else d for d in s) for s in shapes]
        try:
            expected = np.broadcast_shapes(*concrete)
        except ValueError:
            expected = None
        if static_error is not None:
            assert expected is None, "a static error must hold for every binding"
            continue
        assert result is not None
        if expected is None:
            with pytest.raises(BroadcastError):
                result.resolve(bindings)
        else:
            assert result.resolve(bindings).as_ints() == tuple(expected)


POLICY = [
    ("symbol_with_one", ["batch", 512], [1, 512], {}, "[batch, 512]", 0),
    ("symbol_with_itself", ["batch"], ["batch"], {}, "[batch]", 0),
    ("symbol_with_constant", ["batch"], [4], {}, "[4]", 1),
    ("two_symbols", ["batch"], ["seq"], {}, "[min(batch * seq, max(batch, seq))]", 1),
    (
        "two_symbols_not_one",
        ["batch"],
        ["seq"],
        {"batch": (2, None), "seq": (2, None)},
        "[batch]",
        1,
    ),
    (
        "provably_equal",
        [parse_expr("(h - 1) floordiv 2 + 1")],
        [parse_expr("(h + 1) floordiv 2")],
        {},
        "[(h + 1) floordiv 2]",
        0,
    ),
    ("shifted_symbol_may_be_one", ["n"], [parse_expr("n + 1")], {"n": (1, None)}, "[n + 1]", 1),
    ("upper_bound_with_one", [UpperBound(Sym("n"))], [1], {}, "[ub(n)]", 0),
    ("upper_bound_with_constant", [UpperBound(Sym("n"))], [5], {}, "[5]", 1),
    ("unknown_with_symbol", [UNKNOWN], ["batch"], {}, "[?]", 1),
    ("unknown_with_one", [UNKNOWN], [1], {}, "[?]", 0),
]


@pytest.mark.parametrize(
    ("lhs", "rhs", "ranges", "result", "checks"),
    [p[1:] for p in POLICY],
    ids=[p[0] for p in POLICY],
)
def test_symbolic_policy(
    lhs: list[object],
    rhs: list[object],
    ranges: dict[str, tuple[int, int | None]],
    result: str,
    checks: int,
) -> None:
    """Proven cases need no check; undecided ones record exactly one check per dimension."""
    shape = broadcast_shapes(lhs, rhs, ctx=ExtentContext(ranges))  # type: ignore[arg-type]
    assert str(shape) == result
    assert len(shape.checks) == checks


@pytest.mark.parametrize(
    ("lhs", "rhs", "ranges", "dim"),
    [
        (["n", 3], [parse_expr("n + 1"), 3], {"n": (2, None)}, 0),
        ([2, "k"], [2, parse_expr("2 * k + 2")], {"k": (2, None)}, 1),
    ],
    ids=["shifted_symbol", "scaled_symbol"],
)
def test_symbolic_static_errors(
    lhs: list[object], rhs: list[object], ranges: dict[str, tuple[int, int | None]], dim: int
) -> None:
    """Extents provably unequal and provably not 1 fail statically."""
    with pytest.raises(BroadcastError) as info:
        broadcast_shapes(lhs, rhs, ctx=ExtentContext(ranges))  # type: ignore[arg-type]
    assert info.value.dim == dim


def test_check_contents() -> None:
    """A check lists the operand axes, their extents and the condition."""
    shape = broadcast_shapes([8, "batch", 1], ["seq", 1], [1, 1])
    (check,) = shape.checks
    assert check.kind == "broadcast"
    assert check.dim == 1
    assert check.operands == ((0, 1), (1, 0))
    assert check.condition == "batch, seq: each 1 or equal to the others"
    assert check.holds([4, 1]) and check.holds([4, 4]) and not check.holds([4, 5])
    with pytest.raises(BroadcastError, match="dimension 1: 4 \\(input 0\\) vs 5 \\(input 1\\)"):
        check.verify([4, 5])


def test_equality_check_verification() -> None:
    """An equality check fails with both operand positions and values."""
    check = ShapeCheck("equal", ((0, 1), (1, 0)), (UNKNOWN, UNKNOWN), None)
    check.verify([3, 3])
    with pytest.raises(ShapeError, match="input 0 axis 1 has 3, input 1 axis 0 has 4"):
        check.verify([3, 4])


def test_resolve_verifies_and_keeps_checks() -> None:
    """Resolving verifies fully bound checks and keeps the others."""
    shape = broadcast_shapes(["a", "b"], ["c", 1])
    partial = shape.resolve({"a": 2})
    assert len(partial.checks) == 1
    settled = partial.resolve({"c": 1})
    assert str(settled) == "[2, b]"
    assert settled.checks == ()
    assert str(shape.resolve({"a": 1, "c": 5})) == "[5, b]"
    with pytest.raises(BroadcastError):
        shape.resolve({"a": 2, "c": 3})
