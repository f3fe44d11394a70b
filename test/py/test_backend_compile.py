"""Compiles plain-MLIR modules with `symshape_mlir.backend` for every target.

Checks the flags of each target, that each flag set compiles a dynamic-shape
``linalg.generic`` module into an artifact holding that target's executable
format, and that compiler failures come back as `CompileError` with the
failing phase and structured diagnostics.
"""

from __future__ import annotations

import re
import sys
from typing import Any

import pytest

from symshape_mlir import backend
from symshape_mlir.backend import CompileError, Diagnostic

DYNAMIC_ADD = """
#map = affine_map<(d0) -> (d0)>
func.func @add(%a: tensor<?xf32>, %b: tensor<?xf32>) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %a, %c0 : tensor<?xf32>
  %init = tensor.empty(%n) : tensor<?xf32>
  %r = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel"]}
      ins(%a, %b : tensor<?xf32>, tensor<?xf32>) outs(%init : tensor<?xf32>) {
  ^bb0(%x: f32, %y: f32, %out: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  } -> tensor<?xf32>
  return %r : tensor<?xf32>
}
"""

# `linalg.add` is not accepted by IREE 3.13's parser.
NAMED_ADD = """
func.func @add(%a: tensor<?xf32>, %b: tensor<?xf32>) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %a, %c0 : tensor<?xf32>
  %init = tensor.empty(%n) : tensor<?xf32>
  %r = linalg.add ins(%a, %b : tensor<?xf32>, tensor<?xf32>) outs(%init : tensor<?xf32>)
      -> tensor<?xf32>
  return %r : tensor<?xf32>
}
"""

# Valid MLIR that IREE cannot outline into a dispatch: the body calls an
# external function. Fails in the `flow` phase.
EXTERNAL_CALL = """#map = affine_map<(d0) -> (d0)>
func.func private @ext(f32) -> f32 loc("model.py":2:1)
func.func @f(%a: tensor<?xf32>) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %a, %c0 : tensor<?xf32>
  %init = tensor.empty(%n) : tensor<?xf32>
  %r = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]}
      ins(%a : tensor<?xf32>) outs(%init : tensor<?xf32>) {
  ^bb0(%x: f32, %out: f32):
    %u = func.call @ext(%x) : (f32) -> f32 loc("model.py":9:10)
    linalg.yield %u : f32
  } -> tensor<?xf32>
  return %r : tensor<?xf32>
} loc("model.py":3:1)
"""

CPU_DEVICE = (
    "--iree-hal-target-device=local",
    "--iree-hal-local-target-device-backends=llvm-cpu",
    "--iree-input-demote-f64-to-f32=false",
    "--iree-llvmcpu-reassociate-fp-reductions=true",
)
TARGET_FLAGS: list[tuple[str, dict[str, Any], tuple[str, ...]]] = [
    ("llvm-cpu", {}, (*CPU_DEVICE, "--iree-llvmcpu-target-cpu=host", "--iree-opt-data-tiling")),
    (
        "llvm-cpu",
        {"data_tiling": False},
        (*CPU_DEVICE, "--iree-llvmcpu-target-cpu=host", "--iree-opt-data-tiling=false"),
    ),
    (
        "llvm-cpu",
        {"arch": "znver4"},
        (*CPU_DEVICE, "--iree-llvmcpu-target-cpu=znver4", "--iree-opt-data-tiling"),
    ),
    ("vulkan", {}, ("--iree-hal-target-device=vulkan",)),
    (
        "vulkan",
        {"arch": "rdna3"},
        ("--iree-hal-target-device=vulkan", "--iree-vulkan-target=rdna3"),
    ),
    ("cuda", {}, ("--iree-hal-target-device=cuda", "--iree-cuda-target=sm_89")),
    ("cuda", {"arch": "sm_80"}, ("--iree-hal-target-device=cuda", "--iree-cuda-target=sm_80")),
    (
        "cuda",
        {"data_tiling": True},
        ("--iree-hal-target-device=cuda", "--iree-cuda-target=sm_89", "--iree-opt-data-tiling"),
    ),
    ("metal", {}, ("--iree-hal-target-device=metal",)),
    ("rocm", {}, ("--iree-hal-target-device=hip", "--iree-rocm-target=gfx942")),
    ("rocm", {"arch": "gfx90a"}, ("--iree-hal-target-device=hip", "--iree-rocm-target=gfx90a")),
]


