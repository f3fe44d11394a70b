"""Shapes with named axes: properties, resolution, binding extraction and unification."""

import pytest

from symshape_mlir.extent import (
    UNKNOWN,
    Exact,
    ExtentContext,
    NegativeExtentError,
    Sym,
    UpperBound,
    parse_expr,
)
from symshape_mlir.shapes import (
    AxisBindingError,
    AxisConflictError,
    Shape,
    ShapeError,
    as_shape,
    axis_name,
    extract_bindings,
    is_placeholder,
    unify_shapes,
)

PROPERTIES = [
    ("static", [32, 512], False, False, True, (None, None)),
    ("named", ["batch", 512], True, True, False, ("batch", None)),
    ("expression", [parse_expr("2 * n"), 4], True, False, False, (None, None)),
    ("fresh", [Sym("_d0")], True, False, False, (None,)),
    ("bounded", [UpperBound(8)], True, False, False, (None,)),
    ("unknown", [UNKNOWN, 3], True, False, False, (None, None)),
    ("scalar", [], False, False, True, ()),
]


@pytest.mark.parametrize(
    ("items", "dynamic", "named", "concrete", "names"),
    [p[1:] for p in PROPERTIES],
    ids=[p[0] for p in PROPERTIES],
)
def test_properties(
    items: list[object], dynamic: bool, named: bool, concrete: bool, names: tuple[str | None, ...]
) -> None:
    """is_dynamic, has_named_axes, is_fully_concrete and axis_names."""
    shape = Shape(items)  # type: ignore[arg-type]
    assert (shape.is_dynamic, shape.has_named_axes, shape.is_fully_concrete) == (
        dynamic,
        named,
        concrete,
    )
    assert shape.axis_names == names
    assert shape.rank == len(items)


def test_text_and_sequence_protocol() -> None:
    """Shapes print in the shape syntax, parse back, index and slice."""
    shape = Shape.parse("[batch, ub(n), ?, 4]")
    assert str(shape) == "[batch, ub(n), ?, 4]"
    assert as_shape("[batch, ub(n), ?, 4]") == shape
    assert shape[1] == UpperBound(Sym("n"))
    assert shape[2:] == Shape([UNKNOWN, 4])
    assert next(iter(shape)) == Exact(Sym("batch"))
    assert repr(shape) == "Shape('[batch, ub(n), ?, 4]')"
    assert shape.free_symbols == {"batch", "n"}
    assert not shape.is_exact


@pytest.mark.parametrize(
    ("item", "error"),
    [(-1, ValueError), ("2x", ValueError), (True, TypeError), (1.5, TypeError)],
    ids=["negative", "bad_name", "bool", "float"],
)
def test_invalid_items(item: object, error: type[Exception]) -> None:
    """Items must be non-negative ints, axis names, expressions or extents."""
    with pytest.raises(error):
        Shape([item])  # type: ignore[list-item]


def test_placeholders_and_names() -> None:
    """Unknown and fresh-symbol axes are unnamed placeholders."""
    assert is_placeholder(UNKNOWN) and is_placeholder(Exact(Sym("_d3")))
    assert not is_placeholder(Exact(Sym("batch")))
    assert axis_name(Exact(Sym("batch"))) == "batch"
    assert axis_name(UpperBound(Sym("batch"))) is None


def test_resolve_and_evaluate() -> None:
    """Resolution substitutes bound symbols; evaluation needs exact extents."""
    shape = Shape(["batch", parse_expr("seq floordiv 2"), 512])
    assert shape.resolve({"batch": 32}) == Shape([32, parse_expr("seq floordiv 2"), 512])
    assert shape.resolve({"batch": 32, "seq": 128}).as_ints() == (32, 64, 512)
    assert shape.evaluate({"batch": 2, "seq": 7}) == (2, 3, 512)
    with pytest.raises(ShapeError, match="axis 0 has no exact extent: ub\\(8\\)"):
        Shape([UpperBound(Sym("n"))]).evaluate({"n": 8})
    with pytest.raises(NegativeExtentError):
        Shape([parse_expr("n - 5")]).evaluate({"n": 2})
    with pytest.raises(ShapeError, match="axis 1 is not a constant: seq"):
        Shape([1, "seq"]).as_ints()


def test_resolve_checks_ranges() -> None:
    """A context's ranges are enforced on resolution."""
    ctx = ExtentContext({"batch": (1, 64)})
    with pytest.raises(ValueError, match="outside its range 1 <= batch <= 64"):
        Shape(["batch"]).resolve({"batch": 128}, ctx)


def test_extract_bindings() -> None:
    """Bindings come from named axes across all inputs."""
    bindings = extract_bindings(
        [["batch", "seq", 512], ["batch", 1024], [UNKNOWN, UpperBound(16)]],
        [(32, 128, 512), (32, 1024), (7, 16)],
    )
    assert bindings == {"batch": 32, "seq": 128}


def test_extract_bindings_solves_linear_extents() -> None:
    """A symbol that appears only in a linear extent is solved for."""
    assert extract_bindings([[parse_expr("2 * n + 1"), parse_expr("n * m")]], [(9, 12)]) == {
        "n": 4,
        "m": 3,
    }


