"""The IREE shield table names live reproducers and live code.

Each reproducer an entry of :data:`~symshape_mlir.lowering.iree.SHIELDS`
names is a strict ``xfail`` in ``test_iree_known_bugs.py``, so once IREE
fixes its fault the reproducer fails as XPASS while the shield is still in
the table; every reproducer there is named by one entry.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

import pytest

import test_iree_known_bugs as known_bugs
from symshape_mlir.lowering.iree import RESOLVE_PHASES, SHIELDS, Shield

_FILE = "test/py/test_iree_known_bugs.py"


def _is_strict_xfail(test: Callable[..., Any]) -> bool:
    return any(mark.name == "xfail" and mark.kwargs.get("strict") is True
               for mark in getattr(test, "pytestmark", ()))


def _named(shield: Shield) -> tuple[str, ...]:
    return shield.reproducers + shield.constraints


NAMED = [(shield.name, node) for shield in SHIELDS for node in _named(shield)]


@pytest.mark.parametrize(("shield", "node"), NAMED, ids=[node.split("::")[1] for _, node in NAMED])
def test_named_reproducer_is_a_strict_xfail(shield: str, node: str) -> None:
    """A reproducer the table names exists and fails the run once it passes."""
    path, name = node.split("::")
    assert path == _FILE, f"{shield}: {node} is not in {_FILE}"
    test = getattr(known_bugs, name, None)
    assert test is not None, f"{shield}: no test {node}"
    assert _is_strict_xfail(test), f"{shield}: {node} is not a strict xfail"


def test_every_reproducer_is_named_once() -> None:
    """Each strict xfail of the known bugs belongs to one table entry."""
    reproducers = {f"{_FILE}::{name}" for name, test in vars(known_bugs).items()
                   if name.startswith("test_") and callable(test) and _is_strict_xfail(test)}
    named = [node for _, node in NAMED]
    assert sorted(named) == sorted(set(named)), "a reproducer is named twice"
    assert set(named) == reproducers


def test_names_are_unique() -> None:
    """An entry is known by its name."""
    names = [shield.name for shield in SHIELDS]
    assert len(names) == len(set(names))


def _resolve(path: str) -> object:
    """The object a dotted path names: a module, then attributes of it."""
    parts = path.split(".")
    for split in range(len(parts) - 1, 0, -1):
        try:
            found: object = importlib.import_module(".".join(parts[:split]))
        except ModuleNotFoundError:
            continue
        for attribute in parts[split:]:
            found = getattr(found, attribute)
        return found
    raise ModuleNotFoundError(path)


WHERE = [(shield.name, path) for shield in SHIELDS for path in shield.where]


@pytest.mark.parametrize(("shield", "path"), WHERE, ids=[f"{s}:{p}" for s, p in WHERE])
def test_where_names_code(shield: str, path: str) -> None:
    """Each entry's code exists where the table says."""
    _resolve(path)


def test_resolve_runs_exactly_its_phases() -> None:
    """Only entries of symshape-resolve's phases carry a function to run there."""
    for shield in SHIELDS:
        assert (shield.apply is not None) == (shield.phase in RESOLVE_PHASES), shield.name
    with pytest.raises(ValueError, match="symshape-resolve runs exactly the shields"):
        Shield(name="late", phase="backend", kind="workaround", iree="3.13", symptom="",
               where=(), apply=lambda func, inputs: None)

