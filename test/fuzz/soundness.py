"""Differential soundness fuzzer for the exact-vs-upper-bound contract (issue 9).

Usage::

    python test/fuzz/soundness.py --programs 200 --seed 1 --jobs 1
    python test/fuzz/soundness.py --show 104004389       # print a finding's program
    python test/fuzz/soundness.py --check 104004389      # is it fixed?

Each random program (`soundness_gen`) goes through ``symshape-infer-shapes`` and
``symshape-verify-contract`` (``mode=reject``):

* accepted: ``symshape-to-iree``, ``iree-compile`` for llvm-cpu (many programs
  per module, one ``iree-compile`` per batch), then calls at random bindings
  (zero sizes, negative scalars, disagreeing named axes) in a child process;
  every result must have numpy's shape and values, every exact
  ``symshape.shape`` claim on a returned value must equal the run-time extent
  (every upper bound must hold), and an input that violates the program must
  fail the call with a clean runtime error (never an answer, never a signal);
* rejected: the rejection must name an op (``'tensor.cast' op ...``); the same
  program with every upper bound replaced by an exact extent must be accepted
  (and is then run like an accepted one); and the program resolved with
  ``mode=defer`` is run: violating inputs fail cleanly, satisfying ones give
  numpy's answer.

Every mismatch is written as a reproducer (MLIR, inputs, what went wrong) to
the output folder; the first of each class is also appended to the findings
file. The summary counts programs and mismatches by class.

The summary also measures precision, over the programs that are valid at
every binding tried (the 48 random calls of `select_inputs`, whichever value a
bound takes): the share accepted in reject mode (with run-time checks where
equations are not proven), and the share of their requirements that hold
without a run-time check in defer mode. ``--precision`` measures only that
(no compile, no calls)::

    python test/fuzz/soundness.py --precision --programs 2000 --seed 1
"""

from __future__ import annotations

import argparse
import collections
import concurrent.futures
import dataclasses
import itertools
import json
import logging
import os
import random
import re
import sys
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

import soundness_child
import soundness_frontend
import soundness_gen
from soundness_gen import Invalid, Program

__all__ = ["Mismatch", "Summary", "fuzz", "main"]

logger = logging.getLogger(__name__)

DEFAULT_OUT = Path("/tmp/fuzz/out")
DEFAULT_FINDINGS = Path("/tmp/fuzz/soundness_findings.md")
FINDINGS_HEADER = """# Soundness fuzzer findings (test/fuzz/soundness.py)

One section per mismatch class (`kind [mode] culprit`), first reproducer found,
shrunk to the shortest program prefix that still shows the class. Modes:
`reject` = accepted by `--symshape-verify-contract` (reject) and built with
`--symshape-to-iree`; `defer` = built with `mode=defer`; `exact` = the program
with every upper bound replaced by an exact extent. Inputs list every
argument (%x, %y, %v, %ids, %n0, %n1, %n2); `--show SEED` prints the program.

"""
PIPELINES = {
    "reject": "symshape-opt --symshape-to-iree",
    "exact": "symshape-opt --symshape-to-iree",
    "defer": (
        "symshape-opt --symshape-infer-shapes --symshape-verify-contract=mode=defer "
        "--symshape-resolve=target=iree --canonicalize --cse"
    ),
}


class TreeBroken(Exception):
    """Most programs of a batch hit an internal error: the tree is mid-edit (retry later)."""


@dataclasses.dataclass
class Mismatch:
    """One observed violation.

    Attributes:
        kind: What went wrong (``invalid-input-answered``, ``crash``,
            ``wrong-value``, ``false-exact-claim``, ...).
        mode: ``reject`` (accepted program), ``defer`` or ``exact`` (the
            variant without upper bounds), or ``compile``.
        culprit: The op (or message) the class is keyed by.
        program: The program (variant) concerned.
        detail: Expected vs actual, in words.
        binding: The call's named axes and scalars, if a call is concerned.
        inputs: The call's arguments, if a call is concerned.
    """

    kind: str
    mode: str
    culprit: str
    program: Program
    detail: str
    binding: dict[str, int] | None = None
    inputs: list[np.ndarray] | None = None

    @property
    def key(self) -> str:
        """The class this mismatch deduplicates by."""
        return f"{self.kind} [{self.mode}] {self.culprit}"


