"""Layers only look down, and no files import each other in a circle.

Data flows dialect → extent → shapes → frontend/onnx (building programs)
and inference → contract → lowering → pipeline → passes → backend → runtime;
transforms (``jit``) and tools join them at the top. Every import
statement counts, at module level or inside a function (an import on first
use is still a dependency); only imports under ``if TYPE_CHECKING:``, which
never run, are left out of the circle test.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator, Mapping
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


def _module_files() -> dict[str, Path]:
    """Dotted module name → file, for every module of the package."""
    files: dict[str, Path] = {}
    for prefix, directory in SOURCES.items():
        base = ".".join(filter(None, (PACKAGE, prefix)))
        for path in directory.rglob("*.py"):
            parts = path.relative_to(directory).with_suffix("").parts
            if parts[-1] == "__init__":
                parts = parts[:-1]
            files[".".join((base, *parts))] = path
    return files


def _run_time_imports(tree: ast.AST) -> Iterator[ast.Import | ast.ImportFrom]:
    """The import statements of ``tree`` outside ``if TYPE_CHECKING:`` blocks."""
    if isinstance(tree, ast.If) and ast.unparse(tree.test).endswith("TYPE_CHECKING"):
        return
    if isinstance(tree, ast.Import | ast.ImportFrom):
        yield tree
    for child in ast.iter_child_nodes(tree):
        yield from _run_time_imports(child)


def _import_graph(files: Mapping[str, Path]) -> dict[str, set[str]]:
    """Module → the modules it imports, each name followed to where it is defined.

    ``from pkg import name`` depends on ``pkg.name`` when that is a module,
    else on the module ``pkg/__init__.py`` took ``name`` from (re-exports are
    followed), else on ``pkg`` itself. Native extensions (their ``.pyi``
    stubs) are not files here.
    """
    native = {
        ".".join((PACKAGE, *path.relative_to(SOURCES[""]).with_suffix("").parts))
        for path in SOURCES[""].rglob("*.pyi")
    }
    trees = {name: ast.parse(path.read_text(), str(path)) for name, path in files.items()}
    origin: dict[tuple[str, str], str] = {}
    for name, tree in trees.items():
        if files[name].name == "__init__.py":
            for node in tree.body:
                if isinstance(node, ast.ImportFrom) and node.module:
                    for alias in node.names:
                        origin[name, alias.asname or alias.name] = node.module

    def defining(module: str, name: str) -> str:
        if f"{module}.{name}" in native:
            return f"{module}.{name}"
        seen: set[tuple[str, str]] = set()
        while f"{module}.{name}" not in files and (module, name) in origin:
            if (module, name) in seen:
                break
            seen.add((module, name))
            module = origin[module, name]
        return f"{module}.{name}" if f"{module}.{name}" in files else module

    graph: dict[str, set[str]] = {}
    for name, tree in trees.items():
        targets: set[str] = set()
        for node in _run_time_imports(tree):
            if isinstance(node, ast.Import):
                targets.update(alias.name for alias in node.names)
            elif node.module:
                targets.update(defining(node.module, alias.name) for alias in node.names)
        graph[name] = {target for target in targets if target in files and target != name}
    return graph


def _circles(graph: Mapping[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    circles: list[list[str]] = []

    def visit(module: str) -> None:
        index[module] = low[module] = len(index)
        stack.append(module)
        for target in sorted(graph[module]):
            if target not in index:
                visit(target)
                low[module] = min(low[module], low[target])
            elif target in stack:
                low[module] = min(low[module], index[target])
        if low[module] == index[module]:
            component = [stack.pop()]
            while component[-1] != module:
                component.append(stack.pop())
            if len(component) > 1:
                circles.append(sorted(component))

    for module in sorted(graph):
        if module not in index:
            visit(module)
    return circles


def test_no_import_circles() -> None:
    """No files of the package import each other, directly or through others."""
    graph = _import_graph(_module_files())
    circles = _circles(graph)
    assert not circles, "import circles: " + "; ".join(
        " <-> ".join(circle) for circle in circles
    )


def test_the_circle_finder_sees_a_circle() -> None:
    """The finder reports a two-module circle and nothing on a chain."""
    assert _circles({"a": {"b"}, "b": {"a"}, "c": {"a"}}) == [["a", "b"]]
    assert _circles({"a": {"b"}, "b": set()}) == []