BINDING_ERRORS = [
    (
        "conflict_across_inputs",
        [["batch", 512], ["batch", 512]],
        [(32, 512), (64, 512)],
        {},
        "axis 'batch': input 1 has 64, input 0 has 32",
    ),
    (
        "conflict_within_input",
        [["n", "n"]],
        [(3, 4)],
        {},
        "axis 'n': input 0 axis 1 has 4, input 0 axis 0 has 3",
    ),
    (
        "named_parameters",
        [["batch"], ["batch"]],
        [(1,), (2,)],
        {"names": ["x", "y"]},
        "axis 'batch': input 1 \\('y'\\) has 2, input 0 \\('x'\\) has 1",
    ),
    (
        "constant_mismatch",
        [["batch", 512]],
        [(2, 256)],
        {},
        "input 0 axis 1: expected 512, got 256",
    ),
    (
        "expression_mismatch",
        [["n", parse_expr("2 * n")]],
        [(3, 7)],
        {},
        "input 0 axis 1: expected 2 \\* n = 6, got 7",
    ),
    (
        "bound_exceeded",
        [["n", UpperBound(Sym("n"))]],
        [(3, 4)],
        {},
        "expected at most n = 3, got 4",
    ),
    (
        "rank_mismatch",
        [["batch", 512]],
        [(2,)],
        {},
        "input 0: expected rank 2 \\[batch, 512\\], got rank 1 \\[2\\]",
    ),
    ("count_mismatch", [["batch"]], [(2,), (3,)], {}, "expected 1 inputs, got 2"),
    ("unsolvable", [[parse_expr("2 * n")]], [(7,)], {}, "2 \\* n cannot equal 7 for any 'n'"),
    ("undetermined", [[parse_expr("n * m")]], [(6,)], {}, "cannot determine 'm' from m \\* n"),
    ("negative_extent", [["n"]], [(-1,)], {}, "negative extent"),
    ("not_integers", [["n"]], [("a",)], {}, "is not a sequence of integers"),
    (
        "range_violation",
        [["batch"]],
        [(0,)],
        {"ctx": ExtentContext({"batch": (1, 8)})},
        "axis 'batch' \\(input 0 axis 0\\): 'batch' = 0 is outside its range 1 <= batch <= 8",
    ),
]


@pytest.mark.parametrize(
    ("patterns", "shapes", "kwargs", "message"),
    [e[1:] for e in BINDING_ERRORS],
    ids=[e[0] for e in BINDING_ERRORS],
)
def test_extract_bindings_errors(
    patterns: list[list[object]],
    shapes: list[tuple[int, ...]],
    kwargs: dict[str, object],
    message: str,
) -> None:
    """Errors name the axis, both inputs and both values."""
    with pytest.raises(AxisBindingError, match=message):
        extract_bindings(patterns, shapes, **kwargs)  # type: ignore[arg-type]


UNIFY = [
    ("same", ["batch", 512], ["batch", 512], "[batch, 512]", {}),
    ("unknown_adopts_name", [UNKNOWN, 512], ["batch", 512], "[batch, 512]", {}),
    ("fresh_adopts_name", ["_d0", 512], ["batch", 512], "[batch, 512]", {"_d0": "batch"}),
    (
        "rename_applies_to_later_axes",
        ["_d0", "_d0"],
        ["batch", UNKNOWN],
        "[batch, batch]",
        {"_d0": "batch"},
    ),
    ("two_fresh", ["_d1"], ["_d0"], "[_d0]", {"_d1": "_d0"}),
    (
        "provably_equal",
        [parse_expr("(h - 1) floordiv 2 + 1")],
        [parse_expr("(h + 1) floordiv 2")],
        "[(h + 1) floordiv 2]",
        {},
    ),
    ("exact_within_bound", [UpperBound(Sym("n"))], [parse_expr("n - 1")], "[n - 1]", {}),
    ("two_bounds", [UpperBound(Sym("n"))], [UpperBound(8)], "[ub(min(8, n))]", {}),
    # Undecided over the same axes (equal unless h = 0): the simpler one, checked where used.
    ("same_axes_undecided", [parse_expr("max(0, h - 1) floordiv 2 - max(0, 1 - h) floordiv 2 + 1")],
     [parse_expr("(h + 1) floordiv 2")], "[(h + 1) floordiv 2]", {}),
]


@pytest.mark.parametrize(
    ("lhs", "rhs", "result", "renames"), [u[1:] for u in UNIFY], ids=[u[0] for u in UNIFY]
)
def test_unify(lhs: list[object], rhs: list[object], result: str, renames: dict[str, str]) -> None:
    """Unnamed axes adopt names; equal extents unify; bounds tighten."""
    shape, found = unify_shapes(lhs, rhs)  # type: ignore[arg-type]
    assert str(shape) == result
    assert {k: str(v) for k, v in found.items()} == renames


UNIFY_ERRORS = [
    (
        "different_names",
        ["batch", 512],
        ["time", 512],
        "axis 0: batch and time are different axes unless proven equal",
    ),
    ("different_constants", [3], [4], "axis 0: 3 and 4 are provably different"),
    ("name_and_constant", ["batch"], [32], "axis 0: batch and 32 are different axes"),
    ("exceeds_bound", [UpperBound(4)], [5], "axis 0: 5 exceeds its bound ub\\(4\\)"),
    ("fresh_renamed_twice", ["_d0", "_d0"], ["batch", "seq"], "axis 1: batch and seq"),
]


@pytest.mark.parametrize(
    ("lhs", "rhs", "message"), [u[1:] for u in UNIFY_ERRORS], ids=[u[0] for u in UNIFY_ERRORS]
)
def test_unify_conflicts(lhs: list[object], rhs: list[object], message: str) -> None:
    """Two different names conflict unless proven equal."""
    with pytest.raises(AxisConflictError, match=message) as info:
        unify_shapes(lhs, rhs)  # type: ignore[arg-type]
    assert info.value.axis is not None


def test_unify_rank_mismatch() -> None:
    """Shapes of different ranks do not unify."""
    with pytest.raises(ShapeError, match="cannot unify shapes of rank 1 and 2"):
        unify_shapes(["a"], ["a", 1])