@dataclasses.dataclass
class Summary:
    """Counts over a run."""

    generated: int = 0
    accepted: int = 0
    rejected: int = 0
    deferred: int = 0
    exact_variants: int = 0
    internal_errors: int = 0
    exact_rejected_other: int = 0
    defer_rejected: int = 0
    compiled_functions: int = 0
    calls: int = 0
    valid_calls: int = 0
    invalid_calls: int = 0
    unspecified_calls: int = 0
    claims_checked: int = 0
    valid_everywhere: int = 0
    valid_accepted: int = 0
    requirements: int = 0
    static_requirements: int = 0
    mismatches: collections.Counter[str] = dataclasses.field(default_factory=collections.Counter)
    kinds: collections.Counter[str] = dataclasses.field(default_factory=collections.Counter)
    defer_reasons: collections.Counter[str] = dataclasses.field(default_factory=collections.Counter)

    def add(self, other: Summary) -> None:
        """Adds another summary's counts."""
        for f in dataclasses.fields(self):
            mine = getattr(self, f.name)
            if isinstance(mine, collections.Counter):
                mine.update(getattr(other, f.name))
            else:
                setattr(self, f.name, mine + getattr(other, f.name))

    def text(self) -> str:
        """The printed summary."""
        lines = [
            f"generated {self.generated}  accepted {self.accepted}  rejected {self.rejected}  "
            f"deferred {self.deferred}  exact-variants {self.exact_variants}  "
            f"internal-errors {self.internal_errors}  "
            f"exact-variants rejected for non-bound reasons {self.exact_rejected_other}",
            f"compiled functions {self.compiled_functions}  calls {self.calls} "
            f"(valid {self.valid_calls}, invalid {self.invalid_calls})  "
            f"claims checked {self.claims_checked}",
            f"precision: {self.valid_accepted} of {self.valid_everywhere} programs valid at "
            f"every binding tried are accepted "
            f"({_percent(self.valid_accepted, self.valid_everywhere)}); "
            f"{self.static_requirements} of {self.requirements} of their requirements hold "
            f"without a run-time check in defer mode "
            f"({_percent(self.static_requirements, self.requirements)})",
            f"rejected in defer mode too (not mismatches): {self.defer_rejected}",
            *(f"    {n:5d}  {reason}" for reason, n in self.defer_reasons.most_common(8)),
            f"mismatches: {sum(self.mismatches.values())} in {len(self.mismatches)} classes",
        ]
        for kind, n in sorted(self.kinds.items()):
            lines.append(f"  {kind}: {n}")
        for key, n in self.mismatches.most_common():
            lines.append(f"    {n:5d}  {key}")
        return "\n".join(lines)


def _percent(part: int, whole: int) -> str:
    return f"{100 * part / whole:.1f} %" if whole else "-"


# -- inputs ---------------------------------------------------------------------------------

TRIED_CALLS = 48
"""Random calls tried per program (valid ones are run, see `select_inputs`)."""


def valid_everywhere(program: Program) -> bool:
    """Whether every binding `select_inputs` tries is valid, whichever value a bound takes.

    Calls whose arguments disagree with their declared axes bind no axis
    values: they are left out.
    """
    for _, inputs in soundness_gen.make_inputs(
        program, random.Random(program.seed * 7 + 1), TRIED_CALLS
    ):
        try:
            soundness_gen.check_axes(program.args, inputs)
        except Invalid:
            continue
        for actual_bounds in (False, True) if program.uses_bound else (False,):
            try:
                program.reference(inputs, actual_bounds=actual_bounds)
            except Exception:
                return False
    return True


