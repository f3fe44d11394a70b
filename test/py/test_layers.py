"""Layers only look down: no module imports a package of a higher layer.

Data flows dialect → extent → shapes → frontend/onnx (building programs)
and inference → contract → lowering → pipeline → passes → backend → runtime;
transforms (``jit``) and tools join them at the top. Every import
statement counts, at module level or inside a function (an import on first
use is still a dependency).
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = "symshape_mlir"

LAYERS: tuple[frozenset[str], ...] = tuple(frozenset(names) for names in (
    {"_symshape", "dialects", "context"},
    {"errors", "locations", "registry", "walk", "annotations"},
    {"extent"},
    {"attributes"},
    {"shapes"},
    {"frontend"},
    {"onnx"},
    {"inference"},
    {"contract"},
    {"lowering"},
    {"pipeline"},
    {"passes"},
    {"backend"},
    {"runtime"},
    {"transforms", "tools"},
))
"""Top-level modules and subpackages of ``symshape_mlir``, lowest layer first."""

# The package root (``symshape_mlir/__init__.py``) is the public face: it
# may import anything, and ``import symshape_mlir`` (for its path) is no
# dependency on a layer.
SOURCES = {"": ROOT / "python" / PACKAGE, "passes": ROOT / "passes"}


def _layer(part: str) -> int:
    for index, names in enumerate(LAYERS):
        if part in names:
            return index
    raise AssertionError(f"'{PACKAGE}.{part}' belongs to no layer: add it to LAYERS")


def _modules() -> Iterator[tuple[str, Path]]:
    """``(top-level part, file)`` for every module below the package root."""
    for prefix, directory in SOURCES.items():
        for path in sorted(directory.rglob("*.py")):
            relative = path.relative_to(directory).parts
            if prefix:
                yield prefix, path
            elif len(relative) > 1:
                yield relative[0], path
            elif relative[0] != "__init__.py":
                yield relative[0][:-3], path


def _imported_parts(path: Path) -> Iterator[tuple[int, str]]:
    """``(line, top-level part)`` of every ``symshape_mlir.<part>`` the file imports.

    Imports are absolute (house style): a relative one fails the test.
    """
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            assert not node.level, f"{path}:{node.lineno}: relative import"
            module = node.module or ""
            names = [module] if module != PACKAGE else \
                [f"{PACKAGE}.{alias.name}" for alias in node.names]
        for name in names:
            parts = name.split(".")
            if parts[0] == PACKAGE and len(parts) > 1:
                yield node.lineno, parts[1]


MODULES = list(_modules())


def test_every_module_has_a_layer() -> None:
    """A new top-level module or package must be placed in :data:`LAYERS`."""
    for part, _ in MODULES:
        _layer(part)


@pytest.mark.parametrize(
    ("part", "path"), MODULES, ids=[str(p.relative_to(ROOT)) for _, p in MODULES]
)
def test_imports_look_down(part: str, path: Path) -> None:
    """The file imports only its own layer and the layers below it."""
    own = _layer(part)
    upward = [
        f"line {line}: imports {PACKAGE}.{target}"
        for line, target in _imported_parts(path)
        if _layer(target) > own
    ]
    assert not upward, f"{path.relative_to(ROOT)} ({part}) looks up: " + "; ".join(upward)
