"""Symbolic shape inference on an ONNX model: our import against ONNX's and onnxruntime's.

Builds an exporter-style transformer stack (``test/onnx/graphs.py``) with
``batch``/``seq`` inputs, about ``--nodes`` nodes, and in one process times:

* ours, two ways: ``symshape_mlir.onnx.infer_shapes(model, build=False)``
  (the shape rules alone, shape data propagated while inferring) and
  ``infer_shapes(model)`` (the whole import, every node traced);
* ``onnx.shape_inference.infer_shapes(..., data_prop=True)``;
* onnxruntime's ``SymbolicShapeInference`` (``auto_merge=True``).

It also times a bare read of the graph (every node's op type, inputs,
outputs and attributes, through the ``onnx`` protobuf objects): the least
any inference written in Python pays before computing a single shape.

For each it counts, over every node output's dims: *symbolic* (an
expression of ``batch``/``seq`` only), *static*, *invented* (a new symbol
such as ``unk__3`` or ``_d0``) and *unknown* (no dim or no shape). Prints
the best of ``--repeat`` times (rounds interleaved), the ratio to our rules,
and the counts.

Run::

    python bench/onnx_inference.py --nodes 10000 --repeat 3
"""

from __future__ import annotations

import argparse
import collections
import re
import sys
import time
from collections.abc import Callable
from pathlib import Path

import onnx

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "test" / "onnx"))

from graphs import stack
from symshape_mlir.onnx import infer_shapes

NAMED = {"batch", "seq"}


def _classify_text(dim: str) -> str:
    symbols = set(re.findall(r"[A-Za-z_]\w*", dim))
    return "symbolic" if symbols and symbols <= NAMED else "invented"


def _onnx_counts(model: onnx.ModelProto, outputs: list[str]) -> collections.Counter:
    infos = {v.name: v for v in [*model.graph.value_info, *model.graph.output]}
    counts: collections.Counter = collections.Counter()
    for name in outputs:
        info = infos.get(name)
        if info is None or not info.type.tensor_type.HasField("shape"):
            counts["unknown value"] += 1
            continue
        for dim in info.type.tensor_type.shape.dim:
            if dim.HasField("dim_value"):
                counts["static"] += 1
            elif dim.HasField("dim_param"):
                counts[_classify_text(dim.dim_param)] += 1
            else:
                counts["unknown"] += 1
    return counts


def _our_counts(shapes: dict, outputs: list[str]) -> collections.Counter:
    counts: collections.Counter = collections.Counter()
    for name in outputs:
        shape = shapes.get(name)
        if shape is None:
            counts["unknown value"] += 1
            continue
        for extent in shape:
            if not extent.is_exact:
                counts["unknown"] += 1
            elif not extent.free_symbols:
                counts["static"] += 1
            else:
                counts["symbolic" if extent.free_symbols <= NAMED else "invented"] += 1
    return counts


def _read_graph(model: onnx.ModelProto) -> int:
    count = 0
    for node in model.graph.node:
        fields = (node.op_type, list(node.input), list(node.output),
                  {a.name: a for a in node.attribute})
        count += len(fields)
    return count


def _best(fn: Callable[[], object], repeat: int) -> tuple[float, object]:
    best, result = float("inf"), None
    for _ in range(repeat):
        start = time.perf_counter()
        result = fn()
        best = min(best, time.perf_counter() - start)
    return best, result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nodes", type=int, default=10000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)
    per_block = len(stack(2).graph.node) - len(stack(1).graph.node)
    blocks = max(1, (args.nodes - len(stack(1).graph.node)) // per_block + 1)
    model = stack(blocks)
    outputs = [o for node in model.graph.node for o in node.output]
    print(f"model: {blocks} blocks, {len(model.graph.node)} nodes, {len(outputs)} values")

    runs: dict[str, Callable[[], object]] = {
        "symshape rules (build=False)": lambda: infer_shapes(model, build=False),
        "symshape import (build=True)": lambda: infer_shapes(model),
        "onnx.shape_inference (data_prop)":
            lambda: onnx.shape_inference.infer_shapes(model, data_prop=True),
    }
    try:
        from onnxruntime.tools.symbolic_shape_infer import SymbolicShapeInference
    except ImportError:
        print("onnxruntime is not installed: its symbolic shape inference is skipped")
    else:
        runs["onnxruntime SymbolicShapeInference"] = (
            lambda: SymbolicShapeInference.infer_shapes(model, auto_merge=True))
    best: dict[str, float] = dict.fromkeys(runs, float("inf"))
    produced: dict[str, object] = {}
    for _ in range(args.repeat):
        for name, fn in runs.items():
            elapsed, produced[name] = _best(fn, 1)
            best[name] = min(best[name], elapsed)
    results: dict[str, tuple[float, collections.Counter]] = {
        name: (best[name], _our_counts(produced[name], outputs) if name.startswith("symshape")
               else _onnx_counts(produced[name], outputs))  # type: ignore[arg-type]
        for name in runs
    }
    reading, _ = _best(lambda: _read_graph(model), args.repeat)
    ours = results["symshape rules (build=False)"][0]
    kinds = ["symbolic", "static", "invented", "unknown", "unknown value"]
    print(f"{'':36} {'best s':>8} {'vs ours':>8} " + " ".join(f"{k:>13}" for k in kinds))
    for name, (seconds, counts) in results.items():
        ratio = seconds / ours
        print(f"{name:36} {seconds:8.3f} {ratio:7.2f}x " + " ".join(
            f"{counts[k]:13}" for k in kinds))
    print(f"{'reading the graph (Python protobuf)':36} {reading:8.3f} {reading / ours:7.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
