"""Specialization LRU, static variants (ahead of time and hot tiers), disk cache, threads."""

from __future__ import annotations

import json
import logging
import subprocess
import sys
import threading
from pathlib import Path

import numpy as np
import pytest

from runtime_programs import ADD, MATMUL_FLAT
from symshape_mlir import runtime

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "mlp.mlir"


def _mlp_args(batch: int) -> tuple[np.ndarray, ...]:
    rng = np.random.default_rng(batch)
    return (
        rng.standard_normal((batch, 64), dtype=np.float32),
        rng.standard_normal((64, 128), dtype=np.float32) * 0.1,
        rng.standard_normal(128, dtype=np.float32),
        rng.standard_normal((128, 10), dtype=np.float32) * 0.1,
    )


def _mlp_ref(x: np.ndarray, w1: np.ndarray, b1: np.ndarray, w2: np.ndarray) -> np.ndarray:
    return (np.maximum(x @ w1 + b1, 0.0) @ w2).reshape(-1)


ATTENTION = Path(__file__).resolve().parents[2] / "test" / "e2e" / "attention.mlir"


def test_dynamic_data_tiling_follows_the_contractions(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """By default the dynamic module is data-tiled when each contraction has
    a static operand (the MLP's weights), and not when one contracts two
    activations (attention's scores: no failed tiled compile first); an
    explicit choice is kept."""
    mlp = runtime.compile(EXAMPLE, cache_dir=tmp_path, hot_after=None)
    assert "--iree-opt-data-tiling" in mlp.flags
    with caplog.at_level(logging.INFO, logger="symshape_mlir.runtime.executable"):
        attention = runtime.compile(ATTENTION, cache_dir=tmp_path, hot_after=None)
    assert "--iree-opt-data-tiling=false" in attention.flags
    assert not [r for r in caplog.records if "without data tiling" in r.getMessage()]
    untiled = runtime.compile(EXAMPLE, cache_dir=None, hot_after=None, data_tiling=False)
    assert "--iree-opt-data-tiling=false" in untiled.flags


def test_packed_data_tiling_follows_the_contractions(tmp_path: Path) -> None:
    """Packed modules are data-tiled (weights laid out at load time) unless
    they contract two activations; an operand is a weight when its shape is
    static or it is computed from packed parameters only; the static variant
    is judged on its source, before specialization makes every operand static."""
    rng = np.random.default_rng(0)
    attention = runtime.compile(ATTENTION, cache_dir=tmp_path / "attention", hot_after=None)
    attention.pre_specialize([{"batch": 2, "seq": 8}])
    weights = [rng.standard_normal((64, 64), dtype=np.float32) for _ in range(3)]
    attention.attention.bind_params(dict(enumerate(weights, 1)), packed=True)
    flags = [json.loads(p.read_text())["flags"] for p in (tmp_path / "attention").glob("*.json")]
    assert len(flags) == 4  # dynamic, static, packed dynamic, packed static
    assert all("--iree-opt-data-tiling=false" in f for f in flags)
    mlp = runtime.compile(EXAMPLE, cache_dir=tmp_path / "mlp", hot_after=None)
    mlp.pre_specialize([{"batch": 2}])
    _, w1, b1, w2 = _mlp_args(2)
    mlp.mlp.bind_params({1: w1, 2: b1, 3: w2}, packed=True)
    flags = [json.loads(p.read_text())["flags"] for p in (tmp_path / "mlp").glob("*.json")]
    assert sum("--iree-opt-data-tiling" in f for f in flags) == 3  # all but the static variant
    # A weight of dynamic shape is an activation to the unpacked module, a
    # weight once packed.
    mm = runtime.compile(MATMUL_FLAT, cache_dir=tmp_path / "mm", hot_after=None)
    assert "--iree-opt-data-tiling=false" in mm.flags
    mm.mm.bind_params({1: np.ones((4, 3), np.float32)}, packed=True)
    flags = [json.loads(p.read_text())["flags"] for p in (tmp_path / "mm").glob("*.json")]
    assert sorted("--iree-opt-data-tiling" in f for f in flags) == [False, True]


def test_lru_evicts_least_recent(tmp_path: Path) -> None:
    """With room for two bindings, a third evicts the least recently used."""
    exe = runtime.compile(ADD, cache_dir=tmp_path, cache_size=2, hot_after=None)
    for batch in (1, 2, 1, 3):
        a = np.ones((batch, 4), np.float32)
        exe(a, a)
    assert [key for key, _ in exe.add.specializations()] == [(1,), (3,)]
    stats = exe.stats()
    assert (stats["hits"], stats["misses"], stats["evictions"]) == (1, 3, 1)


def test_pre_specialization_is_used(tmp_path: Path) -> None:
    """pre_specialize compiles static variants that matching calls then use."""
    exe = runtime.compile(EXAMPLE, cache_dir=tmp_path, hot_after=None)
    exe.pre_specialize([{"batch": 1}, {"batch": 32}])
    for batch in (1, 32, 5):
        args = _mlp_args(batch)
        np.testing.assert_allclose(exe.mlp(*args), _mlp_ref(*args), rtol=1e-4, atol=1e-4)
    chosen = {key: spec.static for key, spec in exe.mlp.specializations()}
    assert chosen == {(1,): True, (32,): True, (5,): False}
    assert exe.stats()["variants"] == {"mlp": 2}


def test_hot_binding_swaps_bit_identical(tmp_path: Path) -> None:
    """A binding seen `hot_after` times gets a static variant; results stay bit-identical."""
    exe = runtime.compile(EXAMPLE, cache_dir=tmp_path, hot_after=3)
    args = _mlp_args(32)
    before = [exe.mlp(*args) for _ in range(3)]
    assert exe.wait(timeout=120)
    (spec,) = [s for _, s in exe.mlp.specializations()]
    assert spec.static
    after = exe.mlp(*args)
    assert exe.stats()["swaps"] == 1
    for result in before:
        assert result.tobytes() == after.tobytes()
    exe.close()


def test_tiers_off(tmp_path: Path) -> None:
    """hot_after=None never compiles a variant."""
    exe = runtime.compile(ADD, cache_dir=tmp_path, hot_after=None)
    a = np.ones((2, 4), np.float32)
    for _ in range(50):
        exe(a, a)
    assert exe.wait(timeout=1)
    assert exe.stats()["compiles"] == 1


_CHILD = """
import json, sys
import numpy as np
import pytest
from symshape_mlir import runtime
exe = runtime.compile(sys.argv[1], cache_dir=sys.argv[2], hot_after=None)
a = np.arange(12, dtype=np.float32).reshape(3, 4)
out = exe(a, a)
print(json.dumps({"stats": exe.stats(), "ok": bool((out == a + a).all())}))
"""


def test_two_processes_share_disk_cache(tmp_path: Path) -> None:
    """Two processes compiling one module at once: one compiles, the other reads its artifact."""
    source = tmp_path / "add.mlir"
    source.write_text(ADD)
    cache = tmp_path / "cache"
    children = [
        subprocess.Popen(
            [sys.executable, "-c", _CHILD, str(source), str(cache)],
            stdout=subprocess.PIPE,
            text=True,
        )
        for _ in range(2)
    ]
    reports = [json.loads(child.communicate(timeout=300)[0]) for child in children]
    assert all(report["ok"] for report in reports)
    stats = [report["stats"] for report in reports]
    assert sorted((s["disk_hits"], s["disk_misses"]) for s in stats) == [(0, 1), (1, 0)]
    assert sum(s["compiles"] for s in stats) == 1
    again = runtime.compile(source, cache_dir=cache, hot_after=None)
    assert again.stats()["disk_hits"] == 1


def test_threads_share_one_executable(tmp_path: Path) -> None:
    """Several threads calling one executable at different batch sizes all get numpy's result."""
    exe = runtime.compile(ADD, cache_dir=tmp_path, cache_size=3, hot_after=None)
    failures: list[str] = []

    def worker(seed: int) -> None:
        rng = np.random.default_rng(seed)
        for _ in range(40):
            batch = int(rng.integers(0, 6))
            a = rng.standard_normal((batch, 4)).astype(np.float32)
            b = rng.standard_normal((batch, 4)).astype(np.float32)
            if not np.array_equal(exe(a, b), a + b):
                failures.append(f"thread {seed} batch {batch}")

    threads = [threading.Thread(target=worker, args=(seed,)) for seed in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert failures == []
    stats = exe.stats()
    assert stats["hits"] + stats["misses"] == 160


def test_static_variants_get_the_targets_static_flags(tmp_path: Path) -> None:
    """Static variants are compiled with the target's flags for static shapes (vector
    loops peeled and workgroup tiles of 16 on llvm-cpu), the dynamic module without
    them; a flag the caller sets itself is not given twice (iree-compile refuses a
    repeated option)."""
    peel = "--iree-llvmcpu-vector-pproc-strategy"
    for flags, expected in (((), f"{peel}=peel"), ((f"{peel}=mask",), f"{peel}=mask")):
        cache = tmp_path / expected.rsplit("=", 1)[1]
        exe = runtime.compile(EXAMPLE, cache_dir=cache, hot_after=None, flags=flags)
        exe.pre_specialize([{"batch": 3}])
        x, w1, b1, w2 = _mlp_args(3)
        np.testing.assert_allclose(exe.mlp(x, w1, b1, w2), _mlp_ref(x, w1, b1, w2), rtol=1e-5)
        recorded = [json.loads(p.read_text())["flags"] for p in cache.glob("*.json")]
        assert sorted(sum(f.startswith(peel) for f in r) for r in recorded) == [
            len(flags), 1]
        assert all(expected in r for r in recorded if any(f.startswith(peel) for f in r))
        assert sorted(sum(f == "--iree-llvmcpu-distribution-size=16" for f in r)
                      for r in recorded) == [0, 1]


def _conv_model(*, weights_as_input: bool = False, scores: bool = False) -> str:
    """``Conv`` of ``x: [batch, 3, h, w]`` by 1x1 kernels (an initializer, or an
    input), then with ``scores`` the product of the result with its transpose
    (a batch matmul of two activations, as attention's scores)."""
    from onnx import TensorProto, helper, numpy_helper

    from symshape_mlir.onnx import trace_model

    kernel = numpy_helper.from_array(np.full((4, 3, 1, 1), 0.5, np.float32), "W")
    inputs = [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 3, "h", "w"])]
    if weights_as_input:
        inputs.append(helper.make_tensor_value_info("W", TensorProto.FLOAT, [4, 3, 1, 1]))
    nodes = [helper.make_node("Conv", ["x", "W"], ["c"])]
    if scores:
        nodes += [helper.make_node("Transpose", ["c"], ["t"], perm=[0, 1, 3, 2]),
                  helper.make_node("MatMul", ["c", "t"], ["y"])]
    else:
        nodes.append(helper.make_node("Relu", ["c"], ["y"]))
    graph = helper.make_graph(nodes, "g", inputs,
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
                              [] if weights_as_input else [kernel])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 22)])
    model.ir_version = 10
    return trace_model(model).module_text