def select_inputs(
    program: Program, rng: random.Random, valid: int = 4, invalid: int = 3
) -> list[tuple[dict[str, int], list[np.ndarray]]]:
    """Random calls: up to ``valid`` satisfying and ``invalid`` violating ones."""
    good, zero = [], []
    bad: dict[str, list[tuple[dict[str, int], list[np.ndarray]]]] = collections.defaultdict(list)
    for binding, inputs in soundness_gen.make_inputs(program, rng, TRIED_CALLS):
        try:
            program.reference(inputs)
        except Invalid as error:
            bad[error.op].append((binding, inputs))
            continue
        except Exception:
            continue
        if any(a.size == 0 for a in inputs[:3]) or binding["n0"] < 0:
            zero.append((binding, inputs))
        else:
            good.append((binding, inputs))
    chosen = zero[:1] + good[: valid - min(1, len(zero))] + zero[1 : valid - len(good)]
    # Violations of different ops first (axis disagreements are common).
    violating = [call for group in itertools.zip_longest(*bad.values()) for call in group if call]
    return chosen[:valid] + violating[:invalid]


# -- checks ---------------------------------------------------------------------------------


def _culprit_message(message: str) -> str:
    message = re.sub(r"\d+", "N", message)
    match = re.search(r"'([\w.]+)' op", message)
    return match[1] if match else message[:70]


def check_claims(
    program: Program,
    claims: list[str | None],
    inputs: list[np.ndarray],
    expected: list[np.ndarray],
    summary: Summary,
) -> list[tuple[int, str]]:
    """Exact claims that differ from the true extents, upper bounds below them."""
    from symshape_mlir.extent.parse import parse_shape

    bindings = soundness_gen.check_axes(program.args, inputs)
    wrong = []
    for j, claim in enumerate(claims):
        if claim is None or j >= len(expected):
            continue
        text = claim.removeprefix("#symshape.shape<").removesuffix(">")
        try:
            shape = parse_shape(text)
        except Exception:
            wrong.append((j, f"unparsable claim {claim}"))
            continue
        true = expected[j].shape
        if len(shape) != len(true):
            wrong.append((j, f"claim {text} has rank {len(shape)}, value {true}"))
            continue
        for axis, extent in enumerate(shape):
            if extent.is_unknown or not extent.free_symbols <= bindings.keys():
                continue
            try:
                value = extent.expr.evaluate(bindings)
            except Exception:
                continue
            summary.claims_checked += 1
            if extent.is_exact and value != true[axis]:
                wrong.append(
                    (
                        j,
                        f"false-exact-claim: result {j} claims {text}, axis {axis} = "
                        f"{value} at {bindings}, true shape {true}",
                    )
                )
            elif extent.is_upper_bound and value < true[axis]:
                wrong.append(
                    (
                        j,
                        f"false-upper-bound: result {j} claims {text}, axis {axis} "
                        f"<= {value} at {bindings}, true shape {true}",
                    )
                )
    return wrong


def compare_call(
    program: Program,
    mode: str,
    fe: soundness_frontend.FrontendResult,
    binding: dict[str, int],
    inputs: list[np.ndarray],
    outcome: Any,
    summary: Summary,
) -> list[Mismatch]:
    """Checks one call against the reference."""
    summary.calls += 1

    def found(kind: str, culprit: str, detail: str) -> list[Mismatch]:
        return [Mismatch(kind, mode, culprit, program, detail, binding, inputs)]

    # A bound evaluates to exactly what inference says (its expression over the
    # arguments' axes, or the axis size itself); without that, to any upper
    # bound of the size: the declared one or the size itself.
    bounds = bound_values(program, fe, inputs)
    candidates: list[list[np.ndarray]] = []
    invalids: list[Invalid] = []
    for actual_bounds in (False, True) if program.uses_bound and bounds is None else (False,):
        try:
            candidates.append(
                program.reference(inputs, actual_bounds=actual_bounds, bounds=bounds))
        except Invalid as error:
            invalids.append(error)
        except soundness_gen.BoundBelowSize as error:
            return found("false-upper-bound", "symshape.bound", str(error))
    if candidates and not invalids:
        summary.valid_calls += 1
    elif not candidates:
        summary.invalid_calls += 1
    else:
        summary.unspecified_calls += 1
    invalid = invalids[0] if invalids else None

    if isinstance(outcome, soundness_child.Died):
        culprit = invalid.op if invalid else "valid input"
        return found(
            "crash",
            culprit,
            f"the call {outcome.detail}; reference: {invalid or 'valid input'}",
        )
    status, payload = outcome
    if not candidates:
        if any(not i.strict for i in invalids):
            return []  # an unspecified case (see `soundness_gen.Invalid.strict`)
        if status == "ok":
            shapes = [p.shape for p in payload]
            return found(
                "invalid-input-answered",
                invalid.op,
                f"expected a clean error ({invalid}), got results of shapes {shapes}",
            )
        return []
    if status == "error":
        if invalids:
            return []  # invalid for some value of a bound: a clean error is right
        return found(
            "valid-input-failed",
            _culprit_message(payload),
            f"expected numpy's answer, the call failed: {payload}",
        )
    expected = next((c for c in candidates if _same(payload, c)), candidates[0])
    out: list[Mismatch] = []
    if len(payload) != len(expected):
        return found("result-count", "func", f"{len(payload)} results, {len(expected)} expected")
    for j, (got, want) in enumerate(zip(payload, expected, strict=True)):
        op = program.result_ops[j]
        if got.shape != want.shape:
            out += found(
                "wrong-shape", op, f"result {j} ({op}): shape {got.shape}, numpy {want.shape}"
            )
            break
        if not np.allclose(got, want, rtol=1e-5, atol=1e-5):
            out += found(
                "wrong-value",
                op,
                f"result {j} ({op}): values differ\ngot  {got.tolist()}\nwant {want.tolist()}",
            )
            break
    for j, text in check_claims(program, fe.claims, inputs, expected, summary):
        kind = text.split(":", 1)[0]
        out += found(kind, program.result_ops[j], text)
    return out


