"""The BERT-base blocks' sizes, token counts and inputs (numpy only).

Shared by ``bench/onnx_models.py`` and ``test/gpu/bundle.py``, whose GPU
runner has no MLIR bindings to import the bench itself.

Example:
    >>> rng = np.random.default_rng(0)
    >>> [w.shape for w in weights("ffn", rng)]
    [(768, 3072), (3072,), (3072, 768), (768,)]
"""

from __future__ import annotations

import numpy as np

__all__ = ["HEADS", "HIDDEN", "TOKENS", "D", "activations", "weights"]

D, HEADS, HIDDEN = 768, 12, 3072
#: (batch, seq) per block.
TOKENS = {"ffn": [(1, 1), (8, 128), (32, 128)],
          "attention": [(1, 16), (8, 128), (4, 384)]}


def weights(block: str, rng: np.random.Generator) -> list[np.ndarray]:
    """The block's weights: ``w1, b1, w2, b2`` (FFN) or ``wq, bq, wk, bk, wv, bv, wo, bo``."""
    shapes = [(D, HIDDEN), (HIDDEN,), (HIDDEN, D), (D,)] if block == "ffn" else \
        [(D, D), (D,)] * 4
    return [(rng.standard_normal(s) * (0.02 if len(s) == 2 else 0.1)).astype(np.float32)
            for s in shapes]


def activations(block: str, batch: int, seq: int, rng: np.random.Generator
                ) -> list[np.ndarray]:
    """The block's activations: ``x`` (and the attention's padding mask)."""
    x = rng.standard_normal((batch, seq, D)).astype(np.float32)
    if block == "ffn":
        return [x]
    mask = np.ones((batch, seq), np.float32)
    mask[1::2, seq - seq // 4:] = 0.0  # every other row padded by a quarter
    return [x, mask]
