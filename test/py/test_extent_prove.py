"""Three-valued comparisons, bounds, contexts and range-aware simplification."""

import pytest

from symshape_mlir.extent import (
    ExtentContext,
    RangeViolationError,
    Sym,
    bounds,
    parse_expr,
    prove_eq,
    prove_ge,
    prove_gt,
    prove_le,
    prove_lt,
    prove_ne,
    prove_nonnegative,
    simplify,
)

PROVE_FNS = {
    "le": prove_le,
    "lt": prove_lt,
    "ge": prove_ge,
    "gt": prove_gt,
    "eq": prove_eq,
    "ne": prove_ne,
}

# (id, lhs, op, rhs, ranges, expected); ranges are {symbol: (lo, hi)}.
COMPARISONS = [
    ("paper_example", "(batch*seq) floordiv 4 + min(n, batch) - 1", "le", "batch*seq + n", {},
     True),
    ("min_below_max", "min(n, batch)", "le", "max(n, batch)", {}, True),
    ("conv_output_at_most_input", "(h + 2*1 - 3) floordiv 2 + 1", "le", "h", {}, True),
    ("ceildiv_rounds_up", "(seq ceildiv 8) * 8", "ge", "seq", {}, True),
    ("ceildiv_bounded", "(seq ceildiv 8) * 8", "le", "seq + 7", {}, True),
    ("floordiv_of_product", "a*b*c floordiv 8", "le", "a*b*c", {}, True),
    ("min_times_symbol", "min(a, b) * c", "le", "a * c", {}, True),
    ("max_dominates_each", "max(a, b) + 1", "gt", "b", {}, True),
    ("nested_extrema", "min(max(a, b), c)", "le", "max(a, c)", {}, True),
    ("mod_below_divisor", "x mod 4", "lt", "4", {}, True),
    ("mod_below_dividend", "x mod 4", "le", "x", {}, True),
    ("floor_vs_ceil", "x floordiv 4", "le", "x ceildiv 4", {}, True),
    ("equal_rewrites", "(h - 1) floordiv 2 + 1", "eq", "(h + 1) floordiv 2", {}, True),
    ("equal_floor_forms", "(x + 1) floordiv 2", "eq", "x floordiv 2 + 1", {}, None),
    ("shifted_strictly", "batch + 1", "le", "batch", {}, False),
    ("strictly_greater", "batch + 1", "gt", "batch", {}, True),
    ("never_equal", "2*n + 1", "eq", "2*n", {}, False),
    ("different_symbols", "batch", "le", "seq", {}, None),
    ("different_symbols_ne", "batch", "ne", "seq", {}, None),
    ("symbol_vs_one", "batch", "eq", "1", {}, None),
    ("declared_upper_bound", "batch", "le", "4096", {"batch": (1, 4096)}, True),
    ("undeclared_upper_bound", "batch", "le", "4096", {}, None),
    ("declared_lower_bound", "batch", "ge", "1", {"batch": (1, None)}, True),
    ("excluded_value", "batch", "eq", "0", {"batch": (1, None)}, False),
    ("excluded_value_ne", "batch", "ne", "0", {"batch": (1, None)}, True),
    ("ranges_combine", "a + b", "le", "20", {"a": (0, 10), "b": (2, 10)}, True),
    ("ranges_refute", "a + b", "gt", "25", {"a": (0, 10), "b": (2, 10)}, False),
    ("product_with_range", "a * b", "ge", "a", {"b": (1, None)}, True),
    # A clamp of a padded size (Swin's window padding) against the size: split
    # the max before bounding the divisions it shares with the other side.
    ("clamp_of_divisions", "max(0, h floordiv 4 + 6 * (h floordiv 4 mod 7) mod 7 - 3)", "le",
     "h floordiv 4 + 6 * (h floordiv 4 mod 7) mod 7", {}, True),
    # Each factor is a floordiv of a non-negative sum: their ranges decide it.
    ("product_of_divisions", "((h floordiv 4 + h mod 2) ceildiv 2 + 6) floordiv 7 * "
     "((w floordiv 4 + w mod 2) ceildiv 2 + 6) floordiv 7", "ge", "0", {}, True),
    ("product_without_range", "a * b", "ge", "a", {}, None),
    ("index_scalar_unbounded", "scalar(0, index)", "ge", "0", {}, None),
    ("clamped_scalar", "scalar(0, clamp_nonneg)", "ge", "0", {}, True),
    ("axis_nonnegative", "dim(0, 1) * dim(1, 0)", "ge", "0", {}, True),
    ("truncation", "min(scalar(1, truncate_size), dim(0, 0))", "le", "dim(0, 0)", {}, True),
    ("constants", "7", "lt", "3", {}, False),
]


