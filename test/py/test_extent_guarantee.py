"""Guarantees: the full combinator table, its soundness, and instantiation of payloads."""

import itertools
from collections.abc import Callable

import numpy as np
import pytest

from symshape_mlir.extent import (
    UNKNOWN,
    Const,
    Exact,
    ExtentContext,
    ShapeExtent,
    Strength,
    Sym,
    UpperBound,
    instantiate,
    join,
    parse_expr,
    parse_extent,
    upgrades,
)
from symshape_mlir.extent import guarantee as g

A, B = Sym("a"), Sym("b")
LEFT = {"E": Exact(A), "U": UpperBound(A), "?": UNKNOWN}
RIGHT = {"E": Exact(B), "U": UpperBound(B), "?": UNKNOWN}
KINDS = ["EE", "EU", "E?", "UE", "UU", "U?", "?E", "?U", "??"]

COMBINATORS: dict[str, Callable[[ShapeExtent, ShapeExtent], ShapeExtent]] = {
    "add": g.add,
    "sub": g.sub,
    "mul": g.mul,
    "floordiv": g.floordiv,
    "ceildiv": g.ceildiv,
    "mod": g.mod,
    "min": g.minimum,
    "max": g.maximum,
    "join": g.join,
    "broadcast": g.broadcast,
}

# The module docstring's table, operand kinds in the order of KINDS.
TABLE = {
    "add": ["a + b", "ub(a + b)", "?", "ub(a + b)", "ub(a + b)", "?", "?", "?", "?"],
    "sub": ["a - b", "ub(a)", "ub(a)", "ub(a - b)", "ub(a)", "ub(a)", "?", "?", "?"],
    "mul": ["a * b", "ub(a * b)", "?", "ub(a * b)", "ub(a * b)", "?", "?", "?", "?"],
    "floordiv": [
        "a floordiv b",
        "ub(a)",
        "ub(a)",
        "ub(a floordiv b)",
        "ub(a)",
        "ub(a)",
        "?",
        "?",
        "?",
    ],
    "ceildiv": [
        "a ceildiv b",
        "ub(a)",
        "ub(a)",
        "ub(a ceildiv b)",
        "ub(a)",
        "ub(a)",
        "?",
        "?",
        "?",
    ],
    "mod": [
        "a mod b",
        "ub(min(a, b - 1))",
        "ub(a)",
        "ub(min(a, b - 1))",
        "ub(min(a, b - 1))",
        "ub(a)",
        "ub(b - 1)",
        "ub(b - 1)",
        "?",
    ],
    "min": [
        "min(a, b)",
        "ub(min(a, b))",
        "ub(a)",
        "ub(min(a, b))",
        "ub(min(a, b))",
        "ub(a)",
        "ub(b)",
        "ub(b)",
        "?",
    ],
    "max": [
        "max(a, b)",
        "ub(max(a, b))",
        "?",
        "ub(max(a, b))",
        "ub(max(a, b))",
        "?",
        "?",
        "?",
        "?",
    ],
    "join": [
        "ub(max(a, b))",
        "ub(max(a, b))",
        "?",
        "ub(max(a, b))",
        "ub(max(a, b))",
        "?",
        "?",
        "?",
        "?",
    ],
    "broadcast": [
        "min(a * b, max(a, b))",
        "ub(max(a, b))",
        "?",
        "ub(max(a, b))",
        "ub(max(a, b))",
        "?",
        "?",
        "?",
        "?",
    ],
}

CASES = [(op, kind, TABLE[op][i]) for op in TABLE for i, kind in enumerate(KINDS)]


@pytest.mark.parametrize(
    ("op", "kinds", "expected"), CASES, ids=[f"{op}-{k}" for op, k, _ in CASES]
)
def test_table(op: str, kinds: str, expected: str) -> None:
    """Every combinator gives the documented guarantee for every operand kind."""
    result = COMBINATORS[op](LEFT[kinds[0]], RIGHT[kinds[1]])
    assert str(result) == expected
    if op != "broadcast" and kinds != "EE":
        assert not result.is_exact, "only two exact operands give an exact arithmetic result"


