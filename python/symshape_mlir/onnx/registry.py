"""The opset-aware table of op importers.

An importer is registered for an op and the operator version from which
its semantics hold (``@importer("Reshape", 14)``: versions 14 and every later
version with the same semantics, until another registration). A node is
dispatched by the operator version in effect at the model's opset (from the
schemas of the ``onnx`` package): an op whose version in effect is older
than every registration is unsupported at that opset.

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

__all__ = ["Importer", "importer", "lookup", "supported_ops"]

Importer = Callable[["NodeContext"], "list[Value]"]

_TABLE: dict[str, dict[int, Importer]] = {}
"""Op type -> operator version -> importer."""


def importer(*ops: str, since: int = 13) -> Callable[[Importer], Importer]:
    """Registers the decorated function for ``ops`` from operator version ``since``.

    Raises:
        ValueError: the op already has an importer from that version.
    """

    def register(fn: Importer) -> Importer:
        for op in ops:
            add_unique(_TABLE.setdefault(op, {}), since, fn, f"{op} importer from version")
        return fn

    return register


@functools.cache
def schema_version(op: str, opset: int) -> int | None:
    """The version of ``op`` in effect at ``opset`` (None if the op is unknown there)."""
    try:
        return int(onnx.defs.get_schema(op, opset, "").since_version)
    except onnx.defs.SchemaError:
        return None


def lookup(op: str, opset: int) -> tuple[Importer | None, int | None]:
    """The importer for ``op`` at ``opset``, and the operator version in effect."""
    version = schema_version(op, opset)
    versions = _TABLE.get(op)
    if version is None or not versions:
        return None, version
    since = max((v for v in versions if v <= version), default=None)
    return (versions[since] if since is not None else None), version


def supported_ops() -> list[str]:
    """The op types with an importer, sorted."""
    return sorted(_TABLE)
