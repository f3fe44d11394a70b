"""The symshape dialect from Python: registration, generated op classes, round trips."""

from __future__ import annotations

import subprocess
import sys

import pytest
from mlir import ir
from mlir.passmanager import PassManager

import symshape_mlir
from symshape_mlir.attributes import (
    decode,
    decode_shape,
    expr_from_tree,
    format_tree,
    shape_from_attr,
)
from symshape_mlir.dialects import symshape
from symshape_mlir.extent import Exact, UpperBound, parse_expr

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
        assert format_tree(trees[0][1]) == "(batch + 1) * 2"


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
    """Left-deep C++ trees of long chains read like the text and print like the C++ printer."""
    with ir.Context():
        attr = ir.Attribute.parse(f"#symshape.expr<{text}>")
        tree = decode(attr)
        printed = str(attr)[len("#symshape.expr<") : -1]
    assert expr_from_tree(tree) is parse_expr(text)
    assert format_tree(tree) == printed


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
