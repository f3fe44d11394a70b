"""Checks the compiled programs on a GPU machine that has only IREE's runtime.

The package needs the MLIR bindings it was built against, which a borrowed
GPU machine does not have. This script splits the check in two:

``make DIR`` (here, in the project's environment) resolves every end-to-end
program of ``test/e2e`` and imports every model of the ONNX zoo, compiles
each for ``cuda`` (PTX for ``sm_89``; the programs also for ``vulkan``), and writes the modules,
their arguments at every binding, and the expected results (numpy's for the
programs, onnxruntime's for the models) with a ``manifest.json``. The
models of `TIMED` also get a static variant at their largest binding,
checked there and timed.

``run DIR OUT`` (on the GPU machine: numpy, ml_dtypes and ``iree-base-runtime``
suffice) loads each module through ``symshape_mlir.backend`` (imported
without the rest of the package), calls it on every driver that opens, and
compares. It prints one line per case and writes ``OUT/results.json``.
Timings compare each model's static and dynamic module on ``cuda`` with
onnxruntime on the same machine (its CUDA provider where installed), as
``onnxruntime time / ours`` (> 1: ours is faster).

Example:
    $ .venv/bin/python test/gpu/bundle.py make .gpu
    $ python3 test/gpu/bundle.py run .gpu /tmp/out     # on the GPU machine
"""

from __future__ import annotations

import argparse
import concurrent.futures
import importlib
import json
import statistics
import subprocess
import sys
import time
import types
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))
import block_data  # noqa: E402  (numpy only: the GPU runner imports it too)

TARGETS = ("cuda", "vulkan")
DRIVERS = {"cuda": "cuda", "vulkan": "vulkan"}
# Models timed on the GPU at a static variant (the others are only checked).
TIMED = ("resnet", "mobilenet_v2", "bert", "gpt2", "vit", "convnext", "whisper_encoder", "unet",
         "upsampler_dynamo")


# -- make (here) -------------------------------------------------------------------------


def _write_module(out: Path, stem: str, text: str, entry: dict[str, Any],
                  targets: tuple[str, ...] = TARGETS) -> None:
    from symshape_mlir import backend

    modules: dict[str, str] = {}
    for target in targets:
        try:
            compiled = backend.compile_module(text, target)
        except backend.CompileError as err:
            entry.setdefault("compile_errors", {})[target] = str(err).splitlines()[0]
            continue
        name = f"{stem}.{target}.vmfb"
        (out / name).write_bytes(compiled.vmfb)
        modules[target] = name
    entry["modules"] = modules


def _write_case(out: Path, stem: str, args: tuple[np.ndarray, ...],
                expected: tuple[np.ndarray, ...]) -> dict[str, Any]:
    arrays = {f"a{i}": a for i, a in enumerate(args)} | {f"e{i}": e for i, e in enumerate(expected)}
    np.savez(out / f"{stem}.npz", **arrays)  # type: ignore[arg-type]
    return {"npz": f"{stem}.npz", "args": len(args), "expected": len(expected)}


def make_programs(out: Path, manifest: list[dict[str, Any]], names: list[str] | None) -> None:
    """The ``test/e2e`` programs (all, or ``names``): a module per target and the cases."""
    sys.path.insert(0, str(ROOT / "test" / "py"))
    import test_e2e_programs as e2e

    for name, program in e2e.PROGRAMS.items():
        if names is not None and name not in names:
            continue
        entry: dict[str, Any] = {"kind": "program", "name": name, "function": program.function,
                                 "rtol": program.tolerance, "atol": program.tolerance}
        _write_module(out, name, e2e.resolved(program.file, program.passes), entry)
        entry["cases"] = []
        for binding in program.bindings:
            args = e2e.inputs_for(program, binding)
            case = _write_case(out, f"{name}.{e2e.binding_id(binding)}", args,
                               tuple(program.reference(*args)))
            case["binding"] = dict(binding)
            case["unbindable"] = {
                "vulkan": binding in program.unbindable,
                "cuda": binding in program.cuda_unrunnable}
            entry["cases"].append(case)
        manifest.append(entry)
        print(f"program {name}: {sorted(entry['modules'])}", flush=True)


