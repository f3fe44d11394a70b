"""Exported models and BERT-base blocks against onnxruntime (and numpy, jax.jit), in one run.

Sections:

(zoo) every model of ``test/onnx/models/zoo.json`` (``--models`` for a
    subset), imported once, at its three bindings plus a larger one
    (``LARGE``): onnxruntime's time over ours, ``ort/dyn`` for the dynamic
    module (compiled once for every binding) and ``ort/tier`` for the
    static variant a hot binding runs (compiled ahead of time with
    ``pre_specialize``, on the local driver the runtime timed faster);
(blocks) BERT-base-sized blocks written with the frontend: the GELU FFN
    768 -> 3072 -> 768 and self-attention (12 heads of 64, a padding
    mask), at tokens 1x1 up to 32x128 and 4x384, weights bound once
    (``bind_params(..., packed=True)``): ``dyn`` the packed dynamic
    module, ``tier`` its packed static variant; peers: onnxruntime (the
    same block as an ONNX graph), numpy, ``jax.jit`` (a peer that is not
    installed is skipped with a note).

In every row the variants are timed in interleaved rounds (one turn of
each per round: a pause, an untimed call, then the timed one; at least
15, more while a row's rounds fit in ``--budget`` seconds) after warm-up
calls that include the runtime's driver race; medians are kept and
``spread`` is the largest interquartile range over median in the row.
``> 1`` means ours is faster. The summary gives the median and the least
of each ratio column.

``--profile MODEL[:axis=value,...]`` (or ``--profile ffn:batch=32,seq=128``,
``attention:...``) prints where the time goes instead: the dispatches of
our static variant (``iree-benchmark-module`` with HAL host-execution
profiling, read by ``iree-profile statistics``) and onnxruntime's nodes
(``SessionOptions.enable_profiling``), each on one thread and sorted by
time per call.

Run from the repository root (onnxruntime is in the ``test`` extra,
``jax[cpu]`` in ``bench``)::

    .venv/bin/python bench/onnx_models.py                     # everything: about 40 minutes
    .venv/bin/python bench/onnx_models.py --models resnet,bert --no-blocks
    .venv/bin/python bench/onnx_models.py --no-zoo            # the blocks only
    .venv/bin/python bench/onnx_models.py --profile resnet:batch=2,height=96,width=80
    # a lever against the default static tier, one column each, at the larger binding:
    .venv/bin/python bench/onnx_models.py --models mobilenet_v2 --no-blocks --no-dyn \
        --bindings 3 --variant 'o3=--iree-opt-level=O3' --variant 'dt=static-data-tiling'
"""

import quiet_threads  # noqa: F401  (before numpy)

# isort: split

import argparse
import collections
import json
import math
import re
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import onnx
from mlir import ir
from onnx import TensorProto, helper, numpy_helper

from symshape_mlir import backend, runtime
from symshape_mlir import frontend as fe
from symshape_mlir.backend.devices import ALLOCATOR
from symshape_mlir.backend.targets import get_target
from symshape_mlir.backend.tools import iree_dump_module_path
from symshape_mlir.context import new_context
from symshape_mlir.frontend import Tensor, f32
from symshape_mlir.frontend.tracing import input_specs, trace
from symshape_mlir.onnx import import_model
from symshape_mlir.passes import run_pipeline
from symshape_mlir.runtime.tiling import tiles_static_variants

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "test" / "onnx"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import zoo  # noqa: E402
from block_data import HEADS, TOKENS, D, activations  # noqa: E402
from block_data import weights as draw_weights  # noqa: E402
from timing import interleaved, peer, print_notes, rounds_for  # noqa: E402

NOTES: list[str] = []
_MAX_ROUNDS = 300
# Calls `--profile` times with iree-benchmark-module.
_CALLS = 50
# Calls before timing: the runtime races the two local drivers on the first calls.
_WARM_UP = 12

