"""The text syntax shared with the dialect's attributes: printing and parsing."""

import re

import pytest

from symshape_mlir.extent import (
    UNKNOWN,
    Exact,
    Expr,
    ExtentSyntaxError,
    Sym,
    UpperBound,
    ceildiv,
    floordiv,
    format_shape,
    maximum,
    minimum,
    mod,
    neg,
    parse_expr,
    parse_extent,
    parse_shape,
)

a, b, x, y = (Sym(name) for name in ("a", "b", "x", "y"))

PRINTED = [
    ("negated_atom", neg(x), "-x"),
    ("negated_division", neg(floordiv(x, 4)), "-(x floordiv 4)"),
    ("negated_product", neg(a * b), "-a * b"),
    ("negated_product_led_by_division", neg(floordiv(x, 4) * y), "-y * (x floordiv 4)"),
    ("positive_term_leads", 3 - x, "-x + 3"),
    ("difference", b - a, "b - a"),
    ("coefficients", 2 * x - 3 * y + 1, "2 * x - 3 * y + 1"),
    ("scaled_division", 3 * floordiv(x, 4), "3 * (x floordiv 4)"),
    ("division_of_sum", floordiv(x + 1, 2), "(x + 1) floordiv 2"),
    ("division_of_product_needs_no_parens", floordiv(a * b, 4), "a * b floordiv 4"),
    ("divisor_sum_parenthesized", floordiv(x, a + 1), "x floordiv (a + 1)"),
    ("divisor_product_parenthesized", floordiv(x, a * b), "x floordiv (a * b)"),
    ("divisor_division_parenthesized", mod(x, floordiv(a, b)), "x mod (a floordiv b)"),
    ("dividend_division_left_assoc", floordiv(floordiv(x, a), b), "x floordiv a floordiv b"),
    ("divisor_negated", floordiv(x, neg(a)), "x floordiv -a"),
    ("negative_dividend", floordiv(neg(a), b), "-a floordiv b"),
    ("ceildiv_word", ceildiv(x, 8), "x ceildiv 8"),
    ("nested_min_binary", minimum(a, b, x), "min(min(a, b), x)"),
    ("negative_constant", parse_expr("0 - 5"), "-5"),
    (
        "leaves",
        parse_expr("dim(0, 1) * scalar(2, clamp_nonneg)"),
        "dim(0, 1) * scalar(2, clamp_nonneg)",
    ),
]


@pytest.mark.parametrize(("expr", "text"), [p[1:] for p in PRINTED], ids=[p[0] for p in PRINTED])
def test_printing(expr: object, text: str) -> None:
    """str() prints the canonical form with minimal parentheses, and reads back."""
    assert str(expr) == text
    assert parse_expr(text) is expr


PRECEDENCE = [
    ("mul_binds_tighter", "a + b * x", {"a": 1, "b": 2, "x": 3}, 7),
    ("sub_left_assoc", "a - b - x", {"a": 10, "b": 2, "x": 3}, 5),
    ("div_left_assoc", "a floordiv b floordiv x", {"a": 100, "b": 5, "x": 3}, 6),
    ("mul_div_same_level", "a * b floordiv x", {"a": 3, "b": 5, "x": 2}, 7),
    ("div_then_mul", "a floordiv b * x", {"a": 7, "b": 2, "x": 3}, 9),
    ("unary_minus_binds_factor", "-a floordiv b", {"a": 7, "b": 2}, -4),
    ("unary_minus_nested", "a - -b", {"a": 1, "b": 2}, 3),
    ("parentheses", "(a + b) * x", {"a": 1, "b": 2, "x": 3}, 9),
    ("mod_precedence", "a + b mod x", {"a": 1, "b": 7, "x": 4}, 4),
    ("whitespace", "  min( a ,b )  ", {"a": 1, "b": 2}, 1),
]


@pytest.mark.parametrize(
    ("text", "bindings", "value"), [p[1:] for p in PRECEDENCE], ids=[p[0] for p in PRECEDENCE]
)
def test_precedence_and_associativity(text: str, bindings: dict[str, int], value: int) -> None:
    """`+ -` bind loosest, `* floordiv ceildiv mod` tighter, both left-associative."""
    assert parse_expr(text).evaluate(bindings) == value


SYNTAX_ERRORS = [
    ("empty", "", "expected an extent expression", 0),
    ("dangling_operator", "a +", "expected an extent expression", 3),
    ("unbalanced", "(a + b", "unbalanced brackets or quotes", 6),
    ("reserved_word", "a + mod", "'mod' is not a valid symbol name", 4),
    ("ub_inside_expression", "ub(a) + 1", "'ub' is not a valid symbol name", 0),
    ("ternary_min", "min(a, b, x)", "expected ')'", 8),
    ("negative_axis", "dim(0, -1)", "dim() operand and axis must be non-negative", 7),
    ("unknown_semantics", "scalar(0, round)", "unknown scalar semantics 'round'", 10),
    ("bad_character", "a $ b", "unexpected character '$'", 2),
    ("trailing", "a b", "unexpected trailing input", 2),
    ("closing_angle", "a > 3", "unexpected trailing input", 4),
    ("unknown_in_expression", "a + ?", "expected an extent expression", 4),
    ("floor_slashes", "x // 4", "'//' is not an operator (it starts a comment); write 'floordiv'",
     2),
    ("percent", "x % 4", "'%' is not an operator; write 'mod'", 2),
    ("hexadecimal", "0x10", "expected a decimal integer, not a hexadecimal one", 0),
    ("non_ascii_digit", "\u0663", "unexpected character '\u0663'", 0),
    ("non_ascii_space", "a\u00a0+ b", r"unexpected character '\xa0'", 1),
    ("form_feed", "a\f+ b", r"unexpected character '\x0c'", 1),
    ("too_large", "9223372036854775808", "integer literal is out of the int64 range", 0),
    ("too_small", "-9223372036854775809", "integer literal is out of the int64 range", 1),
    ("negated_group_too_large", "-(9223372036854775808)", "out of the int64 range", 2),
    ("axis_too_large", "dim(0, 9223372036854775808)", "out of the int64 range", 7),
    ("parentheses_too_deep", "(" * 257 + "x" + ")" * 257, "nests deeper than 256 levels", 257),
    ("minus_too_deep", "-" * 257 + "1", "expression nests deeper than 256 levels", 257),
    ("min_too_deep", "min(" * 257 + "x" + ", x)" * 257, "expression nests deeper than 256 levels",
     4 * 257),
    ("twenty_thousand_levels", "(" * 20000 + "x" + ")" * 20000, "nests deeper than 256", 257),
    ("too_many_operators", " + ".join(["x"] * 10002), "more than 10000 operators", 40002),
    ("too_many_factors", " * ".join(["x"] * 20000), "more than 10000 operators", 40002),
]


