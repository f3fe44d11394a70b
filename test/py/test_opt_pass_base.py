"""Tests of the pass base class: declaration checks and typed options."""

from __future__ import annotations

from typing import Literal

import pytest
from mlir import ir

from symshape_mlir.pipeline import InvalidPipelineError, ModulePass, option


class Configurable(ModulePass):
    """Test-only pass with one option of every supported type."""

    name = "symshape-test-configurable"
    summary = "Test pass with options"

    policy: Literal["skip", "override", "refine", "strict"] = option("strict", help="How to merge")
    max_depth: int = option(4, help="Depth limit")
    ratio: float = option(0.5, help="A ratio")
    verbose: bool = option(False, help="Say more")
    bindings: str = option("", help="Axis bindings")

    def run(self, module: ir.Operation) -> None:
        """Does nothing."""


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("", {}),
        ("policy=skip", {"policy": "skip"}),
        ("max-depth=7 ratio=2.5", {"max_depth": 7, "ratio": 2.5}),
        ("max-depth=0x10", {"max_depth": 16}),
        ("verbose", {"verbose": True}),
        ("verbose=false", {"verbose": False}),
        ("verbose=1", {"verbose": True}),
        ("bindings='batch=32, seq=128'", {"bindings": "batch=32, seq=128"}),
        ('bindings="batch=32"', {"bindings": "batch=32"}),
        ("bindings={a b}", {"bindings": "a b"}),
        ("  policy=refine   verbose  ", {"policy": "refine", "verbose": True}),
    ],
    ids=[
        "empty",
        "choice",
        "int-and-float",
        "hex-int",
        "bool-without-value",
        "bool-false",
        "bool-one",
        "single-quoted",
        "double-quoted",
        "braced",
        "extra-spaces",
    ],
)
def test_options_parse(text: str, expected: dict[str, object]) -> None:
    """Option text converts to typed fields; others keep their defaults."""
    instance = Configurable.from_options(text)
    defaults = {spec.attribute: spec.default for spec in Configurable.options()}
    assert {attr: getattr(instance, attr) for attr in defaults} == {**defaults, **expected}


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            "policy=bogus",
            "symshape-test-configurable: invalid value 'bogus' for option 'policy' "
            "(expected one of: skip, override, refine, strict)",
        ),
        (
            "max-depth=deep",
            "symshape-test-configurable: invalid value 'deep' for option 'max-depth' "
            "(expected an integer)",
        ),
        (
            "ratio=x",
            "symshape-test-configurable: invalid value 'x' for option 'ratio' (expected a number)",
        ),
        (
            "verbose=maybe",
            "symshape-test-configurable: invalid value 'maybe' for option 'verbose' "
            "(expected true or false)",
        ),
        ("policy", "symshape-test-configurable: option 'policy' needs a value"),
        (
            "polcy=skip",
            "symshape-test-configurable: unknown option 'polcy' "
            "(options of this pass: policy, max-depth, ratio, verbose, bindings)",
        ),
        (
            "policy=skip policy=strict",
            "symshape-test-configurable: option 'policy' is given more than once",
        ),
        ("bindings='open", "symshape-test-configurable: unterminated ' in options"),
        ("bindings={open", "symshape-test-configurable: unterminated '{' in options"),
        ("=3", "symshape-test-configurable: missing option name before '='"),
    ],
    ids=[
        "bad-choice",
        "bad-int",
        "bad-float",
        "bad-bool",
        "missing-value",
        "unknown-option",
        "repeated-option",
        "unterminated-quote",
        "unterminated-brace",
        "missing-name",
    ],
)
def test_options_errors(text: str, message: str) -> None:
    """Invalid option text raises an error naming the pass and the option."""
    with pytest.raises(InvalidPipelineError) as error:
        Configurable.from_options(text)
    assert str(error.value).startswith(message)


def test_option_specs_describe_fields() -> None:
    """Option specs give kebab-case names, types, choices, defaults and help."""
    specs = {spec.name: spec for spec in Configurable.options()}
    assert list(specs) == ["policy", "max-depth", "ratio", "verbose", "bindings"]
    assert specs["policy"].type_label == "skip|override|refine|strict"
    assert specs["max-depth"].type_label == "int"
    assert specs["max-depth"].attribute == "max_depth"
    assert specs["verbose"].default is False
    assert specs["bindings"].help == "Axis bindings"


