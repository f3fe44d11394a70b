"""Construction, canonical forms, evaluation and substitution of extent expressions."""

import copy
import pickle

import pytest

from symshape_mlir.extent import (
    Const,
    DivisionByZeroError,
    EvaluationError,
    Expr,
    ExpressionTooLargeError,
    ExtentOverflowError,
    InputAxis,
    MissingBindingError,
    NegativeExtentError,
    RangeViolationError,
    RuntimeScalar,
    Sum,
    Sym,
    add,
    ceildiv,
    floordiv,
    maximum,
    minimum,
    mod,
    mul,
    parse_expr,
)

a, b, n, x, y = (Sym(name) for name in ("a", "b", "n", "x", "y"))

CANONICAL = [
    ("like_terms", a + b - a + 2 * b, "3 * b"),
    ("cancel_to_zero", a * b - b * a, "0"),
    ("constants_fold", (a + 3) - (a - 4), "7"),
    ("expand_product", (a + 1) * (b - 1), "a * b - a + b - 1"),
    ("square", (a + b) * (a + b), "a * a + 2 * a * b + b * b"),
    ("mul_by_zero", (a + b) * 0, "0"),
    ("floordiv_one", floordiv(a, 1), "a"),
    ("floordiv_minus_one", floordiv(a, -1), "-a"),
    ("floordiv_pulls_multiples", floordiv(4 * a + b + 5, 4), "a + (b + 1) floordiv 4 + 1"),
    ("floordiv_const_remainder", floordiv(x - 1, 2) + 1, "(x + 1) floordiv 2"),
    ("floordiv_cancels_gcd", floordiv(2 * x + 2, 4), "(x + 1) floordiv 2"),
    ("floordiv_exact_after_gcd", floordiv(6 * x, 3), "2 * x"),
    ("floordiv_nested_merges", floordiv(floordiv(x, 2) + 1, 3), "(x + 2) floordiv 6"),
    ("floordiv_negative_divisor", floordiv(x, -3), "-x floordiv 3"),
    ("floordiv_zero_kept", floordiv(x, 0), "x floordiv 0"),
    ("floordiv_symbolic_kept", floordiv(a * b, b), "a * b floordiv b"),
    ("floordiv_constants", floordiv(-7, 2), "-4"),
    ("ceildiv_constants", ceildiv(-7, 2), "-3"),
    ("ceildiv_pulls_multiples", ceildiv(8 * a + x, 4), "2 * a + x ceildiv 4"),
    ("ceildiv_nested_merges", ceildiv(ceildiv(x, 2), 3), "x ceildiv 6"),
    ("mod_drops_multiples", mod(4 * a + x + 9, 4), "(x + 1) mod 4"),
    ("mod_common_factor", mod(2 * x, 6), "2 * (x mod 3)"),
    ("mod_one", mod(x, 1), "0"),
    ("mod_negative_divisor", mod(7, -3), "-2"),
    ("mod_of_multiple", mod(3 * x, 3), "0"),
    ("min_flattens_and_sorts", minimum(b, minimum(a, x)), "min(min(a, b), x)"),
    ("min_dedupes", minimum(a, a), "a"),
    ("min_folds_constants", minimum(5, a, 3), "min(3, a)"),
    ("min_drops_dominated", minimum(a, a + b), "a"),
    ("min_with_zero", minimum(a, 0), "0"),
    ("max_drops_zero", maximum(a, 0), "a"),
    ("max_drops_dominated", maximum(a + 1, a, b), "max(b, a + 1)"),
    ("min_keeps_index_scalar", minimum(RuntimeScalar(0, "index"), 0), "min(0, scalar(0, index))"),
    ("max_of_product", maximum(a, a * b), "max(a, a * b)"),
]


@pytest.mark.parametrize(
    ("built", "text"), [c[1:] for c in CANONICAL], ids=[c[0] for c in CANONICAL]
)
def test_canonical_form(built: Expr, text: str) -> None:
    """Constructors produce the documented canonical form."""
    assert str(built) == text
    assert parse_expr(text) is built


def test_structural_equality_is_identity() -> None:
    """Structurally equal expressions are one interned object."""
    first = (a + b) * 2 - floordiv(n, 4)
    second = 2 * b - floordiv(n, 4) + 2 * a
    assert first is second
    assert first == second
    assert hash(first) == hash(second)
    assert Sym("a") is a
    assert Const(3) is parse_expr("3")
    assert InputAxis(0, 1) is parse_expr("dim(0, 1)")


def test_operator_nodes_cannot_be_built_directly() -> None:
    """Only the canonicalizing constructors create operator nodes."""
    with pytest.raises(TypeError):
        Sum()


