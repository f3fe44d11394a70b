"""The model zoo's manifest (``models/zoo.json``) and the inputs each model is checked on.

``models/export.py`` writes the models and the manifest; the tests and
``bench/onnx_models.py`` read them through this module.

Example:
    >>> entry = entries()["bert"]
    >>> feeds = inputs(entry, {"batch": 2, "seq": 16})   # {"input_ids": ..., "attention_mask": ...}
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np

__all__ = ["MODELS", "entries", "inputs", "path"]

#: The folder holding the exported models and ``zoo.json``.
MODELS = Path(__file__).resolve().parent / "models"


def entries() -> dict[str, dict[str, Any]]:
    """The manifest: model name -> file, exporter, inputs, outputs, bindings, tolerance."""
    return json.loads((MODELS / "zoo.json").read_text())


def path(entry: dict[str, Any]) -> Path:
    """The model file of a manifest entry."""
    return MODELS / entry["file"]


def _draw(spec: dict[str, Any], binding: dict[str, int], rng: np.random.Generator) -> np.ndarray:
    shape = [binding[a] if isinstance(a, str) else a for a in spec["axes"]]
    if spec["kind"] == "ids":
        return rng.integers(0, spec["high"], shape).astype(np.int64)
    if spec["kind"] == "mask":
        # Padding at the end of every other row, as a batch of unequal lengths has.
        mask = np.ones(shape, np.int64)
        if len(shape) == 2 and shape[1] > 1:
            mask[1::2, shape[1] // 2:] = 0
        return mask
    return rng.standard_normal(shape).astype(np.float32)


def inputs(entry: dict[str, Any], binding: dict[str, int], seed: int = 0) -> dict[str, np.ndarray]:
    """The model's inputs at ``binding``, by input name, in the graph's order."""
    rng = np.random.default_rng(seed)
    return {spec["name"]: _draw(spec, binding, rng) for spec in entry["inputs"]}