def bound_values(
    program: Program, fe: soundness_frontend.FrontendResult, inputs: list[np.ndarray]
) -> dict[str, int | None] | None:
    """Per ``symshape.bound`` of the program (its SSA name), what it evaluates to on
    ``inputs`` (None: the axis size); None when the compiler's values are not known."""
    from symshape_mlir.extent import ExtentError, parse_expr

    names = re.findall(r"%(\w+) = symshape\.bound", program.text)
    if not names or len(names) != len(fe.bounds):
        return None
    values: dict[str, int | None] = {}
    for name, known in zip(names, fe.bounds, strict=True):
        if known is None:
            values[name] = None
            continue
        text, sources = known
        sizes = {s: int(inputs[i].shape[axis]) for s, (i, axis) in sources.items()}
        try:
            values[name] = parse_expr(text).evaluate(sizes)
        except ExtentError:
            return None  # the call fails before the bound (a division by zero)
    return values


def _same(got: list[np.ndarray], want: list[np.ndarray]) -> bool:
    return len(got) == len(want) and all(
        g.shape == w.shape and np.allclose(g, w, rtol=1e-5, atol=1e-5)
        for g, w in zip(got, want, strict=True)
    )


def check_rejection(program: Program, fe: soundness_frontend.FrontendResult) -> list[Mismatch]:
    """A rejection names an op and a field of it."""
    out = []
    for line, message in fe.diagnostics:
        if not re.search(r"'[\w]+\.[\w]+' \S+", message) or line is None:
            head = " ".join(re.sub(r"\d+", "N", message).split()[:4])
            out.append(
                Mismatch(
                    "rejection-unclear",
                    "reject",
                    f"names no op: {head} ...",
                    program,
                    f"line {line}: {message}",
                )
            )
    return out


# -- batches --------------------------------------------------------------------------------


def _compile(functions: dict[str, str]) -> tuple[dict[str, Any], dict[str, str]]:
    """Compiles resolved modules, batched; bisects on failure.

    Returns:
        (function name -> CompiledModule holding it, function name -> compile error).
    """
    from symshape_mlir import backend

    compiled: dict[str, Any] = {}
    errors: dict[str, str] = {}

    def go(names: list[str]) -> None:
        if not names:
            return
        try:
            text = soundness_frontend.merge_modules({n: functions[n] for n in names})
            module = backend.compile_module(
                text, "llvm-cpu", locate_phase=False, data_tiling=False, timeout=600
            )
        except backend.CompileError as error:
            if len(names) == 1:
                errors[names[0]] = (error.stderr or str(error))[:4000]
                return
            half = len(names) // 2
            go(names[:half])
            go(names[half:])
            return
        for n in names:
            compiled[n] = module
        return

    go(sorted(functions))
    return compiled, errors


