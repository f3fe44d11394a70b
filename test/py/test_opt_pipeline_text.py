"""Tests of the textual pass-pipeline parser."""

from __future__ import annotations

import pytest

from symshape_mlir.pipeline import InvalidPipelineError
from symshape_mlir.pipeline.text import (
    NestedPipeline,
    PassElement,
    parse_pipeline,
    parse_pipeline_elements,
)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("builtin.module()", NestedPipeline("builtin.module", ())),
        ("builtin.module(cse)", NestedPipeline("builtin.module", (PassElement("cse"),))),
        (
            "builtin.module(symshape-infer-shapes{policy=strict}, func.func(canonicalize))",
            NestedPipeline(
                "builtin.module",
                (
                    PassElement("symshape-infer-shapes", "policy=strict"),
                    NestedPipeline("func.func", (PassElement("canonicalize"),)),
                ),
            ),
        ),
        (
            "builtin.module(inline{op-pipelines={func.func(cse,canonicalize)}})",
            NestedPipeline(
                "builtin.module",
                (PassElement("inline", "op-pipelines={func.func(cse,canonicalize)}"),),
            ),
        ),
        (
            "builtin.module(symshape-specialize{bindings='batch=32,seq=}'})",
            NestedPipeline(
                "builtin.module",
                (PassElement("symshape-specialize", "bindings='batch=32,seq=}'"),),
            ),
        ),
        (
            " builtin.module ( cse , func.func ( ) ) ",
            NestedPipeline("builtin.module", (PassElement("cse"), NestedPipeline("func.func", ()))),
        ),
    ],
    ids=["empty", "one-pass", "options-and-nesting", "nested-braces", "quoted-brace", "spaces"],
)
def test_parse_pipeline(text: str, expected: NestedPipeline) -> None:
    """Pipelines parse into nested elements with verbatim option text."""
    assert parse_pipeline(text) == expected


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("builtin.module(cse", "expected ',' or ')' in the pipeline nested on 'builtin.module'"),
        ("builtin.module(cse,)", "expected a pass or operation name at column 20"),
        ("builtin.module(,cse)", "expected a pass or operation name at column 16"),
        ("builtin.module(cse{a=1)", "missing '}' closing the options of 'cse'"),
        ("builtin.module(cse) extra", "unexpected text at column 21"),
        ("builtin.module(cse))", "unexpected text at column 20"),
        ("cse", "must be anchored on an operation"),
        ("", "expected a pass or operation name at column 1"),
    ],
    ids=[
        "unbalanced",
        "trailing-comma",
        "leading-comma",
        "unclosed-options",
        "trailing-text",
        "extra-paren",
        "no-anchor",
        "empty",
    ],
)
def test_parse_pipeline_errors(text: str, message: str) -> None:
    """Malformed pipelines raise an error quoting the text and the column."""
    with pytest.raises(InvalidPipelineError, match=message.replace("(", r"\(").replace(")", r"\)")):
        parse_pipeline(text)


def test_elements_round_trip_to_text() -> None:
    """Elements print back to pipeline text that parses to the same elements."""
    text = "cse,func.func(canonicalize{max-iterations=3},cse),symshape-test{a='b c'}"
    elements = parse_pipeline_elements(text)
    assert ",".join(element.to_text() for element in elements) == text
    assert parse_pipeline_elements("") == ()
