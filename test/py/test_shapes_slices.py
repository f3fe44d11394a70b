"""numpy's slice rule over extents (``shapes/slices.py``) against Python's own.

Every ``start:stop:step`` on a grid of constant and symbolic bounds gives
the offset and count of ``slice(start, stop, step).indices(n)``: for a
symbolic axis ``n`` (and bounds written over ``n``) the expressions are
evaluated at every binding of the grid.
"""

from __future__ import annotations

import itertools

import pytest

from symshape_mlir.extent import Sym
from symshape_mlir.extent.expr import Const, Expr
from symshape_mlir.shapes.slices import EXTENTS, range_count, slice_indices

N = Sym("n")
BOUNDS = [None, -7, -3, -1, 0, 1, 2, 5, 9]
STEPS = [1, 2, 3, -1, -2, -4]
SIZES = range(0, 8)


def _numpy(start: int | None, stop: int | None, step: int, n: int) -> tuple[int, int]:
    """numpy's offset (into the reversed axis for a negative step) and count."""
    first, _, _ = slice(start, stop, step).indices(n)
    count = len(range(*slice(start, stop, step).indices(n)))
    if count == 0:
        return -1, 0
    return (first, count) if step > 0 else (n - 1 - first, count)


def _const(value: int | None) -> Expr | None:
    return None if value is None else Const(value)


@pytest.mark.parametrize("step", STEPS)
def test_constant_axis_matches_python(step: int) -> None:
    for start, stop, n in itertools.product(BOUNDS, BOUNDS, SIZES):
        offset, count = slice_indices(EXTENTS, _const(start), _const(stop), step, Const(n))
        want_offset, want_count = _numpy(start, stop, step, n)
        assert count.evaluate() == want_count, (start, stop, step, n)
        if want_count:
            assert offset.evaluate() == want_offset, (start, stop, step, n)


@pytest.mark.parametrize("step", STEPS)
def test_symbolic_axis_matches_python_at_every_binding(step: int) -> None:
    """Bounds constant or written over ``n`` (``n - 2``, ``-n``), evaluated per binding."""
    shapes: list[tuple[str, Expr | None]] = [
        (str(b), _const(b)) for b in BOUNDS
    ] + [("n - 2", N - 2), ("n + 1", N + 1), ("-n", -N), ("n", N)]
    for (_, start), (_, stop) in itertools.product(shapes, shapes):
        offset, count = slice_indices(EXTENTS, start, stop, step, N)
        for n in SIZES:
            def at(e: Expr | None, n: int = n) -> int | None:
                return None if e is None else e.evaluate({"n": n})

            want_offset, want_count = _numpy(at(start), at(stop), step, n)
            assert count.evaluate({"n": n}) == want_count, (start, stop, step, n)
            if want_count:
                assert offset.evaluate({"n": n}) == want_offset, (start, stop, step, n)


def test_symbolic_results_are_simplified() -> None:
    """Bounds whose side is proven keep no clamp: ``n - 3`` entries from 3 on."""
    offset, count = slice_indices(EXTENTS, Const(-3), None, 1, N)
    assert (str(offset), str(count)) == ("max(0, n - 3)", "n - max(0, n - 3)")
    offset, count = slice_indices(EXTENTS, None, None, -1, N)
    assert (str(offset), str(count)) == ("0", "n")


def test_zero_step_is_refused() -> None:
    with pytest.raises(ValueError, match="slice step cannot be zero"):
        slice_indices(EXTENTS, None, None, 0, N)
    with pytest.raises(ValueError, match="range step cannot be zero"):
        range_count(EXTENTS, Const(0), N, 0)


@pytest.mark.parametrize("step", [1, 2, 5, -1, -3])
def test_range_count_matches_len_of_range(step: int) -> None:
    for start, stop in itertools.product(range(-6, 7), range(-6, 7)):
        got = range_count(EXTENTS, Const(start), Const(stop), step).evaluate()
        assert got == len(range(start, stop, step)), (start, stop, step)
    count = range_count(EXTENTS, Const(1), N, step)
    for n in SIZES:
        assert count.evaluate({"n": n}) == len(range(1, n, step)), (n, step)