@pytest.mark.parametrize(
    ("text", "message", "position"),
    [e[1:] for e in SYNTAX_ERRORS],
    ids=[e[0] for e in SYNTAX_ERRORS],
)
def test_syntax_errors(text: str, message: str, position: int) -> None:
    """Syntax errors say what was expected and where."""
    with pytest.raises(ExtentSyntaxError, match=re.escape(message)) as info:
        parse_expr(text)
    assert info.value.position == position
    assert isinstance(info.value, ValueError)


DEEP_AND_LONG = [
    ("parentheses_at_the_limit", "(" * 256 + "x" + ")" * 256, "x"),
    ("minus_at_the_limit", "-" * 256 + "x", "x"),
    ("min_at_the_limit", "min(" * 256 + "x" + ", x)" * 256, "x"),
    ("int64_min", "-9223372036854775808", "-9223372036854775808"),
    ("int64_min_spaced", "a * - 9223372036854775808", "-9223372036854775808 * a"),
    ("operators_at_the_limit", " + ".join(["x"] * 10001), "10001 * x"),
    ("long_difference", " - ".join(["x"] * 10001), "-9999 * x"),
    ("long_product", " * ".join(["2"] * 62), str(2**62)),
]


@pytest.mark.parametrize(
    ("text", "printed"), [d[1:] for d in DEEP_AND_LONG], ids=[d[0] for d in DEEP_AND_LONG]
)
def test_deep_and_long_expressions(text: str, printed: str) -> None:
    """Nesting up to the limit and very long chains read without exhausting the stack."""
    assert str(parse_expr(text)) == printed


def test_long_products_read_in_n_log_n() -> None:
    """10,001 factors read fast (a left fold took seconds, distinct factors minutes)."""
    same = parse_expr(" * ".join(["x"] * 10001))
    distinct = parse_expr(" * ".join(f"a{i}" for i in range(10001)))
    assert same.evaluate({"x": 1}) == 1
    assert distinct.evaluate({f"a{i}": 1 for i in range(10001)}) == 1


EXTENTS = [
    ("exact", "2 * batch", Exact(Sym("batch") * 2)),
    ("upper_bound", "ub(dim(0, 1))", UpperBound(parse_expr("dim(0, 1)"))),
    ("unknown", "?", UNKNOWN),
    ("negative_exact", "-1", Exact(-1)),
]


@pytest.mark.parametrize(("text", "extent"), [e[1:] for e in EXTENTS], ids=[e[0] for e in EXTENTS])
def test_parse_extent(text: str, extent: object) -> None:
    """Extents read as exact, ub(...) or ?, and print back identically."""
    parsed = parse_extent(text)
    assert parsed == extent
    assert str(parsed) == text


SHAPES = [
    ("rank_zero", "[]", 0),
    ("named_and_static", "[batch, 512]", 2),
    ("every_guarantee", "[batch, ub(n), ?, 4 * k]", 4),
]


@pytest.mark.parametrize(("text", "rank"), [s[1:] for s in SHAPES], ids=[s[0] for s in SHAPES])
def test_parse_shape(text: str, rank: int) -> None:
    """Shapes read as bracketed extent lists and print back identically."""
    extents = parse_shape(text)
    assert len(extents) == rank
    assert format_shape(extents) == text


@pytest.mark.parametrize(
    "text",
    ["batch, 512", "[batch,", "[ub a]", "[?, ?", "[1] 2"],
    ids=["no_brackets", "unterminated", "ub_without_parens", "unclosed", "trailing"],
)
def test_shape_syntax_errors(text: str) -> None:
    """Malformed shapes are rejected."""
    with pytest.raises(ExtentSyntaxError):
        parse_shape(text)


def test_deeply_nested_expressions_print() -> None:
    """Expressions built in Python may nest beyond the syntax's limit (3,000
    alternating ``min``/``max`` levels here); printing them does not exhaust
    the stack."""
    expr: Expr = Sym("x")
    for level in range(3000):
        other = Sym(f"a{level % 7}")
        expr = minimum(expr, other) if level % 2 else maximum(expr, other)
    expected = "x"
    for level in range(3000):
        expected = f"{'min' if level % 2 else 'max'}(a{level % 7}, {expected})"
    assert str(expr) == expected
