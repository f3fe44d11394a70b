"""The opset-aware tables of op importers and of evaluators of known data.

An importer is registered for an op and the operator version from which
its semantics hold (``@importer("Reshape", 14)``: versions 14 and every later
version with the same semantics, until another registration). A node is
dispatched by the operator version in effect at the model's opset (from the
schemas of the ``onnx`` package): an op whose version in effect is older
than every registration is unsupported at that opset.

An evaluator (``@evaluator("Equal", since=13)``) computes an op on integer
and boolean data known at import time, element by element over extents
(:mod:`symshape_mlir.onnx.ops.data`); the importer runs when it gives
nothing. A shape rule (``@shape_rule("Add", since=7)``) gives the outputs'
shapes and element types from the inputs' without building anything
(``infer_shapes(build=False)``). The three tables are looked up the same way.

Example:
    >>> @importer("Relu", 13)
    ... def relu(node: NodeContext) -> list[Value]:
    ...     return [frontend.relu(node.tensor(0))]
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import TYPE_CHECKING

import onnx.defs

from symshape_mlir.registry import add_unique

if TYPE_CHECKING:
    from symshape_mlir.onnx.context import NodeContext
    from symshape_mlir.onnx.values import Value

__all__ = [
    "Evaluator", "Importer", "evaluator", "importer", "lookup", "lookup_evaluator",
    "lookup_shape_rule", "shape_rule", "supported_ops",
]

Importer = Callable[["NodeContext"], "list[Value]"]
#: Gives the node's outputs as known data, or ``None`` when its inputs are not known.
Evaluator = Callable[["NodeContext"], "list[Value] | None"]

_Table = dict[str, dict[int, Callable]]

_TABLE: dict[str, dict[int, Importer]] = {}
"""Op type -> operator version -> importer."""

_EVALUATORS: dict[str, dict[int, Evaluator]] = {}
"""Op type -> operator version -> evaluator of known data."""

_SHAPE_RULES: dict[str, dict[int, Importer]] = {}
"""Op type -> operator version -> shape rule (outputs as ``Abstract`` values or data)."""


_TABLES = (_TABLE, _EVALUATORS, _SHAPE_RULES)


def _registrar(table: _Table, what: str, ops: tuple[str, ...], since: int) -> Callable:
    def register(fn: Callable) -> Callable:
        for op in ops:
            add_unique(table.setdefault(op, {}), since, fn, f"{op} {what} from version")
        _find_cached.cache_clear()
        return fn

    return register


def importer(*ops: str, since: int = 13) -> Callable[[Importer], Importer]:
    """Registers the decorated function for ``ops`` from operator version ``since``.

    Raises:
        ValueError: the op already has an importer from that version.
    """
    return _registrar(_TABLE, "importer", ops, since)


def evaluator(*ops: str, since: int = 13) -> Callable[[Evaluator], Evaluator]:
    """Registers an evaluator of known data for ``ops`` from operator version ``since``.

    Raises:
        ValueError: the op already has an evaluator from that version.
    """
    return _registrar(_EVALUATORS, "evaluator", ops, since)


@functools.cache
def schema_version(op: str, opset: int) -> int | None:
    """The version of ``op`` in effect at ``opset`` (None if the op is unknown there)."""
    try:
        return int(onnx.defs.get_schema(op, opset, "").since_version)
    except onnx.defs.SchemaError:
        return None


def shape_rule(*ops: str, since: int = 13) -> Callable[[Importer], Importer]:
    """Registers the shape rule of ``ops`` from operator version ``since``.

    Raises:
        ValueError: the op already has a shape rule from that version.
    """
    return _registrar(_SHAPE_RULES, "shape rule", ops, since)


@functools.cache
def _find_cached(table_id: int, op: str, opset: int) -> tuple[Callable | None, int | None]:
    return _find(_TABLES[table_id], op, opset)


def _find(table: _Table, op: str, opset: int) -> tuple[Callable | None, int | None]:
    version = schema_version(op, opset)
    versions = table.get(op)
    if version is None or not versions:
        return None, version
    since = max((v for v in versions if v <= version), default=None)
    return (versions[since] if since is not None else None), version


def lookup(op: str, opset: int) -> tuple[Importer | None, int | None]:
    """The importer for ``op`` at ``opset``, and the operator version in effect."""
    return _find_cached(0, op, opset)


def lookup_evaluator(op: str, opset: int) -> Evaluator | None:
    """The evaluator of known data for ``op`` at ``opset``, if there is one."""
    return _find_cached(1, op, opset)[0]


def lookup_shape_rule(op: str, opset: int) -> Importer | None:
    """The shape rule for ``op`` at ``opset``, if there is one."""
    return _find_cached(2, op, opset)[0]


def supported_ops() -> list[str]:
    """The op types with an importer, sorted."""
    return sorted(_TABLE)
