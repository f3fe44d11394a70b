"""Child-process side of the bad-input fuzzer: runs one case, reports one JSON line.

Run as ``python bad_input_child.py MODE CASE_JSON_FILE``. The last stdout line
is ``@@RESULT <json>`` with at least ``outcome``:

* ``"ok"`` — behaved as required;
* ``"wrong"`` — a result disagreeing with the oracle, or invalid input
  accepted silently (``detail`` says what);
* ``"raw"`` — an exception that is not one of the project's structured errors
  escaped (``type``, ``message``; the traceback is on stderr);
* ``"unlocated"`` — a structured runtime failure without a source location.

A crash (signal) or a hang leaves no result line: the parent classifies those
from the exit status and the timeout. Modes:

* ``algebra`` — the extent algebra API (parse, evaluate, serialize);
* ``dialect`` — one expression text through both the Python parser and the
  C++ ``#symshape.expr<...>`` attribute parser (in this process, as a Python
  user would), comparing the two;
* ``runtime`` — a call into the compiled runtime seed program;
* ``compile`` — builds the runtime seed program's vmfb (setup, not a case).
"""

from __future__ import annotations

import json
import logging
import random
import sys
import traceback
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

__all__ = ["main"]

logger = logging.getLogger(__name__)

sys.setrecursionlimit(max(sys.getrecursionlimit(), 1000))
INT64_MIN = -(2**63)
INT64_MAX = 2**63 - 1


def _report(result: Mapping[str, Any]) -> None:
    sys.stdout.write("\n@@RESULT " + json.dumps(result, default=str) + "\n")
    sys.stdout.flush()


def _structured(exc: BaseException) -> bool:
    """Whether ``exc`` is one of the project's errors or an MLIR diagnostic."""
    for cls in type(exc).__mro__:
        module = cls.__module__ or ""
        if module.startswith("symshape_mlir") or module.startswith("passes"):
            return True
        if cls.__name__ == "MLIRError" and module.startswith("mlir"):
            return True
    return False


def _raw(exc: BaseException) -> dict[str, Any]:
    traceback.print_exception(exc)
    return {"outcome": "raw", "type": type(exc).__name__, "message": str(exc)[:500]}


# --------------------------------------------------------------------------- algebra


