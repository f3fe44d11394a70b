"""Case generators of the bad-input fuzzer: grammar-aware mutations of valid seeds.

Four families, each a function ``(rng, index) -> Case``:

* :func:`syntax_case` — symshape expression/extent/shape attributes and ops in
  MLIR text (valid seeds with mutated expressions, integers, names, arities,
  nesting, ``symshape.axes`` on declarations and generic-form functions), run
  through ``symshape-opt`` with one of the symshape pipelines;
* :func:`cli_case` — malformed or extreme ``symshape-opt`` options on a valid
  input;
* :func:`runtime_case` — calls into the compiled runtime seed program with
  wrong dtypes, ranks, out-of-range scalars, negative/zero sizes and named
  axes that disagree;
* :func:`algebra_case` and :func:`dialect_case` — the Python algebra API
  (``parse_expr``, ``evaluate``, ``dumps``/``loads``, ``from_postorder``) and
  the Python-vs-C++ expression grammars.

A case whose input is invalid by the grammar carries ``expect_reject`` (and
``why``): accepting it silently is a *wrong output*.
"""

# The MLIR seeds below are long single lines on purpose (each is a valid program).
# ruff: noqa: E501

from __future__ import annotations

import dataclasses
import logging
import random
from collections.abc import Callable
from typing import Any

__all__ = [
    "FAMILIES",
    "Case",
    "algebra_case",
    "cli_case",
    "dialect_case",
    "generate",
    "runtime_case",
    "syntax_case",
]

logger = logging.getLogger(__name__)

INT64_MAX = 2**63 - 1
INT64_MIN = -(2**63)

Tree = Any  # int | str | [op, Tree, Tree]


@dataclasses.dataclass
class Case:
    """One fuzz input.

    Attributes:
        id: A stable name (``<family>-<index>``).
        family: Which generator made it.
        mode: ``opt`` (the ``symshape-opt`` CLI) or a child mode
            (``algebra``, ``dialect``, ``runtime``).
        text: The MLIR input (``opt`` mode).
        args: The ``symshape-opt`` arguments before the input file.
        payload: The JSON case for a child mode.
        expect_reject: The input is invalid: it must be rejected.
        why: What makes it invalid (for the report).
        cli: The mutation is in the options, not the IR: an error needs no
            file location (but still no traceback).
        note: What the mutation did (for the report).
    """

    id: str
    family: str
    mode: str
    text: str = ""
    args: list[str] = dataclasses.field(default_factory=list)
    payload: dict[str, Any] = dataclasses.field(default_factory=dict)
    expect_reject: bool = False
    why: str = ""
    cli: bool = False
    note: str = ""


# --------------------------------------------------------------------------- expressions

SYMBOLS = ("batch", "seq", "n", "k")
OPS = ("+", "-", "*", "floordiv", "ceildiv", "mod", "min", "max")
BOUNDARY_INTS = (
    0, 1, 2, 7, 255, 256, 2**31 - 1, 2**31, 2**32, 2**62,
    INT64_MAX - 1, INT64_MAX, INT64_MAX + 1, 2**64, 2**64 + 1, 10**30,
)  # fmt: skip
# Integer spellings outside the grammar's INT (ASCII decimal digits).
BAD_INTS = {
    "0x10": "hex literal",
    "0b11": "binary literal",
    "1e3": "float exponent",
    "1.5": "float literal",
    "1_000": "digit separator",
    "\u0663": "non-ASCII digit (Arabic-Indic 3)",
    "\uff11\uff12": "non-ASCII digits (fullwidth 12)",
    "\u00b2": "superscript two",
    "\u0967\u0968": "non-ASCII digits (Devanagari 12)",
    "+5": "unary plus",
}
BAD_OPS = {
    "/": "unknown operator '/'",
    "**": "unknown operator '**'",
    "^": "unknown operator '^'",
    "<<": "unknown operator '<<'",
    "div": "unknown operator 'div'",
    "&": "unknown operator '&'",
}
BAD_CALLS = {
    "min(batch)": "min with one argument",
    "min(batch, 2, 3)": "min with three arguments",
    "max()": "max with no argument",
    "dim(0)": "dim with one argument",
    "dim(0, 1, 2)": "dim with three arguments",
    "scalar(1)": "scalar without semantics",
    "scalar(1, index, 2)": "scalar with three arguments",
    "scalar(1, bogus)": "unknown scalar semantics",
    "dim(-1, 0)": "negative operand index",
    "dim(0, -1)": "negative axis",
    "dim(batch, 0)": "symbol as operand index",
    "dim(99999999999999999999, 0)": "operand index beyond int64",
    "abs(batch)": "unknown function",
    "(batch": "unbalanced parenthesis",
    "batch)": "unbalanced parenthesis",
    "batch +": "dangling operator",
    "* batch": "leading operator",
    "": "empty expression",
    "batch batch": "two operands without an operator",
}
# Leaves that are valid in the attribute grammar but wrong in an op context
# (the seed ops have operand 0: a rank-2 tensor, operand 1: a 0-d i64 tensor).
CONTEXT_BAD_LEAVES = {
    "dim(5, 0)": "dim of a missing operand",
    "dim(0, 7)": "dim of a missing axis",
    "dim(1, 0)": "dim of a 0-d operand",
    "scalar(0, index)": "scalar of a non-0-d operand",
    "scalar(3, index)": "scalar of a missing operand",
    "dim(9223372036854775807, 0)": "dim of operand INT64_MAX",
    "scalar(4294967296, truncate_size)": "scalar of operand 2**32",
}
# Seeds whose operands differ from the above: gather's operand 1 is the
# rank-2 index tensor, so its axis 0 exists.
CONTEXT_GOOD_LEAVES = {"gather": ("dim of a 0-d operand",)}
WEIRD_NAMES = ("_d0", "_d12", "β", "batch_2", "dim", "min", "ub", "index", "a" * 300)