def _case_id(target: str, options: dict[str, Any]) -> str:
    return "-".join([target, *(f"{k}={v}" for k, v in options.items())])


@pytest.mark.parametrize(
    ("target", "options", "flags"),
    TARGET_FLAGS,
    ids=[_case_id(target, options) for target, options, _ in TARGET_FLAGS],
)
def test_target_flags(target: str, options: dict[str, Any], flags: tuple[str, ...]) -> None:
    """Each target and option maps to its documented iree-compile flags."""
    assert backend.target_flags(target, **options) == flags


def test_unknown_target() -> None:
    """An unknown target name is a ValueError listing the known ones."""
    with pytest.raises(
        ValueError,
        match=r"^unknown target 'spirv'; expected one of llvm-cpu, vulkan, cuda, metal, rocm$",
    ):
        backend.target_flags("spirv")


def test_metal_takes_no_arch() -> None:
    """Metal has no architecture flag."""
    with pytest.raises(ValueError, match=r"^target 'metal' takes no architecture \(got 'm1'\)$"):
        backend.target_flags("metal", arch="m1")


# The flag sets verified to compile a dynamic-shape module, and the one
# executable format each artifact must hold.
COMPILE_CASES: list[tuple[str, dict[str, Any]]] = [
    ("llvm-cpu", {}),
    ("llvm-cpu", {"data_tiling": False}),
    ("vulkan", {}),
    ("cuda", {}),
    ("cuda", {"arch": "sm_80"}),
    ("metal", {}),
    ("rocm", {}),
]
EXPECTED_FORMAT = {
    "llvm-cpu": r"embedded-elf-\w+",
    "vulkan": "vulkan-spirv-fb",
    "cuda": "cuda-nvptx-fb",
    "metal": "metal-msl-fb",
    "rocm": "rocm-hsaco-fb",
}


@pytest.mark.parametrize(
    ("target", "options"),
    COMPILE_CASES,
    ids=[_case_id(target, options) for target, options in COMPILE_CASES],
)
def test_compiles_dynamic_generic(target: str, options: dict[str, Any]) -> None:
    """The target's flags compile a dynamic-shape linalg.generic into its executable format."""
    compiled = backend.compile_module(DYNAMIC_ADD, target, **options)
    assert compiled.target == target
    assert compiled.flags == backend.target_flags(target, **options)
    assert compiled.vmfb
    (executable_format,) = compiled.executable_formats
    assert re.fullmatch(EXPECTED_FORMAT[target], executable_format)


def test_extra_flags_follow_target_flags() -> None:
    """Caller flags are recorded after the target's."""
    compiled = backend.compile_module(DYNAMIC_ADD, "vulkan", flags=["--iree-opt-level=O2"])
    assert compiled.flags == ("--iree-hal-target-device=vulkan", "--iree-opt-level=O2")


def test_module_without_dispatches_has_no_executables() -> None:
    """A function that moves no data compiles to an artifact without executables."""
    identity = "func.func @id(%x: tensor<?xf32>) -> tensor<?xf32> { return %x : tensor<?xf32> }"
    assert backend.compile_module(identity, "llvm-cpu").executable_formats == frozenset()


def test_parse_error() -> None:
    """A module IREE's parser rejects fails in the parse phase with a located diagnostic."""
    with pytest.raises(CompileError) as info:
        backend.compile_module(NAMED_ADD, "llvm-cpu")
    error = info.value
    assert error.target == "llvm-cpu"
    assert error.phase == "parse"
    assert error.errors == (
        Diagnostic("error", "custom op 'linalg.add' is unknown", "<stdin>", 6, 8),
    )
    assert str(error) == (
        "iree-compile failed for target 'llvm-cpu' in phase 'parse':\n"
        "<stdin>:6:8: error: custom op 'linalg.add' is unknown"
    )


