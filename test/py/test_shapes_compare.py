"""The one judgment of two extents that must agree, shared by inference and the frontend."""

from __future__ import annotations

import pytest
from mlir import ir

from symshape_mlir import new_context
from symshape_mlir.extent import UNKNOWN, Exact, ShapeExtent, Sym, UpperBound, parse_expr
from symshape_mlir.inference import InferenceOptions, InferenceState, ShapeInferenceError
from symshape_mlir.shapes import AxisConflictError, unify_extents
from symshape_mlir.shapes.compare import Verdict, broadcastable, equality

batch, seq, n = Sym("batch"), Sym("seq"), Sym("n")

EQUALITY = [
    ("same_axis", Exact(batch), Exact(batch), Verdict.PROVEN),
    ("same_value_two_ways", Exact(parse_expr("2 * (n + 1)")), Exact(parse_expr("2 * n + 2")),
     Verdict.PROVEN),
    ("same_bound_object", UpperBound(n), None, Verdict.PROVEN),
    ("constants_differ", Exact(3), Exact(4), Verdict.REFUTED),
    ("successor", Exact(n + 1), Exact(n), Verdict.REFUTED),
    ("bound_below_size", UpperBound(Sym("k")), Exact(Sym("k") + 1), Verdict.REFUTED),
    ("two_user_axes", Exact(batch), Exact(seq), Verdict.NAMED_APART),
    ("fresh_and_axis", Exact(Sym("_d0")), Exact(batch), Verdict.UNDECIDED),
    ("axis_and_product", Exact(batch), Exact(n * 2), Verdict.UNDECIDED),
    ("bound_and_size", UpperBound(batch), Exact(batch), Verdict.NOT_EXACT),
    ("unknown_twice", UNKNOWN, UNKNOWN, Verdict.NOT_EXACT),
]


@pytest.mark.parametrize(("a", "b", "verdict"), [e[1:] for e in EQUALITY],
                         ids=[e[0] for e in EQUALITY])
def test_equality(a: ShapeExtent, b: ShapeExtent | None, verdict: Verdict) -> None:
    """Each verdict, symmetric in its two extents."""
    b = a if b is None else b
    assert equality(a, b) is verdict
    assert equality(b, a) is verdict


BROADCAST = [
    ("one_to_anything", Exact(1), UpperBound(n), Verdict.PROVEN),
    ("equal", Exact(batch), Exact(batch), Verdict.PROVEN),
    ("neither_one_nor_equal", Exact(3), Exact(4), Verdict.REFUTED),
    ("axis_to_other_axis", Exact(batch), Exact(seq), Verdict.UNDECIDED),
    ("bound_to_size", UpperBound(n), Exact(n), Verdict.NOT_EXACT),
    ("size_to_bound", Exact(3), UpperBound(n), Verdict.NOT_EXACT),
]


@pytest.mark.parametrize(("have", "target", "verdict"), [e[1:] for e in BROADCAST],
                         ids=[e[0] for e in BROADCAST])
def test_broadcastable(have: ShapeExtent, target: ShapeExtent, verdict: Verdict) -> None:
    """A broadcast input is 1 or the target; two axes may still agree at run time."""
    assert broadcastable(have, target) is verdict


def _inference_unify(a: ShapeExtent, b: ShapeExtent) -> str:
    """What inference does with the pair: 'error', 'checked' (an obligation) or 'proven'."""
    with new_context(allow_unregistered_dialects=True), ir.Location.unknown():
        op = ir.Operation.create("test.op")
        state = InferenceState(InferenceOptions())
        try:
            state.unify(a, b, op, lambda: "the two extents", None)
        except ShapeInferenceError:
            return "error"
        return "checked" if state.obligations else "proven"


def _frontend_unify(a: ShapeExtent, b: ShapeExtent) -> str:
    try:
        unify_extents(a, b)
    except AxisConflictError:
        return "error"
    return "proven"


@pytest.mark.parametrize(("a", "b", "verdict"), [e[1:] for e in EQUALITY],
                         ids=[e[0] for e in EQUALITY])
def test_inference_and_frontend_apply_one_judgment(
    a: ShapeExtent, b: ShapeExtent | None, verdict: Verdict
) -> None:
    """Both reject what is refuted or names two axes, and accept what is proven;
    they differ only in policy on the rest (inference checks at run time, the
    frontend trusts a declared bound)."""
    b = a if b is None else b
    inference, frontend = _inference_unify(a, b), _frontend_unify(a, b)
    if verdict in (Verdict.REFUTED, Verdict.NAMED_APART):
        assert inference == frontend == "error"
    elif verdict is Verdict.PROVEN:
        assert inference == frontend == "proven"
    else:
        assert inference == "checked"
