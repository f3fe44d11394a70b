"""End to end: programs specialized by ``symshape-specialize`` run with static shapes.

Each program is run through ``symshape-opt --symshape-specialize{bindings=...}``
followed by its usual resolution (``--symshape-to-iree``), compiled for
llvm-cpu and run at the binding it was specialized for: the results equal
numpy's, the compiled signature is static wherever the bound extents are
exact, upper bounds stay dynamic, and other shapes are refused.
"""

from __future__ import annotations

import functools

import numpy as np
import pytest

from symshape_mlir import backend
from symshape_mlir.backend import LoadedModule, SignatureError

from driver_support import require_driver
from test_e2e_programs import (
    PROGRAMS,
    Binding,
    assert_matches,
    binding_id,
    compiled,
    inputs_for,
    loaded,
    run_opt,
)

# Every binding of the MLP and the attention block, the largest of the others.
CASES = [
    pytest.param(name, binding, id=f"{name}-{binding_id(binding)}")
    for name, program in PROGRAMS.items()
    for binding in (program.bindings if name in ("mlp", "attention") else program.bindings[-1:])
]


def _bindings_option(axes: dict[str, int]) -> str:
    return "--symshape-specialize=bindings=" + ",".join(f"{k}={v}" for k, v in axes.items())


@functools.cache
def _specialized(name: str, axes: tuple[tuple[str, int], ...]) -> LoadedModule:
    program = PROGRAMS[name]
    text = run_opt(program.path, _bindings_option(dict(axes)), *program.passes)
    return backend.load(compiled(text, "llvm-cpu", program.data_tiling), "local-sync")


def specialized(name: str, binding: Binding) -> LoadedModule:
    """The program specialized for the axes of ``binding``, loaded on local-sync (cached)."""
    require_driver("local-sync")
    return _specialized(name, tuple(PROGRAMS[name].axes(binding).items()))


@pytest.mark.parametrize(("name", "binding"), CASES)
def test_specialized_program_matches_numpy(name: str, binding: Binding) -> None:
    """The program specialized for the binding gives numpy's results at that binding."""
    program = PROGRAMS[name]
    args = inputs_for(program, binding)
    expected = program.reference(*args)
    result = specialized(name, binding).invoke(program.function, *args)
    assert_matches(result, expected, program.tolerance)


SIGNATURES = [
    (
        "mlp",
        {"batch": 37},
        "@mlp(tensor<37x256xf32>, tensor<256x512xf32>, tensor<512xf32>, "
        "tensor<512x128xf32>) -> (tensor<4736xf32>)",
    ),
    (
        "mlp",
        {"batch": 0},
        "@mlp(tensor<0x256xf32>, tensor<256x512xf32>, tensor<512xf32>, "
        "tensor<512x128xf32>) -> (tensor<0xf32>)",
    ),
    (
        "attention",
        {"batch": 3, "seq": 17},
        "@attention(tensor<3x17x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, "
        "tensor<64x64xf32>) -> (tensor<3x17x64xf32>)",
    ),
    # min(n, 6) depends on the scalar n: exact, but not a constant.
    (
        "truncate",
        {"batch": 6, "n": -2},
        "@truncate(tensor<6x8xf32>, tensor<i64>) -> (tensor<?xf32>)",
    ),
    # ub(6) is an upper bound: never a static shape.
    (
        "truncate_bound",
        {"batch": 6, "n": -2},
        "@truncate_bound(tensor<6x8xf32>, tensor<i64>) -> (tensor<?x8xf32>)",
    ),
    (
        "flatten_rows",
        {"batch": 9},
        "@flatten_rows(tensor<9x6x4xf32>) -> (tensor<9x24xf32>)",
    ),
    (
        "gather",
        {"vocab": 10, "width": 6, "n": 9},
        "@gather(tensor<10x6xf32>, tensor<9x1xi64>) -> (tensor<9x6xf32>)",
    ),
    # The row count of `rows` is not an axis: it stays dynamic.
    (
        "broadcast_rows",
        {"batch": 7, "rows": 7},
        "@broadcast_rows(tensor<7x8xf32>, tensor<?x8xf32>) -> (tensor<7x8xf32>)",
    ),
]


@pytest.mark.parametrize(
    ("name", "binding", "signature"),
    SIGNATURES,
    ids=[f"{name}-{binding_id(binding)}" for name, binding, _ in SIGNATURES],
)
def test_specialized_signature(name: str, binding: Binding, signature: str) -> None:
    """IREE sees static types exactly where the bound extents are exact constants."""
    function = specialized(name, binding).function(PROGRAMS[name].function)
    assert str(function.signature) == signature


def test_specialized_module_refuses_other_shapes() -> None:
    """A module specialized for batch 37 refuses a batch-1 input before running."""
    program = PROGRAMS["mlp"]
    module = specialized("mlp", {"batch": 37})
    args = inputs_for(program, {"batch": 1})
    with pytest.raises(SignatureError, match=r"must be tensor<37x256xf32>, got shape \(1, 256\)"):
        module.invoke(program.function, *args)


def test_specialized_and_dynamic_agree() -> None:
    """Dynamic and specialized MLP give the same numbers (up to float reassociation)."""
    program = PROGRAMS["mlp"]
    binding = {"batch": 37}
    args = inputs_for(program, binding)
    dynamic = loaded(program, "local-sync").invoke(program.function, *args)
    static = specialized("mlp", binding).invoke(program.function, *args)
    np.testing.assert_allclose(static, dynamic, rtol=1e-5, atol=1e-5)
