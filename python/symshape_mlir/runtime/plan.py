"""Level 2 plans: the output shapes and bytes of one call, computed on the host.

A plan evaluates the captured result size expressions (see
`symshape_mlir.runtime.capture`) under the axis bindings of one call, with
Python integers checked against the int64 range (never a silent wrap)::

    >>> plan = exe.plan((32, 64), (64, 128), (128,), (128, 10))
    >>> plan.shapes, plan.nbytes, plan.total_bytes
    (((320,),), (1280,), 1280)
    >>> plan.buffer_nbytes, plan.buffer_bytes    # the hidden layer and its bias
    ((16384, 16384), 32768)
"""

from __future__ import annotations

import dataclasses
import logging
import math
from collections.abc import Mapping, Sequence

import numpy as np

from symshape_mlir.extent.errors import EvaluationError
from symshape_mlir.extent.expr import Expr
from symshape_mlir.runtime.capture import BufferSizes, ResultSizes
from symshape_mlir.runtime.errors import PlanError
from symshape_mlir.runtime.sizefn import SizeCode

__all__ = ["Plan", "Planner", "make_plan"]

logger = logging.getLogger(__name__)

_INT64_MAX = 2**63 - 1


@dataclasses.dataclass(frozen=True)
class Plan:
    """The results of one call, known before it runs.

    Attributes:
        function: The function's name.
        bindings: The value of every axis symbol (and sizing scalar).
        shapes: Per result its shape; None for a scalar result or a
            function that is not planned.
        nbytes: Per result its size in bytes; None where the shape is.
        buffer_nbytes: Per captured intermediate buffer (`BufferSizes`) its
            size in bytes (at most that, for a bounded one); None where it
            cannot be evaluated for these inputs (a division by zero, a
            negative size: the call's own checks report those).
    """

    function: str
    bindings: Mapping[str, int]
    shapes: tuple[tuple[int, ...] | None, ...]
    nbytes: tuple[int | None, ...]
    buffer_nbytes: tuple[int | None, ...] = ()

    @property
    def total_bytes(self) -> int:
        """The bytes of all planned results."""
        return sum(n for n in self.nbytes if n is not None)

    @property
    def buffer_bytes(self) -> int:
        """The bytes of all intermediate buffers whose size is known: what
        the call allocates beside its results, at most (IREE may fuse some
        buffers away or reuse them)."""
        return sum(n for n in self.buffer_nbytes if n is not None)

    @property
    def all_empty(self) -> bool:
        """Whether every result is a planned zero-element tensor."""
        return bool(self.shapes) and all(s is not None and math.prod(s) == 0 for s in self.shapes)


def make_plan(
    function: str,
    results: Sequence[ResultSizes],
    dtypes: Sequence[np.dtype | None],
    bindings: Mapping[str, int],
    buffers: Sequence[BufferSizes] = (),
) -> Plan:
    """Evaluates result and buffer sizes under ``bindings``.

    Args:
        function: The function's name, for messages.
        results: The captured result sizes.
        dtypes: Per result its numpy dtype (None for a scalar).
        bindings: The value of every symbol the sizes mention.
        buffers: The captured intermediate buffers.

    Raises:
        PlanError: A size is negative, divides by zero, or leaves the int64
            range (a byte count beyond int64 too).
    """
    shapes: list[tuple[int, ...] | None] = []
    nbytes: list[int | None] = []
    for index, (result, dtype) in enumerate(zip(results, dtypes, strict=True)):
        if result.sizes is None:
            shapes.append(None)
            nbytes.append(None)
            continue
        dims = []
        functions = result.functions
        for axis, expr in enumerate(result.sizes):
            try:
                value = functions[axis](bindings)
            except EvaluationError as err:
                raise PlanError(function, index, f"axis {axis}: {err}", result.location) \
                    from err
            if value < 0:
                raise PlanError(
                    function, index, f"axis {axis}: size '{expr}' evaluates to {value} < 0",
                    result.location,
                )
            dims.append(value)
        count = math.prod(dims) * (dtype.itemsize if dtype is not None else 1)
        if count > _INT64_MAX:
            raise PlanError(
                function, index, f"shape {tuple(dims)} needs {count} bytes, beyond int64",
                result.location,
            )
        shapes.append(tuple(dims))
        nbytes.append(count)
    buffer_nbytes = tuple(_buffer_bytes(buffer, bindings) for buffer in buffers)
    return Plan(function, dict(bindings), tuple(shapes), tuple(nbytes), buffer_nbytes)