@pytest.mark.parametrize(
    ("lhs", "op", "rhs", "ranges", "expected"),
    [c[1:] for c in COMPARISONS],
    ids=[c[0] for c in COMPARISONS],
)
def test_native_comparisons(
    lhs: str, op: str, rhs: str, ranges: dict[str, tuple[int, int | None]], expected: bool | None
) -> None:
    """The native prover decides linear, division and min/max questions without sympy."""
    ctx = ExtentContext(ranges, use_sympy=False)
    assert PROVE_FNS[op](parse_expr(lhs), parse_expr(rhs), ctx) is expected


def test_identical_sides() -> None:
    """An expression compared with itself is decided at once."""
    e = parse_expr("min(a, b) floordiv c")
    assert prove_le(e, e) is True
    assert prove_lt(e, e) is False
    assert prove_eq(e, e) is True


def test_coefficients_beyond_the_float_range() -> None:
    """Unbounded ranges meet integers too large for a float (the algebra's
    integers are unbounded; only evaluation checks int64)."""
    huge = 2**1100
    a, b = Sym("a"), Sym("b")
    assert prove_nonnegative(huge * a + huge) is True
    assert prove_nonnegative(huge * a - b) is None
    assert prove_le(huge, huge * a + huge) is True
    assert bounds(huge * a - huge) == (-huge, None)


def test_integer_operands_accepted() -> None:
    """Integers stand for constants."""
    assert prove_le(3, Sym("a") + 3) is True
    assert prove_nonnegative(Sym("a") - 1) is None


def test_sympy_fallback_decides_nonlinear() -> None:
    """sympy decides what the native prover leaves open on nonlinear forms."""
    square = parse_expr("(a - b) * (a - b)")
    assert prove_nonnegative(square, fallback=False) is None
    assert prove_nonnegative(square, fallback=True) is True
    assert prove_nonnegative(square, ExtentContext(use_sympy=True)) is True
    assert prove_nonnegative(square, ExtentContext(use_sympy=False)) is None


def test_fallback_skipped_on_linear_forms() -> None:
    """An open linear question is final: sympy is not consulted."""
    ctx = ExtentContext()
    assert prove_le(Sym("batch"), Sym("seq"), ctx) is None


def test_fallback_size_cap() -> None:
    """Expressions over the size cap are not sent to sympy."""
    terms = " + ".join(f"s{i} * s{i}" for i in range(40))
    big = parse_expr(f"({terms}) - 2 * s0 * s1")
    assert prove_nonnegative(big, fallback=True) is None


def test_fallback_extrema_cap() -> None:
    """Expressions with more min/max nodes than the cap are not sent to sympy
    (it compares the arguments of each pairwise: nested clamps took seconds)."""
    few = parse_expr("min(a, max(b, c))")
    many = parse_expr("min(a, max(b, min(c, max(d, min(e, f)))))")
    assert prove_nonnegative((few - Sym("g")) * (few - Sym("g")), fallback=True) is True
    assert prove_nonnegative((many - Sym("g")) * (many - Sym("g")), fallback=True) is None


def test_declaring_invalidates_cached_answers() -> None:
    """A new range is taken into account after a cached answer."""
    ctx = ExtentContext(use_sympy=False)
    assert prove_ge(Sym("batch"), 1, ctx) is None
    ctx.declare("batch", 1, 64)
    assert prove_ge(Sym("batch"), 1, ctx) is True