def _static_tiling(module: str, cache: Path, binding: dict[str, int],
                   **options: bool | None) -> bool:
    """Whether the static variant of ``module`` at ``binding`` was compiled with data tiling."""
    exe = runtime.compile(module, cache_dir=cache, hot_after=None, **options)
    exe.pre_specialize([binding])
    # The dynamic module's record alone has the sizes of its functions.
    records = [json.loads(p.read_text()) for p in cache.glob("*.json")]
    flags = [r["flags"] for r in records if "functions" not in r]
    assert len(records) == 2 and len(flags) == 1
    tiled = {"--iree-opt-data-tiling": True, "--iree-opt-data-tiling=false": False}
    (choice,) = {tiled[flag] for flag in flags[0] if flag in tiled}
    return choice


@pytest.mark.parametrize(
    ("model", "expected"),
    [
        pytest.param({}, True, id="constant_kernels"),
        pytest.param({"scores": True}, False, id="constant_kernels_and_scores"),
        pytest.param({"weights_as_input": True}, False, id="kernels_as_arguments"),
    ],
)
def test_static_data_tiling_follows_the_module(tmp_path: Path, model: dict[str, bool],
                                               expected: bool) -> None:
    """Left to the runtime, a static variant is data-tiled when the module
    convolves with constant kernels and multiplies no two activations; the
    caller's True or False wins; numerics are the same either way."""
    module = _conv_model(**model)
    binding = {"batch": 2, "h": 5, "w": 5}
    assert _static_tiling(module, tmp_path / "rule", binding) is expected
    for choice in (True, False):
        assert _static_tiling(module, tmp_path / str(choice), binding,
                              static_data_tiling=choice) is choice
    exe = runtime.compile(module, cache_dir=tmp_path / "rule", hot_after=None)
    exe.pre_specialize([binding])
    rng = np.random.default_rng(0)
    x = rng.standard_normal((2, 3, 5, 5), dtype=np.float32)
    args = [x] + ([np.full((4, 3, 1, 1), 0.5, np.float32)] if model.get("weights_as_input")
                  else [])
    c = np.einsum("nchw,fc->nfhw", x, np.full((4, 3), 0.5, np.float32))
    expected_y = c @ c.transpose(0, 1, 3, 2) if model.get("scores") else np.maximum(c, 0.0)
    np.testing.assert_allclose(exe.main(*args), expected_y, rtol=1e-5, atol=1e-5)
    assert exe.stats()["variants"] == {"main": 1}


