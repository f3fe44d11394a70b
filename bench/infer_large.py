"""Speed of ``symshape-infer-shapes`` on a large function, against a bare MLIR walk.

Builds one function of stacked transformer-like blocks (layer norm, attention
with batched matmuls and a softmax, an MLP whose reshapes are written the way
ONNX exporters write them: an ``i64`` shape tensor whose ``-1`` entry is
``numel divsi product(other entries)``, chosen with ``arith.select``), all
over a dynamic ``batch`` and ``seq``. Sizes are given per *top-level* op (ops
inside ``linalg`` bodies, which the walk visits and inference skips, are
counted apart). In the same process, in interleaved rounds, it times:

* the floor: a bare ``walk`` of the module reading every op's name;
* the pass: inference and annotation (what ``symshape-infer-shapes`` runs),
  each half alone, and the whole pass as a pipeline (which adds the pass
  manager and MLIR's verifier, also timed alone);

then checks that every tensor value's extents are exact and symbolic in
``batch``/``seq`` only (no fresh or unknown extent), that the contract proves
every reshape (no run-time check, no rejection) and that sympy was never
imported. Prints best and median times, ops/s and the median per-round ratio
to the floor; the goal is under 0.3 s per 10k top-level ops.

Run::

    python bench/infer_large.py --ops 10000 --repeat 7
"""

from __future__ import annotations

import argparse
import gc
import statistics
import sys
import time
from collections.abc import Callable

from mlir import ir

from symshape_mlir.context import new_context
from symshape_mlir.extent.guarantee import ShapeExtent
from symshape_mlir.inference import InferenceOptions, InferenceState, annotate, infer
from symshape_mlir.passes import run_pipeline

__all__ = ["build_function", "main"]

HIDDEN = 64
FFN = 256
_ALLOWED = frozenset({"batch", "seq"})

_HEADER = """\
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#row3 = affine_map<(d0, d1, d2) -> (d0, d1)>
#col3 = affine_map<(d0, d1, d2) -> (d2)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>
#col2 = affine_map<(d0, d1) -> (d1)>
"""