def _resolved(module: Any, specialize: str) -> str:
    """A copy of an imported module through ``symshape-to-iree`` (after ``specialize``)."""
    from symshape_mlir.passes import run_pipeline

    copy = module.operation.clone(ip=False)
    run_pipeline(copy, f"builtin.module({specialize}symshape-to-iree)")
    return str(copy)


def make_models(out: Path, manifest: list[dict[str, Any]], names: list[str] | None) -> None:
    """The zoo's models (all, or ``names``): the dynamic module, a static one
    to time (`TIMED`), the cases."""
    sys.path.insert(0, str(ROOT / "test" / "onnx"))
    import onnxruntime as ort

    import zoo
    from symshape_mlir.onnx import import_model

    for name, spec in sorted(zoo.entries().items()):
        if names is not None and name not in names:
            continue
        session = ort.InferenceSession(str(zoo.path(spec)), providers=["CPUExecutionProvider"])
        module = import_model(zoo.path(spec))
        dynamic = _resolved(module, "")
        entry: dict[str, Any] = {"kind": "model", "name": name, "function": "main",
                                 "onnx": str(zoo.path(spec).relative_to(ROOT)),
                                 "rtol": spec["rtol"], "atol": spec["atol"], "cases": []}
        _write_module(out, name, dynamic, entry, ("cuda",))
        for binding in spec["bindings"]:
            feeds = zoo.inputs(spec, binding)
            stem = f"{name}." + "-".join(f"{k}{v}" for k, v in binding.items())
            case = _write_case(out, stem, tuple(feeds.values()), tuple(session.run(None, feeds)))
            case["binding"] = binding
            case["inputs"] = list(feeds)
            entry["cases"].append(case)
        if name in TIMED:
            largest = max(spec["bindings"], key=lambda b: int(np.prod(list(b.values()))))
            bindings = ",".join(f"{k}={v}" for k, v in sorted(largest.items()))
            timed: dict[str, Any] = {"binding": largest}
            _write_module(out, f"{name}.static",
                          _resolved(module, f"symshape-specialize{{bindings={bindings}}},"),
                          timed, ("cuda",))
            entry["static"] = timed
        manifest.append(entry)
        if "static" in entry and "cuda" in entry["static"]["modules"]:
            # The static variant is checked too, at the binding it was made for.
            manifest.append({**entry, "kind": "model-static", "name": f"{name} static",
                             "modules": entry["static"]["modules"], "static": None,
                             "compile_errors": entry["static"].get("compile_errors", {}),
                             "cases": [c for c in entry["cases"]
                                       if c["binding"] == entry["static"]["binding"]]})
        print(f"model {name}: {sorted(entry['modules'])}", flush=True)


def make_blocks(out: Path, manifest: list[dict[str, Any]]) -> None:
    """``bench/onnx_models.py``'s BERT-base blocks as static modules, one per token
    count, to time against torch on the GPU (weights are drawn there)."""
    import onnx_models as bench
    from symshape_mlir.frontend.tracing import input_specs, trace

    for block, fn in bench.BLOCKS.items():
        traced = trace(fn, *input_specs(fn))
        for batch, seq in block_data.TOKENS[block]:
            entry: dict[str, Any] = {"kind": "block", "name": f"{block} {batch}x{seq}",
                                     "block": block, "function": fn.__name__,
                                     "binding": {"batch": batch, "seq": seq}, "cases": []}
            _write_module(out, f"{block}.{batch}x{seq}",
                          _resolved(traced.module, f"symshape-specialize{{bindings=batch={batch},"
                                                   f"seq={seq}}},"), entry, ("cuda",))
            manifest.append(entry)
            print(f"block {entry['name']}: {sorted(entry['modules'])}", flush=True)


# -- run (on the GPU machine) ------------------------------------------------------------


def _backend() -> Any:
    """``symshape_mlir.backend`` without the package's ``__init__`` (which needs MLIR)."""
    package = types.ModuleType("symshape_mlir")
    package.__path__ = [str(ROOT / "python" / "symshape_mlir")]
    sys.modules.setdefault("symshape_mlir", package)
    return importlib.import_module("symshape_mlir.backend")


