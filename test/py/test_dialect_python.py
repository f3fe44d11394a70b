"""The symshape dialect from Python: registration, generated op classes, round trips."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from mlir import ir
from mlir.passmanager import PassManager

import symshape_mlir
from symshape_mlir import _symshape
from symshape_mlir.attributes import (
    ExtentRangeError,
    decode,
    decode_shape,
    enum_name,
    expr_from_tree,
    extent_attr,
    format_tree,
    shape_attr,
    shape_from_attr,
    tree_from_expr,
)
from symshape_mlir.dialects import symshape
from symshape_mlir.extent import (
    UNKNOWN,
    Const,
    Exact,
    Expr,
    InputAxis,
    RuntimeScalar,
    ShapeExtent,
    Sym,
    UpperBound,
    ceildiv,
    floordiv,
    maximum,
    minimum,
    mod,
    parse_expr,
    parse_extent,
)
from symshape_mlir.extent.expr import INT64_MAX, INT64_MIN

MIXED = """
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @mixed(%x: tensor<?x4xf32> {symshape.axes = #symshape.shape<[batch, 4]>},
                 %n: tensor<i64>) -> tensor<?xf32> {
  %c = symshape.const 3
  %c2 = symshape.const 4
  %sum = symshape.add %c, %c2
  %d = symshape.dim %x, 0 : tensor<?x4xf32>
  %rows = symshape.to_index %d
  %e = tensor.empty(%rows) : tensor<?x4xf32>
  %g = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<?x4xf32>) outs(%e : tensor<?x4xf32>) {
  ^bb0(%a: f32, %o: f32):
    %s = arith.addf %a, %a : f32
    linalg.yield %s : f32
  } -> tensor<?x4xf32>
  %t = symshape.dynamic_truncate %g, %n axis 0 stage exact
      : (tensor<?x4xf32>, tensor<i64>) -> tensor<?x4xf32>
  %r = symshape.reshape %t to [dim(0, 0) * 4] : (tensor<?x4xf32>) -> tensor<?xf32>
  %i = symshape.to_index %sum
  return %r : tensor<?xf32>
}
"""


def test_import_makes_dialect_available_in_new_contexts() -> None:
    """A plain ir.Context created after the import parses symshape IR."""
    with ir.Context():
        module = ir.Module.parse(MIXED)
        assert module.operation.verify()


def test_round_trip_custom_and_generic() -> None:
    """Custom and generic forms print and re-parse to the same module."""
    with ir.Context():
        module = ir.Module.parse(MIXED)
        custom = str(module)
        generic = module.operation.get_asm(print_generic_op_form=True)
        assert str(ir.Module.parse(custom)) == custom
        assert str(ir.Module.parse(generic)) == custom
        assert "symshape.reshape %" in custom
        assert '"symshape.reshape"' in generic


def test_canonicalize_folds_constant_extent_arithmetic() -> None:
    """Upstream canonicalize folds symshape.add of two constants into one constant."""
    with ir.Context():
        module = ir.Module.parse("""
            func.func @f() -> index {
              %a = symshape.const 3
              %b = symshape.const 4
              %s = symshape.add %a, %b
              %i = symshape.to_index %s
              return %i : index
            }""")
        PassManager.parse("builtin.module(canonicalize)").run(module.operation)
        body = list(module.body.operations[0].regions[0].blocks[0].operations)
        assert [op.operation.name for op in body] == [
            "symshape.const", "symshape.to_index", "func.return"]
        assert ir.IntegerAttr(body[0].value).value == 7


def test_generated_op_classes_build_ops() -> None:
    """Op classes come from ODS; builders take explicit result types."""
    with ir.Context(), ir.Location.unknown():
        module = ir.Module.create()
        extent = ir.Type.parse("!symshape.extent")
        with ir.InsertionPoint(module.body):
            a = symshape.ConstOp(extent, ir.IntegerAttr.get(ir.IntegerType.get_signless(64), 2))
            b = symshape.ConstOp(extent, ir.IntegerAttr.get(ir.IntegerType.get_signless(64), 5))
            symshape.MulOp(extent, a.result, b.result)
        assert module.operation.verify()
        assert "symshape.mul" in str(module)


def test_register_twice_is_harmless() -> None:
    """register_dialect may be called any number of times on one context."""
    context = symshape_mlir.new_context()
    symshape_mlir.register_dialect(context)
    symshape_mlir.register_dialect(context)
    with context:
        assert ir.Module.parse("func.func @f() { %c = symshape.const 1\n return }")


def test_register_rejects_non_contexts() -> None:
    """A wrong argument is a TypeError, not a crash in C++."""
    with pytest.raises(TypeError, match=r"expected an mlir\.ir\.Context"):
        symshape_mlir.register_dialect("not a context")  # type: ignore[arg-type]


def test_context_created_before_import_gets_the_dialect() -> None:
    """A context made before importing symshape_mlir can be given the dialect."""
    code = (
        "from mlir import ir\n"
        "ctx = ir.Context()\n"
        "import symshape_mlir\n"
        "symshape_mlir.register_dialect(ctx)\n"
        "with ctx:\n"
        "    print(ir.Attribute.parse('#symshape.expr<a * 2>'))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    assert out.strip() == "#symshape.expr<a * 2>"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("#symshape.expr<batch * 2 - 1>", ("sub", ("mul", ("sym", "batch"), ("const", 2)),
                                            ("const", 1))),
        ("#symshape.expr<min(scalar(1, truncate_size), dim(0, 2))>",
         ("min", ("scalar", 1, "truncate_size"), ("dim", 0, 2))),
        ("#symshape.extent<ub(n)>", ("ub", ("sym", "n"))),
        ("#symshape.extent<?>", ("unknown", None)),
    ],
    ids=["arith", "leaves", "upper_bound", "unknown"],
)
def test_decode(text: str, expected: object) -> None:
    """Attributes decode into trees through the C API."""
    with ir.Context():
        assert decode(ir.Attribute.parse(text)) == expected


def _tags(tree: object) -> set[str]:
    """The kind tags of a decoded expression tree."""
    if not isinstance(tree, tuple):
        return set()
    return {tree[0]}.union(*(_tags(child) for child in tree[1:]))


def test_decoded_tags_are_the_ods_enum_names() -> None:
    """Kind and guarantee tags are the strings of the ODS enums ExprKind and Guarantee."""
    with ir.Context():
        tree = decode(ir.Attribute.parse(
            "#symshape.expr<min(scalar(1, index), dim(0, 1)) + max(a, 2)"
            " - 3 * b floordiv 4 ceildiv 5 mod 6>"))
        extents = decode_shape(ir.Attribute.parse("#symshape.shape<[a, ub(a), ?]>"))
    assert _tags(tree) == {str(kind) for kind in symshape.ExprKind}
    assert {guarantee for guarantee, _ in extents} == {str(g) for g in symshape.Guarantee}


def test_decode_rejects_other_attributes() -> None:
    """Decoding a non-symshape attribute is a TypeError."""
    with ir.Context(), pytest.raises(TypeError, match=r"expected a #symshape"):
        decode(ir.Attribute.parse("1 : i64"))


def test_shape_attribute_matches_the_algebra() -> None:
    """The C++ printer and the Python algebra agree on the text and the meaning."""
    with ir.Context():
        attr = ir.Attribute.parse("#symshape.shape<[(batch + 1) * 2, ub(seq floordiv 4), ?]>")
        shape = shape_from_attr(attr)
        assert shape[0] == Exact(parse_expr("2 * batch + 2"))
        assert shape[1] == UpperBound(parse_expr("seq floordiv 4"))
        assert shape[2].is_unknown
        trees = decode_shape(attr)
        assert format_tree(trees[0][1], attr.context) == "(batch + 1) * 2"


@pytest.mark.parametrize(
    "text",
    ["func.func @f() { %c = symshape.nope 1\n return }",
     "func.func @f() attributes {e = #symshape.expr<batch +>} { return }",
     "func.func @f() attributes {e = #symshape.shape<[ub batch]>} { return }",
     "func.func @f(%x: tensor<?xf32>) { %d = symshape.dim %x, 9 : tensor<?xf32>\n return }"],
    ids=["unknown_op", "malformed_expr", "malformed_shape", "verifier"],
)
def test_bad_input_raises_instead_of_aborting(text: str) -> None:
    """Malformed symshape IR raises MLIRError; the process survives."""
    with ir.Context(), pytest.raises(ir.MLIRError):
        module = ir.Module.parse(text)
        if not module.operation.verify():
            raise AssertionError("unreachable: parse verifies")


CHAINS = [
    ("long_sum", " + ".join(["x"] * 10001)),
    ("long_difference", " - ".join(f"a{i % 300}" for i in range(10001))),
    ("long_product", " * ".join(["x"] * 10001)),
    ("long_division_chain", "x" + " floordiv 2" * 5000),
    ("mixed", "a - b + c * d * e floordiv 2 mod 3 - min(a, b) * 2 - (a - (b - c))"),
    ("int64_min", "-9223372036854775808 * a"),
]


@pytest.mark.parametrize("text", [c[1] for c in CHAINS], ids=[c[0] for c in CHAINS])
def test_long_chains_decode_read_and_print(text: str) -> None:
    """Left-deep C++ trees of long chains read like the text, and build back to
    the attribute they were decoded from."""
    with ir.Context() as context:
        attr = ir.Attribute.parse(f"#symshape.expr<{text}>")
        tree = decode(attr)
        assert format_tree(tree, context) == str(attr)[len("#symshape.expr<") : -1]
    assert expr_from_tree(tree) is parse_expr(text)


_PARSE_IN_CHILD = """
import sys
from mlir import ir
import symshape_mlir
with ir.Context():
    try:
        print(ir.Module.parse(sys.stdin.read()))
    except ir.MLIRError as err:
        print(err)
