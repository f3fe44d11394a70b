"""Extent algebra vs plain sympy on typical shape expressions.

For each case, both sides build the expression from symbols, simplify it and,
for the comparison cases, try to decide ``lhs <= rhs`` (which holds for every
non-negative binding). Everything is measured in this one run; the output is
ratios (sympy time / our time) and how many comparisons each side decides,
never absolute times, which are noisy on small shared machines.

Fairness: every repetition starts cold on both sides — sympy's cache is
cleared, our side uses a fresh context (empty proof cache) and drops every
reference so interned nodes are rebuilt.

Run: ``PYTHONPATH=python python bench/extent_algebra.py [--repeat N]``.
"""

from __future__ import annotations

import argparse
import gc
import math
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import sympy
from sympy.core.cache import clear_cache

from symshape_mlir.extent import (
    Expr,
    ExtentContext,
    Sym,
    ceildiv,
    maximum,
    minimum,
    prove_le,
    simplify,
)


@dataclass(frozen=True)
class Case:
    """One benchmark case: a builder per side, and an optional comparison."""

    name: str
    ours: Callable[[], tuple[Expr, Expr | None]]
    theirs: Callable[[], tuple[Any, Any]]


def _ours_symbols() -> tuple[Sym, ...]:
    return tuple(Sym(n) for n in ("batch", "seq", "n", "heads", "h"))


def _sympy_symbols() -> tuple[Any, ...]:
    return tuple(sympy.symbols("batch seq n heads h", integer=True, nonnegative=True))


def _conv(x: Any, floor: Callable[[Any, Any], Any]) -> Any:
    """Output size of a 3x3 convolution, stride 2, padding 1."""
    return floor(x + 2 * 1 - 3, 2) + 1