def _error_ratio(got: Any, want: np.ndarray, rtol: float, atol: float) -> float:
    """The largest error over what the tolerance allows (<= 1 passes)."""
    if not isinstance(got, np.ndarray) or got.shape != want.shape or got.dtype != want.dtype:
        return float("inf")
    if not want.size:
        return 0.0
    if want.dtype.kind in "iub":
        return 0.0 if np.array_equal(got, want) else float("inf")
    scale = float(np.max(np.abs(want)))
    error = float(np.max(np.abs(got.astype(np.float64) - want)))
    return error / (atol + rtol * scale)


def _median_seconds(call: Any, budget: float = 1.0) -> float:
    for _ in range(3):
        call()
    times: list[float] = []
    start = time.perf_counter()
    while len(times) < 5 or (time.perf_counter() - start < budget and len(times) < 200):
        t0 = time.perf_counter()
        call()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def _peer_session(onnx_path: Path) -> tuple[Any, str] | None:
    try:
        import onnxruntime as ort
    except ImportError:
        return None
    providers = [p for p in ("CUDAExecutionProvider", "CPUExecutionProvider")
                 if p in ort.get_available_providers()]
    return ort.InferenceSession(str(onnx_path), providers=providers), providers[0]


def _check_entry(backend: Any, bundle: Path, entry: dict[str, Any], target: str
                 ) -> list[dict[str, Any]]:
    """Every case of one entry on one driver, in order (a failed call may
    leave the device unusable: the entry runs in a process of its own)."""
    compiled = backend.CompiledModule(
        vmfb=(bundle / entry["modules"][target]).read_bytes(), target=target, flags=())
    try:
        module = backend.load(compiled, DRIVERS[target])
    except backend.BackendError as err:
        return [{"name": entry["name"], "target": target, "ok": False, "status": "LOAD-FAIL",
                 "error": str(err)}]
    records = []
    # The cases expected to fail go last: a failed call can leave the device unusable.
    for case in sorted(entry["cases"], key=lambda c: c.get("unbindable", {}).get(target, False)):
        data = np.load(bundle / case["npz"])
        args = [data[f"a{i}"] for i in range(case["args"])]
        expected = [data[f"e{i}"] for i in range(case["expected"])]
        record: dict[str, Any] = {"name": entry["name"], "target": target,
                                  "binding": case["binding"]}
        try:
            got = module.invoke(entry["function"], *args, out_shapes=[e.shape for e in expected])
            got = got if isinstance(got, tuple) else (got,)
            record["error_ratio"] = max(
                (_error_ratio(g, e, entry["rtol"], entry["atol"])
                 for g, e in zip(got, expected, strict=True)), default=0.0)
            record["ok"] = record["error_ratio"] <= 1.0 and len(got) == len(expected)
        except Exception as err:
            record["error"] = f"{type(err).__name__}: " + " | ".join(str(err).splitlines()[:3])
            record["ok"] = False
        expect_fail = case.get("unbindable", {}).get(target, False)
        if record["ok"] == expect_fail:
            record["status"] = "UNEXPECTED-PASS" if record["ok"] else "FAIL"
        else:
            record["status"] = "xfail" if expect_fail else "ok"
        records.append(record)
    return records


def _in_subprocess(command: str, bundle: Path, index: int, target: str) -> list[dict[str, Any]]:
    proc = subprocess.run([sys.executable, __file__, command, str(bundle), str(index), target],
                          capture_output=True, text=True, check=False, timeout=600)
    lines = proc.stdout.strip().splitlines()
    if proc.returncode != 0 or not lines:
        return [{"name": f"entry {index}", "target": target, "ok": False, "status": "CRASH",
                 "error": f"rc {proc.returncode}: {proc.stderr[-500:]}"}]
    return list(json.loads(lines[-1]))


