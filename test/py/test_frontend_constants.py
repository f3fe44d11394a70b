"""Constants of every element type and rank, 0-d included, trace to modules that parse."""

from __future__ import annotations

import numpy as np
import pytest
from mlir import ir

from symshape_mlir.frontend.ops.constants import constant
from symshape_mlir.frontend.tracing import trace

DTYPES = ["float16", "float32", "float64", "bool", "int32", "int64"]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(), (1,), (3,), (2, 2)], ids=["0d", "one", "three", "2x2"])
def test_constant_parses(dtype: str, shape: tuple[int, ...]) -> None:
    """A constant keeps its shape: a 0-d one is a 0-d tensor (not a 1-element vector)."""
    value = (np.arange(int(np.prod(shape))) % 2).astype(dtype).reshape(shape)

    def body(state, *args):  # type: ignore[no-untyped-def]
        return constant(state, value)

    traced = trace(body, pass_trace=True, name="k")
    (result,) = traced.result_shapes
    assert [int(str(e)) for e in result] == list(shape)
    # It parses (the literal matches the type), with the constant's type.
    function = traced.module.body.operations[0]
    assert [list(ir.RankedTensorType(t).shape) for t in function.type.results] == [list(shape)]