def _measure_precision(
    programs: dict[str, Program],
    fe: dict[str, soundness_frontend.FrontendResult],
    seeds: Sequence[int],
    summary: Summary,
) -> None:
    """Adds the precision counts of a batch (see the module docstring)."""
    for seed in seeds:
        p, r, d = programs[f"p{seed}"], fe.get(f"p{seed}"), fe.get(f"p{seed}_d")
        if r is None or r.verdict == "error" or not valid_everywhere(p):
            continue
        summary.valid_everywhere += 1
        summary.valid_accepted += r.verdict == "accepted"
        if d is not None:
            summary.requirements += d.requirements
            summary.static_requirements += d.static


def run_batch(
    seeds: Sequence[int], calls: int, *, run: bool = True
) -> tuple[Summary, list[Mismatch]]:
    """Generates, classifies, compiles and runs one batch of programs.

    Args:
        seeds: The programs' seeds.
        calls: Calls per compiled function.
        run: Compile and call the programs; False only classifies them and
            measures precision.
    """
    summary = Summary()
    mismatches: list[Mismatch] = []
    programs: dict[str, Program] = {}
    jobs: list[tuple[str, str, str]] = []
    for seed in seeds:
        p = soundness_gen.generate(seed, f"p{seed}")
        programs[p.name] = p
        jobs.append((p.name, p.text, "reject"))
        d = soundness_gen.generate(seed, f"p{seed}_d")
        programs[d.name] = d
        jobs.append((d.name, d.text, "defer"))
        if p.uses_bound:
            x = soundness_gen.generate(seed, f"p{seed}_x", exact=True)
            programs[x.name] = x
            jobs.append((x.name, x.text, "reject"))
    summary.generated += len(seeds)
    results = soundness_child.run_items("soundness_frontend.handle", None, jobs, timeout=120)
    errors = sum(
        isinstance(r, soundness_frontend.FrontendResult) and r.verdict == "error" for r in results
    )
    if errors * 2 > len(results):
        first = next(
            r.error
            for r in results
            if isinstance(r, soundness_frontend.FrontendResult) and r.verdict == "error"
        )
        raise TreeBroken(first or "")
    fe: dict[str, soundness_frontend.FrontendResult] = {}
    for (name, _, _), result in zip(jobs, results, strict=True):
        if isinstance(result, soundness_child.Died):
            mismatches.append(
                Mismatch("pipeline-crash", "compile", result.detail, programs[name], result.detail)
            )
            continue
        fe[name] = result
    _measure_precision(programs, fe, seeds, summary)
    to_compile: dict[str, str] = {}
    modes: dict[str, str] = {}
    for seed in seeds:
        p = programs[f"p{seed}"]
        r = fe.get(p.name)
        if r is None:
            continue
        if r.verdict == "error":
            summary.internal_errors += 1
            mismatches.append(
                Mismatch(
                    "internal-error", "compile", r.error.strip().splitlines()[-1][:80], p, r.error
                )
            )
            continue
        if r.verdict == "accepted":
            summary.accepted += 1
            if r.resolved is None:
                mismatches.append(
                    Mismatch(
                        "to-iree-failed-after-accept",
                        "reject",
                        _culprit_message(r.error or ""),
                        p,
                        r.error or "",
                    )
                )
            else:
                to_compile[p.name], modes[p.name] = r.resolved, "reject"
            continue
        summary.rejected += 1
        mismatches += check_rejection(p, r)
        dname = f"p{seed}_d"
        d = fe.get(dname)
        if d is not None and d.resolved is not None:
            summary.deferred += 1
            to_compile[dname], modes[dname] = d.resolved, "defer"
        elif d is not None:
            # Not a soundness mismatch: defer mode found no runtime check to emit.
            summary.defer_rejected += 1
            head = re.sub(r"'[^']*'|\d+", "_", (d.error or "").split(";")[0])[:90]
            summary.defer_reasons[head] += 1
        x = programs.get(f"p{seed}_x")
        xr = fe.get(f"p{seed}_x")
        if x is not None and xr is not None:
            summary.exact_variants += 1
            msg = "; ".join(m for _, m in xr.diagnostics)
            if xr.verdict == "rejected" and (
                not re.search(r"symshape\.bound|dynamic_truncate|upper bound", msg)
                or "scf.if" in x.ops
            ):
                # Rejected for a reason that has nothing to do with the bounds
                # the program wrote (two different named axes; an scf.if whose
                # branches differ is itself only bounded): the original was too.
                summary.exact_rejected_other += 1
            elif xr.verdict == "rejected":
                mismatches.append(
                    Mismatch(
                        "exact-variant-rejected",
                        "exact",
                        _culprit_message(msg),
                        x,
                        f"original rejected with: "
                        f"{'; '.join(m for _, m in r.diagnostics)}\n"
                        f"exact variant rejected with: {msg}",
                    )
                )
            elif xr.resolved is not None:
                to_compile[x.name], modes[x.name] = xr.resolved, "exact"
    if not run:
        to_compile = {}
    compiled, errors = _compile(to_compile)
    for name, error in errors.items():
        head = next(
            (
                line
                for line in error.splitlines()
                if re.search(r"error:|Assertion|LLVM ERROR|UNREACHABLE", line)
            ),
            "crashed",
        )
        head = re.sub(r"^<stdin>:\d+:\d+: ", "", head)
        mismatches.append(
            Mismatch(
                "iree-compile-failed", modes[name], _culprit_message(head), programs[name], error
            )
        )
    summary.compiled_functions += len(compiled)
    # One child per compiled module; calls for every function in it.
    by_module: dict[int, list[str]] = collections.defaultdict(list)
    modules: dict[int, Any] = {}
    for name, module in compiled.items():
        by_module[id(module)].append(name)
        modules[id(module)] = module
    for key, names in by_module.items():
        items: list[tuple[str, list[np.ndarray]]] = []
        meta: list[tuple[str, dict[str, int], list[np.ndarray]]] = []
        for name in names:
            prog = programs[name]
            source = programs[f"p{prog.seed}"]
            for binding, inputs in select_inputs(
                source,
                random.Random(prog.seed * 7 + 1),
                valid=calls - calls // 2,
                invalid=calls // 2,
            ):
                items.append((name, inputs))
                meta.append((name, binding, inputs))
        outcomes = soundness_child.run_items(
            "soundness_exec.handle", modules[key], items, timeout=60
        )
        for (name, binding, inputs), outcome in zip(meta, outcomes, strict=True):
            mismatches += compare_call(
                programs[name], modes[name], fe[name], binding, inputs, outcome, summary
            )
    for m in mismatches:
        summary.mismatches[m.key] += 1
        summary.kinds[m.kind] += 1
    return summary, mismatches