BOUNDS = [
    ("floordiv", "x floordiv 4 + 3", {}, (3, None)),
    ("floordiv_with_range", "x floordiv 4 + 3", {"x": (0, 100)}, (3, 28)),
    ("index_scalar", "scalar(0, index)", {}, (None, None)),
    ("min_with_constant", "min(a, 5)", {}, (0, 5)),
    ("mod", "a mod 4", {}, (0, 3)),
    ("mod_small_dividend", "a mod 16", {"a": (2, 9)}, (2, 9)),
    ("difference", "a - b", {}, (None, None)),
    ("difference_with_ranges", "a - b", {"a": (4, 10), "b": (1, 3)}, (1, 9)),
    ("symbolic_divisor", "x floordiv y", {"x": (0, 10), "y": (1, None)}, (0, 10)),
    ("zero_divisor_excluded", "x floordiv y", {}, (0, None)),
    ("divisor_of_either_sign", "x floordiv (y - z)", {}, (None, None)),
    ("ceildiv", "x ceildiv 8", {"x": (1, 17)}, (1, 3)),
    ("product", "a * b", {"a": (2, 3), "b": (4, 5)}, (8, 15)),
    ("max", "max(a, 2) - 1", {}, (1, None)),
]


@pytest.mark.parametrize(
    ("text", "ranges", "expected"), [b[1:] for b in BOUNDS], ids=[b[0] for b in BOUNDS]
)
def test_bounds(
    text: str, ranges: dict[str, tuple[int, int | None]], expected: tuple[int | None, int | None]
) -> None:
    """Interval bounds follow the declared ranges (None is unbounded)."""
    assert bounds(parse_expr(text), ExtentContext(ranges)) == expected


SIMPLIFY = [
    ("min_below_range", "min(batch, 4096)", {"batch": (1, 4096)}, "batch"),
    ("max_above_range", "max(batch, 1)", {"batch": (1, None)}, "batch"),
    ("mod_of_small", "x mod 8", {"x": (0, 7)}, "x"),
    ("floordiv_of_small", "x floordiv 8 + y", {"x": (0, 7)}, "y"),
    ("ceildiv_of_small", "x ceildiv 8", {"x": (1, 8)}, "1"),
    ("ceildiv_of_zero", "x ceildiv 8", {"x": (0, 0)}, "0"),
    ("nested", "min(x mod 8, 9) * 2", {"x": (0, 7)}, "2 * x"),
    ("unchanged_without_ranges", "min(batch, 4096) + x mod 8", {}, "x mod 8 + min(4096, batch)"),
]


@pytest.mark.parametrize(
    ("text", "ranges", "expected"), [s[1:] for s in SIMPLIFY], ids=[s[0] for s in SIMPLIFY]
)
def test_simplify_with_ranges(
    text: str, ranges: dict[str, tuple[int, int | None]], expected: str
) -> None:
    """Range-aware simplification uses the declared ranges."""
    assert str(simplify(parse_expr(text), ExtentContext(ranges))) == expected


def test_fresh_symbols() -> None:
    """Fresh symbols are _d0, _d1, ... and distinct per context."""
    ctx = ExtentContext()
    first, second = ctx.fresh_symbol(), ctx.fresh_symbol(lo=1, hi=8)
    assert (str(first), str(second)) == ("_d0", "_d1")
    assert ctx.range_of("_d1") == (1, 8)
    assert ctx.range_of("_d0") == (0, None)


# (id, lhs, op, rhs, expected) over fresh symbols made in order:
# _d0 in [min(1, batch), max(1, batch)], _d1 in [0, rows * cols], _d2 in [0, batch],
# _d3 in [_d2, batch], _d4 in [min(4, batch), max(4, batch)].
LIMITED = [
    ("within_upper_end", "_d2", "le", "batch", True),
    ("shifted_upper_end", "_d2 + 1", "le", "batch + 1", True),
    ("beyond_upper_end", "_d2", "le", "batch - 1", None),
    ("refuted_by_upper_end", "batch + 1", "le", "_d2", False),
    ("product_end", "_d1", "le", "rows * cols", True),
    ("twice_product_end", "2 * _d1", "le", "rows * cols", None),
    ("choice_below_its_max", "_d0", "le", "max(1, batch)", True),
    ("choice_above_its_min", "min(1, batch)", "le", "_d0", True),
    ("choice_vs_one_end", "_d0", "le", "batch", None),
    ("choice_not_always_one", "1", "le", "_d0", None),
    ("choice_unequal", "_d0", "eq", "batch", None),
    ("chained_lower_end", "_d2", "le", "_d3", True),
    ("chained_upper_end", "_d3", "le", "batch", True),
    ("chained_difference", "_d3 - _d2", "le", "batch", True),
    ("scaled_choice", "4 * _d4", "le", "4 * max(4, batch)", True),
    ("twice_choice", "2 * _d4", "le", "batch + 4", None),
    ("choice_times_axis", "_d4 * seq", "le", "max(4, batch) * seq", True),
]


