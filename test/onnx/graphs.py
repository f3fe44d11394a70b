"""ONNX models built with ``onnx.helper`` the way exporters write them.

:func:`transformer` is a pre-norm transformer block with ``batch`` and
``seq`` dynamic axes: a learned position embedding read with
``Range(0, seq)``, multi-head attention whose head split and merge reshape
through ``Shape -> Gather -> Concat`` (the merge uses ``-1``), a GELU
(``Erf``) feed-forward, and residual adds. :func:`stack` repeats blocks for
large graphs.
"""

from __future__ import annotations

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

__all__ = ["stack", "transformer"]


class _Builder:
    def __init__(self, seed: int) -> None:
        self.nodes: list[onnx.NodeProto] = []
        self.inits: list[onnx.TensorProto] = []
        self.rng = np.random.default_rng(seed)
        self.count = 0

    def name(self, prefix: str) -> str:
        self.count += 1
        return f"{prefix}{self.count}"

    def const(self, array: np.ndarray, prefix: str = "c") -> str:
        name = self.name(prefix)
        self.inits.append(numpy_helper.from_array(np.asarray(array), name))
        return name

    def weight(self, *shape: int) -> str:
        return self.const((self.rng.standard_normal(shape) * 0.1).astype(np.float32), "w")

    def op(self, op: str, inputs: list[str], **attrs: object) -> str:
        out = self.name(op.lower())
        self.nodes.append(helper.make_node(op, inputs, [out], name=f"/{out}", **attrs))
        return out

    def dim(self, x: str, axis: int) -> str:
        shape = self.op("Shape", [x])
        value = self.op("Gather", [shape, self.const(np.array(axis, np.int64))], axis=0)
        return self.op("Unsqueeze", [value, self.const(np.array([0], np.int64))])


def _block(b: _Builder, x: str, width: int, heads: int, infer_merge: bool) -> str:
    head = width // heads
    scale, bias = b.const(np.ones(width, np.float32)), b.const(np.zeros(width, np.float32))
    h = b.op("LayerNormalization", [x, scale, bias], axis=-1, epsilon=1e-5)
    batch, seq = b.dim(h, 0), b.dim(h, 1)
    split = b.op(
        "Concat", [batch, seq, b.const(np.array([heads, head], np.int64))], axis=0
    )
    qkv = []
    for _ in range(3):
        projected = b.op("MatMul", [h, b.weight(width, width)])
        qkv.append(b.op("Transpose", [b.op("Reshape", [projected, split])], perm=[0, 2, 1, 3]))
    q, k, v = qkv
    scores = b.op("MatMul", [q, b.op("Transpose", [k], perm=[0, 1, 3, 2])])
    scores = b.op("Div", [scores, b.const(np.array(np.sqrt(head), np.float32))])
    attention = b.op("MatMul", [b.op("Softmax", [scores], axis=-1), v])
    merged = b.op("Transpose", [attention], perm=[0, 2, 1, 3])
    rest = -1 if infer_merge else width
    merge = b.op("Concat", [batch, seq, b.const(np.array([rest], np.int64))], axis=0)
    out = b.op("MatMul", [b.op("Reshape", [merged, merge]), b.weight(width, width)])
    x = b.op("Add", [x, out])
    h = b.op("LayerNormalization", [x, scale, bias], axis=-1, epsilon=1e-5)
    up = b.op("Add", [b.op("MatMul", [h, b.weight(width, 2 * width)]), b.weight(2 * width)])
    erf = b.op("Erf", [b.op("Div", [up, b.const(np.array(np.sqrt(2.0), np.float32))])])
    gelu = b.op("Mul", [b.op("Mul", [up, b.const(np.array(0.5, np.float32))]),
                        b.op("Add", [erf, b.const(np.array(1.0, np.float32))])])
    return b.op("Add", [x, b.op("MatMul", [gelu, b.weight(2 * width, width)])])


def stack(blocks: int, width: int = 64, heads: int = 4, max_seq: int = 64,
          seed: int = 0, opset: int = 17, infer_merge: bool = True) -> onnx.ModelProto:
    """``blocks`` transformer blocks on ``x: [batch, seq, width]``.

    With ``infer_merge`` the head merge reshapes to ``[batch, seq, -1]``
    (onnxruntime rejects that at batch 0), else to ``[batch, seq, width]``.
    """
    b = _Builder(seed)
    seq = b.dim("x", 1)
    positions = b.op(
        "Range",
        [b.const(np.array(0, np.int64)), b.op("Squeeze", [seq, b.const(np.array([0], np.int64))]),
         b.const(np.array(1, np.int64))],
    )
    h = b.op("Add", ["x", b.op("Gather", [b.weight(max_seq, width), positions], axis=0)])
    for _ in range(blocks):
        h = _block(b, h, width, heads, infer_merge)
    b.nodes.append(helper.make_node("Identity", [h], ["y"], name="/output"))
    graph = helper.make_graph(
        b.nodes,
        "transformer",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", "seq", width])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["batch", "seq", width])],
        b.inits,
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    return model


def transformer(seed: int = 0, infer_merge: bool = True) -> onnx.ModelProto:
    """One transformer block (width 64, 4 heads, seq up to 64)."""
    return stack(1, seed=seed, infer_merge=infer_merge)