# -- shrinking ------------------------------------------------------------------------------


def replay(m: Mismatch, max_ops: int) -> Mismatch | None:
    """Reruns the failing call on a prefix of the program; the mismatch if it is the same class."""
    assert m.inputs is not None and m.binding is not None
    prog = soundness_gen.generate(
        m.program.seed, m.program.name, exact=m.program.exact, max_ops=max_ops
    )
    fe_mode = "defer" if m.mode == "defer" else "reject"
    [r] = soundness_child.run_items(
        "soundness_frontend.handle", None, [(prog.name, prog.text, fe_mode)]
    )
    if isinstance(r, soundness_child.Died) or r.resolved is None:
        return None
    if m.mode != "defer" and r.verdict != "accepted":
        return None
    compiled, errors = _compile({prog.name: r.resolved})
    if errors:
        return None
    [outcome] = soundness_child.run_items(
        "soundness_exec.handle", compiled[prog.name], [(prog.name, m.inputs)], timeout=60
    )
    found = compare_call(prog, m.mode, r, m.binding, m.inputs, outcome, Summary())
    return next((f for f in found if f.key == m.key), None)


def shrink(m: Mismatch, attempts: int = 3) -> Mismatch:
    """A shorter prefix of the program that shows the same class, if one is found."""
    if m.inputs is None or len(m.program.ops) <= 1:
        return m
    bases = [op.split("[")[0] for op in m.program.ops]
    first = bases.index(m.culprit) + 1 if m.culprit in bases else 1
    for k in range(first, min(first + attempts, len(m.program.ops))):
        try:
            smaller = replay(m, k)
        except Exception:
            logger.exception("shrinking %s", m.key)
            return m
        if smaller is not None:
            return smaller
    return m


