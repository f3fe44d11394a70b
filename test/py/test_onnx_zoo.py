"""The model zoo: torch-exported models import, compile and match onnxruntime.

Every model of ``test/onnx/models/zoo.json`` (written by
``test/onnx/models/export.py`` from ``transformers`` and ``torchvision``
with tiny configurations) is imported with its named dynamic axes, compiled
once with dynamic shapes and run at its three bindings (size 1, an odd size,
a larger one) against onnxruntime. At batch 0 it must give a correct empty
result (onnxruntime's where it runs, else the planned shapes) or a clean
runtime error, never a signal.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "onnx"))

import zoo
from symshape_mlir import runtime
from symshape_mlir.backend.errors import BackendError
from symshape_mlir.onnx import import_model

ort = pytest.importorskip("onnxruntime")

ENTRIES = zoo.entries()


def _close(ours: np.ndarray, reference: np.ndarray, entry: dict) -> None:
    assert ours.shape == reference.shape
    assert ours.dtype == reference.dtype
    if reference.size:
        scale = float(np.max(np.abs(reference)))
        error = float(np.max(np.abs(ours.astype(np.float64) - reference)))
        assert error <= entry["atol"] + entry["rtol"] * scale, (error, scale)


@pytest.mark.parametrize("name", sorted(ENTRIES))
def test_model_matches_onnxruntime(name: str, cache_dir: Path) -> None:
    """Import, one compile, three bindings against onnxruntime, and batch 0."""
    entry = ENTRIES[name]
    exe = runtime.compile(import_model(zoo.path(entry)), cache_dir=cache_dir, hot_after=None)
    session = ort.InferenceSession(str(zoo.path(entry)), providers=["CPUExecutionProvider"])
    for binding in entry["bindings"]:
        feeds = zoo.inputs(entry, binding)
        ours = exe.main(*feeds.values())
        ours = ours if isinstance(ours, tuple) else (ours,)
        references = session.run(None, feeds)
        assert len(ours) == len(references)
        for mine, reference in zip(ours, references, strict=True):
            _close(mine, reference, entry)
    empty = {**entry["bindings"][0], "batch": 0}
    feeds = zoo.inputs(entry, empty)
    try:
        ours = exe.main(*feeds.values())
    except BackendError as err:
        assert str(err) and "Traceback" not in str(err)
        return
    ours = ours if isinstance(ours, tuple) else (ours,)
    try:
        references = session.run(None, feeds)
    except Exception:  # onnxruntime rejects some empty batches (a -1 reshape of nothing)
        planned = exe.main.plan(*feeds.values()).shapes
        assert [o.shape for o in ours] == [tuple(s) for s in planned]
        return
    for mine, reference in zip(ours, references, strict=True):
        _close(mine, reference, entry)
