"""Tests of input splitting and parsing for symshape-opt."""

from __future__ import annotations

import pytest
from mlir import ir

from symshape_mlir.context import new_context
from symshape_mlir.pipeline import DiagnosticCollector, Severity, SourceLoc
from symshape_mlir.tools.source import parse_module, split_input


@pytest.mark.parametrize(
    ("text", "chunks"),
    [
        ("a\n", ["a\n"]),
        ("a\n// -----\nb\n", ["a\n", "\n        \nb\n"]),
        ("a\n  // -----  \nb", ["a\n  ", "\n" + " " * 12 + "\nb"]),
        ("// -----\nb", ["", "        \nb"]),
        ("a\n// -----", ["a\n", "\n        "]),
    ],
    ids=["no-marker", "one-marker", "indented-marker", "leading-marker", "trailing-marker"],
)
def test_split_pads_chunks_to_original_positions(text: str, chunks: list[str]) -> None:
    """Chunks keep the line and column each character has in the original text."""
    split, warnings = split_input(text, "s.mlir")
    assert [chunk.text for chunk in split] == chunks
    assert warnings == []


@pytest.mark.parametrize(
    ("text", "positions"),
    [
        ("a\n// ----\nb", [(2, 7)]),
        ("a\n// ------\nb", [(2, 7)]),
        ("// ---\n// -----// ----", [(1, 7), (2, 15)]),
    ],
    ids=["short", "long", "several"],
)
def test_split_warns_on_near_misses(text: str, positions: list[tuple[int, int]]) -> None:
    """A marker with the wrong number of dashes does not split and is warned about."""
    split, warnings = split_input(text, "s.mlir")
    assert len(split) == 1 + text.count("// -----") - text.count("// ------")
    assert [(w.severity, w.message) for w in warnings] == [
        (Severity.WARNING, "near miss with file split marker")
    ] * len(positions)
    assert [w.location for w in warnings] == [SourceLoc("s.mlir", *p) for p in positions]


@pytest.fixture
def context() -> ir.Context:
    """A fresh context with every dialect."""
    return new_context()


@pytest.mark.parametrize(
    ("text", "module_location", "functions"),
    [
        ("module {\n  func.func @a() {\n    return\n  }\n}\n", "p.mlir:1:1", ["a"]),
        ("func.func @a() {\n  return\n}\n", "p.mlir:0:0", ["a"]),
        (
            "#map = affine_map<(d0) -> (d0)>\nfunc.func @a() {\n  return\n}\n"
            "func.func @b() {\n  return\n}\n",
            "p.mlir:0:0",
            ["a", "b"],
        ),
        ("// only a comment\n", "p.mlir:0:0", []),
    ],
    ids=["explicit-module", "single-function", "several-ops-and-alias", "empty"],
)
def test_parse_module_implicit_module(
    context: ir.Context, text: str, module_location: str, functions: list[str]
) -> None:
    """A lone module is kept; other top-level operations get an implicit module at file:0:0."""
    collector = DiagnosticCollector()
    module = parse_module(text, "p.mlir", context, collector)
    assert module is not None and module.name == "builtin.module"
    assert collector.diagnostics == []
    assert (
        str(module.location)
        == f'loc("{module_location.rsplit(":", 2)[0]}":'
        + ":".join(module_location.rsplit(":", 2)[1:])
        + ")"
    )
    names = [op.attributes["sym_name"].value for op in module.regions[0].blocks[0].operations]
    assert names == functions


def test_parse_module_locations_carry_the_file_name(context: ir.Context) -> None:
    """Operations and block arguments of an implicit module are located in the input file."""
    text = (
        "\n\nfunc.func @a(%x: index) -> index {\n  return %x : index\n}\n"
        "func.func @b() {\n  return\n}\n"
    )
    module = parse_module(text, "named.mlir", context, DiagnosticCollector())
    assert module is not None
    first = module.regions[0].blocks[0].operations[0]
    assert str(first.location) == 'loc("named.mlir":3:1)'
    assert str(first.regions[0].blocks[0].arguments[0].location) == 'loc("named.mlir":3:14)'
    assert str(first.regions[0].blocks[0].operations[0].location) == 'loc("named.mlir":4:3)'


@pytest.mark.parametrize(
    ("text", "position", "message"),
    [
        ("func.func @a() {\n  return %x\n}\n", (2, 12), "expected ':'"),
        (
            "func.func @a() {\n  return\n}\nfunc.func @a() {\n  return\n}\n",
            (4, 1),
            "redefinition of symbol named 'a'",
        ),
        ('func.func @a() {\n  "x.y"() : () -> ()\n  return\n}\n', (2, 8), "unregistered dialect"),
    ],
    ids=["syntax", "verifier-in-implicit-module", "unregistered-dialect"],
)
def test_parse_module_reports_located_errors(
    context: ir.Context, text: str, position: tuple[int, int], message: str
) -> None:
    """Parse and verification errors are collected with positions in the input file."""
    collector = DiagnosticCollector()
    assert parse_module(text, "bad.mlir", context, collector) is None
    error = collector.diagnostics[0]
    assert error.location == SourceLoc("bad.mlir", *position)
    assert message in error.message
