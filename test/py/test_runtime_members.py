"""The runtime's modules talk to one another through public members only.

A private member (``_name``, set as ``self._name`` or defined as a method)
belongs to its module: another module of ``symshape_mlir.runtime`` reading
or calling it (``entry._variants``, ``executable._promote(...)``) fails.
"""

from __future__ import annotations

import ast
from pathlib import Path

RUNTIME = Path(__file__).resolve().parents[2] / "python" / "symshape_mlir" / "runtime"


def _private(node: ast.AST) -> str | None:
    """The private name an attribute access or a method definition names."""
    name = node.attr if isinstance(node, ast.Attribute) else getattr(node, "name", None)
    if isinstance(name, str) and name.startswith("_") and not name.startswith("__"):
        return name
    return None


def _on_self(node: ast.AST) -> bool:
    return isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and \
        node.value.id in ("self", "cls")


def test_no_module_reaches_into_another_modules_private_members() -> None:
    """Each private member another runtime module uses is listed with its place."""
    trees = {path.name: ast.parse(path.read_text(), str(path))
             for path in sorted(RUNTIME.glob("*.py"))}
    owners: dict[str, set[str]] = {}
    for module, tree in trees.items():
        for node in ast.walk(tree):
            name = _private(node)
            if name is not None and (_on_self(node) or isinstance(node, ast.FunctionDef)):
                owners.setdefault(name, set()).add(module)
    reached = [
        f"{module}:{node.lineno}: .{name} of {', '.join(sorted(owners[name]))}"
        for module, tree in trees.items()
        for node in ast.walk(tree)
        if isinstance(node, ast.Attribute) and not _on_self(node)
        and (name := _private(node)) in owners and module not in owners[name]
    ]
    assert reached == []