# -- reports --------------------------------------------------------------------------------


def _slug(text: str) -> str:
    return re.sub(r"[^\w.-]+", "_", text).strip("_")[:90]


def _inputs_text(program: Program, inputs: list[np.ndarray] | None) -> str:
    if inputs is None:
        return "(no call)"
    lines = []
    for spec, value in zip(program.args, inputs, strict=True):
        if value.ndim == 0:
            lines.append(f"  %{spec.name} = {value.item()} ({value.dtype})")
        else:
            body = value.tolist() if value.size <= 40 else f"<{value.size} values>"
            lines.append(f"  %{spec.name}: shape {value.shape} {value.dtype} = {body}")
    return "\n".join(lines)


def reproducer_text(m: Mismatch) -> str:
    """The markdown section for a mismatch."""
    return (
        f"## {m.key}\n\n"
        f"- kind: `{m.kind}`; mode: `{m.mode}` (pipeline: `{PIPELINES.get(m.mode, '-')}`)\n"
        f"- program: `@{m.program.name}` (seed {m.program.seed}, ops {len(m.program.ops)}: "
        f"{', '.join(m.program.ops)})\n"
        f"- binding: `{m.binding}`\n\n"
        f"```mlir\n{m.program.text}```\n\n"
        f"Inputs:\n```\n{_inputs_text(m.program, m.inputs)}\n```\n\n"
        f"What went wrong:\n```\n{m.detail}\n```\n\n"
        f"Regenerate: `python test/fuzz/soundness.py --show {m.program.seed}`\n\n"
    )


class Reporter:
    """Writes reproducers and keeps the findings file deduplicated by class."""

    def __init__(self, out: Path, findings: Path, shrink: bool = True) -> None:
        self.out = out
        self.shrink = shrink
        self.findings = findings
        self.lock = threading.Lock()
        self.best: dict[str, Mismatch] = {}
        out.mkdir(parents=True, exist_ok=True)
        findings.parent.mkdir(parents=True, exist_ok=True)
        self.known = set()
        if not findings.exists():
            findings.write_text(FINDINGS_HEADER)
        else:
            self.known = set(re.findall(r"^## (.*)$", findings.read_text(), re.M))

    def record(self, mismatches: Sequence[Mismatch]) -> None:
        """Writes each mismatch's reproducer; appends new classes to the findings file."""
        with self.lock:
            for m in mismatches:
                folder = self.out / _slug(m.key)
                folder.mkdir(parents=True, exist_ok=True)
                base = folder / f"{m.program.name}"
                base.with_suffix(".mlir").write_text(m.program.text)
                (folder / f"{m.program.name}.md").write_text(reproducer_text(m))
                if m.inputs is not None:
                    np.savez(
                        folder / f"{m.program.name}_inputs.npz",
                        **{s.name: v for s, v in zip(m.program.args, m.inputs, strict=True)},
                    )
                best = self.best.get(m.key)
                if best is None or len(m.program.ops) < len(best.program.ops):
                    self.best[m.key] = m
                if m.key not in self.known and m.kind != "internal-error":
                    self.known.add(m.key)
                    small = shrink(m) if self.shrink else m
                    self.best[m.key] = small
                    with self.findings.open("a") as f:
                        f.write(reproducer_text(small))

    def write_smallest(self) -> None:
        """The smallest reproducer of each class, in one file in the output folder."""
        with (self.out / "smallest.md").open("w") as f:
            for key in sorted(self.best):
                f.write(reproducer_text(self.best[key]))


def _write_summary(out: Path, total: Summary, seconds: float, programs: int, seed: int) -> None:
    """Writes the counts so far (``summary.json`` in the output folder)."""
    fields = {f.name: getattr(total, f.name) for f in dataclasses.fields(total)}
    record = {**fields, "seconds": seconds, "programs": programs, "seed": seed}
    (out / "summary.json").write_text(json.dumps(record, indent=1))