def _cases() -> list[Case]:
    def sfloor(a: Any, b: Any) -> Any:
        return sympy.floor(a / b)

    def ofloor(a: Any, b: Any) -> Any:
        return a // b

    def ours(fn: Callable[..., tuple[Expr, Expr | None]]) -> Callable[[], tuple[Expr, Expr | None]]:
        return lambda: fn(*_ours_symbols())

    def theirs(fn: Callable[..., tuple[Any, Any]]) -> Callable[[], tuple[Any, Any]]:
        return lambda: fn(*_sympy_symbols())

    return [
        Case(
            "paper: (batch*seq)//4 + min(n, batch) - 1 <= batch*seq + n",
            ours(lambda b, s, n, hd, h: ((b * s) // 4 + minimum(n, b) - 1, b * s + n)),
            theirs(lambda b, s, n, hd, h: (sfloor(b * s, 4) + sympy.Min(n, b) - 1, b * s + n)),
        ),
        Case(
            "product of 2 symbols",
            ours(lambda b, s, n, hd, h: (b * s, None)),
            theirs(lambda b, s, n, hd, h: (b * s, None)),
        ),
        Case(
            "product of 3 symbols, floordiv: b*s*heads // 8 <= b*s*heads",
            ours(lambda b, s, n, hd, h: ((b * s * hd) // 8, b * s * hd)),
            theirs(lambda b, s, n, hd, h: (sfloor(b * s * hd, 8), b * s * hd)),
        ),
        Case(
            "floordiv by constant: (3*b*s + 7) // 8",
            ours(lambda b, s, n, hd, h: ((3 * b * s + 7) // 8, None)),
            theirs(lambda b, s, n, hd, h: (sfloor(3 * b * s + 7, 8), None)),
        ),
        Case(
            "min/max: min(n, batch) <= max(n, batch)",
            ours(lambda b, s, n, hd, h: (minimum(n, b), maximum(n, b))),
            theirs(lambda b, s, n, hd, h: (sympy.Min(n, b), sympy.Max(n, b))),
        ),
        Case(
            "min/max: max(min(n, b), seq - 1) <= n + b + seq",
            ours(lambda b, s, n, hd, h: (maximum(minimum(n, b), s - 1), n + b + s)),
            theirs(lambda b, s, n, hd, h: (sympy.Max(sympy.Min(n, b), s - 1), n + b + s)),
        ),
        Case(
            "min times symbol: min(n, b) * seq <= n * seq",
            ours(lambda b, s, n, hd, h: (minimum(n, b) * s, n * s)),
            theirs(lambda b, s, n, hd, h: (sympy.Min(n, b) * s, n * s)),
        ),
        Case(
            "conv output: (h + 2 - 3)//2 + 1 <= h",
            ours(lambda b, s, n, hd, h: (_conv(h, ofloor), h)),
            theirs(lambda b, s, n, hd, h: (_conv(h, sfloor), h)),
        ),
        Case(
            "two convs: conv(conv(h)) <= h",
            ours(lambda b, s, n, hd, h: (_conv(_conv(h, ofloor), ofloor), h)),
            theirs(lambda b, s, n, hd, h: (_conv(_conv(h, sfloor), sfloor), h)),
        ),
        Case(
            "ceildiv: seq <= ceildiv(seq, 64) * 64",
            ours(lambda b, s, n, hd, h: (s, ceildiv(s, 64) * 64)),
            theirs(lambda b, s, n, hd, h: (s, sympy.ceiling(s / 64) * 64)),
        ),
    ]


def _run_ours(case: Case) -> bool | None:
    lhs, rhs = case.ours()
    ctx = ExtentContext(use_sympy=False)
    lhs = simplify(lhs, ctx)
    if rhs is None:
        return None
    rhs = simplify(rhs, ctx)
    return prove_le(lhs, rhs, ctx)


def _run_theirs(case: Case) -> bool | None:
    lhs, rhs = case.theirs()
    lhs = sympy.simplify(lhs)
    if rhs is None:
        return None
    rhs = sympy.simplify(rhs)
    if sympy.Le(lhs, rhs) is sympy.true:
        return True
    return True if (rhs - lhs).is_nonnegative else None


def _time_ours(case: Case, repeat: int, batch: int) -> tuple[float, bool | None]:
    """Best per-run time over ``repeat`` batches of ``batch`` cold runs.

    Each run is cold for the algebra: it builds from fresh symbols, uses a new
    context, and releases every node before the next run.
    """
    best = math.inf
    answer: bool | None = None
    for _ in range(repeat):
        gc.collect()
        start = time.perf_counter()
        for _ in range(batch):
            answer = _run_ours(case)
        best = min(best, (time.perf_counter() - start) / batch)
    return best, answer


def _time_theirs(case: Case, repeat: int) -> tuple[float, bool | None]:
    """Best time over ``repeat`` runs, each after clearing sympy's cache."""
    best = math.inf
    answer: bool | None = None
    for _ in range(repeat):
        clear_cache()
        gc.collect()
        start = time.perf_counter()
        answer = _run_theirs(case)
        best = min(best, time.perf_counter() - start)
    return best, answer


def main() -> None:
    """Runs every case on both sides and prints the ratios."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--repeat", type=int, default=5, help="timed repetitions per case and side (best is kept)"
    )
    args = parser.parse_args()

    ratios: list[float] = []
    decided = {"ours": 0, "sympy": 0}
    comparisons = 0
    print(f"{'case':<64} {'sympy/ours':>10}  decided (ours, sympy)")
    for case in _cases():
        ours_time, ours_answer = _time_ours(case, args.repeat, batch=50)
        theirs_time, theirs_answer = _time_theirs(case, args.repeat)
        ratio = theirs_time / ours_time
        ratios.append(ratio)
        verdict = ""
        if case.ours()[1] is not None:
            comparisons += 1
            decided["ours"] += ours_answer is True
            decided["sympy"] += theirs_answer is True
            verdict = f"{ours_answer is True!s:>5}, {theirs_answer is True!s:>5}"
        print(f"{case.name:<64} {ratio:>9.0f}x  {verdict}")
    geomean = math.exp(sum(math.log(r) for r in ratios) / len(ratios))
    print(
        f"\ngeometric mean speed-up (build + simplify + compare): {geomean:.0f}x; "
        f"minimum {min(ratios):.0f}x"
    )
    print(
        f"comparisons that hold for every non-negative binding decided: "
        f"ours {decided['ours']}/{comparisons}, sympy {decided['sympy']}/{comparisons}"
    )


if __name__ == "__main__":
    main()