def run(bundle: Path, out: Path, jobs: int = 4) -> int:
    """Runs every case on every driver that opens, each entry in its own
    process, then the timings one at a time; returns the failure count."""
    backend = _backend()
    manifest = json.loads((bundle / "manifest.json").read_text())
    drivers = []
    for target in TARGETS:
        try:
            backend.get_device(DRIVERS[target])
            drivers.append(target)
        except backend.DriverUnavailableError as err:
            print(f"driver {DRIVERS[target]} unavailable: {err}")
    for entry in manifest:
        for target, reason in entry.get("compile_errors", {}).items():
            print(f"COMPILE-FAIL {entry['name']} {target}: {reason}")
    work = [(i, t) for i, entry in enumerate(manifest) for t in drivers
            if t in entry["modules"] and entry["cases"]]
    results: list[dict[str, Any]] = []
    with concurrent.futures.ThreadPoolExecutor(jobs) as pool:
        for records in pool.map(lambda w: _in_subprocess("check-entry", bundle, *w), work):
            for record in records:
                detail = record.get("error", f"error/tol {record.get('error_ratio', 0):.3g}")
                print(f"{record['status']} {record['name']} {record['target']} "
                      f"{record.get('binding', '')}: {detail}", flush=True)
            results.extend(records)
    failures = sum(r["status"] in ("FAIL", "UNEXPECTED-PASS", "LOAD-FAIL", "CRASH")
                   for r in results)
    if "cuda" in drivers:
        for i, entry in enumerate(manifest):
            if entry.get("static") or entry["kind"] == "block":
                timed = _in_subprocess("time-entry", bundle, i, "cuda")
                for record in timed:
                    print(record.get("line", record.get("error")), flush=True)
                results.extend(timed)
    out.mkdir(parents=True, exist_ok=True)
    (out / "results.json").write_text(json.dumps(results, indent=1))
    print(f"{failures} failures")
    return failures


def _time_model(backend: Any, bundle: Path, entry: dict[str, Any]) -> dict[str, Any]:
    """Times the model's static and dynamic cuda modules against onnxruntime here."""
    timed = entry["static"]
    binding = timed["binding"]
    case = next(c for c in entry["cases"] if c["binding"] == binding)
    data = np.load(bundle / case["npz"])
    args = [data[f"a{i}"] for i in range(case["args"])]
    record: dict[str, Any] = {"name": entry["name"], "timing": binding}
    for label, module_file in (("static", timed["modules"].get("cuda")),
                               ("dynamic", entry["modules"].get("cuda"))):
        if module_file is None:
            continue
        compiled = backend.CompiledModule(vmfb=(bundle / module_file).read_bytes(),
                                          target="cuda", flags=())
        function = backend.load(compiled, "cuda").function("main")
        record[label] = _median_seconds(lambda f=function: f(*args))
    peer = _peer_session(ROOT / entry["onnx"])
    if peer is not None:
        session, provider = peer
        feeds = dict(zip(case["inputs"], args, strict=True))
        record["onnxruntime"] = _median_seconds(lambda: session.run(None, feeds))
        record["provider"] = provider
    ratios = {k: record["onnxruntime"] / record[k] for k in ("static", "dynamic")
              if k in record and "onnxruntime" in record}
    record["line"] = (f"time {entry['name']} {binding}: " + ", ".join(
        f"{k} {record[k] * 1e3:.2f} ms" for k in ("static", "dynamic", "onnxruntime")
        if k in record) + f" ({record.get('provider')}); ort/ours " +
        ", ".join(f"{k} {v:.2f}" for k, v in ratios.items()))
    return record


def _block_inputs(block: str, batch: int, seq: int) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """The block's activations and weights, drawn as ``bench/onnx_models.py`` draws them."""
    rng = np.random.default_rng(0)
    drawn = block_data.weights(block, rng)
    return block_data.activations(block, batch, seq, rng), drawn