def test_copy_and_pickle_keep_identity() -> None:
    """Copies and unpickled expressions are the interned object."""
    expr = minimum(floordiv(a * b, 4), ceildiv(x, 3)) - mod(y, 5) * RuntimeScalar(1, "index")
    assert copy.copy(expr) is expr
    assert copy.deepcopy(expr) is expr
    assert pickle.loads(pickle.dumps(expr)) is expr


@pytest.mark.parametrize(
    ("value", "error"),
    [(True, TypeError), (1.5, TypeError), ("3", TypeError)],
    ids=["bool", "float", "str"],
)
def test_non_integer_operands_rejected(value: object, error: type[Exception]) -> None:
    """Only expressions and integers combine with expressions."""
    with pytest.raises(error):
        add(a, value)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("make", "error"),
    [
        (lambda: Sym("min"), ValueError),
        (lambda: Sym("2x"), ValueError),
        (lambda: InputAxis(-1, 0), ValueError),
        (lambda: RuntimeScalar(0, "round"), ValueError),
    ],
    ids=["reserved_name", "bad_name", "negative_operand", "unknown_semantics"],
)
def test_invalid_leaves_rejected(make: object, error: type[Exception]) -> None:
    """Leaves validate their fields."""
    with pytest.raises(error):
        make()  # type: ignore[operator]


def test_growth_is_capped() -> None:
    """Expanding a product past MAX_TERMS raises instead of running away."""
    big = add(*(Sym(f"s{i}") for i in range(30)))
    with pytest.raises(ExpressionTooLargeError):
        mul(big, big)


EVALUATIONS = [
    ("linear", "2 * a - 3 * b + 1", {"a": 5, "b": 2}, 5),
    ("floor_negative", "(a - 7) floordiv 2", {"a": 0}, -4),
    ("ceil_negative", "(a - 7) ceildiv 2", {"a": 0}, -3),
    ("mod_sign_of_divisor", "(a - 7) mod 3", {"a": 0}, 2),
    ("mod_negative_divisor", "a mod (b - 5)", {"a": 7, "b": 2}, -2),
    ("min_max", "max(min(a, b), 3)", {"a": 1, "b": 9}, 3),
    (
        "paper_example",
        "(batch * seq) floordiv 4 + min(n, batch) - 1",
        {"batch": 8, "seq": 6, "n": 3},
        14,
    ),
]


@pytest.mark.parametrize(
    ("text", "bindings", "value"), [e[1:] for e in EVALUATIONS], ids=[e[0] for e in EVALUATIONS]
)
def test_evaluate(text: str, bindings: dict[str, int], value: int) -> None:
    """Evaluation follows Python integer semantics."""
    assert parse_expr(text).evaluate(bindings) == value


@pytest.mark.parametrize(
    ("semantics", "raw", "value"),
    [
        ("index", -3, -3),
        ("index", 4, 4),
        ("clamp_nonneg", -3, 0),
        ("clamp_nonneg", 4, 4),
        ("truncate_size", -1, 0),
        ("truncate_size", 9, 9),
    ],
    ids=["index_negative", "index", "clamp_negative", "clamp", "truncate_negative", "truncate"],
)
def test_runtime_scalar_semantics(semantics: str, raw: int, value: int) -> None:
    """Each scalar semantics converts the raw value as documented."""
    assert RuntimeScalar(1, semantics).evaluate(scalars={1: raw}) == value
    assert RuntimeScalar(1, semantics).evaluate(scalars=lambda i: raw) == value


def test_op_local_leaves_from_shapes_and_callables() -> None:
    """Input axes read operand shapes given as sequences or a callable."""
    expr = parse_expr("dim(0, 1) * 2 + dim(1, 0)")
    assert expr.evaluate(dims=[(3, 5), (7,)]) == 17
    assert expr.evaluate(dims=lambda i, axis: 10 * i + axis) == 12