def random_tree(rng: random.Random, depth: int, leaves: tuple[str, ...] = SYMBOLS) -> Tree:
    """A random expression tree over ``leaves`` and small constants."""
    if depth <= 0 or rng.random() < 0.3:
        return rng.choice(leaves) if rng.random() < 0.6 else rng.randint(0, 9)
    return [
        rng.choice(OPS),
        random_tree(rng, depth - 1, leaves),
        random_tree(rng, depth - 1, leaves),
    ]


def render(tree: Tree) -> str:
    """The dialect text of a tree, fully parenthesized."""
    if isinstance(tree, int):
        return str(tree) if tree >= 0 else f"(-{-tree})"
    if isinstance(tree, str):
        return tree
    op, a, b = tree
    if op in ("min", "max"):
        return f"{op}({render(a)}, {render(b)})"
    return f"({render(a)} {op} {render(b)})"


def _int_text(value: int) -> str:
    return str(value) if value >= 0 else f"-{-value}"


def deep_text(rng: random.Random) -> tuple[str, str]:
    """A deeply nested or very long (valid) expression, and its description."""
    n = rng.choice((200, 1000, 5000, 16800, 20000))
    shape = rng.randrange(5)
    if shape == 0:
        return "(" * n + "batch" + ")" * n, f"{n} nested parentheses"
    if shape == 1:
        return "min(" * n + "batch" + ", 1)" * n, f"{n} nested min"
    if shape == 2:
        return "- " * n + "batch", f"{n} unary minus"
    if shape == 3:
        return " + ".join(["batch"] * n), f"sum of {n} terms"
    return " * ".join(["2"] * (n // 10) + ["batch"]), f"product of {n // 10} factors"


def mutate_expr(rng: random.Random, context: bool) -> tuple[str, bool, str]:
    """A mutated expression: (text, invalid by the grammar, what was done)."""
    base = render(random_tree(rng, rng.randint(0, 4)))
    kind = rng.randrange(8 if context else 7)
    if kind == 0:
        value = rng.choice(BOUNDARY_INTS)
        if rng.random() < 0.3:
            value = -value
        pos = rng.choice(("alone", "left", "right"))
        lit = _int_text(value)
        text = (
            lit if pos == "alone" else (f"{lit} + {base}" if pos == "left" else f"{base} * {lit}")
        )
        invalid = abs(value) > INT64_MAX and value > 0
        return text, invalid, f"integer {lit}"
    if kind == 1:
        bad, why = rng.choice(sorted(BAD_INTS.items()))
        return f"{base} + {bad}", True, why
    if kind == 2:
        bad, why = rng.choice(sorted(BAD_OPS.items()))
        return f"batch {bad} {base}", True, why
    if kind == 3:
        bad, why = rng.choice(sorted(BAD_CALLS.items()))
        return (bad if rng.random() < 0.5 else f"{base} + {bad}"), True, why
    if kind == 4:
        text, why = deep_text(rng)
        return text, False, why
    if kind == 5:
        name = rng.choice(WEIRD_NAMES)
        return f"{base} + {name}", name == "β", f"name {name[:20]!r}"
    if kind == 6:
        return base, False, "valid random expression"
    leaf, why = rng.choice(sorted(CONTEXT_BAD_LEAVES.items()))
    return f"{base} + {leaf}", True, why


# --------------------------------------------------------------------------- MLIR seeds

PIPELINES: tuple[tuple[str, ...], ...] = (
    (),
    ("--symshape-infer-shapes",),
    ("--symshape-infer-shapes", "--symshape-verify-contract=mode=defer"),
    ("--symshape-infer-shapes", "--symshape-verify-contract"),
    ("--symshape-infer-shapes", "--symshape-resolve"),
    ("--symshape-resolve",),
    ("--symshape-specialize=bindings=batch=32",),
    ("--symshape-specialize=bindings=batch=32", "--symshape-to-iree"),
    ("--symshape-to-iree",),
    ("--symshape-infer-shapes=policy=strict", "--symshape-check-guarantees"),
    (
        "--symshape-infer-shapes",
        "--symshape-verify-contract=mode=defer",
        "--symshape-resolve=target=iree",
    ),
)

_RESHAPE = """\
func.func @f(%x: tensor<?x4xf32> {{symshape.axes = #symshape.shape<[batch, 4]>}}, %n: tensor<i64>) -> tensor<?xf32> {{
  %r = symshape.reshape %x, %n to [{e}] : (tensor<?x4xf32>, tensor<i64>) -> tensor<?xf32>
  return %r : tensor<?xf32>
}}
"""
_BROADCAST = """\
func.func @f(%x: tensor<?x4xf32> {{symshape.axes = #symshape.shape<[batch, 4]>}}, %n: tensor<i64>) -> tensor<?x?x4xf32> {{
  %b = symshape.broadcast_in_dim %x, %n dims [1, 2] to [{e}, batch, 4] : (tensor<?x4xf32>, tensor<i64>) -> tensor<?x?x4xf32>
  return %b : tensor<?x?x4xf32>
}}
"""
_GATHER = """\
func.func @f(%x: tensor<?x4xf32> {{symshape.axes = #symshape.shape<[batch, 4]>}}, %n: tensor<i64>, %ids: tensor<?x1xi64>) -> tensor<?x?xf32> {{
  %g = symshape.gather %x[%ids] start_index_map [0] collapsed_slice_dims [0] slice_sizes [1, {e}] : (tensor<?x4xf32>, tensor<?x1xi64>) -> tensor<?x?xf32>
  return %g : tensor<?x?xf32>
}}
"""
_ATTRS = """\
func.func @f(%x: tensor<?x4xf32>) -> tensor<?x4xf32> attributes {{e = #symshape.expr<{e}>, x = #symshape.extent<{x}>, s = #symshape.shape<[{e}, ub({e}), ?]>}} {{
  return %x : tensor<?x4xf32>
}}
"""
_ANNOTATION = """\
func.func @f(%x: tensor<?x4xf32> {{symshape.axes = #symshape.shape<[batch, 4]>}}) -> tensor<?x4xf32> {{
  %c = tensor.cast %x {{symshape.shape = #symshape.shape<[{e}, 4]>}} : tensor<?x4xf32> to tensor<?x4xf32>
  return %c : tensor<?x4xf32>
}}
"""
_EXPR_SEEDS = {
    "reshape": _RESHAPE,
    "broadcast": _BROADCAST,
    "gather": _GATHER,
    "attrs": _ATTRS,
    "annotation": _ANNOTATION,
}

_EXTENT_OPS = """\
func.func @f(%x: tensor<?x4xf32> {{symshape.axes = #symshape.shape<[batch, 4]>}}, %n: tensor<{ity}>) -> tensor<?xf32> {{
  %c = symshape.const {c}
  %d = symshape.dim %x, {axis} : tensor<?x4xf32>
  %s = symshape.runtime_scalar %n {sem} : tensor<{ity}>
  %a = symshape.{op1} %d, %c
  %q = symshape.{op2} %a, %s
  %i = symshape.to_index %q
  %e = tensor.empty(%i) : tensor<?xf32>
  return %e : tensor<?xf32>
}}
"""
_TRUNCATE = """\
func.func @f(%x: tensor<?x4xf32> {{symshape.axes = #symshape.shape<[batch, 4]>}}, %n: tensor<{ity}>) -> tensor<?x4xf32> {{
  %t = symshape.dynamic_truncate %x, %n axis {axis} stage {stage} : (tensor<?x4xf32>, tensor<{ity}>) -> tensor<?x4xf32>
  return %t : tensor<?x4xf32>
}}
"""
_STATIC_RESHAPE = """\
func.func @f(%x: tensor<2xf32>) -> tensor<?x?xf32> {{
  %r = symshape.reshape %x to [{a}, {b}] : (tensor<2xf32>) -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}}
"""
_AXES_ARG = """\
func.func @f(%x: tensor<?x4xf32> {{symshape.axes = {axes}}}, %y: tensor<?x4xf32> {{symshape.axes = #symshape.shape<[batch, 4]>}}) -> tensor<?x4xf32> {{
  return %x : tensor<?x4xf32>
}}
"""
_AXES_DECL = """\
func.func private @g(tensor<?x4xf32> {{symshape.axes = {axes}}}) -> tensor<?x4xf32>
func.func @f(%x: tensor<?x4xf32> {{symshape.axes = #symshape.shape<[batch, 4]>}}) -> tensor<?x4xf32> {{
  %r = func.call @g(%x) : (tensor<?x4xf32>) -> tensor<?x4xf32>
  return %r : tensor<?x4xf32>
}}
"""
_AXES_GENERIC = """\
"func.func"() <{{arg_attrs = [{{symshape.axes = {axes}}}, {{}}], function_type = (tensor<?x4xf32>, tensor<?x4xf32>) -> (), sym_name = "g"}}> ({{
{block}}}) : () -> ()
"""
_AXES_VALUES = {
    "#symshape.shape<[batch, 4]>": (False, "valid axes"),
    "#symshape.shape<[batch]>": (True, "axes of the wrong rank"),
    "#symshape.shape<[batch, 4, seq]>": (True, "axes of the wrong rank"),
    "#symshape.shape<[batch, 5]>": (True, "axis 4 named 5"),
    "#symshape.shape<[ub(batch), 4]>": (True, "upper bound in axes"),
    "#symshape.shape<[?, 4]>": (False, "unknown axis"),
    "#symshape.shape<[batch * 2, 4]>": (False, "expression as axis"),
    "#symshape.shape<[-1, 4]>": (True, "negative axis size"),
    "#symshape.shape<[9223372036854775808, 4]>": (True, "axis size beyond int64"),
    "#symshape.shape<[dim(0, 0), 4]>": (True, "op-local leaf in function axes"),
    "#symshape.shape<[]>": (True, "empty axes for rank 2"),
    '["batch", 4]': (False, "array axes"),
    "42": (True, "integer as axes"),
    '"batch"': (True, "string as axes"),
    "#symshape.expr<batch>": (True, "expr as axes"),
}


_EXTENT_ARG = """\
func.func @f(%e: !symshape.extent, %x: tensor<?x4xf32> {{symshape.axes = #symshape.shape<[batch, 4]>}}) -> tensor<?x4xf32> {{
  %d = symshape.dim %x, 0 : tensor<?x4xf32>
  %m = symshape.{op} %d, %e
  %i = symshape.to_index %m
  %z = tensor.empty(%i) : tensor<?x4xf32>
  return %z : tensor<?x4xf32>
}}
"""
_CONFLICT = """\
func.func private @g(%a: tensor<?x4xf32> {{symshape.axes = #symshape.shape<[{ga}, 4]>}}, %b: tensor<?x4xf32> {{symshape.axes = #symshape.shape<[{gb}, 4]>}}) -> tensor<?x4xf32> {{
  return %a : tensor<?x4xf32>
}}
func.func @f(%x: tensor<?x4xf32> {{symshape.axes = #symshape.shape<[{fa}, 4]>}}, %y: tensor<?x4xf32> {{symshape.axes = #symshape.shape<[{fb}, 4]>}}) -> tensor<?x4xf32> {{
  %r = func.call @g(%x, %y) : (tensor<?x4xf32>, tensor<?x4xf32>) -> tensor<?x4xf32>
  return %r : tensor<?x4xf32>
}}
"""
_AXIS_NAMES = (
    "batch",
    "seq",
    "?",
    "4",
    "0",
    "batch * 2",
    "batch - batch",
    "batch floordiv 0",
    "ub(batch)",
    "_d0",
    "-3",
)


def _nested_ifs(depth: int) -> str:
    lines = [
        "func.func @f(%x: tensor<?x4xf32> {symshape.axes = #symshape.shape<[batch, 4]>}, %c: i1) -> tensor<?x4xf32> {",
    ]
    value = "%x"
    for level in range(depth):
        lines.append(f"  %v{level} = scf.if %c -> (tensor<?x4xf32>) {{")
    lines.append(f"    scf.yield {value} : tensor<?x4xf32>")
    for level in reversed(range(depth)):
        lines.append("  } else {")
        lines.append("    scf.yield %x : tensor<?x4xf32>")
        lines.append("  }")
        if level:
            lines.append(f"  scf.yield %v{level} : tensor<?x4xf32>")
    lines.append("  return %v0 : tensor<?x4xf32>")
    lines.append("}")
    return "\n".join(lines) + "\n"


def _op_chain(length: int, op: str) -> str:
    lines = [
        "func.func @f(%x: tensor<?x4xf32> {symshape.axes = #symshape.shape<[batch, 4]>}) -> index {",
        "  %d = symshape.dim %x, 0 : tensor<?x4xf32>",
        "  %c = symshape.const 2",
        "  %e0 = symshape.add %d, %c",
    ]
    for i in range(1, length):
        lines.append(f"  %e{i} = symshape.{op} %e{i - 1}, %c")
    lines.append(f"  %i = symshape.to_index %e{length - 1}")
    lines.append("  return %i : index")
    lines.append("}")
    return "\n".join(lines) + "\n"


def syntax_case(rng: random.Random, index: int) -> Case:
    """A symshape-syntax mutation of an MLIR seed, through ``symshape-opt``."""
    pipeline = list(rng.choice(PIPELINES))
    kind = rng.randrange(15)
    invalid, why, note = False, "", ""
    if kind >= 10:
        return _more_syntax(rng, index, kind, pipeline)
    if kind < 4:
        seed_name = rng.choice(sorted(_EXPR_SEEDS))
        context = seed_name in ("reshape", "broadcast", "gather")
        expr, invalid, why = mutate_expr(rng, context)
        forms = (expr, f"ub({expr})", "?", f"ub({expr}", f"ub({expr}, 1)", f"lb({expr})")
        form = rng.randrange(len(forms))
        ext = forms[form]
        # Forms 3-5 are malformed extents; form 0 is malformed only if the
        # expression itself is unbalanced.
        if seed_name == "attrs" and (form >= 3 or ext.count("(") != ext.count(")")):
            invalid, why = True, f"malformed extent {ext[:20]!r}"
        text = _EXPR_SEEDS[seed_name].format(e=expr, x=ext)
        note = f"{seed_name}: {why}"
        if seed_name == "annotation":
            invalid = invalid and why not in CONTEXT_BAD_LEAVES.values()
        invalid = invalid and why not in CONTEXT_GOOD_LEAVES.get(seed_name, ())
    elif kind == 4:
        ity = rng.choice(("i64", "i32", "i8", "i1", "index", "f32", "i128"))
        c = rng.choice(
            (
                *(_int_text(v) for v in (0, 1, 4, -1, INT64_MAX, INT64_MIN)),
                "9223372036854775808",
                "0x10",
                "\u0663",
            )
        )
        axis = rng.choice(("0", "1", "2", "-1", "9223372036854775807"))
        sem = rng.choice(("index", "clamp_nonneg", "truncate_size", "bogus", ""))
        op1 = rng.choice(("add", "sub", "mul", "floordiv", "ceildiv", "mod", "min", "max", "pow"))
        op2 = rng.choice(("add", "sub", "mul", "floordiv", "ceildiv", "mod", "min", "max"))
        text = _EXTENT_OPS.format(ity=ity, c=c, axis=axis, sem=sem, op1=op1, op2=op2)
        reasons = []
        if ity == "f32":
            reasons.append(f"runtime_scalar of {ity}")
        if c in ("9223372036854775808", "\u0663"):
            reasons.append(f"const {c}")
        if axis not in ("0", "1"):
            reasons.append(f"dim axis {axis}")
        if sem in ("bogus", ""):
            reasons.append(f"semantics {sem!r}")
        if op1 == "pow":
            reasons.append("unknown op symshape.pow")
        if c == "0" and op1 in ("floordiv", "ceildiv", "mod"):
            reasons.append(f"constant zero divisor in {op1}")
        invalid, why = bool(reasons), "; ".join(reasons)
        note = f"extent ops: const {c}, axis {axis}, {ity} {sem}, {op1}/{op2}"
    elif kind == 5:
        ity = rng.choice(("i64", "i32", "i8", "index", "f32"))
        axis = rng.choice(("0", "1", "2", "-1", "4294967296"))
        stage = rng.choice(("exact", "upper_bound", "maybe"))
        text = _TRUNCATE.format(ity=ity, axis=axis, stage=stage)
        reasons = [
            r
            for r, bad in (
                (f"scalar type {ity}", ity == "f32"),
                (f"axis {axis}", axis not in ("0", "1")),
                (f"stage {stage}", stage == "maybe"),
            )
            if bad
        ]
        invalid, why = bool(reasons), "; ".join(reasons)
        note = f"dynamic_truncate {ity} axis {axis} stage {stage}"
    elif kind == 6:
        a = rng.choice((3, 2, 1, 0, -1, -2, 6148914691236517206, 2**62, INT64_MAX, 2**32))
        b = rng.choice((6148914691236517206, 1, 2, -1, -2, 0, 2**62, 3074457345618258603, 2**32))
        text = _STATIC_RESHAPE.format(a=_int_text(a), b=_int_text(b))
        invalid = a * b != 2 or a < 0 or b < 0
        why = f"reshape of 2 elements to [{a}, {b}]"
        note = why
    else:
        axes, (invalid, why) = rng.choice(sorted(_AXES_VALUES.items()))
        where = ("arg", "decl", "generic")[kind - 7]
        if where == "arg":
            text = _AXES_ARG.format(axes=axes)
        elif where == "decl":
            text = _AXES_DECL.format(axes=axes)
        else:
            nargs = rng.choice((0, 1, 2, 3))
            args = ", ".join(f"%a{i}: tensor<?x4xf32>" for i in range(nargs))
            block = f"^bb0({args}):\n  func.return\n" if nargs else "  func.return\n"
            text = _AXES_GENERIC.format(axes=axes, block=block)
            if nargs != 2:
                invalid, why = True, f"generic func with {nargs} block arguments for 2 inputs"
        note = f"axes on {where}: {axes} ({why})"
    return Case(
        id=f"syntax-{index}",
        family="syntax",
        mode="opt",
        text=text,
        args=pipeline,
        expect_reject=invalid,
        why=why,
        note=note,
    )


def _more_syntax(rng: random.Random, index: int, kind: int, pipeline: list[str]) -> Case:
    invalid, why = False, ""
    if kind == 10:
        op = rng.choice(("add", "mul", "floordiv", "min"))
        text = _EXTENT_ARG.format(op=op)
        note = f"!symshape.extent function argument, {op}"
    elif kind == 11:
        fa, fb, ga, gb = (rng.choice(_AXIS_NAMES) for _ in range(4))
        text = _CONFLICT.format(fa=fa, fb=fb, ga=ga, gb=gb)
        note = f"axes f=[{fa}],[{fb}] calling g=[{ga}],[{gb}]"
        bad = [n for n in (fa, fb, ga, gb) if n in ("ub(batch)", "-3", "batch floordiv 0")]
        invalid, why = bool(bad), f"axes {bad}"
    elif kind == 12:
        depth = rng.choice((10, 200, 1000, 3000))
        text = _nested_ifs(depth)
        note = f"{depth} nested scf.if"
    elif kind == 13:
        length = rng.choice((100, 1000, 3000))
        op = rng.choice(("add", "mul", "floordiv", "max"))
        text = _op_chain(length, op)
        note = f"chain of {length} symshape.{op}"
    else:
        # Raw bytes: invalid UTF-8, NUL, BOM, CR, or a stray split marker in the input.
        seed = _RESHAPE.format(e="batch * 4")
        junk, what = rng.choice(
            (
                ("\udcff\udcfe", "invalid UTF-8 bytes"),
                ("\x00", "NUL byte"),
                ("\ufeff", "byte-order mark"),
                ("\r", "carriage return"),
                ("\n// -----\n", "split marker inside a function"),
                ("\u202e", "right-to-left override"),
            )
        )
        pos = rng.randrange(len(seed))
        text = seed[:pos] + junk + seed[pos:]
        if "split" in what:
            pipeline = ["--split-input-file", *pipeline]
        note = f"{what} at offset {pos}"
    return Case(
        id=f"syntax-{index}",
        family="syntax",
        mode="opt",
        text=text,
        args=pipeline,
        expect_reject=invalid,
        why=why,
        note=note,
    )


# --------------------------------------------------------------------------- CLI options

_CLI_INPUT = """\
func.func @f(%x: tensor<?x4xf32> {symshape.axes = #symshape.shape<[batch, 4]>}, %n: tensor<i64>) -> tensor<?xf32> {
  %r = symshape.reshape %x to [batch * 4] : (tensor<?x4xf32>) -> tensor<?xf32>
  return %r : tensor<?xf32>
}
"""
BINDING_VALUES = {
    "batch=32": False,
    "batch=0": False,
    f"batch={INT64_MAX}": True,
    f"batch={INT64_MAX + 1}": True,
    f"batch={2**64}": True,
    f"batch=1{'0' * 400}": True,
    "batch=-1": True,
    f"batch={INT64_MIN}": True,
    "batch=": True,
    "=32": True,
    "batch": True,
    "batch=32,batch=33": True,
    "batch=0x20": True,
    "batch=\u0663\u0662": True,
    "batch=3.5": True,
    "batch=1e3": True,
    "batch=32,,seq=4": True,
    "β=3": False,
    "batch=32 seq=4": True,
    '"batch=32': True,
    ",".join(f"a{i}={i}" for i in range(2000)): False,
    "batch=32,seq=4611686018427387904": False,
}
BAD_OPTIONS = (
    "--symshape-resolve=target=cuda",
    "--symshape-resolve=target=",
    "--symshape-verify-contract=mode=maybe",
    "--symshape-verify-contract=mode=defer mode=reject",
    "--symshape-infer-shapes=policy=",
    "--symshape-infer-shapes=policy=strict policy=skip",
    "--symshape-infer-shapes=truncate-stage=maybe",
    "--symshape-infer-shapes=no-such-option=1",
    "--symshape-infer-shapes=policy",
    "--symshape-infer-shapes={policy=strict}",
    "--symshape-to-iree=mode=defer",
    "--symshape-strip-annotations=x=1",
    "--symshape-no-such-pass",
    "--symshape-infer-shapes=" + "x" * 100000,
    "--pass-pipeline=builtin.module(symshape-specialize{bindings=batch=-5})",
    "--pass-pipeline=builtin.module(symshape-specialize{bindings=batch=9223372036854775808})",
    "--pass-pipeline=builtin.module(symshape-infer-shapes{policy=strict}",
    "--pass-pipeline=builtin.module(func.func(symshape-resolve))",
    "--pass-pipeline=" + "builtin.module(" * 2000 + ")" * 2000,
    "--verify-diagnostics=bogus",
    "--split-input-file=yes",
    "--canonicalize=max-iterations=99999999999999999999999",
)


def cli_case(rng: random.Random, index: int) -> Case:
    """Malformed or extreme ``symshape-opt`` options on a valid input."""
    if rng.random() < 0.5:
        binding, invalid = rng.choice(list(BINDING_VALUES.items()))
        spelled = rng.choice(
            (
                f"--symshape-specialize=bindings={binding}",
                f'--symshape-specialize=bindings="{binding}"',
            )
        )
        args = [spelled, *rng.choice(([], ["--symshape-to-iree"], ["--symshape-infer-shapes"]))]
        note = f"bindings {binding[:60]!r}"
        why = f"binding {binding[:60]!r}" if invalid else ""
    else:
        option = rng.choice(BAD_OPTIONS)
        args = [option]
        invalid = option not in ("--symshape-infer-shapes=policy=strict policy=skip",)
        note = f"option {option[:80]!r}"
        why = note
    return Case(
        id=f"cli-{index}",
        family="cli",
        mode="opt",
        text=_CLI_INPUT,
        args=args,
        expect_reject=invalid,
        why=why,
        cli=True,
        note=note,
    )


# --------------------------------------------------------------------------- runtime


def _f32(shape: tuple[int, ...], dtype: str = "float32") -> dict[str, Any]:
    return {"t": "arr", "dtype": dtype, "shape": list(shape)}


def _scalar_arg(rng: random.Random, dtype: str) -> tuple[dict[str, Any], str]:
    bits = {"i8": 8, "i32": 32, "i64": 64}[dtype]
    lo, hi = -(2 ** (bits - 1)), 2 ** (bits - 1) - 1
    value = rng.choice(
        (
            lo - 1,
            lo,
            -1,
            0,
            1,
            2,
            3,
            5,
            7,
            hi,
            hi + 1,
            300,
            2**31,
            2**40 + 7,
            INT64_MAX,
            INT64_MAX + 1,
            INT64_MIN,
            INT64_MIN - 1,
            2**64,
        )
    )
    npname = {"i8": "int8", "i32": "int32", "i64": "int64"}[dtype]
    form = rng.randrange(7)
    if form == 0:
        return {"t": "int", "v": str(value)}, f"python int {value}"
    if form == 1 and lo <= value <= hi:
        return {"t": "arr0", "dtype": npname, "v": str(value)}, f"0-d {npname} {value}"
    if form == 2 and INT64_MIN <= value <= INT64_MAX:
        return {"t": "npint", "dtype": "int64", "v": str(value)}, f"np.int64({value})"
    if form == 3 and INT64_MIN <= value <= INT64_MAX:
        other = rng.choice(("int64", "int32", "int16", "uint8"))
        return {"t": "arr0", "dtype": other, "v": str(value % 100)}, f"0-d {other} {value % 100}"
    if form == 4:
        v = rng.choice((3.5, -0.5, float("nan"), 1e30))
        return {"t": "float", "v": v}, f"float {v}"
    if form == 5:
        return rng.choice(
            (
                {"t": "str", "v": "3"},
                {"t": "bool", "v": True},
                {"t": "none"},
                {"t": "list", "v": [3]},
            )
        ), "non-integer"
    return {"t": "int", "v": str(rng.choice((0, 1, 2, 3, 5)))}, "small python int"


def runtime_case(rng: random.Random, index: int) -> Case:
    """A call into the runtime seed program with good or bad arguments."""
    fn = rng.choice(
        ("add", "add", "trunc8", "trunc32", "trunc64", "divk", "divk", "fill", "split_by", "flat")
    )
    args: list[dict[str, Any]]
    note: str
    if fn == "add":
        b1 = rng.choice((0, 1, 3, 5))
        b2 = b1 if rng.random() < 0.4 else rng.choice((0, 1, 2, 3, 5, 7))
        shapes = [(b1, 4), (b2, 4)]
        dtypes = ["float32", "float32"]
        if rng.random() < 0.3:
            i = rng.randrange(2)
            mut = rng.randrange(3)
            if mut == 0:
                dtypes[i] = rng.choice(("float64", "int32", "float16", "int64"))
            elif mut == 1:
                shapes[i] = rng.choice(((b1,), (b1, 4, 1), (b1, 5), ()))
            else:
                shapes = shapes[:1]
        args = [_f32(s, d) for s, d in zip(shapes, dtypes)]
        note = f"add {shapes} {dtypes}"
    elif fn.startswith("trunc"):
        n = rng.choice((0, 1, 5))
        scalar, desc = _scalar_arg(rng, "i" + fn[len("trunc") :])
        args = [_f32((n,)), scalar]
        note = f"{fn} n={n} k={desc}"
    elif fn == "divk":
        picks = (INT64_MIN, INT64_MIN + 1, -7, -2, -1, 0, 1, 6, INT64_MAX - 1, INT64_MAX)
        a, b = rng.choice(picks), rng.choice(picks)
        form = rng.choice(("arr0", "int"))
        args = [
            {"t": form, "dtype": "int64", "v": str(a)},
            {"t": form, "dtype": "int64", "v": str(b)},
        ]
        note = f"divk a={a} b={b} ({form}): a floordiv (b + 1)"
    elif fn == "fill":
        k = rng.choice((-1, -5, 0, 3, INT64_MIN, -(2**32)))
        args = [{"t": "arr0", "dtype": "int64", "v": str(k)}]
        note = f"fill k={k} (scalar(0, index) used as a size)"
    elif fn == "split_by":
        batch = rng.choice((0, 1, 3))
        k = rng.choice((0, -5, 1, 3, 12, 13, INT64_MIN, INT64_MAX))
        args = [_f32((batch, 12)), {"t": "arr0", "dtype": "int64", "v": str(k)}]
        note = f"split_by batch={batch} k={k} (12 floordiv clamp_nonneg(k))"
    else:
        shape = rng.choice(((0, 5), (3, 0), (2, 3), (6,), (1, 2, 3)))
        args = [_f32(shape)]
        note = f"flat {shape}"
    return Case(
        id=f"runtime-{index}",
        family="runtime",
        mode="runtime",
        payload={"function": fn, "args": args},
        note=note,
    )


# --------------------------------------------------------------------------- algebra


def algebra_case(rng: random.Random, index: int) -> Case:
    """The Python algebra API on garbage or extreme input."""
    kind = rng.randrange(5)
    payload: dict[str, Any]
    if kind == 0:
        text, invalid, why = mutate_expr(rng, context=False)
        payload = {"op": "parse", "text": text, "expect_reject": invalid, "why": why}
        note = f"parse_expr: {why}"
    elif kind == 1:
        tree = random_tree(rng, rng.randint(1, 5))
        bindings = {
            s: rng.choice((0, 1, 3, 2**31, 2**62, INT64_MAX, INT64_MAX + 1, 2**70, -1))
            for s in SYMBOLS
        }
        payload = {
            "op": "evaluate",
            "text": render(tree),
            "tree": tree,
            "bindings": {k: str(v) for k, v in bindings.items()},
        }
        note = f"evaluate {render(tree)[:60]} at {bindings}"
    elif kind == 2:
        good = rng.choice(
            (
                "v1;s batch;c 2;* 0 1 1 1",
                "v1;s batch;+ 3 0 2",
                "v1;s batch;c 4;fd 0 1",
                "v1;d 0 1;r 1 index;min 0 1",
            )
        )
        text = _garble(rng, good)
        payload = {"op": "loads", "text": text}
        note = f"loads {text[:80]!r}"
    elif kind == 3:
        nodes = rng.choice(
            (
                [["s", "batch"], ["+", "3", 0, 2]],
                [["c", str(INT64_MAX + 1)]],
                [["c", "-5"]],
                [["fd", 0, 0]],
                [["s", "batch"], ["fd", 0, 5]],
                [["s", "batch"], ["*", 0, -1]],
                [["s", "batch"], ["*", 0, 10**6]],
                [["d", -1, 0]],
                [["r", 0, "bogus"]],
                [["min"]],
                [["s", ""]],
                [["s", "1abc"]],
                [],
                [["?"]],
                [[None]],
                [["c", 1.5]],
            )
        )
        payload = {"op": "postorder", "nodes": nodes}
        note = f"from_postorder {nodes}"
    else:
        text, why = deep_text(rng)
        payload = {"op": "parse", "text": text, "expect_reject": False, "why": why}
        note = f"parse_expr: {why}"
    return Case(id=f"algebra-{index}", family="algebra", mode="algebra", payload=payload, note=note)


def _garble(rng: random.Random, text: str) -> str:
    chars = list(text)
    for _ in range(rng.randint(1, 4)):
        op = rng.randrange(5)
        pos = rng.randrange(len(chars) + 1)
        if op == 0 and chars:
            del chars[min(pos, len(chars) - 1)]
        elif op == 1:
            chars.insert(pos, rng.choice(";  -9x\u0663" + "0123456789"))
        elif op == 2:
            chars[pos:pos] = list(str(rng.choice((INT64_MAX + 1, 2**200, -1, 99999))))
        elif op == 3:
            chars = list("v2" + "".join(chars)[2:])
        else:
            chars.extend(list(";+ 0 " + " ".join(["0", "1"] * rng.randint(1, 3))))
    return "".join(chars)


def dialect_case(rng: random.Random, index: int) -> Case:
    """One expression text through the Python and the C++ parsers."""
    if rng.random() < 0.15:
        text, why = deep_text(rng)
        invalid = False
    else:
        text, invalid, why = mutate_expr(rng, context=False)
    return Case(
        id=f"dialect-{index}",
        family="dialect",
        mode="dialect",
        payload={"text": text, "expect_reject": invalid, "why": why},
        note=f"Python vs C++ grammar: {why}",
    )


FAMILIES: dict[str, tuple[float, Callable[[random.Random, int], Case]]] = {
    "syntax": (0.38, syntax_case),
    "cli": (0.14, cli_case),
    "runtime": (0.16, runtime_case),
    "algebra": (0.16, algebra_case),
    "dialect": (0.16, dialect_case),
}


def generate(count: int, seed: int, families: list[str] | None = None) -> list[Case]:
    """``count`` cases, reproducibly from ``seed`` (each case from its own RNG)."""
    names = families or list(FAMILIES)
    weights = [FAMILIES[n][0] for n in names]
    picker = random.Random(seed)
    cases = []
    for i in range(count):
        family = picker.choices(names, weights)[0]
        rng = random.Random(f"{seed}:{i}")
        cases.append(FAMILIES[family][1](rng, i))
    return cases
