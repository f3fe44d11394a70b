"""Property tests of the extent algebra against plain Python integer arithmetic."""

import pickle
from collections.abc import Callable, Mapping
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from symshape_mlir.extent import (
    UNKNOWN,
    Const,
    Exact,
    Expr,
    ExtentContext,
    InputAxis,
    RuntimeScalar,
    ShapeExtent,
    Sym,
    UpperBound,
    bounds,
    ceildiv,
    dumps,
    floordiv,
    from_postorder,
    instantiate,
    loads,
    maximum,
    minimum,
    mod,
    parse_expr,
    prove_eq,
    prove_le,
    prove_lt,
    simplify,
    to_postorder,
)

Recipe = tuple[Any, ...]
SYMBOLS = ("a", "b", "c")

OPERATIONS: dict[str, tuple[Callable[..., Expr], Callable[..., int]]] = {
    "add": (lambda x, y: x + y, lambda x, y: x + y),
    "sub": (lambda x, y: x - y, lambda x, y: x - y),
    "mul": (lambda x, y: x * y, lambda x, y: x * y),
    "min": (minimum, min),
    "max": (maximum, max),
    "floordiv": (floordiv, lambda x, y: x // y),
    "ceildiv": (ceildiv, lambda x, y: -((-x) // y)),
    "mod": (mod, lambda x, y: x % y),
    "neg": (lambda x: -x, lambda x: -x),
}


def recipes(leaves: st.SearchStrategy[Recipe], max_leaves: int = 7) -> st.SearchStrategy[Recipe]:
    """Random expression trees as nested tuples ``(operation, *operands)``."""
    constants = st.integers(-6, 6).map(lambda v: ("const", v))

    def extend(children: st.SearchStrategy[Recipe]) -> st.SearchStrategy[Recipe]:
        return st.one_of(
            st.tuples(st.sampled_from(["add", "sub", "mul", "min", "max"]), children, children),
            st.tuples(
                st.sampled_from(["floordiv", "ceildiv", "mod"]),
                children,
                st.one_of(constants, children),
            ),
            st.tuples(st.just("neg"), children),
        )

    return st.recursive(st.one_of(constants, leaves), extend, max_leaves=max_leaves)


symbol_leaves = st.sampled_from(SYMBOLS).map(lambda s: ("leaf", Sym(s)))
expressions = recipes(symbol_leaves)
bindings = st.lists(
    st.fixed_dictionaries({s: st.integers(0, 12) for s in SYMBOLS}), min_size=1, max_size=8
)


def build(recipe: Recipe) -> Expr:
    """The expression a recipe describes, built through the constructors."""
    kind = recipe[0]
    if kind == "const":
        return Const(recipe[1])
    if kind == "leaf":
        return recipe[1]  # type: ignore[no-any-return]
    return OPERATIONS[kind][0](*(build(child) for child in recipe[1:]))


def reference(recipe: Recipe, values: Callable[[Expr], int]) -> int:
    """The recipe's value with Python integers (raises ZeroDivisionError)."""
    kind = recipe[0]
    if kind == "const":
        return int(recipe[1])
    if kind == "leaf":
        return values(recipe[1])
    return OPERATIONS[kind][1](*(reference(child, values) for child in recipe[1:]))


def symbol_values(binding: Mapping[str, int]) -> Callable[[Expr], int]:
    return lambda leaf: binding[leaf.name]  # type: ignore[attr-defined]


@settings(max_examples=300, deadline=None)
@given(expressions, bindings)
def test_constructors_agree_with_integer_arithmetic(
    recipe: Recipe, points: list[dict[str, int]]
) -> None:
    """Canonicalization never changes a defined value."""
    expr = build(recipe)
    for point in points:
        try:
            expected = reference(recipe, symbol_values(point))
        except ZeroDivisionError:
            continue
        assert expr.evaluate(point) == expected


@settings(max_examples=300, deadline=None)
@given(expressions)
def test_text_and_serialization_round_trip(recipe: Recipe) -> None:
    """str/parse, dumps/loads, post-order and pickle all give back the identical object."""
    expr = build(recipe)
    assert parse_expr(str(expr)) is expr
    assert loads(dumps(expr)) is expr
    assert from_postorder(to_postorder(expr)) is expr
    assert pickle.loads(pickle.dumps(expr)) is expr


@settings(max_examples=200, deadline=None)
@given(expressions, expressions, expressions)
def test_algebraic_invariants(r1: Recipe, r2: Recipe, r3: Recipe) -> None:
    """Commutativity, associativity and identities hold structurally."""
    x, y, z = build(r1), build(r2), build(r3)
    assert x + y is y + x
    assert (x + y) + z is x + (y + z)
    assert x * y is y * x
    assert (x * y) * z is x * (y * z)
    assert minimum(x, y) is minimum(y, x)
    assert minimum(minimum(x, y), z) is minimum(x, minimum(y, z))
    assert maximum(maximum(x, y), z) is maximum(x, maximum(y, z))
    assert x + 0 is x and x * 1 is x and x * 0 is Const(0) and x - x is Const(0)
    assert minimum(x, x) is x and maximum(x, x) is x and floordiv(x, 1) is x
    assert build(r1) is x


ranges = st.fixed_dictionaries(
    {
        s: st.tuples(st.integers(0, 4), st.one_of(st.none(), st.integers(0, 12))).map(
            lambda lh: (lh[0], None if lh[1] is None else lh[0] + lh[1])
        )
        for s in SYMBOLS
    }
)


def clip(
    point: Mapping[str, int], declared: Mapping[str, tuple[int, int | None]]
) -> dict[str, int]:
    """Moves a binding into the declared ranges."""
    out = {}
    for name, value in point.items():
        lo, hi = declared[name]
        out[name] = max(lo, value if hi is None else min(value, hi))
    return out


def values_at(recipe: Recipe, point: Mapping[str, int]) -> int | None:
    try:
        return reference(recipe, symbol_values(point))
    except ZeroDivisionError:
        return None


@settings(max_examples=300, deadline=None)
@given(expressions, expressions, ranges, bindings)
def test_native_prover_is_sound(
    r1: Recipe,
    r2: Recipe,
    declared: dict[str, tuple[int, int | None]],
    points: list[dict[str, int]],
) -> None:
    """A decided comparison holds (or fails) at every sampled binding in range."""
    ctx = ExtentContext(declared, use_sympy=False)
    lhs, rhs = build(r1), build(r2)
    answers: dict[str, tuple[bool | None, Callable[[int, int], bool]]] = {
        "le": (prove_le(lhs, rhs, ctx), lambda u, v: u <= v),
        "lt": (prove_lt(lhs, rhs, ctx), lambda u, v: u < v),
        "eq": (prove_eq(lhs, rhs, ctx), lambda u, v: u == v),
    }
    for raw in points:
        point = clip(raw, declared)
        u, v = values_at(r1, point), values_at(r2, point)
        if u is None or v is None:
            continue
        for answer, relation in answers.values():
            if answer is not None:
                assert relation(u, v) is answer, (str(lhs), str(rhs), point)


@settings(max_examples=25, deadline=None)
@given(expressions, expressions, bindings)
def test_sympy_fallback_is_sound(r1: Recipe, r2: Recipe, points: list[dict[str, int]]) -> None:
    """Answers that involve the sympy fallback are sound too."""
    lhs, rhs = build(r1), build(r2)
    answer = prove_le(lhs, rhs, ExtentContext(use_sympy=True))
    if answer is None:
        return
    for point in points:
        u, v = values_at(r1, point), values_at(r2, point)
        if u is not None and v is not None:
            assert (u <= v) is answer, (str(lhs), str(rhs), point)


@settings(max_examples=200, deadline=None)
@given(expressions, ranges, bindings)
def test_bounds_and_simplify_are_sound(
    recipe: Recipe, declared: dict[str, tuple[int, int | None]], points: list[dict[str, int]]
) -> None:
    """Interval bounds contain every value; range-aware simplification keeps values."""
    ctx = ExtentContext(declared, use_sympy=False)
    expr = build(recipe)
    lo, hi = bounds(expr, ctx)
    simplified = simplify(expr, ctx)
    for raw in points:
        point = clip(raw, declared)
        value = values_at(recipe, point)
        if value is None:
            continue
        assert lo is None or lo <= value
        assert hi is None or value <= hi
        assert simplified.evaluate(point) == value


# Payloads over op-local leaves, instantiated with random guarantees.
payload_leaves = st.sampled_from(
    [InputAxis(0, 0), InputAxis(0, 1), RuntimeScalar(1, "index"), RuntimeScalar(2, "clamp_nonneg")]
).map(lambda leaf: ("leaf", leaf))
payloads = recipes(payload_leaves, max_leaves=5)
LEAF_SYMBOL = {
    InputAxis(0, 0): "p",
    InputAxis(0, 1): "q",
    RuntimeScalar(1, "index"): "r",
    RuntimeScalar(2, "clamp_nonneg"): "s",
}
guarantee_kinds = st.fixed_dictionaries({name: st.sampled_from("EU?") for name in "pqrs"})
leaf_samples = st.lists(
    st.fixed_dictionaries(
        {name: st.tuples(st.integers(0, 6), st.integers(-6, 6)) for name in "pqrs"}
    ),
    min_size=1,
    max_size=8,
)


def leaf_values(actual: Mapping[str, int]) -> Callable[[Expr], int]:
    """Runtime values of payload leaves, with each scalar's semantics applied."""

    def value(leaf: Expr) -> int:
        raw = actual[LEAF_SYMBOL[leaf]]
        if isinstance(leaf, RuntimeScalar) and leaf.semantics != "index":
            return max(raw, 0)
        return raw

    return value


def leaf_extent(name: str, kind: str) -> ShapeExtent:
    # The index scalar's known value may be negative: r - 3.
    known = Sym(name) - 3 if name == "r" else Sym(name)
    return {"E": Exact(known), "U": UpperBound(known), "?": UNKNOWN}[kind]


@settings(max_examples=300, deadline=None)
@given(payloads, guarantee_kinds, leaf_samples)
def test_instantiate_is_sound(
    recipe: Recipe, kinds: dict[str, str], samples: list[dict[str, tuple[int, int]]]
) -> None:
    """The guarantee of an instantiated payload holds for every consistent runtime value."""
    extents = {name: leaf_extent(name, kind) for name, kind in kinds.items()}
    result = instantiate(
        build(recipe),
        dims=[[extents["p"], extents["q"]]],
        scalars={1: extents["r"], 2: extents["s"]},
    )
    for sample in samples:
        symbols = {name: sample[name][0] for name in "pqrs"}
        actual: dict[str, int] = {}
        for name, (known, free) in sample.items():
            bound = known - 3 if name == "r" else known
            kind = kinds[name]
            # Axis extents are sizes; raw scalars may be negative.
            floor = -6 if name in "rs" else 0
            if kind == "E":
                actual[name] = bound
            elif kind == "U":
                actual[name] = max(floor, bound - abs(free))
            else:
                actual[name] = max(floor, free)
        try:
            value = reference(recipe, leaf_values(actual))
        except ZeroDivisionError:
            continue
        if result.expr is None:
            continue
        try:
            claimed = result.expr.evaluate(symbols)
        except ZeroDivisionError:
            continue
        if result.is_exact:
            assert value == claimed, (str(build(recipe)), kinds, actual, str(result))
        else:
            assert value <= claimed, (str(build(recipe)), kinds, actual, str(result))