"""

GENERIC_SHORT_BLOCK = """
"func.func"() <{function_type = (tensor<?xf32>) -> (), sym_name = "f",
                arg_attrs = [{symshape.axes = #symshape.shape<[b]>}]}> ({
  "func.return"() : () -> ()
}) : () -> ()
"""

CRASH_PRONE = [
    (
        "axes_on_a_declaration",
        "func.func private @f(tensor<?xf32> {symshape.axes = #symshape.shape<[b]>})",
        "func.func private @f(tensor<?xf32> {symshape.axes = #symshape.shape<[b]>})",
    ),
    (
        "axes_with_a_short_entry_block",
        GENERIC_SHORT_BLOCK,
        "entry block must have 1 arguments to match function signature",
    ),
    (
        "twenty_thousand_levels",
        "func.func @f() attributes {e = #symshape.expr<" + "(" * 20000 + "a" + ")" * 20000
        + ">} { return }",
        "expression nests deeper than 256 levels",
    ),
    (
        "reshape_count_overflow",
        "func.func @f(%x: tensor<2xf32>) {\n"
        "  %0 = symshape.reshape %x to [3, 6148914691236517206]"
        " : (tensor<2xf32>) -> tensor<?x?xf32>\n  return\n}",
        "reshape target element count overflows int64",
    ),
]


@pytest.mark.parametrize(
    ("text", "expected"), [c[1:] for c in CRASH_PRONE], ids=[c[0] for c in CRASH_PRONE]
)
def test_crash_prone_input_in_a_child(text: str, expected: str) -> None:
    """Inputs that once killed the process parse or fail cleanly (in a child process)."""
    done = subprocess.run([sys.executable, "-c", _PARSE_IN_CHILD], input=text,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, f"the child died ({done.returncode}): {done.stderr[-2000:]}"
    assert expected in done.stdout


# Building attributes through the C API: the same uniqued attribute as parsing
# the printed text, for every expression the algebra can produce.

_EDGE_INTEGERS = [0, 1, -1, 2, -3, 7, INT64_MAX, INT64_MIN, INT64_MIN + 1, 2**62, -(2**62)]

_LEAVES = st.one_of(
    st.sampled_from(_EDGE_INTEGERS).map(Const),
    st.integers(-9, 9).map(Const),
    st.sampled_from(["a", "b", "seq", "_d0"]).map(Sym),
    st.builds(InputAxis, st.integers(0, 2), st.integers(0, 3)),
    st.builds(RuntimeScalar, st.integers(0, 2),
              st.sampled_from(["index", "clamp_nonneg", "truncate_size"])),
)

_OPERATIONS = [
    lambda x, y: x + y, lambda x, y: x - y, lambda x, y: x * y, floordiv, ceildiv, mod,
    minimum, maximum, lambda x, _: -x, lambda x, y: 3 * x - 2 * y * x - 1,
]


def _combined(operation: int, x: Expr, y: Expr) -> Expr:
    try:
        return _OPERATIONS[operation](x, y)
    except ArithmeticError:  # a constant division by zero or an overflow folding constants
        return x


_EXPRESSIONS = st.recursive(
    _LEAVES,
    lambda children: st.builds(_combined, st.integers(0, len(_OPERATIONS) - 1), children,
                               children),
    max_leaves=10,
)
_EXTENTS = st.one_of(_EXPRESSIONS.map(Exact), _EXPRESSIONS.map(UpperBound), st.just(UNKNOWN))


def _parsed_shape(extents: list[ShapeExtent]) -> ir.Attribute | None:
    """The attribute the extents' text parses to; None when the parser rejects it."""
    text = "#symshape.shape<[" + ", ".join(str(e) for e in extents) + "]>"
    try:
        return ir.Attribute.parse(text)
    except ir.MLIRError:
        return None


@settings(max_examples=400, deadline=None)
@given(st.lists(_EXTENTS, max_size=3))
def test_built_attributes_are_the_parsed_ones(extents: list[ShapeExtent]) -> None:
    """shape_attr and extent_attr build the uniqued attribute the text parses to,
    and whose dialect-printed text reads back as the extent."""
    with symshape_mlir.new_context() as context:
        parsed = _parsed_shape(extents)
        if parsed is None:  # only an integer beyond int64 makes the text unreadable
            with pytest.raises(ExtentRangeError, match="beyond the int64 range"):
                shape_attr(extents, context)
            return
        assert shape_attr(extents, context) == parsed
        for extent in extents:
            attr = extent_attr(extent, context)
            assert attr == ir.Attribute.parse(f"#symshape.extent<{extent}>")
            # Each printer's text reads back as the other's (one syntax, two printers).
            assert parse_extent(_symshape.print_body(attr)) == extent


NAMED_EXTENTS = [
    ("int64_min", Exact(Const(INT64_MIN)), "-9223372036854775808"),
    ("int64_min_coefficient", Exact(INT64_MIN * Sym("a") + 1), "-9223372036854775808 * a + 1"),
    ("negative_coefficients", Exact(Sym("b") - 3 * Sym("a") * Sym("c")), "b - 3 * a * c"),
    ("leading_minus", Exact(-Sym("a") * Sym("b") + 2), "(0 - a) * b + 2"),
    ("nested_division_extrema",
     UpperBound(floordiv(minimum(Sym("a"), ceildiv(Sym("b"), 3)), 2) + maximum(Sym("c"), 1)),
     "ub(min(a, b ceildiv 3) floordiv 2 + max(1, c))"),
    ("op_local", Exact(mod(InputAxis(0, 1), RuntimeScalar(1, "clamp_nonneg"))),
     "dim(0, 1) mod scalar(1, clamp_nonneg)"),
    ("unknown", UNKNOWN, "?"),
]


@pytest.mark.parametrize(("extent", "printed"), [c[1:] for c in NAMED_EXTENTS],
                         ids=[c[0] for c in NAMED_EXTENTS])
def test_built_extent_prints_as_the_cpp_printer(extent: ShapeExtent, printed: str) -> None:
    """Named edge cases: the built extent is the parsed one and prints as expected."""
    with symshape_mlir.new_context() as context:
        attr = extent_attr(extent, context)
        assert attr == ir.Attribute.parse(f"#symshape.extent<{extent}>")
        assert str(attr) == f"#symshape.extent<{printed}>"


def test_tree_from_expr_follows_the_parser() -> None:
    """A leading negated term reads as ``0 - x``; a coefficient leads its product chain."""
    assert tree_from_expr(2 - Sym("a")) == (
        "add", ("sub", ("const", 0), ("sym", "a")), ("const", 2))
    assert tree_from_expr(3 * Sym("a") * Sym("b")) == (
        "mul", ("mul", ("const", 3), ("sym", "a")), ("sym", "b"))
    expr = parse_expr("min(a, b) floordiv 2 - 5")
    assert expr_from_tree(tree_from_expr(expr)) is expr


@pytest.mark.parametrize(
    ("extent", "message"),
    [(Exact(Sym("a") + 2**63), "the extent 'a + 9223372036854775808' holds "
      "9223372036854775808, beyond the int64 range"),
     (UpperBound(Sym("a") - 2**64 * Sym("b")), "the extent 'ub(a - 18446744073709551616 * b)' "
      "holds 18446744073709551616, beyond the int64 range"),
     (Exact(Sym("a") + INT64_MIN), "holds 9223372036854775808, beyond the int64 range")],
    ids=["constant", "coefficient", "subtracted_int64_min"],
)
def test_builders_reject_integers_beyond_int64(extent: ShapeExtent, message: str) -> None:
    """An integer the text would hold beyond int64 is an ExtentRangeError naming it."""
    with (symshape_mlir.new_context() as context,
          pytest.raises(ExtentRangeError, match=re.escape(message))):
        extent_attr(extent, context)


BAD_TREES = [
    ("reserved_symbol", ("sym", "min"), ValueError, "invalid expression leaf"),
    ("negative_axis", ("dim", 0, -1), ValueError, "invalid expression leaf"),
    ("unknown_semantics", ("scalar", 0, "wrap"), ValueError, "invalid expression leaf"),
    ("beyond_int64", ("const", 2**63), _symshape.ExprLimitError, "beyond the int64 range"),
    ("bool", ("const", True), TypeError, "expected an int"),
    ("unknown_kind", ("pow", ("const", 1), ("const", 2)), ValueError, "unknown expression kind"),
    ("missing_operand", ("add", ("const", 1)), ValueError, "wrong number of fields"),
    ("not_a_tuple", ["const", 1], TypeError, "expected an expression tree"),
]


def _chain(kind: str, count: int) -> tuple[object, ...]:
    tree: tuple[object, ...] = ("sym", "x")
    for _ in range(count):
        tree = (kind, tree, ("const", 1))
    return tree


@pytest.mark.parametrize(
    ("tree", "error", "message"),
    [c[1:] for c in BAD_TREES]
    + [(_chain("add", 10001), _symshape.ExprLimitError, "more than 10000 operators"),
       (_chain("min", 257), _symshape.ExprLimitError, "nests deeper than 256 levels")],
    ids=[c[0] for c in BAD_TREES] + ["too_many_operators", "nesting"],
)
def test_build_expr_rejects_bad_trees(tree: object, error: type[Exception], message: str) -> None:
    """Malformed trees raise (never abort); the parser's size limits apply to
    built trees. Only a tree beyond the limits raises ExprLimitError (which the
    attribute builders report as ExtentRangeError); a malformed one is a bug."""
    with symshape_mlir.new_context() as context, pytest.raises(error, match=message) as info:
        _symshape.build_expr(tree, context)  # type: ignore[arg-type]
    limit = error is _symshape.ExprLimitError
    assert isinstance(info.value, _symshape.ExprLimitError) is limit
    assert isinstance(info.value, ValueError) or info.type is TypeError


def test_build_expr_accepts_the_limits() -> None:
    """A chain of 10,000 operators and 256 nested min() build (and read back from text)."""
    with symshape_mlir.new_context() as context:
        for tree in (_chain("add", 10000), _chain("min", 256)):
            attr = _symshape.build_expr(tree, context)
            assert ir.Attribute.parse(str(attr)) == attr


def test_typed_predicates() -> None:
    """kind_of, mentions_symshape and enum_name read attributes without their text."""
    with symshape_mlir.new_context():
        shape = ir.Attribute.parse("#symshape.shape<[a, ?]>")
        semantics = ir.Attribute.parse("#symshape<semantics clamp_nonneg>")
        stage = ir.Attribute.parse("#symshape<stage exact>")
        plain = ir.Attribute.parse('["#symshape.shape<[a]>", 1 : i64]')
        assert [_symshape.kind_of(a) for a in (shape, semantics, stage, plain)] == [
            "shape", "semantics", "stage", None]
        assert _symshape.kind_of(ir.Attribute.parse("#symshape.expr<a>")) == "expr"
        assert _symshape.kind_of(ir.Attribute.parse("#symshape.extent<?>")) == "extent"
        assert _symshape.mentions_symshape(ir.ArrayAttr.get([plain, ir.DictAttr.get(
            {"s": shape})]))
        assert not _symshape.mentions_symshape(plain)
        assert (enum_name(semantics), enum_name(stage)) == ("clamp_nonneg", "exact")
        with pytest.raises(TypeError, match="expected a #symshape<semantics"):
            enum_name(shape)


def test_extent_beyond_the_syntax_limits_is_a_range_error() -> None:
    """shape_attr/extent_attr report an expression the syntax cannot hold as
    ExtentRangeError, which inference reports at the op."""
    from symshape_mlir.attributes import ExtentRangeError, extent_attr, shape_attr
    from symshape_mlir.extent import Exact, Sym
    from symshape_mlir.extent.canon import maximum, minimum

    deep = Sym("s0")
    for i in range(1, 300):
        deep = (minimum if i % 2 else maximum)(deep, Sym(f"s{i}"))
    context = symshape_mlir.new_context()
    with pytest.raises(ExtentRangeError, match=r"^a shape is too large for an attribute: "
                                               r"expression nests deeper than 256 levels$"):
        shape_attr([Exact(deep)], context)
    with pytest.raises(ExtentRangeError, match=r"is too large for an attribute: "
                                               r"expression nests deeper than 256 levels$"):
        extent_attr(Exact(deep), context)


TYPES = [
    ("extent", "!symshape.extent", True, True),
    ("index", "index", False, False),
    ("tensor_of_extents", "tensor<4x!symshape.extent>", False, True),
    ("encoding", "tensor<4xf32, #symshape.expr<batch>>", False, True),
    ("function", "(index) -> !symshape.extent", False, True),
    ("plain_tensor", "tensor<?x4xf32>", False, False),
]


@pytest.mark.parametrize(("text", "extent", "mentions"), [t[1:] for t in TYPES],
                         ids=[t[0] for t in TYPES])
def test_type_predicates(text: str, extent: bool, mentions: bool) -> None:
    """Types are recognized through the C API, nested ones included, without printing them."""
    with ir.Context():
        type_ = ir.Type.parse(text)
        assert symshape.is_extent_type(type_) is extent
        assert symshape.type_mentions_symshape(type_) is mentions


def test_print_body_is_the_dialect_printer() -> None:
    """The body printer prints what the attribute prints between its brackets,
    for all three syntaxes, and refuses any other attribute."""
    with ir.Context():
        for text in ("#symshape.expr<(batch + 1) * 2>", "#symshape.extent<ub(n floordiv 2)>",
                     "#symshape.shape<[batch, ?, ub(dim(0, 1))]>"):
            attr = ir.Attribute.parse(text)
            assert _symshape.print_body(attr) == str(attr)[str(attr).index("<") + 1 : -1]
        with pytest.raises(TypeError, match=r"expected a #symshape\.expr, \.extent or \.shape"):
            _symshape.print_body(ir.Attribute.parse("[1]"))