def _weighted_mlp(*, scores: bool = False) -> str:
    """``x: [batch, 256]`` through two linear layers with constant weights
    (256 -> 1024 -> 256, 512 K multiply-adds per row), then with ``scores``
    the rows' products with each other (``batch * batch * 256``)."""
    from onnx import TensorProto, helper, numpy_helper

    from symshape_mlir.onnx import trace_model

    rng = np.random.default_rng(0)
    w1, w2 = (numpy_helper.from_array(
        (rng.standard_normal(shape) * 0.05).astype(np.float32), name)
        for name, shape in (("W1", (256, 1024)), ("W2", (1024, 256))))
    nodes = [helper.make_node("MatMul", ["x", "W1"], ["h"]),
             helper.make_node("Relu", ["h"], ["r"]),
             helper.make_node("MatMul", ["r", "W2"], ["y" if not scores else "o"])]
    if scores:
        nodes += [helper.make_node("Transpose", ["o"], ["t"], perm=[1, 0]),
                  helper.make_node("MatMul", ["o", "t"], ["y"])]
    graph = helper.make_graph(
        nodes, "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 256])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)], [w1, w2])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 22)])
    model.ir_version = 10
    return trace_model(model).module_text


@pytest.mark.parametrize(
    ("batch", "scores", "expected"),
    [
        pytest.param(128, False, True, id="weights_do_67M"),
        pytest.param(4, False, False, id="weights_do_2M"),
        pytest.param(512, True, False, id="weights_do_80_percent"),
    ],
)
def test_static_data_tiling_follows_the_work(tmp_path: Path, batch: int, scores: bool,
                                             expected: bool) -> None:
    """Left to the runtime, a static variant whose constant weights do at least
    `TILED_WORK` multiply-adds and `TILED_SHARE` of all contractions' is
    data-tiled, whatever else it contracts: a size the dynamic module cannot
    tell, judged per binding."""
    from symshape_mlir.runtime.tiling import TILED_SHARE, TILED_WORK

    weighted, other = batch * 512 * 1024, batch * batch * 256 if scores else 0
    assert (weighted >= TILED_WORK and weighted >= TILED_SHARE * (weighted + other)) is expected
    module = _weighted_mlp(scores=scores)
    assert _static_tiling(module, tmp_path, {"batch": batch}) is expected


def test_contraction_work_counts_loops_and_constant_operands() -> None:
    """Multiply-adds per contraction from its loop ranges (transposed maps
    too), split by whether an operand is computed from constants only; a
    ``linalg.generic`` that reads an argument from above in its body (a
    gather) is not constant; a dynamic size gives None."""
    from mlir import ir

    from symshape_mlir.context import new_context
    from symshape_mlir.runtime.tiling import contraction_work

    text = """
    #lhs = affine_map<(m, n, k) -> (m, k)>
    #rhs_t = affine_map<(m, n, k) -> (n, k)>
    #out = affine_map<(m, n, k) -> (m, n)>
    #row = affine_map<(i, j) -> (i, j)>
    func.func @f(%x: tensor<8x16xf32>, %ids: tensor<8xindex>, %q: tensor<2x8x4xf32>,
                 %k: tensor<2x4x8xf32>) -> (tensor<8x32xf32>, tensor<2x8x8xf32>,
                                            tensor<8x32xf32>) {
      %w = arith.constant dense<1.0> : tensor<16x32xf32>
      %wt = arith.constant dense<1.0> : tensor<32x16xf32>
      %table = arith.constant dense<2.0> : tensor<100x16xf32>
      %zero = arith.constant 0.0 : f32
      %e = tensor.empty() : tensor<8x32xf32>
      %z = linalg.fill ins(%zero : f32) outs(%e : tensor<8x32xf32>) -> tensor<8x32xf32>
      %y = linalg.matmul ins(%x, %w : tensor<8x16xf32>, tensor<16x32xf32>)
             outs(%z : tensor<8x32xf32>) -> tensor<8x32xf32>
      %e2 = tensor.empty() : tensor<2x8x8xf32>
      %s = linalg.batch_matmul ins(%q, %k : tensor<2x8x4xf32>, tensor<2x4x8xf32>)
             outs(%e2 : tensor<2x8x8xf32>) -> tensor<2x8x8xf32>
      %ge = tensor.empty() : tensor<8x16xf32>
      %g = linalg.generic {indexing_maps = [#row], iterator_types = ["parallel", "parallel"]}
             outs(%ge : tensor<8x16xf32>) {
      ^bb0(%o: f32):
        %i = linalg.index 0 : index
        %j = linalg.index 1 : index
        %id = tensor.extract %ids[%i] : tensor<8xindex>
        %v = tensor.extract %table[%id, %j] : tensor<100x16xf32>
        linalg.yield %v : f32
      } -> tensor<8x16xf32>
      %t = linalg.matmul indexing_maps = [#lhs, #rhs_t, #out]
             ins(%g, %wt : tensor<8x16xf32>, tensor<32x16xf32>)
             outs(%z : tensor<8x32xf32>) -> tensor<8x32xf32>
      return %y, %s, %t : tensor<8x32xf32>, tensor<2x8x8xf32>, tensor<8x32xf32>
    }
    """
    with new_context():
        module = ir.Module.parse(text)
        assert contraction_work(module) == (2 * 8 * 32 * 16, 2 * 8 * 8 * 4)
        dynamic = ir.Module.parse("""
        func.func @f(%x: tensor<?x16xf32>, %z: tensor<?x32xf32>) -> tensor<?x32xf32> {
          %w = arith.constant dense<1.0> : tensor<16x32xf32>
          %y = linalg.matmul ins(%x, %w : tensor<?x16xf32>, tensor<16x32xf32>)
                 outs(%z : tensor<?x32xf32>) -> tensor<?x32xf32>
          return %y : tensor<?x32xf32>
        }""")
        assert contraction_work(dynamic) is None