def _run_batch_retrying(
    seeds: Sequence[int], calls: int, run: bool, retries: int = 6
) -> tuple[Summary, list[Mismatch]]:
    for _ in range(retries):
        try:
            return run_batch(seeds, calls, run=run)
        except TreeBroken as error:
            last = str(error).strip().splitlines()[-1:] or [""]
            print(
                f"batch at seed {seeds[0]}: the tree looks broken ({last[0][:100]}); "
                f"retrying in 30 s",
                flush=True,
            )
            time.sleep(30)
    return run_batch(seeds, calls, run=run)


def fuzz(
    programs: int,
    seed: int,
    *,
    jobs: int = 1,
    batch: int = 40,
    calls: int = 6,
    out: Path = DEFAULT_OUT,
    findings: Path = DEFAULT_FINDINGS,
    quiet: bool = False,
    shrink: bool = True,
    run: bool = True,
) -> Summary:
    """Runs the fuzzer; returns the summary (mismatches are written as they are found).

    ``run=False`` classifies the programs and measures precision only (no
    compile, no calls).
    """
    reporter = Reporter(out, findings, shrink)
    total = Summary()
    base = seed * 1_000_000
    batches = [
        list(range(base + i, base + min(i + batch, programs))) for i in range(0, programs, batch)
    ]
    start = time.monotonic()
    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
        futures = [pool.submit(_run_batch_retrying, b, calls, run) for b in batches]
        for future in concurrent.futures.as_completed(futures):
            summary, mismatches = future.result()
            reporter.record(mismatches)
            total.add(summary)
            _write_summary(out, total, time.monotonic() - start, programs, seed)
            (out / "summary.txt").write_text(total.text() + "\n")
            if not quiet:
                print(
                    f"[{time.monotonic() - start:7.1f} s] {total.generated}/{programs} "
                    f"programs, {sum(total.mismatches.values())} mismatches in "
                    f"{len(total.mismatches)} classes",
                    flush=True,
                )
    _write_summary(out, total, time.monotonic() - start, programs, seed)
    reporter.write_smallest()
    return total


def main(argv: Sequence[str] | None = None) -> int:
    """The command line; returns 1 when a mismatch was found."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--programs", type=int, default=100)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--batch", type=int, default=40, help="programs per iree-compile")
    parser.add_argument("--calls", type=int, default=6, help="calls per compiled function")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    parser.add_argument("--findings", type=Path, default=DEFAULT_FINDINGS)
    parser.add_argument(
        "--no-shrink", action="store_true", help="do not shrink the first reproducer of a class"
    )
    parser.add_argument(
        "--precision",
        action="store_true",
        help="classify the programs and measure precision only (no compile, no calls)",
    )
    parser.add_argument(
        "--show",
        type=int,
        metavar="PROGRAM_SEED",
        help="print the program of a seed (and its exact variant) and exit",
    )
    parser.add_argument(
        "--check",
        type=int,
        nargs="+",
        metavar="PROGRAM_SEED",
        help="check these programs only (a finding's seed, to see whether it is fixed)",
    )
    args = parser.parse_args(argv)
    if args.show is not None:
        print(soundness_gen.generate(args.show, f"p{args.show}").text)
        print(soundness_gen.generate(args.show, f"p{args.show}_x", exact=True).text)
        return 0
    if args.check:
        summary, mismatches = run_batch(args.check, args.calls)
        print(summary.text())
        for mismatch in mismatches:
            print(f"{mismatch.program.name}: {mismatch.key}\n    {mismatch.detail}")
        return 1 if mismatches else 0
    logging.basicConfig(level=logging.WARNING)
    summary = fuzz(
        args.programs,
        args.seed,
        jobs=args.jobs,
        batch=args.batch,
        calls=args.calls,
        out=args.out,
        findings=args.findings,
        shrink=not args.no_shrink,
        run=not args.precision,
    )
    print(summary.text())
    return 1 if summary.mismatches else 0


if __name__ == "__main__":
    os.environ.setdefault("PYTHONHASHSEED", "0")
    sys.exit(main())