def _buffer_bytes(buffer: BufferSizes, bindings: Mapping[str, int]) -> int | None:
    """The bytes of one buffer, or None where its size cannot be evaluated."""
    count = buffer.itemsize
    for size in buffer.functions:
        try:
            value = size(bindings)
        except EvaluationError:
            return None
        if value < 0:
            return None
        count *= value
    return count if count <= _INT64_MAX else None


class Planner:
    """`make_plan` for one function, as one generated Python function.

    A Level 2 miss plans a binding no call had before, in the time of the
    call (the issue's goal for a first call at a new batch is 0.1 ms).
    `make_plan` runs a closure per expression node and a loop per result
    and buffer; the planner runs straight-line code generated once from
    all of them (`SizeCode`) and falls back to `make_plan`, whose errors
    are the exact ones, whenever the generated code meets a case it does
    not decide::

        >>> planner = Planner("mlp", sizes.results, dtypes, sizes.buffers)
        >>> planner({"batch": 32}) == make_plan("mlp", ..., {"batch": 32}, ...)
        True
    """

    def __init__(
        self,
        function: str,
        results: Sequence[ResultSizes],
        dtypes: Sequence[np.dtype | None],
        buffers: Sequence[BufferSizes] = (),
    ) -> None:
        """Generates the function's planning code."""
        self._args = (function, results, dtypes)
        self._buffers = buffers
        code = SizeCode()
        shapes: list[str] = []
        nbytes: list[str] = []
        try:
            for result, dtype in zip(results, dtypes, strict=True):
                if result.sizes is None:
                    shapes.append("None")
                    nbytes.append("None")
                    continue
                dims = self._sizes(code, result.sizes)
                shapes.append(f"({''.join(d + ', ' for d in dims)})")
                nbytes.append(self._bytes(code, dtype.itemsize if dtype is not None else 1, dims))
            buffer_nbytes = []
            for buffer in buffers:
                dims = self._sizes(code, buffer.sizes)
                buffer_nbytes.append(self._bytes(code, buffer.itemsize, dims))
        except TypeError:
            self._generated = None
            return
        self._generated = code.function(
            f"({''.join(s + ', ' for s in shapes)}), ({''.join(n + ', ' for n in nbytes)}), "
            f"({''.join(n + ', ' for n in buffer_nbytes)})"
        )

    @staticmethod
    def _sizes(code: SizeCode, sizes: Sequence[Expr]) -> list[str]:
        """Emits the sizes of one tensor, each checked non-negative unless a
        constant that is; returns their Python texts."""
        dims = []
        for expr in sizes:
            dims.append(code.value(expr))
            if expr.const_value is None or expr.const_value < 0:
                code.lines.append(f"if {dims[-1]} < 0: raise _Miss")
        return dims

    @staticmethod
    def _bytes(code: SizeCode, itemsize: int, dims: list[str]) -> str:
        """Emits a checked byte count; returns its variable's name."""
        name = f"n{len(code.lines)}"
        code.lines += [
            f"{name} = {' * '.join([str(itemsize), *dims])}",
            f"if {name} > {_INT64_MAX}: raise _Miss",
        ]
        return name

    def __call__(self, bindings: Mapping[str, int]) -> Plan:
        """The plan under ``bindings``; raises like `make_plan`."""
        if self._generated is not None:
            try:
                shapes, nbytes, buffer_nbytes = self._generated(bindings)
            except Exception:  # decided, with the exact error, by make_plan
                pass
            else:
                function = self._args[0]
                return Plan(function, dict(bindings), shapes, nbytes, buffer_nbytes)
        return make_plan(*self._args, bindings, self._buffers)