def _torch_block(block: str, weights: list[np.ndarray]) -> Any:
    """The block in torch on the GPU, numpy in and out (None without torch or a GPU)."""
    try:
        import torch
    except ImportError:
        return None
    if not torch.cuda.is_available():
        return None
    w = [torch.from_numpy(a).cuda() for a in weights]
    gelu = torch.nn.functional.gelu

    def ffn(x: Any) -> Any:
        return gelu(x @ w[0] + w[1]) @ w[2] + w[3]

    def attention(x: Any, mask: Any) -> Any:
        b, s, _ = x.shape

        def heads(t: Any) -> Any:
            heads = block_data.HEADS
            return t.reshape(b, s, heads, block_data.D // heads).transpose(1, 2)

        q, k, v = (heads(x @ w[i] + w[i + 1]) for i in (0, 2, 4))
        scores = q @ k.transpose(2, 3) * 0.125 + ((mask - 1) * 10000)[:, None, None, :]
        merged = (scores.softmax(-1) @ v).transpose(1, 2).reshape(b, s, block_data.D)
        return merged @ w[6] + w[7]

    fn = ffn if block == "ffn" else attention

    def call(*xs: np.ndarray) -> np.ndarray:
        with torch.no_grad():
            return fn(*(torch.from_numpy(a).cuda() for a in xs)).cpu().numpy()

    return call


def _time_block(backend: Any, bundle: Path, entry: dict[str, Any]) -> dict[str, Any]:
    """Times a block's static cuda module (weights uploaded once) against torch here."""
    binding = entry["binding"]
    xs, weights = _block_inputs(entry["block"], binding["batch"], binding["seq"])
    compiled = backend.CompiledModule(vmfb=(bundle / entry["modules"]["cuda"]).read_bytes(),
                                      target="cuda", flags=())
    function = backend.load(compiled, "cuda").function(entry["function"])
    uploaded = [function.upload(len(xs) + i, w) for i, w in enumerate(weights)]
    record: dict[str, Any] = {"name": entry["name"], "timing": binding}
    ours = lambda: function.dispatch([*xs, *uploaded])[0]  # noqa: E731
    record["ours"] = _median_seconds(ours)
    torch_call = _torch_block(entry["block"], weights)
    line = f"time {entry['name']}: ours {record['ours'] * 1e3:.2f} ms"
    if torch_call is not None:
        record["torch"] = _median_seconds(lambda: torch_call(*xs))
        record["max_diff"] = float(np.max(np.abs(ours() - torch_call(*xs))))
        line += (f", torch {record['torch'] * 1e3:.2f} ms; torch/ours "
                 f"{record['torch'] / record['ours']:.2f}; max |ours - torch| "
                 f"{record['max_diff']:.1e}")
    record["line"] = line
    return record


def main(argv: list[str] | None = None) -> int:
    """Parses the command line; see the module docstring."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    make = sub.add_parser("make", help="compile the bundle here")
    make.add_argument("dir", type=Path)
    make.add_argument("--programs", nargs="*", help="e2e programs (default: all; none: none)")
    make.add_argument("--models", nargs="*", help="zoo models (default: all; none: none)")
    make.add_argument("--blocks", action="store_true", help="add the BERT-base blocks")
    runner = sub.add_parser("run", help="run the bundle on a GPU machine")
    runner.add_argument("dir", type=Path)
    runner.add_argument("out", type=Path)
    for command in ("check-entry", "time-entry"):
        one = sub.add_parser(command, help="(internal) one entry of a bundle")
        one.add_argument("dir", type=Path)
        one.add_argument("index", type=int)
        one.add_argument("target")
    args = parser.parse_args(argv)
    if args.command == "run":
        return 1 if run(args.dir, args.out) else 0
    if args.command in ("check-entry", "time-entry"):
        entry = json.loads((args.dir / "manifest.json").read_text())[args.index]
        backend = _backend()
        timer = _time_block if entry["kind"] == "block" else _time_model
        records = (_check_entry(backend, args.dir, entry, args.target)
                   if args.command == "check-entry" else [timer(backend, args.dir, entry)])
        print(json.dumps(records))
        return 0
    args.dir.mkdir(parents=True, exist_ok=True)
    manifest: list[dict[str, Any]] = []
    make_programs(args.dir, manifest, args.programs)
    make_models(args.dir, manifest, args.models)
    if args.blocks:
        make_blocks(args.dir, manifest)
    (args.dir / "manifest.json").write_text(json.dumps(manifest, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
