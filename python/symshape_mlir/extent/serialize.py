"""Compact post-order serialization of expressions.

An expression DAG is written as its distinct nodes in post-order (children
before parents, the root last); children are referred to by index, so shared
subexpressions are written once. The order depends only on the canonical
structure, never on ``id()`` or string hashing, so the output is identical
across processes and sessions and can key compiled-artifact caches.

Node records (``i``, ``j`` are earlier node indices)::

    ("c", value)                      constant
    ("s", name)                       symbol
    ("d", operand, axis)              dim(operand, axis)
    ("r", operand, semantics)         scalar(operand, semantics)
    ("+", const, i, coef, j, coef...) const + coef * node_i + ...
    ("*", i, exp, j, exp...)          node_i ** exp * ...
    ("fd", i, j) ("cd", i, j) ("mod", i, j)
    ("min", i, j, ...) ("max", i, j, ...)

:func:`dumps` writes the same records as one line, ``v1;`` followed by the
records separated by ``;`` with fields separated by spaces.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final, TypeAlias

from symshape_mlir.extent.canon import add, ceildiv, floordiv, maximum, minimum, mod, mul
from symshape_mlir.extent.errors import SerializationError
from symshape_mlir.extent.expr import (
    CeilDiv,
    Const,
    Expr,
    FloorDiv,
    InputAxis,
    Max,
    Min,
    Mod,
    Prod,
    RuntimeScalar,
    Sum,
    Sym,
)

__all__ = ["FORMAT_VERSION", "Node", "dumps", "from_postorder", "loads", "to_postorder"]

FORMAT_VERSION: Final = 1

Node: TypeAlias = tuple[str | int, ...]


def to_postorder(expr: Expr) -> tuple[Node, ...]:
    """Returns the post-order node records of ``expr`` (the root is last)."""
    index: dict[Expr, int] = {}
    nodes: list[Node] = []
    stack: list[tuple[Expr, bool]] = [(expr, False)]
    while stack:
        node, expanded = stack.pop()
        if node in index:
            continue
        if not expanded:
            stack.append((node, True))
            stack.extend((child, False) for child in reversed(node.children))
            continue
        index[node] = len(nodes)
        nodes.append(_record(node, index))
    return tuple(nodes)


def _record(node: Expr, index: dict[Expr, int]) -> Node:
    if isinstance(node, Const):
        return ("c", node.value)
    if isinstance(node, Sym):
        return ("s", node.name)
    if isinstance(node, InputAxis):
        return ("d", node.operand, node.axis)
    if isinstance(node, RuntimeScalar):
        return ("r", node.operand, node.semantics)
    if isinstance(node, Sum):
        return ("+", node.const, *(v for t, k in node.terms for v in (index[t], k)))
    if isinstance(node, Prod):
        return ("*", *(v for f, e in node.factors for v in (index[f], e)))
    if isinstance(node, FloorDiv):
        return ("fd", index[node.num], index[node.den])
    if isinstance(node, CeilDiv):
        return ("cd", index[node.num], index[node.den])
    if isinstance(node, Mod):
        return ("mod", index[node.num], index[node.den])
    if isinstance(node, Min):
        return ("min", *(index[a] for a in node.args))
    if isinstance(node, Max):
        return ("max", *(index[a] for a in node.args))
    raise TypeError(f"unexpected node {node!r}")


MAX_DEGREE = 1024
"""The largest total exponent a product record may hold (more is malformed input)."""


def from_postorder(nodes: Sequence[Sequence[str | int]]) -> Expr:
    """Rebuilds the expression whose records :func:`to_postorder` returned.

    Raises:
        SerializationError: malformed records (unknown kind, wrong arity,
            forward or out-of-range references, empty input).
    """
    built: list[Expr] = []
    for position, record in enumerate(nodes):
        try:
            built.append(_build(record, built))
        except (TypeError, ValueError, IndexError) as err:
            raise SerializationError(f"record {position} {tuple(record)!r}: {err}") from None
    if not built:
        raise SerializationError("no records")
    return built[-1]


def _ref(built: list[Expr], value: str | int) -> Expr:
    if not isinstance(value, int) or not 0 <= value < len(built):
        raise IndexError(f"reference {value!r} is not an earlier record")
    return built[value]


def _int(value: str | int) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise TypeError(f"expected an integer, got {value!r}")
    return value


def _build(record: Sequence[str | int], built: list[Expr]) -> Expr:
    kind, fields = record[0], list(record[1:])
    if kind == "c" and len(fields) == 1:
        return Const(_int(fields[0]))
    if kind == "s" and len(fields) == 1 and isinstance(fields[0], str):
        return Sym(fields[0])
    if kind == "d" and len(fields) == 2:
        return InputAxis(_int(fields[0]), _int(fields[1]))
    if kind == "r" and len(fields) == 2 and isinstance(fields[1], str):
        return RuntimeScalar(_int(fields[0]), fields[1])
    if kind == "+" and len(fields) % 2 == 1:
        pairs = zip(fields[1::2], fields[2::2], strict=True)
        return add(_int(fields[0]), *(mul(_int(k), _ref(built, i)) for i, k in pairs))
    if kind == "*" and fields and len(fields) % 2 == 0:
        factors = [_ref(built, i) for i in fields[0::2]]
        exponents = [_int(e) for e in fields[1::2]]
        if any(e < 1 for e in exponents) or sum(exponents) > MAX_DEGREE:
            raise ValueError(f"exponents must be positive and total at most {MAX_DEGREE}")
        return mul(*(f for f, e in zip(factors, exponents, strict=True) for _ in range(e)))
    if kind in ("fd", "cd", "mod") and len(fields) == 2:
        ctor = {"fd": floordiv, "cd": ceildiv, "mod": mod}[kind]
        return ctor(_ref(built, fields[0]), _ref(built, fields[1]))
    if kind in ("min", "max") and fields:
        extremum = minimum if kind == "min" else maximum
        return extremum(*(_ref(built, i) for i in fields))
    raise ValueError("unknown record kind or wrong number of fields")


def dumps(expr: Expr) -> str:
    """Serializes ``expr`` to one compact line (``v1;`` + records)."""
    records = ";".join(" ".join(str(field) for field in node) for node in to_postorder(expr))
    return f"v{FORMAT_VERSION};{records}"


def loads(text: str) -> Expr:
    """Rebuilds an expression from :func:`dumps` output.

    Raises:
        SerializationError: another format version or malformed records.
    """
    header, _, body = text.partition(";")
    if header != f"v{FORMAT_VERSION}":
        raise SerializationError(f"unsupported serialization header {header!r}")
    nodes: list[Node] = []
    for chunk in body.split(";"):
        parts = chunk.split(" ")
        kind = parts[0]
        fields: list[str | int] = [kind]
        for position, part in enumerate(parts[1:], start=1):
            textual = (kind == "s" and position == 1) or (kind == "r" and position == 2)
            if textual:
                fields.append(part)
                continue
            try:
                fields.append(int(part))
            except ValueError:
                raise SerializationError(
                    f"expected an integer field, got {part!r} in {chunk!r}"
                ) from None
        nodes.append(tuple(fields))
    return from_postorder(nodes)
