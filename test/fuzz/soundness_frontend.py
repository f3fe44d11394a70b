"""The compiler side of one fuzz program, run in a child process (see `soundness_child`).

For a program text it runs, in-process with the MLIR Python bindings:

* ``symshape-infer-shapes`` then ``symshape-verify-contract`` (``mode=reject``):
  the verdict, the rejection diagnostics, and the ``symshape.shape`` claims on
  every returned value (read from the annotated IR);
* for an accepted program, ``symshape-to-iree`` (the module to compile);
* for ``mode=defer``: infer, verify (defer), resolve (IREE), canonicalize, cse;
  and how many of the program's requirements hold without a run-time check
  (the precision measure).

A pass that raises anything but a pipeline error is reported as an internal
error (its traceback), never swallowed.
"""

from __future__ import annotations

import dataclasses
import logging
import re
import traceback
from typing import Any

__all__ = ["FrontendResult", "handle", "merge_modules", "setup"]

logger = logging.getLogger(__name__)

INFER = "builtin.module(symshape-infer-shapes)"
INFER_VERIFY = "builtin.module(symshape-infer-shapes,symshape-verify-contract)"
TO_IREE = "builtin.module(symshape-to-iree)"
DEFER = (
    "builtin.module(symshape-infer-shapes,symshape-verify-contract{mode=defer},"
    "symshape-resolve{target=iree},canonicalize,cse)"
)


@dataclasses.dataclass
class FrontendResult:
    """What the passes said about one program.

    Attributes:
        verdict: ``accepted``, ``rejected`` or ``error`` (internal error).
        diagnostics: ``(line, message)`` of each error diagnostic.
        claims: Per returned value, the ``symshape.shape`` text (or None).
        resolved: The module after ``symshape-to-iree`` (or the defer
            pipeline), or None.
        error: The internal error or resolve failure, if any.
        requirements: In defer mode, the requirements the ops made.
        static: In defer mode, how many of them need no run-time check.
        bounds: Per ``symshape.bound`` of the function, in order, the value
            inference gives it as resolve computes it: its expression and,
            per symbol, the argument axis ``(argument, axis)`` that gives
            it; None where it is the axis size itself.
    """

    verdict: str
    diagnostics: list[tuple[int | None, str]] = dataclasses.field(default_factory=list)
    claims: list[str | None] = dataclasses.field(default_factory=list)
    resolved: str | None = None
    error: str | None = None
    requirements: int = 0
    static: int = 0
    bounds: list[tuple[str, dict[str, tuple[int, int]]] | None] = dataclasses.field(
        default_factory=list
    )


def setup(_: Any) -> Any:
    """Imports the bindings once per child."""
    from mlir import ir  # noqa: F401

    import symshape_mlir  # noqa: F401

    return None


def _run(text: str, pipeline: str) -> tuple[Any, Any]:
    """Parses and runs a pipeline: (module, None) or (None, error); the error
    is the verifier's (an ``MLIRError``: the dialect's own checks reject the
    program, e.g. a constant reshape that changes the element count) or the
    pipeline's."""
    from mlir import ir

    from symshape_mlir.passes import run_pipeline
    from symshape_mlir.pipeline import PipelineError

    try:
        module = ir.Module.parse(text)
    except ir.MLIRError as error:
        return None, error
    try:
        run_pipeline(module, pipeline)
    except PipelineError as error:
        return None, error
    return module, None


def _diagnostics(error: Any) -> list[tuple[int | None, str]]:
    out = []
    found = getattr(error, "errors", None) or getattr(error, "diagnostics", None)
    for d in found or getattr(error, "error_diagnostics", []):
        loc = getattr(d, "location", None)
        line = getattr(loc, "line", None)
        if line is None and loc is not None:  # an ir.Location: loc("-":19:11)
            found_line = re.search(r":(\d+):\d+", str(loc))
            line = int(found_line.group(1)) if found_line else None
        out.append((line, str(getattr(d, "message", d))))
    if not out:
        out.append((None, str(error)))
    return out


def _requirements(text: str) -> tuple[int, int]:
    """The requirements of a program and how many hold without a run-time
    check in defer mode ((0, 0) when inference fails)."""
    from mlir import ir

    from symshape_mlir.contract import verify_contract
    from symshape_mlir.inference import InferenceError, infer

    try:
        module = ir.Module.parse(text)
        report = verify_contract(module.operation, infer(module.operation), "defer")
    except (ir.MLIRError, InferenceError):
        return 0, 0
    return report.requirements, report.static