def _ref_eval(tree: Any, env: Mapping[str, int], flags: dict[str, bool]) -> int | None:
    """Reference value of a generator tree (None after a division by zero).

    Sets ``flags["overflow"]`` when an intermediate leaves int64 and
    ``flags["divzero"]`` on a zero divisor.
    """
    if isinstance(tree, int):
        value = tree
    elif isinstance(tree, str):
        value = env[tree]
    else:
        op, *kids = tree
        vals = [_ref_eval(k, env, flags) for k in kids]
        if any(v is None for v in vals):
            return None
        a, b = vals[0], vals[1]
        assert a is not None and b is not None
        if op in ("floordiv", "ceildiv", "mod") and b == 0:
            flags["divzero"] = True
            return None
        value = {
            "+": lambda: a + b,
            "-": lambda: a - b,
            "*": lambda: a * b,
            "floordiv": lambda: a // b,
            "ceildiv": lambda: -((-a) // b),
            "mod": lambda: a % b,
            "min": lambda: min(a, b),
            "max": lambda: max(a, b),
        }[op]()
    if not INT64_MIN <= value <= INT64_MAX:
        flags["overflow"] = True
    return value


def _algebra(case: Mapping[str, Any]) -> dict[str, Any]:
    from symshape_mlir.extent import parse_expr
    from symshape_mlir.extent.serialize import dumps, from_postorder, loads

    op = case["op"]
    try:
        if op == "parse":
            text = case["text"]
            expr = parse_expr(text)
            if case.get("expect_reject"):
                return {
                    "outcome": "wrong",
                    "detail": f"accepted invalid text ({case['why']}) as {str(expr)[:200]!r}",
                }
            printed = str(expr)
            again = parse_expr(printed)
            if again != expr:
                return {
                    "outcome": "wrong",
                    "detail": f"print/parse round trip changed {printed[:200]!r}",
                }
            if loads(dumps(expr)) != expr:
                return {
                    "outcome": "wrong",
                    "detail": "dumps/loads round trip changed the expression",
                }
            return {"outcome": "ok"}
        if op == "evaluate":
            expr = parse_expr(case["text"])
            env = {k: int(v) for k, v in case["bindings"].items()}
            flags: dict[str, bool] = {}
            ref = _ref_eval(case["tree"], env, flags)
            try:
                got = expr.evaluate(env)
            except Exception as exc:
                if not _structured(exc):
                    return _raw(exc)
                if flags.get("divzero") or flags.get("overflow") or (ref is not None and ref < 0):
                    return {"outcome": "ok"}
                if type(exc).__name__ == "RangeViolationError" and any(v < 0 for v in env.values()):
                    return {"outcome": "ok"}
                return {
                    "outcome": "wrong",
                    "detail": f"{type(exc).__name__}: {exc} for a valid binding (reference {ref})",
                }
            if ref is None:
                return {"outcome": "ok"}  # the division by zero was simplified away
            if not INT64_MIN <= got <= INT64_MAX:
                return {
                    "outcome": "wrong",
                    "detail": f"returned {got}, outside int64 (no ExtentOverflowError)",
                }
            if got != ref and not (flags.get("overflow") and not INT64_MIN <= ref <= INT64_MAX):
                return {"outcome": "wrong", "detail": f"evaluated to {got}, reference {ref}"}
            return {"outcome": "ok"}
        if op == "loads":
            expr = loads(case["text"])
            if loads(dumps(expr)) != expr:
                return {"outcome": "wrong", "detail": "loads(garbage) does not round-trip"}
            return {"outcome": "ok"}
        if op == "postorder":
            expr = from_postorder(case["nodes"])
            if loads(dumps(expr)) != expr:
                return {"outcome": "wrong", "detail": "from_postorder(garbage) does not round-trip"}
            return {"outcome": "ok"}
        raise AssertionError(op)
    except Exception as exc:
        if _structured(exc):
            return {"outcome": "ok", "error": f"{type(exc).__name__}: {str(exc)[:200]}"}
        return _raw(exc)


# --------------------------------------------------------------------------- dialect

_LIMIT_WORDS = ("deep", "nest", "too large", "too long", "limit", "exceed", "more than")


def _dialect(case: Mapping[str, Any]) -> dict[str, Any]:
    from mlir import ir

    from symshape_mlir.context import new_context
    from symshape_mlir.extent import parse_expr

    text = case["text"]
    py_expr = None
    py_error = None
    try:
        py_expr = parse_expr(text)
    except Exception as exc:
        if not _structured(exc):
            return _raw(exc)
        py_error = f"{type(exc).__name__}: {exc}"
    cpp_body = None
    cpp_error = None
    source = f"func.func private @f() attributes {{e = #symshape.expr<{text}>}}\n"
    with new_context():
        try:
            module = ir.Module.parse(source)
            attr = str(module.body.operations[0].attributes["e"])
            cpp_body = attr[len("#symshape.expr<") : -1]
        except Exception as exc:
            if not _structured(exc):
                return _raw(exc)
            cpp_error = f"{type(exc).__name__}: {exc}"
    if case.get("expect_reject") and (py_error is None or cpp_error is None):
        who = " and ".join(n for n, e in (("Python", py_error), ("C++", cpp_error)) if e is None)
        return {"outcome": "wrong", "detail": f"{who} accepted invalid text ({case['why']})"}
    if (py_error is None) != (cpp_error is None):
        err = (py_error or cpp_error or "").lower()
        if any(w in err for w in _LIMIT_WORDS):
            return {"outcome": "ok", "error": err[:200]}
        accepted = "Python" if py_error is None else "C++"
        return {
            "outcome": "wrong",
            "detail": f"grammars disagree: only {accepted} accepts it; "
            f"other says {(py_error or cpp_error or '')[:200]}",
        }
    if py_expr is not None and cpp_body is not None:
        try:
            cpp_expr = parse_expr(cpp_body)
        except Exception as exc:
            return {
                "outcome": "wrong",
                "detail": f"C++ printed {cpp_body[:200]!r}, which Python rejects: {exc}",
            }
        if cpp_expr != py_expr and not _same_values(py_expr, cpp_expr):
            return {
                "outcome": "wrong",
                "detail": f"C++ reads it as {cpp_body[:200]!r}, Python as {str(py_expr)[:200]!r}",
            }
    return {"outcome": "ok"}


def _same_values(a: Any, b: Any) -> bool:
    rng = random.Random(0)
    names = sorted({str(n) for n in a.free_symbols} | {str(n) for n in b.free_symbols})
    for _ in range(4):
        env = {n: rng.randint(0, 50) for n in names}
        dims: Callable[[int, int], int] = lambda i, ax: 3 + i + ax  # noqa: E731
        scalars: Callable[[int], int] = lambda i: 5 + i  # noqa: E731
        try:
            va = a.evaluate(env, dims=dims, scalars=scalars)
        except Exception:
            va = "error"
        try:
            vb = b.evaluate(env, dims=dims, scalars=scalars)
        except Exception:
            vb = "error"
        if va != vb:
            return False
    return True


# --------------------------------------------------------------------------- runtime


def _build_arg(spec: Mapping[str, Any]) -> Any:
    import numpy as np

    t = spec["t"]
    if t == "arr":
        shape = tuple(spec["shape"])
        size = int(np.prod(shape)) if shape else 1
        return (np.arange(size) % 7 + 0.5).astype(spec["dtype"]).reshape(shape)
    if t == "arr0":
        return np.array(int(spec["v"]), dtype=spec["dtype"])
    if t == "int":
        return int(spec["v"])
    if t == "npint":
        return getattr(np, spec["dtype"])(int(spec["v"]))
    if t == "float":
        return float(spec["v"])
    if t == "str":
        return str(spec["v"])
    if t == "bool":
        return bool(spec["v"])
    if t == "none":
        return None
    if t == "list":
        return list(spec["v"])
    raise AssertionError(t)


def _runtime(case: Mapping[str, Any]) -> dict[str, Any]:
    import re

    import numpy as np

    from bad_input_programs import ORACLES
    from symshape_mlir import backend

    compiled = backend.CompiledModule(Path(case["vmfb"]).read_bytes(), "llvm-cpu", ())
    module = backend.load(compiled, "local-sync")
    fn = case["function"]
    args = [_build_arg(s) for s in case["args"]]
    expect = ORACLES[fn](args)
    try:
        got = module.invoke(fn, *args)
    except Exception as exc:
        if not _structured(exc):
            return _raw(exc)
        message = str(exc)
        if expect.must_raise is None and not expect.may_raise:
            return {
                "outcome": "wrong",
                "detail": f"{type(exc).__name__} on a valid call: {message[:300]}",
            }
        if (
            type(exc).__name__ == "RuntimeCallError"
            and expect.located
            and not re.search(r"\.mlir:\d+:\d+", message)
            # Running out of memory for a huge but valid size is a clean failure.
            and "RESOURCE_EXHAUSTED" not in message
        ):
            return {
                "outcome": "unlocated",
                "detail": f"RuntimeCallError without a source location: {message[:300]}",
            }
        return {"outcome": "ok", "error": f"{type(exc).__name__}: {message[:200]}"}
    if expect.must_raise is not None:
        return {
            "outcome": "wrong",
            "detail": f"returned {_short(got)} for invalid input ({expect.must_raise})",
        }
    want = expect.value
    if isinstance(want, np.ndarray):
        same = isinstance(got, np.ndarray) and got.shape == want.shape and np.allclose(got, want)
    else:
        same = int(got) == int(want)
    if not same:
        return {"outcome": "wrong", "detail": f"returned {_short(got)}, numpy says {_short(want)}"}
    # The module must stay usable after the call.
    return {"outcome": "ok"}


def _short(value: Any) -> str:
    shape = getattr(value, "shape", None)
    text = repr(value)
    if len(text) > 120:
        text = text[:120] + "..."
    return f"{text} (shape {shape})" if shape is not None else text


def _compile(case: Mapping[str, Any]) -> dict[str, Any]:
    import subprocess

    from bad_input_programs import RUNTIME_PASSES, RUNTIME_SOURCE
    from symshape_mlir import backend

    opt = Path(sys.executable).with_name("symshape-opt")
    # A real file name, so runtime check messages carry `runtime_seed.mlir:L:C`.
    source = Path(case["vmfb"]).with_name("runtime_seed.mlir")
    source.write_text(RUNTIME_SOURCE, encoding="utf-8")
    proc = subprocess.run(
        [str(opt), *RUNTIME_PASSES, str(source)],
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )
    if proc.returncode != 0:
        return {"outcome": "setup-failed", "detail": proc.stderr[-2000:]}
    compiled = backend.compile_module(proc.stdout, "llvm-cpu", timeout=300)
    Path(case["vmfb"]).write_bytes(compiled.vmfb)
    return {"outcome": "ok"}


MODES: dict[str, Callable[[Mapping[str, Any]], dict[str, Any]]] = {
    "algebra": _algebra,
    "dialect": _dialect,
    "runtime": _runtime,
    "compile": _compile,
}


def main(argv: list[str]) -> int:
    """Runs one case; see the module docstring."""
    mode, case_file = argv
    case = json.loads(Path(case_file).read_text(encoding="utf-8"))
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    _report(MODES[mode](case))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
