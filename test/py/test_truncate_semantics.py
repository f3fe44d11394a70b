"""The ``truncate_size`` semantics of ``symshape.dynamic_truncate``, run on the CPU.

``dynamic_truncate(x, n, axis)`` keeps ``min(max(n, 0), x.shape[axis])``
entries: a negative count keeps nothing, a count past the axis keeps
everything. Any signless integer width (and ``index``) is accepted for ``n``.
"""

from __future__ import annotations

import numpy as np
import pytest
from mlir import ir

import symshape_mlir
from symshape_mlir import backend
from symshape_mlir.passes import run_pipeline

PROGRAM = """
func.func @truncate(%x: tensor<?x3xf32> {{symshape.axes = #symshape.shape<[rows, 3]>}},
                    %n: tensor<{ty}>) -> tensor<?x3xf32> {{
  %t = symshape.dynamic_truncate %x, %n axis 0 stage exact
      : (tensor<?x3xf32>, tensor<{ty}>) -> tensor<?x3xf32>
  return %t : tensor<?x3xf32>
}}
"""

DTYPES = {"i8": np.int8, "i32": np.int32, "i64": np.int64}


@pytest.fixture(scope="module", params=sorted(DTYPES))
def truncate(request: pytest.FixtureRequest) -> tuple[backend.Function, type]:
    """The program compiled for llvm-cpu with a count of the given integer type."""
    with symshape_mlir.new_context():
        module = ir.Module.parse(PROGRAM.format(ty=request.param))
        run_pipeline(module, "builtin.module(symshape-to-iree)")
        text = str(module)
    loaded = backend.load(backend.compile_module(text, "llvm-cpu"), "local-sync")
    return loaded.function("truncate"), DTYPES[request.param]


@pytest.mark.parametrize(
    ("rows", "count", "kept"),
    [(5, 2, 2), (5, 0, 0), (5, -3, 0), (5, 5, 5), (5, 100, 5), (0, 4, 0), (0, -1, 0)],
    ids=["inside", "zero", "negative", "whole", "past_the_axis", "empty_input", "empty_negative"],
)
def test_truncate_size(
    truncate: tuple[backend.Function, type], rows: int, count: int, kept: int
) -> None:
    """The kept prefix is min(max(n, 0), rows), compared with numpy slicing."""
    function, dtype = truncate
    x = np.arange(rows * 3, dtype=np.float32).reshape(rows, 3)
    got = function(x, np.array(count, dtype=dtype), out_shapes=[(kept, 3)])
    np.testing.assert_array_equal(got, x[: max(count, 0)])
    assert got.shape == (kept, 3)