@pytest.mark.parametrize(
    ("text", "described"),
    [
        ("", "symshape-test-configurable"),
        ("policy=skip verbose", "symshape-test-configurable{policy=skip verbose=true}"),
        ("bindings='a=1, b=2'", 'symshape-test-configurable{bindings="a=1, b=2"}'),
    ],
    ids=["defaults", "changed", "quoted"],
)
def test_describe_round_trips(text: str, described: str) -> None:
    """describe() prints non-default options in a form from_options reads back."""
    instance = Configurable.from_options(text)
    assert instance.describe() == described
    options = described.partition("{")[2].rstrip("}")
    assert Configurable.from_options(options) == instance


def test_options_are_keyword_only_dataclass_fields() -> None:
    """Passes are dataclasses constructed with keyword options."""
    assert Configurable(policy="skip", max_depth=2) == Configurable.from_options(
        "policy=skip max-depth=2"
    )
    with pytest.raises(TypeError):
        Configurable("skip")  # type: ignore[misc]


def _declare(namespace: dict[str, object], doc: str | None = "Test-only pass.") -> type:
    body = {"__doc__": doc, "__module__": __name__, **namespace}
    return type("Declared", (ModulePass,), body)


def _run(self: ModulePass, module: ir.Operation) -> None:
    """Does nothing."""


@pytest.mark.parametrize(
    ("namespace", "doc", "message"),
    [
        ({"name": "strip", "summary": "s", "run": _run}, "Doc.", "must be a kebab-case"),
        ({"name": "symshape_strip", "summary": "s", "run": _run}, "Doc.", "must be a kebab-case"),
        ({"summary": "s", "run": _run}, "Doc.", "must be a kebab-case"),
        ({"name": "symshape-test-x", "run": _run}, "Doc.", "summary must be one non-empty line"),
        (
            {"name": "symshape-test-x", "summary": "two\nlines", "run": _run},
            "Doc.",
            "summary must be one non-empty line",
        ),
        ({"name": "symshape-test-x", "summary": "s", "run": _run}, None, "needs a docstring"),
        ({"name": "symshape-test-x", "summary": "s"}, "Doc.", "exactly one of run() and pipeline"),
        (
            {"name": "symshape-test-x", "summary": "s", "run": _run, "pipeline": ("cse",)},
            "Doc.",
            "exactly one of run() and pipeline",
        ),
        (
            {
                "name": "symshape-test-x",
                "summary": "s",
                "run": _run,
                "__annotations__": {"depth": "int"},
                "depth": 3,
            },
            "Doc.",
            "needs help text",
        ),
        (
            {
                "name": "symshape-test-x",
                "summary": "s",
                "run": _run,
                "__annotations__": {"depth": "int"},
            },
            "Doc.",
            "needs a default",
        ),
        (
            {
                "name": "symshape-test-x",
                "summary": "s",
                "run": _run,
                "__annotations__": {"sizes": "tuple[int, ...]"},
                "sizes": option((), help="sizes"),
            },
            "Doc.",
            "unsupported type",
        ),
    ],
    ids=[
        "no-prefix",
        "snake-case",
        "missing-name",
        "missing-summary",
        "multi-line-summary",
        "missing-docstring",
        "neither-run-nor-pipeline",
        "both-run-and-pipeline",
        "option-without-help",
        "option-without-default",
        "unsupported-option-type",
    ],
)
def test_declaration_errors(namespace: dict[str, object], doc: str | None, message: str) -> None:
    """A malformed pass class is rejected when it is defined."""
    with pytest.raises(TypeError, match=message.replace("(", r"\(").replace(")", r"\)")):
        _declare(namespace, doc)


def test_reporting_outside_a_pipeline_is_an_error() -> None:
    """Diagnostics can only be reported while the pass runs in a pipeline."""
    with pytest.raises(RuntimeError, match="only be reported while the pass runs"):
        Configurable().error(None, "lost")


def test_alias_expands_to_its_pipeline() -> None:
    """A pipeline alias is recognised and expands to its elements."""
    alias = _declare(
        {"name": "symshape-test-alias", "summary": "s", "pipeline": ("cse", "canonicalize")}
    )
    assert alias.is_alias()
    assert alias().expand() == ("cse", "canonicalize")
    assert not Configurable.is_alias()