#: A larger binding per input kind, beside the manifest's three.
LARGE = {
    ("batch", "seq"): {"batch": 8, "seq": 48},
    ("batch", "seq", "target"): {"batch": 4, "seq": 48, "target": 24},
    ("batch", "height", "width"): {"batch": 4, "height": 128, "width": 128},
    ("batch",): {"batch": 16},
    ("batch", "samples"): {"batch": 4, "samples": 4000},
}



def _peer(name: str) -> Any:
    try:
        return __import__(name)
    except ImportError:
        NOTES.append(f"{name} not installed: its column is skipped")
        return None


ort = _peer("onnxruntime")


# -- the zoo ----------------------------------------------------------------------------


def _bindings(entry: dict[str, Any]) -> list[dict[str, int]]:
    names = tuple(dict.fromkeys(a for i in entry["inputs"] for a in i["axes"]
                                if isinstance(a, str)))
    large = LARGE.get(names)
    return [*entry["bindings"], *([large] if large else [])]


def _error(ours: Any, reference: list[np.ndarray]) -> float:
    mine = ours if isinstance(ours, tuple) else (ours,)
    worst = 0.0
    for a, b in zip(mine, reference, strict=True):
        if b.size:
            scale = max(float(np.max(np.abs(b))), 1e-30)
            worst = max(worst, float(np.max(np.abs(a.astype(np.float64) - b))) / scale)
    return worst


def _row(label: str, timed: dict[str, tuple[float, float]], peers: list[str],
         ours: list[str]) -> tuple[str, dict[str, float]]:
    best = min(timed[p][0] for p in peers)
    ratios = {n: best / timed[n][0] for n in ours}
    spread = max(s for _, s in timed.values())
    text = f"    {label:<44}" + "".join(f"{timed[n][0] * 1e3:9.3f}" for n in [*peers, *ours])
    text += "".join(f"{ratios[n]:9.2f}" for n in ours) + f"{spread:8.2f}"
    return text, ratios


_TILING = {"static-data-tiling": True, "no-static-data-tiling": False}


def _variant(spec: str) -> tuple[str, dict[str, Any]]:
    """``NAME=FLAG;FLAG...`` as a name and `runtime.compile` arguments: each flag is an
    ``iree-compile`` flag, except ``static-data-tiling`` and ``no-static-data-tiling``
    (data tiling for static variants on or off; without either, the module's rule)."""
    name, sep, text = spec.partition("=")
    if not sep or not name:
        raise argparse.ArgumentTypeError(f"expected NAME=FLAG;FLAG..., got '{spec}'")
    flags = [flag for flag in text.split(";") if flag]
    tiling = [_TILING[f] for f in flags if f in _TILING]
    if len(tiling) > 1:
        raise argparse.ArgumentTypeError(f"data tiling given twice in '{spec}'")
    return name, {"flags": [f for f in flags if f not in _TILING],
                  "static_data_tiling": tiling[0] if tiling else None}