def _bounds(text: str, fname: str) -> list[tuple[str, dict[str, tuple[int, int]]] | None]:
    """What each ``symshape.bound`` of @fname evaluates to (see `FrontendResult.bounds`)."""
    from mlir import ir

    from symshape_mlir.extent import Exact
    from symshape_mlir.inference import InferenceError, infer
    from symshape_mlir.walk import collect_ops

    try:
        module = ir.Module.parse(text)
        state = infer(module.operation)
    except (ir.MLIRError, InferenceError):
        return []
    func = next(op for op in collect_ops(module.operation, lambda o: o.name == "func.func")
                if ir.StringAttr(op.attributes["sym_name"]).value == fname)
    arguments = list(func.regions[0].blocks[0].arguments)
    axes = state.argument_axes(func)
    out: list[tuple[str, dict[str, tuple[int, int]]] | None] = []
    for op in collect_ops(func, lambda o: o.name == "symshape.bound"):
        value = state.defined_facts(op.results[0]).value
        if isinstance(value, Exact) and value.expr.free_symbols <= axes.keys():
            sources = {s: (arguments.index(axes[s][0]), axes[s][1])
                       for s in value.expr.free_symbols}
            out.append((str(value.expr), sources))
        else:
            out.append(None)
    return out


def _claims(module: Any, fname: str) -> list[str | None]:
    for op in module.body.operations:
        if op.operation.name != "func.func":
            continue
        if str(op.attributes["sym_name"]).strip('"') != fname:
            continue
        block = op.regions[0].blocks[0]
        ret = list(block.operations)[-1]
        claims: list[str | None] = []
        for operand in ret.operands:
            owner = operand.owner
            attrs = getattr(owner, "attributes", None)
            if attrs is not None and "symshape.shape" in attrs:
                claims.append(str(attrs["symshape.shape"]))
            else:
                claims.append(None)
        return claims
    return []


def handle(_: Any, job: tuple[str, str, str]) -> FrontendResult:
    """Runs the passes for ``(function name, module text, mode)``; mode is reject or defer."""
    import symshape_mlir

    fname, text, mode = job
    try:
        with symshape_mlir.new_context():
            module, error = _run(text, INFER_VERIFY)
            if error is None:
                result = FrontendResult("accepted", claims=_claims(module, fname))
                result.bounds = _bounds(text, fname)
            else:
                result = FrontendResult("rejected", diagnostics=_diagnostics(error))
                annotated, _ = _run(text, INFER)
                if annotated is not None:
                    result.claims = _claims(annotated, fname)
            pipeline = TO_IREE if mode == "reject" else DEFER
            if mode == "reject" and result.verdict == "rejected":
                return result
            if mode == "defer":
                result.requirements, result.static = _requirements(text)
                result.bounds = _bounds(text, fname)
            resolved, error = _run(text, pipeline)
            if resolved is None:
                result.error = "; ".join(m for _, m in _diagnostics(error))
            else:
                result.resolved = str(resolved)
            return result
    except Exception:
        return FrontendResult("error", error=traceback.format_exc(limit=6))


_ALIAS = re.compile(r"^([#!])([\w.$-]+) = (.*)$")


def merge_modules(texts: dict[str, str]) -> str:
    """Merges resolved modules (one per program) into one module text.

    Attribute and type aliases (``#map = ...``) are renamed per program so
    that they cannot collide.
    """
    body: list[str] = []
    aliases: list[str] = []
    for prefix, text in texts.items():
        lines = text.splitlines()
        renames: dict[str, str] = {}
        start = 0
        for i, line in enumerate(lines):
            match = _ALIAS.match(line)
            if match:
                renames[match[1] + match[2]] = f"{match[1]}{prefix}_{match[2]}"
                continue
            if line.startswith("module"):
                start = i + 1
                break
        end = max(i for i, line in enumerate(lines) if line.startswith("}"))
        pattern = (
            re.compile(
                "|".join(
                    re.escape(k) + r"(?![\w.$-])" for k in sorted(renames, key=len, reverse=True)
                )
            )
            if renames
            else None
        )

        def rename(
            line: str, pattern: re.Pattern[str] | None = pattern, renames: dict[str, str] = renames
        ) -> str:
            if pattern is None:
                return line
            return pattern.sub(lambda m: renames[m[0]], line)

        for line in lines[: start - 1]:
            if _ALIAS.match(line):
                aliases.append(rename(line))
        body.extend(rename(line) for line in lines[start:end])
    return "\n".join([*aliases, "module {", *body, "}"]) + "\n"