@pytest.mark.parametrize(
    ("text", "kwargs", "error", "message"),
    [
        ("a + b", {"symbols": {"a": 1}}, MissingBindingError, "no binding for 'b'"),
        ("dim(0, 2)", {"dims": [(1, 2)]}, MissingBindingError, "no binding for 'dim(0, 2)'"),
        ("scalar(3, index)", {}, MissingBindingError, "no binding for 'scalar(3, index)'"),
        (
            "a floordiv (b - 2)",
            {"symbols": {"a": 1, "b": 2}},
            DivisionByZeroError,
            "'a floordiv (b - 2)'",
        ),
        (
            "a mod b",
            {"symbols": {"a": 1, "b": 0}},
            DivisionByZeroError,
            "division by zero in 'a mod b'",
        ),
        ("a ceildiv 0", {"symbols": {"a": 1}}, DivisionByZeroError, "'a ceildiv 0'"),
        ("a * a", {"symbols": {"a": 2**32}}, ExtentOverflowError, "outside the int64 range"),
        ("a * b floordiv 2", {"symbols": {"a": 2**40, "b": 2**30}}, ExtentOverflowError, "'a * b'"),
        ("a", {"symbols": {"a": -1}}, RangeViolationError, "'a' = -1"),
        ("a", {"symbols": {"a": 2.0}}, EvaluationError, "must be an integer"),
        ("dim(0, 0)", {"dims": [(-2,)]}, RangeViolationError, "'dim(0, 0)' = -2"),
    ],
    ids=[
        "missing_symbol",
        "missing_axis",
        "missing_scalar",
        "floordiv_by_zero",
        "mod_by_zero",
        "ceildiv_by_zero",
        "overflow",
        "overflow_names_subexpression",
        "negative_symbol",
        "non_integer_binding",
        "negative_axis",
    ],
)
def test_evaluation_errors(
    text: str, kwargs: dict[str, object], error: type[Exception], message: str
) -> None:
    """Evaluation errors name the leaf or subexpression at fault."""
    with pytest.raises(error) as info:
        parse_expr(text).evaluate(**kwargs)  # type: ignore[arg-type]
    assert message in str(info.value)


def test_cancelled_terms_cannot_overflow() -> None:
    """Terms that cancel at construction are never evaluated."""
    assert parse_expr("a * a - a * a + 1").evaluate({"a": 2**40}) == 1


def test_division_by_zero_is_also_zero_division_error() -> None:
    """Callers may catch the builtin arithmetic error too."""
    with pytest.raises(ZeroDivisionError):
        floordiv(a, 0).evaluate({"a": 1})


def test_evaluate_size_rejects_negative() -> None:
    """A negative value is an error only where it is used as a size."""
    expr = a - b
    assert expr.evaluate({"a": 1, "b": 3}) == -2
    with pytest.raises(NegativeExtentError, match="'a - b' is used as a size but evaluates to -2"):
        expr.evaluate_size({"a": 1, "b": 3})


def test_free_symbols_and_leaves() -> None:
    """Free symbols exclude op-local leaves; leaves include them."""
    expr = parse_expr("min(batch, dim(0, 1)) * seq + scalar(1, index) floordiv 2")
    assert expr.free_symbols == {"batch", "seq"}
    assert expr.leaves() == {Sym("batch"), Sym("seq"), InputAxis(0, 1), RuntimeScalar(1, "index")}
    assert expr.is_op_local
    assert not (a + b).is_op_local
    assert Const(3).free_symbols == frozenset()


def test_substitute_symbols() -> None:
    """Substituted symbols are re-canonicalized; absent ones stay."""
    expr = parse_expr("(batch * seq) floordiv 4 + n")
    assert str(expr.substitute({"seq": 8})) == "2 * batch + n"
    assert expr.substitute({"seq": Sym("seq")}) is expr
    assert expr.substitute({"batch": 2, "seq": 2, "n": parse_expr("m - 1")}) is parse_expr("m")


def test_substitute_op_local_leaves() -> None:
    """An op payload becomes a function-level expression."""
    payload = parse_expr("min(scalar(1, truncate_size), dim(0, 0)) * dim(0, 1)")
    result = payload.substitute(dims=[(Sym("seq"), 64)], scalars={1: Sym("k")})
    assert str(result) == "64 * min(k, seq)"
    index = parse_expr("dim(0, 0) - scalar(1, index)").substitute(scalars=[None, a])
    assert str(index) == "dim(0, 0) - a"
    partial = payload.substitute(dims=lambda i, axis: None if axis == 0 else 8)
    assert str(partial) == "8 * min(dim(0, 0), scalar(1, truncate_size))"


def test_substitute_clamp_applies_semantics() -> None:
    """A clamping scalar becomes max(value, 0) unless its value is already non-negative."""
    clamp = RuntimeScalar(0, "clamp_nonneg")
    assert str(clamp.substitute(scalars=[a - b])) == "max(0, a - b)"
    assert clamp.substitute(scalars=[a + 1]) is a + 1


def test_replace_nodes() -> None:
    """Arbitrary subexpressions can be replaced."""
    expr = minimum(a, b) + floordiv(x, 2)
    assert expr.replace({minimum(a, b): 3, x: 10}) is Const(8)


def test_structural_nonnegativity() -> None:
    """The structure shows non-negativity without any context."""
    assert parse_expr("a * b floordiv 4 + min(a, 2)").is_nonnegative
    assert not parse_expr("a - 1").is_nonnegative
    assert not RuntimeScalar(0, "index").is_nonnegative
