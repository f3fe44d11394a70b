"""The node tests shipped with the ``onnx`` package, run through import, llvm-cpu and IREE.

Each case is a one-node model with its inputs and expected outputs (built by
``onnx.backend.test.case.node``). Inputs the op takes as parameters
(``Reshape``'s shape, ``Slice``'s bounds, reduction axes, ...) are bound as
constants when importing: the importer needs them when the model is
imported. Cases are compiled in batches (one module, one ``iree-compile``
per batch; a batch that fails is retried case by case).

A case written for an opset older than the importer reads (13) is first
converted with ``onnx.version_converter``.

Outcomes: ``passed``; ``failed`` (wrong numbers, a compile or run error);
``unsupported`` (the importer rejects the model with a located error: an
unsupported op version, attribute or element type).

Run as a script for the counts:

    python test/onnx/node_suite.py [--ops Add,Reshape] [--show failed]
"""

from __future__ import annotations

import argparse
import collections
import sys
import warnings
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np

#: Inputs each op takes as import-time parameters, by position.
PARAMETERS = {
    "Reshape": {1}, "Expand": {1}, "Slice": {1, 2, 3, 4}, "Split": {1}, "Squeeze": {1},
    "Unsqueeze": {1}, "Tile": {1}, "ConstantOfShape": {0}, "Range": {0, 1, 2},
    "Dropout": {1, 2}, "Pad": {1, 2, 3}, "CumSum": {1}, "Resize": {1, 2, 3}, "If": {0},
    **{op: {1} for op in (
        "ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin", "ReduceProd", "ReduceL1",
        "ReduceL2", "ReduceSumSquare", "ReduceLogSum", "ReduceLogSumExp")},
}

BATCH = 24


@dataclass
class Outcome:
    """The result of one case."""

    name: str
    op: str
    status: str  # passed | failed | unsupported
    detail: str = ""


def cases(ops: Iterable[str] | None = None) -> list:
    """The single-node cases whose op has an importer (or is in ``ops``)."""
    from onnx.backend.test.case.node import collect_testcases

    from symshape_mlir.onnx import supported_ops

    wanted = set(ops) if ops else set(supported_ops())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        found = collect_testcases(None)
    return [
        c for c in found
        if len(c.model.graph.node) == 1 and c.model.graph.node[0].op_type in wanted
        and c.data_sets
    ]


def _arrays(values: Sequence) -> list[np.ndarray]:
    from onnx import numpy_helper

    return [numpy_helper.to_array(v) if hasattr(v, "data_type") else np.asarray(v) for v in values]


def _bindings(case) -> dict[str, np.ndarray]:
    node = case.model.graph.node[0]
    inputs = _arrays(case.data_sets[0][0])
    names = [v.name for v in case.model.graph.input]
    values = dict(zip(names, inputs, strict=False))
    return {
        name: values[name] for position, name in enumerate(node.input)
        if position in PARAMETERS.get(node.op_type, ()) and name in values
    }


def _current(model):
    """``model`` converted to opset 13 when it is older."""
    from onnx import version_converter

    from symshape_mlir.onnx import MIN_OPSET

    opset = next((o.version for o in model.opset_import if o.domain in ("", "ai.onnx")), 0)
    if opset >= MIN_OPSET:
        return model
    try:
        return version_converter.convert_version(model, MIN_OPSET)
    except Exception:
        return model


def _compare(case, got: Sequence[np.ndarray]) -> str:
    expected = _arrays(case.data_sets[0][1])
    if len(got) != len(expected):
        return f"{len(got)} results, expected {len(expected)}"
    for i, (g, e) in enumerate(zip(got, expected, strict=True)):
        e = np.asarray(e)
        g = np.asarray(g)
        if g.shape != e.shape:
            return f"result {i}: shape {g.shape}, expected {e.shape}"
        if g.dtype != e.dtype:
            return f"result {i}: dtype {g.dtype}, expected {e.dtype}"
        if e.dtype.kind == "V":  # ml_dtypes' bfloat16 and friends: compare as float32
            g, e = g.astype(np.float32), e.astype(np.float32)
        if e.dtype.kind in "fc":
            try:
                rtol, atol = max(case.rtol, 1e-5), max(case.atol, 1e-6)
                np.testing.assert_allclose(g, e, rtol=rtol, atol=atol)
            except AssertionError as err:
                return f"result {i}: {str(err).strip().splitlines()[-1]}"
        elif not np.array_equal(g, e):
            return f"result {i}: values differ"
    return ""


def run(selected: Sequence) -> list[Outcome]:
    """Imports, compiles and runs ``selected`` cases."""
    from symshape_mlir import runtime
    from symshape_mlir.frontend.tracing import module_text
    from symshape_mlir.onnx import OnnxImportError, trace_model

    outcomes: list[Outcome] = []
    traced = []
    for case in selected:
        op = case.model.graph.node[0].op_type
        try:
            fn = trace_model(_current(case.model), name=case.name, constants=_bindings(case))
        except OnnxImportError as err:
            outcomes.append(Outcome(case.name, op, "unsupported", err.message))
            continue
        except Exception as err:
            detail = f"import: {type(err).__name__}: {err}"
            outcomes.append(Outcome(case.name, op, "failed", detail))
            continue
        traced.append((case, op, fn))

    def execute(batch) -> None:
        exe = runtime.compile(
            module_text([fn for _, _, fn in batch]), cache_dir=False, hot_after=None,
            unplanned=True, flags=["--iree-input-demote-f64-to-f32=false"],
        )
        for case, op, fn in batch:
            inputs = _arrays(case.data_sets[0][0])
            bound = _bindings(case)
            names = [v.name for v in case.model.graph.input]
            args = [a for n, a in zip(names, inputs, strict=False) if n not in bound]
            try:
                got = getattr(exe, fn.name)(*args)
            except Exception as err:
                outcomes.append(Outcome(case.name, op, "failed", f"run: {err}"[:300]))
                continue
            got = list(got) if isinstance(got, tuple | list) else [got]
            problem = _compare(case, got)
            outcomes.append(Outcome(case.name, op, "failed" if problem else "passed", problem))

    for start in range(0, len(traced), BATCH):
        batch = traced[start : start + BATCH]
        try:
            execute(batch)
        except Exception:
            for item in batch:
                try:
                    execute([item])
                except Exception as err:
                    case, op, _ = item
                    outcomes.append(Outcome(case.name, op, "failed", f"compile: {err}"[-400:]))
    return outcomes


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ops", help="comma-separated op types (default: every supported op)")
    parser.add_argument("--show", default="failed", help="statuses to list (failed,unsupported)")
    args = parser.parse_args(argv)
    selected = cases(args.ops.split(",") if args.ops else None)
    outcomes = run(selected)
    by_status = collections.Counter(o.status for o in outcomes)
    show = set(args.show.split(","))
    for o in sorted(outcomes, key=lambda o: (o.op, o.name)):
        if o.status in show:
            print(f"{o.status:12} {o.name}: {o.detail}")
    per_op: dict[str, collections.Counter] = collections.defaultdict(collections.Counter)
    for o in outcomes:
        per_op[o.op][o.status] += 1
    for op in sorted(per_op):
        c = per_op[op]
        counts = "  ".join(f"{s} {c[s]:3}" for s in ("passed", "failed", "unsupported"))
        print(f"{op:22} {counts}")
    print(f"total {len(outcomes)}: passed {by_status['passed']}, failed {by_status['failed']}, "
          f"unsupported {by_status['unsupported']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