def bench_zoo(names: list[str], budget: float, summary: dict[str, list[float]],
              variants: list[tuple[str, dict[str, Any]]], which: list[int] | None,
              dynamic: bool) -> None:
    """Each model at its bindings (``which``: their indices; None for all): the dynamic
    module (unless not ``dynamic``), the static tier and one static tier per variant."""
    entries = zoo.entries()
    tiers = ["tier", *(f"tier:{name}" for name, _ in variants)]
    ours = (["dyn"] if dynamic else []) + tiers
    print("(zoo) onnxruntime / ours (> 1: ours faster); medians in ms")
    print(f"    {'model binding':<44}{'ort':>9}" + "".join(f"{n:>9}" for n in ours)
          + "".join(f"{'ort/' + n:>9}" for n in ours) + f"{'spread':>8}  tier driver")
    for name in names:
        entry = entries[name]
        try:
            module = import_model(zoo.path(entry))
            bindings = _bindings(entry)
            if which is not None:
                bindings = [b for i, b in enumerate(bindings) if i in which]
            exes: dict[str, runtime.Executable] = {}
            if dynamic:
                exes["dyn"] = runtime.compile(module, hot_after=None)
            for label, options in [("tier", {}), *((f"tier:{n}", o) for n, o in variants)]:
                exes[label] = runtime.compile(module, hot_after=None, **options)
                exes[label].pre_specialize(bindings)
        except Exception as exc:  # a model that fails is reported, not fatal
            NOTES.append(f"{name}: {type(exc).__name__}: {str(exc)[:200]}")
            continue
        session = ort.InferenceSession(str(zoo.path(entry)), providers=["CPUExecutionProvider"])
        for binding in bindings:
            feeds = zoo.inputs(entry, binding)
            args = list(feeds.values())
            reference = session.run(None, feeds)
            for label, exe in exes.items():
                for _ in range(_WARM_UP):
                    out = exe.main(*args)
                error = _error(out, reference)
                if error > 1e-3:
                    NOTES.append(f"{name} {binding}: {label} differs from onnxruntime "
                                 f"(max error {error:.1e} of the largest magnitude)")
            fns: dict[str, Callable[[], Any]] = {
                "ort": lambda s=session, f=feeds: s.run(None, f),
                **{label: (lambda a=args, e=exe: e.main(*a)) for label, exe in exes.items()},
            }
            timed = interleaved(fns, rounds_for(fns, 15, _MAX_ROUNDS, budget))
            label = f"{name} " + ",".join(str(v) for v in binding.values())
            text, ratios = _row(label, timed, ["ort"], ours)
            drivers = []
            for tier in tiers:
                exe = exes[tier]
                drivers.append("/".join(sorted(
                    {f.driver for _, s in exe.main.specializations() for f in [s.function]
                     if s.static_key == tuple(binding[a] for a in exe.main.named_axes)})))
            print(text + "  " + ",".join(drivers), flush=True)
            for n in ours:
                summary[f"zoo ort/{n}"].append(ratios[n])


# -- BERT-base blocks -------------------------------------------------------------------


def ffn(x: Tensor["batch", "seq", 768, f32], w1: Tensor[768, 3072, f32],  # noqa: F821
        b1: Tensor[3072, f32], w2: Tensor[3072, 768, f32], b2: Tensor[768, f32]) -> Any:
    return fe.gelu(x @ w1 + b1, approximate=False) @ w2 + b2