class _Writer:
    """Emits SSA text with fresh names."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.count = 0

    def name(self, stem: str) -> str:
        self.count += 1
        return f"%{stem}{self.count}"

    def emit(self, text: str) -> None:
        self.lines.append("  " + text)


def _generic(w: _Writer, maps: str, iterators: str, ins: list[tuple[str, str]],
             out: tuple[str, str], body: Callable[[list[str]], list[str]], result: str) -> str:
    """A linalg.generic; ``body`` gets the block argument names, returns lines ending in yield."""
    name = w.name("g")
    args = [f"%a{i}" for i in range(len(ins) + 1)]
    ins_text = ", ".join(v for v, _ in ins)
    ins_types = ", ".join(t for _, t in ins)
    w.emit(f"{name} = linalg.generic {{indexing_maps = [{maps}], iterator_types = [{iterators}]}}"
           f" ins({ins_text} : {ins_types}) outs({out[0]} : {out[1]}) {{")
    w.emit("^bb0(" + ", ".join(f"{a}: f32" for a in args) + "):")
    for line in body(args):
        w.emit("  " + line)
    w.emit(f"}} -> {result}")
    return name


def _empty3(w: _Writer, b: str, s: str, last: int | str) -> str:
    name = w.name("e")
    if isinstance(last, int):
        w.emit(f"{name} = tensor.empty({b}, {s}) : tensor<?x?x{last}xf32>")
    else:
        w.emit(f"{name} = tensor.empty({b}, {s}, {s}) : tensor<?x?x?xf32>")
    return name


def _filled(w: _Writer, empty: str, type_: str) -> str:
    name = w.name("f")
    w.emit(f"{name} = linalg.fill ins(%zero : f32) outs({empty} : {type_}) -> {type_}")
    return name


def _layer_norm(w: _Writer, x: str, b: str, s: str) -> str:
    t3 = f"tensor<?x?x{HIDDEN}xf32>"
    t2 = "tensor<?x?xf32>"
    e2 = w.name("e")
    w.emit(f"{e2} = tensor.empty({b}, {s}) : {t2}")
    acc = _filled(w, e2, t2)
    total = _generic(w, "#id3, #row3", '"parallel", "parallel", "reduction"', [(x, t3)],
                     (acc, t2), lambda a: [f"%r = arith.addf {a[0]}, {a[1]} : f32",
                                           "linalg.yield %r : f32"], t2)
    e3 = _empty3(w, b, s, HIDDEN)
    centered = _generic(w, "#id3, #row3, #id3", '"parallel", "parallel", "parallel"',
                        [(x, t3), (total, t2)], (e3, t3),
                        lambda a: [f"%m = arith.mulf {a[1]}, %inv : f32",
                                   f"%r = arith.subf {a[0]}, %m : f32",
                                   "linalg.yield %r : f32"], t3)
    sq_acc = _filled(w, e2, t2)
    var = _generic(w, "#id3, #row3", '"parallel", "parallel", "reduction"', [(centered, t3)],
                   (sq_acc, t2), lambda a: [f"%q = arith.mulf {a[0]}, {a[0]} : f32",
                                            f"%r = arith.addf %q, {a[1]} : f32",
                                            "linalg.yield %r : f32"], t2)
    return _generic(w, "#id3, #row3, #col3, #id3", '"parallel", "parallel", "parallel"',
                    [(centered, t3), (var, t2), ("%gamma", f"tensor<{HIDDEN}xf32>")], (e3, t3),
                    lambda a: [f"%v = arith.mulf {a[1]}, %inv : f32",
                               "%ve = arith.addf %v, %eps : f32",
                               "%sd = math.sqrt %ve : f32",
                               f"%n = arith.divf {a[0]}, %sd : f32",
                               f"%r = arith.mulf %n, {a[2]} : f32",
                               "linalg.yield %r : f32"], t3)


def _attention(w: _Writer, x: str, b: str, s: str) -> str:
    t3 = f"tensor<?x?x{HIDDEN}xf32>"
    tt = f"tensor<?x{HIDDEN}x?xf32>"
    ts = "tensor<?x?x?xf32>"
    t2 = "tensor<?x?xf32>"
    et = w.name("e")
    w.emit(f"{et} = tensor.empty({b}, {s}) : {tt}")
    kt = w.name("t")
    w.emit(f"{kt} = linalg.transpose ins({x} : {t3}) outs({et} : {tt}) permutation = [0, 2, 1]")
    scores0 = _filled(w, _empty3(w, b, s, "s"), ts)
    scores = w.name("bm")
    w.emit(f"{scores} = linalg.batch_matmul ins({x}, {kt} : {t3}, {tt}) "
           f"outs({scores0} : {ts}) -> {ts}")
    e2 = w.name("e")
    w.emit(f"{e2} = tensor.empty({b}, {s}) : {t2}")
    mx0 = w.name("f")
    w.emit(f"{mx0} = linalg.fill ins(%ninf : f32) outs({e2} : {t2}) -> {t2}")
    mx = _generic(w, "#id3, #row3", '"parallel", "parallel", "reduction"', [(scores, ts)],
                  (mx0, t2), lambda a: [f"%r = arith.maximumf {a[0]}, {a[1]} : f32",
                                        "linalg.yield %r : f32"], t2)
    es = _empty3(w, b, s, "s")
    ex = _generic(w, "#id3, #row3, #id3", '"parallel", "parallel", "parallel"',
                  [(scores, ts), (mx, t2)], (es, ts),
                  lambda a: [f"%d = arith.subf {a[0]}, {a[1]} : f32",
                             "%r = math.exp %d : f32", "linalg.yield %r : f32"], ts)
    sm0 = _filled(w, e2, t2)
    sm = _generic(w, "#id3, #row3", '"parallel", "parallel", "reduction"', [(ex, ts)],
                  (sm0, t2), lambda a: [f"%r = arith.addf {a[0]}, {a[1]} : f32",
                                        "linalg.yield %r : f32"], t2)
    probs = _generic(w, "#id3, #row3, #id3", '"parallel", "parallel", "parallel"',
                     [(ex, ts), (sm, t2)], (es, ts),
                     lambda a: [f"%r = arith.divf {a[0]}, {a[1]} : f32",
                                "linalg.yield %r : f32"], ts)
    out0 = _filled(w, _empty3(w, b, s, HIDDEN), t3)
    out = w.name("bm")
    w.emit(f"{out} = linalg.batch_matmul ins({probs}, {x} : {ts}, {t3}) "
           f"outs({out0} : {t3}) -> {t3}")
    return out


def _onnx_shape(w: _Writer, numel: str, entries: list[str]) -> str:
    """An ONNX-style i64 shape: each ``-1`` entry is ``numel divsi product(others)``."""
    known = None
    flags = []
    for entry in entries:
        flag = w.name("is_m1")
        w.emit(f"{flag} = arith.cmpi eq, {entry}, %m1 : i64")
        flags.append(flag)
        factor = w.name("k")
        w.emit(f"{factor} = arith.select {flag}, %i1, {entry} : i64")
        if known is None:
            known = factor
        else:
            product = w.name("k")
            w.emit(f"{product} = arith.muli {known}, {factor} : i64")
            known = product
    inferred = w.name("inferred")
    w.emit(f"{inferred} = arith.divsi {numel}, {known} : i64")
    picked = []
    for entry, flag in zip(entries, flags, strict=True):
        value = w.name("e")
        w.emit(f"{value} = arith.select {flag}, {inferred}, {entry} : i64")
        picked.append(value)
    shape = w.name("shape")
    w.emit(f"{shape} = tensor.from_elements {', '.join(picked)} : tensor<{len(picked)}xi64>")
    return shape


def _mlp(w: _Writer, x: str, b: str, s: str, layer: int) -> str:
    t3 = f"tensor<?x?x{HIDDEN}xf32>"
    b64, s64, numel = w.name("b64"), w.name("s64"), w.name("numel")
    w.emit(f"{b64} = arith.index_cast {b} : index to i64")
    w.emit(f"{s64} = arith.index_cast {s} : index to i64")
    rows64 = w.name("rows64")
    w.emit(f"{rows64} = arith.muli {b64}, {s64} : i64")
    w.emit(f"{numel} = arith.muli {rows64}, %i{HIDDEN} : i64")
    # Reshape(x, [-1, hidden])
    flat = w.name("flat")
    w.emit(f"{flat} = tensor.reshape {x}({_onnx_shape(w, numel, ['%m1', f'%i{HIDDEN}'])}) "
           f": ({t3}, tensor<2xi64>) -> tensor<?x{HIDDEN}xf32>")
    rows = w.name("rows")
    w.emit(f"{rows} = tensor.dim {flat}, %c0 : tensor<?x{HIDDEN}xf32>")
    t_h = f"tensor<?x{FFN}xf32>"
    t_o = f"tensor<?x{HIDDEN}xf32>"
    e_h = w.name("e")
    w.emit(f"{e_h} = tensor.empty({rows}) : {t_h}")
    h0 = _filled(w, e_h, t_h)
    h = w.name("mm")
    w.emit(f"{h} = linalg.matmul ins({flat}, %w1_{layer % 2} : tensor<?x{HIDDEN}xf32>, "
           f"tensor<{HIDDEN}x{FFN}xf32>) outs({h0} : {t_h}) -> {t_h}")
    act = _generic(w, "#id2, #col2, #id2", '"parallel", "parallel"',
                   [(h, t_h), ("%b1", f"tensor<{FFN}xf32>")], (e_h, t_h),
                   lambda a: [f"%s = arith.addf {a[0]}, {a[1]} : f32",
                              "%r = arith.maximumf %s, %zero : f32",
                              "linalg.yield %r : f32"], t_h)
    e_o = w.name("e")
    w.emit(f"{e_o} = tensor.empty({rows}) : {t_o}")
    o0 = _filled(w, e_o, t_o)
    o = w.name("mm")
    w.emit(f"{o} = linalg.matmul ins({act}, %w2_{layer % 2} : {t_h}, "
           f"tensor<{FFN}x{HIDDEN}xf32>) outs({o0} : {t_o}) -> {t_o}")
    # Reshape(o, [batch, -1, hidden]) with batch read from the input's shape.
    back = w.name("back")
    w.emit(f"{back} = tensor.reshape {o}({_onnx_shape(w, numel, [b64, '%m1', f'%i{HIDDEN}'])})"
           f" : ({t_o}, tensor<3xi64>) -> {t3}")
    return back


def _residual(w: _Writer, x: str, y: str, b: str, s: str) -> str:
    t3 = f"tensor<?x?x{HIDDEN}xf32>"
    e3 = _empty3(w, b, s, HIDDEN)
    return _generic(w, "#id3, #id3, #id3", '"parallel", "parallel", "parallel"',
                    [(x, t3), (y, t3)], (e3, t3),
                    lambda a: [f"%r = arith.addf {a[0]}, {a[1]} : f32",
                               "linalg.yield %r : f32"], t3)


def build_function(layers: int) -> str:
    """MLIR text of ``@blocks``: ``layers`` stacked transformer-like blocks."""
    w = _Writer()
    t3 = f"tensor<?x?x{HIDDEN}xf32>"
    for const, value in (("%zero", "0.0"), ("%ninf", "-1.0e30"), ("%eps", "1.0e-5"),
                         ("%inv", "0.015625")):
        w.emit(f"{const} = arith.constant {value} : f32")
    for value in (0, 1, 2, HIDDEN):
        w.emit(f"%c{value} = arith.constant {value} : index")
    for name, value in (("%m1", -1), ("%i1", 1), (f"%i{HIDDEN}", HIDDEN)):
        w.emit(f"{name} = arith.constant {value} : i64")
    x = "%x"
    for layer in range(layers):
        b = w.name("batch")
        w.emit(f"{b} = tensor.dim {x}, %c0 : {t3}")
        s = w.name("seq")
        w.emit(f"{s} = tensor.dim {x}, %c1 : {t3}")
        normed = _layer_norm(w, x, b, s)
        attended = _residual(w, x, _attention(w, normed, b, s), b, s)
        normed2 = _layer_norm(w, attended, b, s)
        x = _residual(w, attended, _mlp(w, normed2, b, s, layer), b, s)
    signature = (
        f"func.func @blocks(%x: {t3} {{symshape.axes = #symshape.shape<[batch, seq, {HIDDEN}]>}}, "
        f"%gamma: tensor<{HIDDEN}xf32>, %b1: tensor<{FFN}xf32>, "
        f"%w1_0: tensor<{HIDDEN}x{FFN}xf32>, %w1_1: tensor<{HIDDEN}x{FFN}xf32>, "
        f"%w2_0: tensor<{FFN}x{HIDDEN}xf32>, %w2_1: tensor<{FFN}x{HIDDEN}xf32>) -> {t3} {{"
    )
    return "\n".join([_HEADER, signature, *w.lines, f"  return {x} : {t3}", "}", ""])


def _count_ops(module: ir.Module) -> tuple[int, int]:
    """``(all ops, top-level ops)``: top-level ops are not inside a ``linalg`` op."""
    count = top = 0

    def visit(op: ir.Operation) -> ir.WalkResult:
        nonlocal count, top
        count += 1
        parent = op.parent
        while parent is not None and not parent.name.startswith("linalg."):
            if parent.name == "func.func":
                top += 1
                break
            parent = parent.parent
        return ir.WalkResult.ADVANCE

    module.operation.walk(visit)
    return count - 1, top  # the module itself


def _bare_walk(module: ir.Module) -> None:
    names = []

    def visit(op: ir.Operation) -> ir.WalkResult:
        names.append(op.name)
        return ir.WalkResult.ADVANCE

    module.operation.walk(visit)


def _timed(fn: Callable[[], object]) -> float:
    """Wall time of one call of ``fn`` (garbage collection paused)."""
    gc.collect()
    gc.disable()
    try:
        start = time.perf_counter()
        fn()
        return time.perf_counter() - start
    finally:
        gc.enable()


def _check_symbolic(module: ir.Module) -> tuple[int, list[str]]:
    """Counts tensor values and lists those whose extents are not exact over batch/seq."""
    state = infer(module.operation, InferenceOptions())
    checked, bad = 0, []

    def check(value: ir.Value, where: str) -> None:
        nonlocal checked
        if not isinstance(value.type, ir.RankedTensorType):
            return
        checked += 1
        shape: tuple[ShapeExtent, ...] = state.shape(value)
        for extent in shape:
            if not extent.is_exact or not extent.free_symbols <= _ALLOWED:
                bad.append(f"{where}: {[str(e) for e in shape]}")
                return

    def visit(op: ir.Operation) -> ir.WalkResult:
        for result in op.results:
            check(result, op.name)
        for region in op.regions:
            for block in region.blocks:
                for arg in block.arguments:
                    check(arg, f"{op.name} block argument")
        return ir.WalkResult.ADVANCE

    module.operation.walk(visit)
    return checked, bad


def _check_contract(text: str) -> str:
    """Runs the contract on the function: every obligation must be proven."""
    from symshape_mlir.contract import verify_contract

    module = ir.Module.parse(text)
    state = infer(module.operation, InferenceOptions())
    report = verify_contract(module.operation, state)
    open_ = [ob for ob in state.obligations if ob.status.name != "PROVEN"]
    if report.errors or open_:
        return f"{len(report.errors)} rejected, {len(open_)} left to run-time checks"
    return "every reshape proven"


def main(argv: list[str] | None = None) -> int:
    """Builds the function, times the walk and the pass, checks the result."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ops", type=int, default=10000, help="at least this many ops")
    parser.add_argument("--repeat", type=int, default=7, help="timed rounds")
    parser.add_argument("--profile", action="store_true", help="cProfile one pass run")
    args = parser.parse_args(argv)

    context = new_context()
    with context, ir.Location.unknown():
        base = _count_ops(ir.Module.parse(build_function(1)))[1]
        per_layer = _count_ops(ir.Module.parse(build_function(2)))[1] - base
        layers = max(1, 1 + -(-(args.ops - base) // per_layer))
        text = build_function(layers)
        module = ir.Module.parse(text)
        all_ops, ops = _count_ops(module)

        # Rounds interleave the measurements, so that load on the machine hits
        # them alike; ratios are taken within a round.
        rounds: dict[str, list[float]] = {
            "walk": [], "infer": [], "annotate": [], "pass": [], "pipeline": [], "verify": []}
        for _ in range(args.repeat):
            rounds["walk"].append(_timed(lambda: _bare_walk(module)))
            fresh = ir.Module.parse(text)
            states: list[InferenceState] = []
            rounds["infer"].append(
                _timed(lambda f=fresh, s=states: s.append(infer(f.operation))))
            rounds["annotate"].append(
                _timed(lambda f=fresh, s=states: annotate(f.operation, s[-1])))
            rounds["pass"].append(rounds["infer"][-1] + rounds["annotate"][-1])
            fresh = ir.Module.parse(text)
            rounds["pipeline"].append(_timed(
                lambda f=fresh: run_pipeline(f, "builtin.module(symshape-infer-shapes)")))
            rounds["verify"].append(_timed(lambda: module.operation.verify()))

        if args.profile:
            import cProfile
            import pstats

            fresh = ir.Module.parse(text)
            profiler = cProfile.Profile()
            profiler.enable()
            annotate(fresh.operation, infer(fresh.operation))
            profiler.disable()
            pstats.Stats(profiler).sort_stats("tottime").print_stats(25)

        checked, bad = _check_symbolic(module)
        contract = _check_contract(text)

    def ratio(name: str) -> float:
        return statistics.median(t / w for t, w in zip(rounds[name], rounds["walk"], strict=True))

    print(f"function: {layers} blocks, {ops} top-level ops ({per_layer} per block; "
          f"{all_ops} with linalg bodies), {args.repeat} rounds")
    print(f"{'':34s}{'best ms':>9s}{'median ms':>11s}{'ops/s':>10s}{'/ walk':>8s}")
    labels = {
        "walk": "bare walk reading op names",
        "infer": "inference",
        "annotate": "annotation",
        "pass": "symshape-infer-shapes (both)",
        "pipeline": "  as a pipeline, with verifier",
        "verify": "  MLIR verifier alone",
    }
    for name, label in labels.items():
        best, median = min(rounds[name]), statistics.median(rounds[name])
        print(f"{label:34s}{best * 1e3:9.1f}{median * 1e3:11.1f}{ops / median:10.0f}"
              f"{ratio(name):7.1f}x")
    per10k = statistics.median(rounds["pass"]) * 10000 / ops
    print(f"per 10k top-level ops: {per10k:.3f} s (goal < 0.3 s); pass / walk "
          f"{ratio('pass'):.1f}x")
    print(f"tensor values checked: {checked}; not exact over batch/seq: {len(bad)}")
    for line in bad[:10]:
        print("  " + line)
    print(f"contract: {contract}")
    sympy_used = "sympy" in sys.modules
    print(f"sympy imported: {sympy_used}")
    return 0 if not bad and contract == "every reshape proven" and not sympy_used else 1


if __name__ == "__main__":
    sys.exit(main())