def _limited_context() -> ExtentContext:
    ctx = ExtentContext(use_sympy=False)
    batch, rows, cols = Sym("batch"), Sym("rows"), Sym("cols")
    ctx.fresh_symbol(parse_expr("min(1, batch)"), parse_expr("max(1, batch)"))
    ctx.fresh_symbol(0, rows * cols)
    low = ctx.fresh_symbol(0, batch)
    ctx.fresh_symbol(low, batch)
    ctx.fresh_symbol(parse_expr("min(4, batch)"), parse_expr("max(4, batch)"))
    return ctx


@pytest.mark.parametrize(("lhs", "op", "rhs", "expected"), [c[1:] for c in LIMITED],
                         ids=[c[0] for c in LIMITED])
def test_ranges_with_expression_ends(lhs: str, op: str, rhs: str, expected: bool | None) -> None:
    """A fresh symbol's range whose ends are expressions feeds the native prover."""
    assert PROVE_FNS[op](parse_expr(lhs), parse_expr(rhs), _limited_context()) is expected


def test_expression_ends_bound_intervals() -> None:
    """Interval bounds use the ends' own bounds; a constant range stays a range."""
    ctx = ExtentContext({"n": (2, 9)})
    chosen = ctx.fresh_symbol(parse_expr("min(3, n)"), parse_expr("max(3, n) + 1"))
    assert bounds(chosen, ctx) == (2, 10)
    fixed = ctx.fresh_symbol(-4, 6)
    assert (ctx.range_of(fixed.name), ctx.limits(fixed.name)) == ((0, 6), None)
    assert ctx.limits(chosen.name) == (parse_expr("min(3, n)"), parse_expr("max(3, n) + 1"))


def test_limit_replaces_a_range_and_drops_self_references() -> None:
    """Setting a range again replaces it (and forgets cached proofs); an end that
    mentions the symbol itself is dropped."""
    ctx = ExtentContext(use_sympy=False)
    k = ctx.fresh_symbol(0, Sym("a"))
    assert prove_le(k, Sym("a"), ctx) is True
    ctx.limit(k.name, 0, Sym("b"))
    assert prove_le(k, Sym("a"), ctx) is None
    assert prove_le(k, Sym("b"), ctx) is True
    ctx.limit(k.name, 0, k + 1)
    assert ctx.limits(k.name) is None and ctx.range_of(k.name) == (0, None)
    with pytest.raises(ValueError, match="'batch' is not a fresh symbol"):
        ctx.limit("batch", 0, 4)


def test_simplify_respects_expression_ends() -> None:
    """min/max pruning uses expression ends: min(_d0, batch) is _d0 below batch."""
    ctx = ExtentContext()
    k = ctx.fresh_symbol(0, Sym("batch"))
    assert simplify(parse_expr(f"min({k}, batch)"), ctx) is k


@pytest.mark.parametrize(
    ("name", "lo", "hi", "message"),
    [
        ("_d3", 0, None, "reserved for fresh symbols"),
        ("batch", -1, None, "lower bound -1 is negative"),
        ("batch", 5, 4, "empty range"),
        ("max", 0, None, "invalid symbol name"),
    ],
    ids=["fresh_name", "negative_lower", "empty", "reserved_word"],
)
def test_declare_rejects(name: str, lo: int, hi: int | None, message: str) -> None:
    """Invalid declarations are refused."""
    with pytest.raises(ValueError, match=message):
        ExtentContext().declare(name, lo, hi)


def test_check_bindings_enforces_ranges() -> None:
    """Runtime bindings are checked against declared ranges."""
    ctx = ExtentContext({"batch": (1, 4096)})
    ctx.check_bindings({"batch": 4096, "seq": 0})
    with pytest.raises(
        RangeViolationError, match="'batch' = 0 is outside its range 1 <= batch <= 4096"
    ):
        ctx.check_bindings({"batch": 0})
    with pytest.raises(RangeViolationError, match="'seq' = -1"):
        ctx.check_bindings({"seq": -1})