def attention(x: Tensor["batch", "seq", 768, f32], mask: Tensor["batch", "seq", f32],  # noqa: F821
              wq: Tensor[768, 768, f32], bq: Tensor[768, f32], wk: Tensor[768, 768, f32],
              bk: Tensor[768, f32], wv: Tensor[768, 768, f32], bv: Tensor[768, f32],
              wo: Tensor[768, 768, f32], bo: Tensor[768, f32]) -> Any:
    b, s = x.shape[0], x.shape[1]

    def heads(t: Any) -> Any:
        return t.reshape(b, s, HEADS, D // HEADS).transpose((0, 2, 1, 3))

    q, k, v = heads(x @ wq + bq), heads(x @ wk + bk), heads(x @ wv + bv)
    bias = fe.expand_dims((mask - 1.0) * 10000.0, [1, 2])
    p = fe.softmax(q @ k.transpose((0, 1, 3, 2)) * 0.125 + bias, axis=-1)
    return (p @ v).transpose((0, 2, 1, 3)).reshape(b, s, D) @ wo + bo


BLOCKS = {"ffn": ffn, "attention": attention}


def _erf(x: np.ndarray) -> np.ndarray:
    try:
        from scipy.special import erf
    except ImportError:
        return np.tanh(1.2025 * x * (1 + 0.0778 * x * x)).astype(x.dtype)  # close to erf
    return erf(x).astype(x.dtype)


def numpy_block(block: str, weights: list[np.ndarray]) -> Callable[..., np.ndarray]:
    if block == "ffn":
        w1, b1, w2, b2 = weights

        def run_ffn(x: np.ndarray) -> np.ndarray:
            h = x @ w1 + b1
            return (0.5 * h * (1 + _erf(h * np.float32(0.7071067811865476)))) @ w2 + b2

        return run_ffn
    wq, bq, wk, bk, wv, bv, wo, bo = weights

    def run_attention(x: np.ndarray, mask: np.ndarray) -> np.ndarray:
        b, s, _ = x.shape

        def heads(t: np.ndarray) -> np.ndarray:
            return t.reshape(b, s, HEADS, D // HEADS).transpose(0, 2, 1, 3)

        q, k, v = heads(x @ wq + bq), heads(x @ wk + bk), heads(x @ wv + bv)
        scores = q @ k.transpose(0, 1, 3, 2) * np.float32(0.125) + \
            ((mask - 1) * 10000)[:, None, None, :]
        e = np.exp(scores - scores.max(-1, keepdims=True))
        p = e / e.sum(-1, keepdims=True)
        return (p @ v).transpose(0, 2, 1, 3).reshape(b, s, D) @ wo + bo

    return run_attention


def jax_block(block: str, weights: list[np.ndarray]) -> Callable[..., np.ndarray] | None:
    jax = peer("jax", NOTES)
    if jax is None:
        return None
    params = [jax.device_put(w) for w in weights]
    if block == "ffn":
        def run(x: Any, w1: Any, b1: Any, w2: Any, b2: Any) -> Any:
            return jax.nn.gelu(x @ w1 + b1, approximate=False) @ w2 + b2
    else:
        def run(x: Any, mask: Any, wq: Any, bq: Any, wk: Any, bk: Any, wv: Any, bv: Any,
                wo: Any, bo: Any) -> Any:
            b, s, _ = x.shape

            def heads(t: Any) -> Any:
                return t.reshape(b, s, HEADS, D // HEADS).transpose(0, 2, 1, 3)

            q, k, v = heads(x @ wq + bq), heads(x @ wk + bk), heads(x @ wv + bv)
            scores = q @ k.transpose(0, 1, 3, 2) * 0.125 + ((mask - 1) * 10000)[:, None, None]
            return (jax.nn.softmax(scores, axis=-1) @ v).transpose(0, 2, 1, 3).reshape(
                b, s, D) @ wo + bo
    jitted = jax.jit(run)
    return lambda *xs: np.asarray(jitted(*xs, *params).block_until_ready())


def onnx_block(block: str, weights: list[np.ndarray]) -> onnx.ModelProto:
    """The block as an ONNX graph (opset 17, batch and seq dynamic) for onnxruntime."""
    names = ["w1", "b1", "w2", "b2"] if block == "ffn" else \
        ["wq", "bq", "wk", "bk", "wv", "bv", "wo", "bo"]
    inits = [numpy_helper.from_array(w, n) for w, n in zip(weights, names, strict=True)]
    consts = {"half": 0.5, "one": 1.0, "root2": math.sqrt(2.0), "scale": 0.125,
              "big": 10000.0}
    inits += [numpy_helper.from_array(np.array(v, np.float32), n) for n, v in consts.items()]
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", "seq", D])
    out = helper.make_tensor_value_info("y", TensorProto.FLOAT, ["batch", "seq", D])
    n = helper.make_node
    if block == "ffn":
        nodes = [n("MatMul", ["x", "w1"], ["m1"]), n("Add", ["m1", "b1"], ["h"]),
                 n("Div", ["h", "root2"], ["hs"]), n("Erf", ["hs"], ["e"]),
                 n("Add", ["e", "one"], ["e1"]), n("Mul", ["h", "e1"], ["g0"]),
                 n("Mul", ["g0", "half"], ["g"]), n("MatMul", ["g", "w2"], ["m2"]),
                 n("Add", ["m2", "b2"], ["y"])]
        inputs = [x]
    else:
        inits += [numpy_helper.from_array(np.array(v, np.int64), k) for k, v in
                  (("split", [0, 0, HEADS, D // HEADS]), ("merge", [0, 0, D]),
                   ("axes12", [1, 2]))]
        nodes = []
        for h in "qkv":
            nodes += [n("MatMul", ["x", f"w{h}"], [f"{h}m"]), n("Add", [f"{h}m", f"b{h}"],
                                                                [f"{h}a"]),
                      n("Reshape", [f"{h}a", "split"], [f"{h}r"]),
                      n("Transpose", [f"{h}r"], [h], perm=[0, 2, 3, 1] if h == "k" else
                        [0, 2, 1, 3])]
        nodes += [n("MatMul", ["q", "k"], ["s0"]), n("Mul", ["s0", "scale"], ["s1"]),
                  n("Sub", ["mask", "one"], ["m0"]), n("Mul", ["m0", "big"], ["m1"]),
                  n("Unsqueeze", ["m1", "axes12"], ["m2"]), n("Add", ["s1", "m2"], ["s"]),
                  n("Softmax", ["s"], ["p"], axis=-1), n("MatMul", ["p", "v"], ["c0"]),
                  n("Transpose", ["c0"], ["c1"], perm=[0, 2, 1, 3]),
                  n("Reshape", ["c1", "merge"], ["c"]), n("MatMul", ["c", "wo"], ["o"]),
                  n("Add", ["o", "bo"], ["y"])]
        inputs = [x, helper.make_tensor_value_info("mask", TensorProto.FLOAT,
                                                   ["batch", "seq"])]
    graph = helper.make_graph(nodes, block, inputs, [out], inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def bench_blocks(budget: float, summary: dict[str, list[float]]) -> None:
    rng = np.random.default_rng(0)
    print("\n(blocks) best peer / ours, and each peer / ours tier; medians in ms")
    peers = ["ort", "numpy", "jax"]
    print(f"    {'block tokens':<44}" + "".join(f"{p:>9}" for p in peers)
          + f"{'dyn':>9}{'tier':>9}{'best/dyn':>9}{'best/tier':>9}{'spread':>8}"
          + "".join(f"{p + '/tier':>11}" for p in peers))
    for block, fn in BLOCKS.items():
        text = trace(fn, *input_specs(fn)).module_text
        weights = draw_weights(block, rng)
        count = 1 if block == "ffn" else 2
        bound = dict(enumerate(weights, start=count))
        dynamic = runtime.compile(text, hot_after=None)[fn.__name__].bind_params(
            bound, packed=True)
        exe = runtime.compile(text, hot_after=None)
        tier = exe[fn.__name__].bind_params(bound, packed=True)
        exe.pre_specialize([{"batch": b, "seq": s} for b, s in TOKENS[block]])
        session = ort.InferenceSession(onnx_block(block, weights).SerializeToString(),
                                       providers=["CPUExecutionProvider"]) if ort else None
        reference = numpy_block(block, weights)
        jitted = jax_block(block, weights)
        for batch, seq in TOKENS[block]:
            xs = activations(block, batch, seq, rng)
            want = reference(*xs)
            fns: dict[str, Callable[[], Any]] = {}
            if session is not None:
                feeds = dict(zip(["x", "mask"], xs, strict=False))
                fns["ort"] = lambda s=session, f=feeds: s.run(None, f)
            fns["numpy"] = lambda xs=xs, f=reference: f(*xs)
            if jitted is not None:
                fns["jax"] = lambda xs=xs, f=jitted: f(*xs)
            fns["dyn"] = lambda xs=xs, f=dynamic: f(*xs)
            fns["tier"] = lambda xs=xs, f=tier: f(*xs)
            for name, call in fns.items():
                for _ in range(_WARM_UP if name in ("dyn", "tier") else 2):
                    got = call()
                got = got[0] if isinstance(got, list) else got
                if not np.allclose(got, want, rtol=2e-3, atol=2e-3):
                    NOTES.append(f"{block} {batch}x{seq}: {name} differs from numpy")
            timed = interleaved(fns, rounds_for(fns, 15, _MAX_ROUNDS, budget))
            present = [p for p in peers if p in timed]
            line, ratios = _row(f"{block} {batch}x{seq}", timed, present, ["dyn", "tier"])
            line += "".join(f"{timed[p][0] / timed['tier'][0]:11.2f}" for p in present)
            print(line, flush=True)
            summary["blocks best/dyn"].append(ratios["dyn"])
            summary["blocks best/tier"].append(ratios["tier"])
            for p in present:
                summary[f"blocks {p}/tier"].append(timed[p][0] / timed["tier"][0])
            summary["blocks ort/dyn" if "ort" in timed else "blocks best/dyn"].append(
                timed.get("ort", timed["dyn"])[0] / timed["dyn"][0])
        drivers = {key: d for key, d in tier.variant_drivers().items()}
        NOTES.append(f"{block} tier drivers by binding: {drivers}")


# -- profiles ---------------------------------------------------------------------------


def profile(target: str, top: int) -> None:
    """Where the time of one static variant goes: our dispatches and onnxruntime's nodes."""
    name, _, rest = target.partition(":")
    binding = {k: int(v) for k, v in (item.split("=") for item in rest.split(",") if item)}
    rng = np.random.default_rng(0)
    if name in BLOCKS:
        weights = draw_weights(name, rng)
        xs = activations(name, binding["batch"], binding["seq"], rng)
        # Weights as constants: IREE lays them out at compile time, as when packed.
        specs = input_specs(BLOCKS[name])[: len(xs)]

        def closed(*inputs: Any) -> Any:
            return BLOCKS[name](*inputs, *(fe.array(w) for w in weights))

        text = trace(closed, *specs, name="main").module_text
        model = onnx_block(name, weights)
        feeds = dict(zip(["x", "mask"], xs, strict=False))
    else:
        entry = zoo.entries()[name]
        binding = binding or entry["bindings"][-1]
        text = import_model(zoo.path(entry)).operation.get_asm(enable_debug_info=True)
        model = onnx.load(zoo.path(entry))
        feeds = zoo.inputs(entry, binding)
        xs = list(feeds.values())
    with new_context():
        module = ir.Module.parse(text)
        # As the runtime compiles a static variant (`runtime.compile`'s
        # defaults): data tiling where `tiles_static_variants`, the target's
        # static flags.
        tiles = tiles_static_variants(module)
        bindings = ",".join(f"{k}={v}" for k, v in sorted(binding.items()))
        run_pipeline(module, f"builtin.module(symshape-specialize{{bindings={bindings}}},"
                             "symshape-to-iree)")
        resolved = module.operation.get_asm()
    compiled = backend.compile_module(resolved, data_tiling=tiles,
                                      flags=get_target("llvm-cpu").static_flags)
    print(f"profile of {name} {binding}: our static variant (local-sync, one thread), "
          "then onnxruntime (one thread)")
    with tempfile.TemporaryDirectory(prefix="symshape-profile-") as tmp:
        vmfb = Path(tmp) / "module.vmfb"
        vmfb.write_bytes(compiled.vmfb)
        arguments = []
        for i, x in enumerate(xs):
            np.save(Path(tmp) / f"in{i}.npy", x)
            arguments.append(f"--input=@{tmp}/in{i}.npy")
        tools = iree_dump_module_path().parent  # the runtime wheel's tools
        # As the runtime's devices allocate (backend.devices): with the system
        # allocator, large transients' page faults count in the dispatches' times.
        bench = subprocess.run(
            [str(tools / "iree-benchmark-module"), f"--module={vmfb}", "--device=local-sync",
             f"--device_allocator={ALLOCATOR}", "--function=main", *arguments,
             "--device_profiling_mode=host-execution",
             f"--device_profiling_output={tmp}/p.ireeprof", f"--benchmark_min_time={_CALLS}x"],
            capture_output=True, text=True, check=True)
        stats = subprocess.run([str(tools / "iree-profile"), "statistics", f"{tmp}/p.ireeprof"],
                               capture_output=True, text=True, check=True).stdout
    wall = re.findall(r"real_time\s+([\d.]+) (\w+)", bench.stdout)
    rows = []
    scale = {"ns": 1e-3, "us": 1.0, "ms": 1e3, "s": 1e6}
    # Per call: an executable may run several times in one call.
    for match in re.finditer(r"host_execute (\S+)\s+count=(\d+) total=([\d.]+) (\w+)", stats):
        rows.append((float(match[3]) * scale[match[4]] / _CALLS, match[1],
                     int(match[2]) // _CALLS))
    total = sum(row[0] for row in rows)
    print(f"  ours: {sum(row[2] for row in rows)} dispatches of {len(rows)} executables, "
          f"{total:.1f} us per call in dispatches"
          + (f", {wall[0][0]} {wall[0][1]} per call in all" if wall else ""))
    for seconds, dispatch, times in sorted(rows, reverse=True)[:top]:
        print(f"    {seconds:9.1f} us {100 * seconds / total:5.1f}%  x{times} {dispatch}")
    if ort is None:
        return
    options = ort.SessionOptions()
    options.enable_profiling = True
    options.intra_op_num_threads = 1  # as ours above: one thread
    with tempfile.TemporaryDirectory(prefix="symshape-ort-") as tmp:
        options.profile_file_prefix = f"{tmp}/ort"
        session = ort.InferenceSession(model.SerializeToString(), options,
                                       providers=["CPUExecutionProvider"])
        for _ in range(50):
            session.run(None, feeds)
        events = json.loads(Path(session.end_profiling()).read_text())
    nodes: dict[tuple[str, str], list[float]] = collections.defaultdict(list)
    runs = []
    for event in events:
        if event.get("cat") == "Node" and event["name"].endswith("_kernel_time"):
            nodes[(event["args"]["op_name"], event["name"][:-12])].append(event["dur"])
        elif event.get("name") == "model_run":
            runs.append(event["dur"])
    times = sorted(((statistics.median(v), k) for k, v in nodes.items()), reverse=True)
    total = sum(t for t, _ in times)
    print(f"  onnxruntime: {len(times)} nodes, {total:.1f} us per run in nodes, "
          f"{statistics.median(runs):.1f} us per run in all")
    for seconds, (op, node) in times[:top]:
        print(f"    {seconds:9.1f} us {100 * seconds / total:5.1f}%  {op:<14} {node}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", help="comma-separated zoo models (default: all)")
    parser.add_argument("--no-zoo", action="store_true", help="skip the zoo")
    parser.add_argument("--no-blocks", action="store_true", help="skip the BERT blocks")
    parser.add_argument("--budget", type=float, default=2.0,
                        help="seconds of interleaved timing per row (default 2)")
    parser.add_argument("--profile", metavar="MODEL[:axis=value,...]",
                        help="print the dispatch profile of one static variant and exit")
    parser.add_argument("--top", type=int, default=12, help="rows per profile")
    parser.add_argument("--variant", action="append", type=_variant, default=[],
                        metavar="NAME=FLAG;FLAG...",
                        help="a further static tier compiled with these iree-compile flags "
                             "(static-data-tiling, no-static-data-tiling: with or without data "
                             "tiling), a column each")
    parser.add_argument("--bindings", help="comma-separated indices of each model's "
                        "bindings to run (3 is the larger one; default: all)")
    parser.add_argument("--no-dyn", action="store_true", help="skip the dynamic module")
    args = parser.parse_args(argv)
    if ort is None:
        print("onnxruntime is not installed (pip install -e .[test])")
        return 1
    if args.profile:
        profile(args.profile, args.top)
        return 0
    summary: dict[str, list[float]] = collections.defaultdict(list)
    if not args.no_zoo:
        names = args.models.split(",") if args.models else sorted(zoo.entries())
        which = [int(i) for i in args.bindings.split(",")] if args.bindings else None
        bench_zoo(names, args.budget, summary, args.variant, which, not args.no_dyn)
    if not args.no_blocks:
        bench_blocks(args.budget, summary)
    print("\nsummary (ratios > 1: ours faster)")
    for key, values in summary.items():
        print(f"    {key:<22} median {statistics.median(values):6.2f}   least "
              f"{min(values):6.2f}   rows {len(values)}")
    print_notes(NOTES)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
