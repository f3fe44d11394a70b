"""The frontend examples: their traced modules round-trip, and they run against numpy
(the classifier's training step, forward and backward in one function, trains)."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

import pytest

from symshape_mlir.frontend import trace

from roundtrip_support import check_round_trip

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def _load(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, EXAMPLES / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize(
    ("name", "function", "argv"),
    [
        ("frontend_mlp", "mlp", ["--batches", "0", "1", "7"]),
        ("frontend_attention", "attention", ["--shapes", "1x1", "2x5"]),
        ("train_classifier", "step", ["--steps", "60"]),
    ],
)
def test_example(
    name: str, function: str, argv: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The example's function passes the round trip; its main matches numpy (exit code 0)."""
    module = _load(name)
    check_round_trip([trace(getattr(module, function))])
    monkeypatch.setenv("SYMSHAPE_MLIR_CACHE_DIR", str(tmp_path))
    assert module.main(argv) == 0
