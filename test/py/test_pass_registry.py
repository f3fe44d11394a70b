"""Tests of the pass registry table: names, documentation, files and lit tests."""

from __future__ import annotations

import pathlib

import pytest

from symshape_mlir.context import new_context
from symshape_mlir.passes import PASSES
from symshape_mlir.pipeline import ModulePass, PassPipeline

LIT_DIR = pathlib.Path(__file__).resolve().parents[1] / "lit"

ENTRIES = sorted(PASSES.items())
IDS = [name for name, _ in ENTRIES]


def _snake_name(cls: type[ModulePass]) -> str:
    return cls.name.removeprefix("symshape-").replace("-", "_")


def test_registry_is_not_empty() -> None:
    """The registry holds at least the annotation stripper."""
    assert "symshape-strip-annotations" in PASSES


@pytest.mark.parametrize(("key", "cls"), ENTRIES, ids=IDS)
def test_key_is_the_pass_name(key: str, cls: type[ModulePass]) -> None:
    """Each registry key equals the name of the pass class it maps to."""
    assert issubclass(cls, ModulePass)
    assert key == cls.name


@pytest.mark.parametrize(("key", "cls"), ENTRIES, ids=IDS)
def test_pass_is_documented(key: str, cls: type[ModulePass]) -> None:
    """Each pass has a one-line summary, a docstring and help for every option."""
    assert cls.summary.strip() and "\n" not in cls.summary
    assert (cls.__doc__ or "").strip()
    for spec in cls.options():
        assert spec.help.strip(), f"{key}: option {spec.name} has no help"


@pytest.mark.parametrize(("key", "cls"), ENTRIES, ids=IDS)
def test_pass_lives_in_its_own_module(key: str, cls: type[ModulePass]) -> None:
    """Each pass is defined in passes/<snake_name>.py."""
    assert cls.__module__ == f"symshape_mlir.passes.{_snake_name(cls)}"


@pytest.mark.parametrize(("key", "cls"), ENTRIES, ids=IDS)
def test_pass_has_a_lit_test(key: str, cls: type[ModulePass]) -> None:
    """Each pass has test/lit/<snake_name>.mlir that runs it."""
    path = LIT_DIR / f"{_snake_name(cls)}.mlir"
    assert path.is_file(), f"missing lit test {path}"
    assert key in path.read_text()


@pytest.mark.parametrize(
    ("key", "cls"),
    [entry for entry in ENTRIES if entry[1].is_alias()],
    ids=[name for name, cls in ENTRIES if cls.is_alias()],
)
def test_alias_expands_to_valid_pipeline(key: str, cls: type[ModulePass]) -> None:
    """Each pipeline alias expands to passes that exist, with valid options."""
    pipeline = PassPipeline.parse(f"builtin.module({key})", context=new_context(), passes=PASSES)
    assert pipeline.steps
