"""``test/gpu/bundle.py``: a bundle made here runs with only IREE's runtime.

The GPU machine has no MLIR bindings; the bundle's runner imports only
``symshape_mlir.backend``. Here it runs on Vulkan (lavapipe), the bundle's
other target, in a process whose ``sys.modules`` has no MLIR.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from driver_support import require_driver

BUNDLE = Path(__file__).resolve().parents[1] / "gpu" / "bundle.py"


def _bundle(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(BUNDLE), *args], capture_output=True, text=True,
                          check=False, timeout=600)


def test_bundle_runs_without_mlir(tmp_path: Path) -> None:
    """Two programs (one with a binding Vulkan cannot bind) compiled here,
    run by the runner: numpy's results, the known failure as an xfail."""
    require_driver("vulkan")
    made = _bundle("make", str(tmp_path / "b"), "--programs", "mlp", "insert_truncated_rows",
                   "--models", "none")
    assert made.returncode == 0, made.stderr
    manifest = json.loads((tmp_path / "b" / "manifest.json").read_text())
    assert [e["name"] for e in manifest] == ["mlp", "insert_truncated_rows"]
    assert all(set(e["modules"]) == {"cuda", "vulkan"} for e in manifest)

    ran = _bundle("run", str(tmp_path / "b"), str(tmp_path / "out"))
    assert ran.returncode == 0, ran.stdout + ran.stderr
    results = json.loads((tmp_path / "out" / "results.json").read_text())
    statuses = sorted((r["name"], r["status"]) for r in results if r["target"] == "vulkan")
    assert statuses == sorted([("mlp", "ok")] * 3 + [("insert_truncated_rows", "ok")] * 3
                              + [("insert_truncated_rows", "xfail")])
    assert ran.stdout.rstrip().endswith("0 failures")


def test_runner_imports_no_mlir() -> None:
    """The runner's backend import pulls in neither MLIR nor the rest of the package."""
    probe = (f"import sys; sys.path.insert(0, {str(BUNDLE.parent)!r}); import bundle; "
             "backend = bundle._backend(); backend.get_target('cuda'); "
             "print(sorted(m for m in sys.modules if m.split('.')[0] in "
             "('mlir', 'symshape_mlir') and not m.startswith('symshape_mlir.backend')))")
    proc = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                          check=True, timeout=120)
    assert proc.stdout.strip() == "['symshape_mlir']"