def test_failure_in_a_later_phase() -> None:
    """A failure inside IREE's pipeline names its phase and keeps the source locations."""
    with pytest.raises(CompileError) as info:
        backend.compile_module(EXTERNAL_CALL, "vulkan")
    error = info.value
    assert error.phase == "flow"
    (first,) = error.errors
    assert (first.file, first.line, first.col) == ("model.py", 2, 1)
    assert first.message == "'util.call' op undefined/incompatible callee: ext"
    assert first.notes[0] == Diagnostic("note", "called from", "model.py", 9, 10)
    assert str(error) == (
        "iree-compile failed for target 'vulkan' in phase 'flow':\n"
        "model.py:2:1: error: 'util.call' op undefined/incompatible callee: ext"
    )


def test_phase_search_can_be_skipped() -> None:
    """With locate_phase=False the compiler runs once and the phase is unknown."""
    with pytest.raises(CompileError) as info:
        backend.compile_module(EXTERNAL_CALL, "vulkan", locate_phase=False)
    assert info.value.phase is None
    assert str(info.value).startswith("iree-compile failed for target 'vulkan':\n")


def test_cuda_sm_90_fails_in_configuration() -> None:
    """sm_90 is broken in IREE 3.13: it fails when executables are configured."""
    with pytest.raises(CompileError) as info:
        backend.compile_module(DYNAMIC_ADD, "cuda", arch="sm_90")
    error = info.value
    assert error.phase == "executable-configurations"
    assert [d.message for d in error.errors] == [
        "missing GPU target in #hal.executable.target",
        "failed to run configuration of source executable to target executable for "
        'backend #hal.executable.target<"cuda", "cuda-nvptx-fb">',
        "failed to configure executables",
    ]


def test_unknown_flag() -> None:
    """A flag iree-compile does not know fails on the command line."""
    with pytest.raises(CompileError) as info:
        backend.compile_module(DYNAMIC_ADD, "llvm-cpu", flags=["--iree-no-such-flag"])
    error = info.value
    assert error.phase == "command-line"
    (first,) = error.errors
    assert first.file is None
    assert first.message.startswith("Unknown command line argument '--iree-no-such-flag'.")


def test_mlir_module_keeps_source_locations() -> None:
    """An mlir.ir.Module compiles beside the mlir bindings and keeps its locations."""
    ir = pytest.importorskip("mlir.ir")
    with ir.Context():
        module = ir.Module.parse(EXTERNAL_CALL)
        with pytest.raises(CompileError) as info:
            backend.compile_module(module, "llvm-cpu", locate_phase=False)
    (first,) = info.value.errors
    assert (first.file, first.line, first.col) == ("model.py", 2, 1)
    with ir.Context():
        compiled = backend.compile_module(ir.Module.parse(DYNAMIC_ADD), "llvm-cpu")
    assert compiled.executable_formats
    assert "iree.compiler" not in sys.modules


def test_rejects_non_mlir_input() -> None:
    """Anything but text or an MLIR operation is a TypeError."""
    with pytest.raises(
        TypeError, match=r"expected MLIR text or an mlir.ir Module/Operation, got int"
    ):
        backend.compile_module(42)


DIAGNOSTIC_TEXT = """\
<unknown>:0: error: type of return operand 0 doesn't match
<unknown>:0: note: see current operation: "func.return"(%0) : (tensor<?xf32>) -> ()
m.mlir:3:7: warning: unused value
  %x = arith.constant 0 : index
      ^
WARNING: ConvertTypesPass changed public function signatures
iree-compile: Unknown command line argument '--bad'.
iree-compile: Did you mean '--good'?
"""


def test_parse_diagnostics() -> None:
    """Located, unlocated and option-parser diagnostics are parsed; notes attach to their parent."""
    assert backend.parse_diagnostics(DIAGNOSTIC_TEXT) == (
        Diagnostic(
            "error",
            "type of return operand 0 doesn't match",
            notes=(
                Diagnostic(
                    "note",
                    'see current operation: "func.return"(%0) : (tensor<?xf32>) -> ()',
                ),
            ),
        ),
        Diagnostic("warning", "unused value", "m.mlir", 3, 7),
        Diagnostic(
            "error",
            "Unknown command line argument '--bad'.",
            notes=(Diagnostic("note", "Did you mean '--good'?"),),
        ),
    )