def _true_value(op: str, x: int, y: int) -> list[int]:
    """Possible runtime results of ``op`` on extents x, y (empty when undefined)."""
    if op == "join":
        return [x, y]
    if op == "broadcast":
        if x != y and 1 not in (x, y):
            return []
        return [y if x == 1 else x]
    if op in ("floordiv", "ceildiv", "mod") and y == 0:
        return []
    return [
        {
            "add": lambda: x + y,
            "sub": lambda: x - y,
            "mul": lambda: x * y,
            "floordiv": lambda: x // y,
            "ceildiv": lambda: -((-x) // y),
            "mod": lambda: x % y,
            "min": lambda: min(x, y),
            "max": lambda: max(x, y),
        }[op]()
    ]


def _candidates(kind: str, bound: int) -> range:
    if kind == "E":
        return range(bound, bound + 1)
    if kind == "U":
        return range(bound + 1)
    return range(6)


@pytest.mark.parametrize(
    ("op", "kinds"), [c[:2] for c in CASES], ids=[f"{op}-{k}" for op, k, _ in CASES]
)
def test_table_is_sound(op: str, kinds: str) -> None:
    """Exhaustively over small extents, every claimed guarantee holds."""
    result = COMBINATORS[op](LEFT[kinds[0]], RIGHT[kinds[1]])
    for a_val, b_val in itertools.product(range(5), repeat=2):
        for x in _candidates(kinds[0], a_val):
            for y in _candidates(kinds[1], b_val):
                for value in _true_value(op, x, y):
                    if result.expr is None:
                        continue
                    claimed = result.expr.evaluate({"a": a_val, "b": b_val})
                    if result.is_exact:
                        assert value == claimed, (a_val, b_val, x, y)
                    else:
                        assert value <= claimed, (a_val, b_val, x, y)


BROADCAST = [
    ("equal", Exact(A), Exact(A), {}, "a"),
    ("one_left", Exact(1), Exact(B), {}, "b"),
    ("one_right", Exact(A), Exact(1), {}, "a"),
    ("prefers_constant_when_equal", Exact(A), Exact(8), {"a": (8, 8)}, "8"),
    ("left_not_one", Exact(A), Exact(B), {"a": (2, None)}, "a"),
    ("both_not_one", Exact(B), Exact(A), {"a": (2, None), "b": (2, None)}, "a"),
    ("one_with_upper_bound", Exact(1), UpperBound(B), {}, "ub(b)"),
    ("not_one_with_upper_bound", Exact(5), UpperBound(B), {}, "5"),
    ("not_one_with_unknown", Exact(5), UNKNOWN, {}, "5"),
    ("one_with_unknown", Exact(1), UNKNOWN, {}, "?"),
    ("upper_bounds", UpperBound(A), UpperBound(3), {}, "ub(max(3, a))"),
]


@pytest.mark.parametrize(
    ("x", "y", "ranges", "expected"), [b[1:] for b in BROADCAST], ids=[b[0] for b in BROADCAST]
)
def test_broadcast_cases(
    x: ShapeExtent, y: ShapeExtent, ranges: dict[str, tuple[int, int | None]], expected: str
) -> None:
    """Broadcast results use what the context proves about 1 and equality, symmetrically."""
    ctx = ExtentContext(ranges)
    assert str(g.broadcast(x, y, ctx)) == expected
    assert str(g.broadcast(y, x, ctx)) == expected


def test_join_of_provably_equal_branches_is_exact() -> None:
    """scf.if branches with provably equal extents stay exact."""
    halved = parse_expr("(h + 1) floordiv 2")
    assert join(Exact(parse_expr("(h - 1) floordiv 2 + 1")), Exact(halved)) == Exact(halved)
    assert join(Exact(4), Exact(4)) == Exact(4)
    assert join(Exact(4), Exact(5)) == UpperBound(5)


def test_operators_on_extents() -> None:
    """Python operators apply the combinators; plain values are exact."""
    assert Exact(A) + UpperBound(B) == UpperBound(A + B)
    assert Exact(A) - 1 == Exact(A - 1)
    assert 10 - UpperBound(A) == UpperBound(10)
    assert 3 * UpperBound(A) == UpperBound(3 * A)
    assert UpperBound(A) // 2 == UpperBound(A // 2)
    assert 7 // UpperBound(A) == UpperBound(7)
    assert UpperBound(A) % 4 == UpperBound(parse_expr("min(a, 3)"))
    remainder = 9 % UNKNOWN
    assert remainder == UpperBound(9)


def test_strength() -> None:
    """Each kind of extent carries its strength member; strengths order the guarantees."""
    assert UNKNOWN.strength is Strength.UNKNOWN
    assert UpperBound(A).strength is Strength.UPPER_BOUND
    assert Exact(A).strength is Strength.EXACT
    assert Strength.UNKNOWN < Strength.UPPER_BOUND < Strength.EXACT


def test_upgrades() -> None:
    """Replacing a guarantee by a stronger one is an upgrade."""
    assert upgrades(UpperBound(A), Exact(A))
    assert upgrades(UNKNOWN, UpperBound(A))
    assert not upgrades(Exact(A), UpperBound(A))
    assert not upgrades(Exact(A), Exact(B))


def test_extent_values() -> None:
    """Extents compare by guarantee and interned expression, and print in the text syntax."""
    assert Exact(A) == Exact(Sym("a"))
    assert Exact(A) != UpperBound(A)
    assert hash(Exact(A)) == hash(parse_extent("a"))
    assert UNKNOWN is type(UNKNOWN)()
    assert (repr(Exact(A)), repr(UpperBound(A)), repr(UNKNOWN)) == (
        "Exact('a')",
        "UpperBound('a')",
        "UNKNOWN",
    )
    assert UpperBound(A).substitute({"a": 4}) == UpperBound(4)
    assert UNKNOWN.substitute({"a": 4}) is UNKNOWN
    assert Exact(A + B).free_symbols == {"a", "b"}


INSTANTIATE = [
    ("all_exact", "dim(0, 1) * 2", {"dims": [[Exact(3), Exact(Sym("seq"))]]}, "2 * seq"),
    (
        "truncate_exact",
        "min(scalar(1, truncate_size), dim(0, 0))",
        {"dims": [[Exact(Sym("n"))]], "scalars": {1: Exact(Sym("k"))}},
        "min(k, n)",
    ),
    (
        "truncate_unknown_count",
        "min(scalar(1, truncate_size), dim(0, 0))",
        {"dims": [[Exact(Sym("n"))]], "scalars": {1: UNKNOWN}},
        "ub(n)",
    ),
    (
        "index_scalar_may_be_negative",
        "dim(0, 0) - scalar(1, index)",
        {"dims": [[Exact(Sym("n"))]], "scalars": {1: UpperBound(Sym("m"))}},
        "?",
    ),
    (
        "clamped_scalar_is_nonnegative",
        "dim(0, 0) - scalar(1, clamp_nonneg)",
        {"dims": [[Exact(Sym("n"))]], "scalars": {1: UpperBound(Sym("m"))}},
        "ub(n)",
    ),
    (
        "negative_intermediate",
        "10 - min(dim(0, 0) - 5, 3)",
        {"dims": [[UpperBound(Sym("m"))]]},
        "?",
    ),
    (
        "nonnegative_intermediate",
        "10 - min(dim(0, 0), 3)",
        {"dims": [[UpperBound(Sym("m"))]]},
        "ub(10)",
    ),
    ("symbol_bound", "batch * 2 + 1", {"symbols": {"batch": UpperBound(64)}}, "ub(129)"),
    (
        "missing_leaf_stays",
        "dim(0, 0) + dim(1, 0)",
        {"dims": [[UpperBound(4)]]},
        "ub(dim(1, 0) + 4)",
    ),
    ("unknown_dividend", "dim(0, 0) floordiv 2", {"dims": [[UNKNOWN]]}, "?"),
    ("bounded_divisor", "12 floordiv dim(0, 0)", {"dims": [[UpperBound(3)]]}, "ub(12)"),
]


@pytest.mark.parametrize(
    ("text", "kwargs", "expected"), [i[1:] for i in INSTANTIATE], ids=[i[0] for i in INSTANTIATE]
)
def test_instantiate(text: str, kwargs: dict[str, object], expected: str) -> None:
    """Payload expressions become result guarantees without relying on false signs."""
    assert str(instantiate(parse_expr(text), **kwargs)) == expected  # type: ignore[arg-type]


class _Operand:
    """A type extents know nothing of, with reflected operators (as a traced tensor has)."""

    def __rsub__(self, other: object) -> str:
        return f"rsub {other}"

    def __radd__(self, other: object) -> str:
        return f"radd {other}"


def test_operators_defer_to_other_types() -> None:
    """An operator with an operand of another type lets that type's reflected
    operator answer (``x.shape[0] - k`` for a traced ``k``); numpy integers are ints."""
    n = Exact(Sym("n"))
    assert n - _Operand() == "rsub n"
    assert 1 + n + _Operand() == "radd n + 1"
    assert str(n * np.int64(3)) == "3 * n"
    with pytest.raises(TypeError):
        n * "3"  # type: ignore[operator]


def test_constant_extents_are_ints() -> None:
    """An exact constant converts to int and float (``range(x.shape[0])``); others refuse."""
    assert int(Exact(Const(3))) == 3 and float(Exact(Const(3))) == 3.0
    assert list(range(Exact(Const(2)))) == [0, 1]
    for extent in (Exact(Sym("n")), UpperBound(Const(3)), UNKNOWN):
        with pytest.raises(TypeError, match="is not a constant"):
            int(extent)
