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


symbolic_item = st.sampled_from([0, 1, 2, 3, "a", "b", "_d0"])
symbolic_shapes = st.lists(st.lists(symbolic_item, max_size=3), min_size=1, max_size=3)


def _named_apart(shapes: list[list[int | str]]) -> bool:
    """Whether two different named axes (not `_d0`) meet in one aligned column."""
    rank = max(len(s) for s in shapes)
    for dim in range(rank):
        names = {s[dim - (rank - len(s))] for s in shapes if dim >= rank - len(s)}
        if len({n for n in names if isinstance(n, str) and n != "_d0"}) > 1:
            return True
    return False


@settings(max_examples=300, deadline=None)
@given(symbolic_shapes)
def test_symbolic_policy_never_assumes(shapes: list[list[int | str]]) -> None:
    """For every binding, the symbolic result plus its checks behaves like numpy, except
    where seed 004's name unification decides: two named axes in a column are an error,
    and the unnamed `_d0` adopts a named axis (then it must be 1 or that axis)."""
    try:
        result = broadcast_shapes(*shapes)
        static_error = None
    except BroadcastError as err:
        result, static_error = None, err
    if static_error is not None and static_error.reason is not None:
        assert _named_apart(shapes)
        return
    if static_error is None:
        assert not _named_apart(shapes)
    adopting = any(c.kind == "adopt" for c in result.checks) if result is not None else False
    for a_val, b_val, d_val in itertools.product(range(4), repeat=3):
        bindings = {"a": a_val, "b": b_val, "_d0": d_val}
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
        elif adopting:
            # Where the adoption's check passes, numpy's answer; it fails only where
            # the named axis is 1 and the unnamed one is not (numpy broadcasts the named).
            try:
                assert result.resolve(bindings).as_ints() == tuple(expected)
            except BroadcastError:
                assert 1 in bindings.values()
        else:
            assert result.resolve(bindings).as_ints() == tuple(expected)


POLICY = [
    ("symbol_with_one", ["batch", 512], [1, 512], {}, "[batch, 512]", 0),
    ("symbol_with_itself", ["batch"], ["batch"], {}, "[batch]", 0),
    ("symbol_with_constant", ["batch"], [4], {}, "[4]", 1),
    ("symbol_with_expression", ["batch"], [parse_expr("2 * seq")], {},
     "[min(max(batch, 2 * seq), 2 * batch * seq)]", 1),
    (
        "symbol_with_expression_not_one",
        ["batch"],
        [parse_expr("2 * seq")],
        {"batch": (2, None)},
        "[batch]",
        1,
    ),
    ("unnamed_adopts_name", ["batch", 512], ["_d0", 512], {}, "[batch, 512]", 1),
    ("unnamed_adopts_expression", [parse_expr("2 * seq")], ["_d0"], {}, "[2 * seq]", 1),
    ("unnamed_with_unnamed", ["_d0"], ["_d1"], {}, "[min(_d0 * _d1, max(_d0, _d1))]", 1),
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
    ("unknown_adopts_symbol", [UNKNOWN], ["batch"], {}, "[batch]", 1),
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


@pytest.mark.parametrize(
    ("lhs", "rhs", "dim"),
    [(["batch", 512], ["time", 512], 0), ([4, "a", 1], ["b", 1], 1)],
    ids=["seed_004", "aligned"],
)
def test_named_axes_conflict(lhs: list[object], rhs: list[object], dim: int) -> None:
    """Two different named axes in one dimension are different axes unless proven
    equal (seed 004): an error, whatever numpy would do when one is 1."""
    with pytest.raises(BroadcastError, match="different axes unless proven equal") as info:
        broadcast_shapes(lhs, rhs)  # type: ignore[arg-type]
    assert info.value.dim == dim
    assert info.value.reason == "different axes unless proven equal"


def test_named_axes_proven_equal_broadcast() -> None:
    """Names that the context proves equal (both exactly 3) do not conflict."""
    ctx = ExtentContext({"a": (3, 3), "b": (3, 3)})
    assert str(broadcast_shapes(["a"], ["b"], ctx=ctx)) == "[a]"


def test_check_contents() -> None:
    """A check lists the operand axes, their extents and the condition."""
    shape = broadcast_shapes([8, "batch", 1], [parse_expr("2 * seq"), 1], [1, 1])
    (check,) = shape.checks
    assert check.kind == "broadcast"
    assert check.dim == 1
    assert check.operands == ((0, 1), (1, 0))
    assert check.condition == "batch, 2 * seq: each 1 or equal to the others"
    assert check.holds([4, 1]) and check.holds([4, 4]) and not check.holds([4, 5])
    with pytest.raises(BroadcastError, match="dimension 1: 4 \\(input 0\\) vs 5 \\(input 1\\)"):
        check.verify([4, 5])


def test_adopt_check_contents() -> None:
    """An unnamed axis adopting a name lists the named extent first: the others must
    each be 1 or it (the named one may not be the 1)."""
    shape = broadcast_shapes(["_d0", 4], ["batch", 4])
    (check,) = shape.checks
    assert (check.kind, check.operands) == ("adopt", ((1, 0), (0, 0)))
    assert check.condition == "batch, _d0: each 1 or batch"
    assert check.holds([5, 1]) and check.holds([5, 5]) and not check.holds([1, 5])
    with pytest.raises(BroadcastError, match="dimension 0: 1 \\(input 1\\) vs 5 \\(input 0\\)"):
        check.verify([1, 5])


def test_equality_check_verification() -> None:
    """An equality check fails with both operand positions and values."""
    check = ShapeCheck("equal", ((0, 1), (1, 0)), (UNKNOWN, UNKNOWN), None)
    check.verify([3, 3])
    with pytest.raises(ShapeError, match="input 0 axis 1 has 3, input 1 axis 0 has 4"):
        check.verify([3, 4])


def test_resolve_verifies_and_keeps_checks() -> None:
    """Resolving verifies fully bound checks and keeps the others."""
    shape = broadcast_shapes(["a", "b"], [parse_expr("2 * c"), 1])
    partial = shape.resolve({"a": 2})
    assert len(partial.checks) == 1
    settled = partial.resolve({"c": 1})
    assert str(settled) == "[2, b]"
    assert settled.checks == ()
    assert str(shape.resolve({"a": 1, "c": 5})) == "[10, b]"
    with pytest.raises(BroadcastError):
        shape.resolve({"a": 2, "c": 3})
