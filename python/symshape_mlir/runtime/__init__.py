"""The two-level runtime: compile a symshape module once, plan and run every call.

Level 1 (`compile`, once per module, target and flags; cached on disk)
captures each function's argument axes and result size expressions, then
builds one IREE module with dynamic shapes. Level 2 (every call, on the host)
checks the arguments, extracts the axis bindings, plans the result shapes
and picks a variant (an LRU of specializations; static variants ahead of
time with `Executable.pre_specialize` or in the background for hot
bindings).

Example:
    >>> from symshape_mlir import runtime
    >>> exe = runtime.compile("examples/mlp.mlir")
    >>> y = exe.mlp(x, w1, b1, w2)                      # numpy in, numpy out
    >>> exe.mlp.plan((32, 64), w1, b1, w2).shapes        # without running
    ((320,),)
    >>> exe.mlp(np.zeros((5, 64), np.float32), ...)     # wrong static extent
    SignatureError: argument 1 of @mlp must be tensor<64x128xf32>, got shape ...
"""

from symshape_mlir.runtime.capture import (
    ArgumentSizes,
    BufferSizes,
    FunctionSizes,
    ResultSizes,
    capture_module,
)
from symshape_mlir.runtime.diskcache import DiskCache, default_cache_dir
from symshape_mlir.runtime.entry import BoundFunction, EntryPoint
from symshape_mlir.runtime.errors import (
    AxisBindingError,
    PlanError,
    RuntimeCallError,
    SignatureError,
    UnplannableSizeError,
)
from symshape_mlir.runtime.executable import Executable, Stats, compile
from symshape_mlir.runtime.plan import Plan, make_plan
from symshape_mlir.runtime.variants import Specialization, Variants

__all__ = [
    "ArgumentSizes",
    "AxisBindingError",
    "BoundFunction",
    "BufferSizes",
    "DiskCache",
    "EntryPoint",
    "Executable",
    "FunctionSizes",
    "Plan",
    "PlanError",
    "ResultSizes",
    "RuntimeCallError",
    "SignatureError",
    "Specialization",
    "Stats",
    "UnplannableSizeError",
    "Variants",
    "capture_module",
    "compile",
    "default_cache_dir",
    "make_plan",
]
