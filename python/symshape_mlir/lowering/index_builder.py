"""Emitting ``index`` arithmetic with the dialect's integer semantics.

:class:`IndexBuilder` emits ``arith`` ops at the current insertion point,
folds constants as it goes, tracks which values are known non-negative, and
guards divisions whose divisor is not provably non-zero with a ``cf.assert``
that fails the call with a message naming the expression:

.. code-block:: mlir

    %nz = arith.cmpi ne, %d, %c0 : index
    cf.assert %nz, "symshape: division by zero in 'dim(0, 0) floordiv n' ..."
    %q = arith.floordivsi %x, %d : index

``mod`` has the sign of the divisor (Python's ``%``), ``floordiv`` floors,
``ceildiv`` rounds up, as in the Python algebra and the C++ folders.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from mlir import ir
from mlir.dialects import arith, cf, tensor

from symshape_mlir.extent.expr import INT64_MAX, INT64_MIN
from symshape_mlir.locations import location_text
from symshape_mlir.lowering.errors import LoweringError

__all__ = ["IndexBuilder"]


class IndexBuilder:
    """Builds index values at the current insertion point and location."""

    def __init__(self) -> None:
        self.index = ir.IndexType.get()
        self._nonneg: set[ir.Value] = set()
        # Values that may lie anywhere in int64 (read from data): arithmetic
        # on them is checked for overflow.
        self._wide: set[ir.Value] = set()

    # -- constants and facts ------------------------------------------------

    def const(self, value: int) -> ir.Value:
        """An ``arith.constant`` of index type.

        Raises:
            LoweringError: at the current location, for a value beyond int64.
        """
        if not INT64_MIN <= value <= INT64_MAX:
            raise LoweringError(ir.Location.current,
                                f"the constant {value} is beyond the int64 range of index")
        result = arith.ConstantOp(self.index, value).result
        if value >= 0:
            self._nonneg.add(result)
        return result

    @staticmethod
    def constant_of(value: ir.Value) -> int | None:
        """The value of an index constant, or None."""
        owner = value.owner
        if isinstance(owner, ir.OpView):
            owner = owner.operation
        if not isinstance(owner, ir.Operation) or owner.name != "arith.constant":
            return None
        attr = owner.attributes["value"]
        return int(ir.IntegerAttr(attr).value) if isinstance(attr, ir.IntegerAttr) else None

    def is_nonneg(self, value: ir.Value) -> bool:
        """True when ``value`` is known to be >= 0."""
        constant = self.constant_of(value)
        return value in self._nonneg or (constant is not None and constant >= 0)

    def mark_nonneg(self, value: ir.Value) -> ir.Value:
        """Records that ``value`` is >= 0 (sizes, clamped scalars)."""
        self._nonneg.add(value)
        return value

    # -- leaves ---------------------------------------------------------------

    def dim(self, tensor_value: ir.Value, axis: int) -> ir.Value:
        """The size of ``axis`` (a constant when static)."""
        shaped = ir.RankedTensorType(tensor_value.type)
        if not shaped.is_dynamic_dim(axis):
            return self.const(shaped.shape[axis])
        return self.mark_nonneg(tensor.DimOp(tensor_value, self.const(axis)).result)

    def scalar_at(
        self,
        tensor_value: ir.Value,
        coords: list[ir.Value] | None = None,
        *,
        clamp_nonneg: bool = False,
        where: str = "",
    ) -> ir.Value:
        """An element of an integer tensor (a 0-d one by default) as an index.

        With ``clamp_nonneg`` the value is ``max(value, 0)``. IREE 3.13
        zero-extends i8/i16 values cast to ``index`` (``-3 : i8`` becomes
        253), so narrow values are clamped in i64 before the cast, and an
        unclamped negative narrow value fails a runtime check instead of
        silently wrapping.
        """
        element = tensor.ExtractOp(tensor_value, coords or []).result
        if isinstance(element.type, ir.IndexType):
            self.mark_wide(element)
            return self.max(element, self.const(0)) if clamp_nonneg else element
        width = ir.IntegerType(element.type).width
        if width >= 32:
            value = self.mark_wide(arith.IndexCastOp(self.index, element).result)
            return self.max(value, self.const(0)) if clamp_nonneg else value
        i64 = ir.IntegerType.get_signless(64)
        wide = arith.ExtSIOp(i64, element).result
        zero = arith.ConstantOp(i64, 0).result
        if clamp_nonneg:
            wide = arith.MaxSIOp(wide, zero).result
        else:
            self.check(self.cmp("sge", wide, zero),
                       f"symshape: a negative i{width} scalar cannot be used as an extent "
                       f"({where})")
        return self.mark_nonneg(arith.IndexCastOp(self.index, wide).result)

    # -- arithmetic -----------------------------------------------------------

    def _fold(
        self, lhs: ir.Value, rhs: ir.Value, fn: Callable[[int, int], int]
    ) -> ir.Value | None:
        a, b = self.constant_of(lhs), self.constant_of(rhs)
        if a is None or b is None:
            return None
        return self.const(fn(a, b))

    def mark_wide(self, value: ir.Value) -> ir.Value:
        """Records that ``value`` may be any int64 (a scalar read from data)."""
        self._wide.add(value)
        return value

    def _checked(self, lhs: ir.Value, rhs: ir.Value, result: ir.Value,
                 overflow: Callable[[], ir.Value]) -> ir.Value:
        """``result``; when an operand is wide, checks ``overflow()`` is false first."""
        if lhs in self._wide or rhs in self._wide:
            true = arith.ConstantOp(ir.IntegerType.get_signless(1), 1).result
            self.check(arith.XOrIOp(overflow(), true).result,
                       f"symshape: extent arithmetic overflows int64 ({_here()})")
            self._wide.add(result)
        return result

    def add(self, lhs: ir.Value, rhs: ir.Value) -> ir.Value:
        if self.constant_of(rhs) == 0:
            return lhs
        if self.constant_of(lhs) == 0:
            return rhs
        folded = self._fold(lhs, rhs, lambda a, b: a + b)
        if folded is not None:
            return folded
        result = arith.AddIOp(lhs, rhs).result
        if self.is_nonneg(lhs) and self.is_nonneg(rhs):
            self._nonneg.add(result)
        # Signed overflow: both operands' signs differ from the result's.
        return self._checked(lhs, rhs, result, lambda: self._negative(
            arith.AndIOp(arith.XOrIOp(lhs, result).result, arith.XOrIOp(rhs, result).result)
            .result))

    def sub(self, lhs: ir.Value, rhs: ir.Value) -> ir.Value:
        if self.constant_of(rhs) == 0:
            return lhs
        folded = self._fold(lhs, rhs, lambda a, b: a - b)
        if folded is not None:
            return folded
        result = arith.SubIOp(lhs, rhs).result
        # Signed overflow: the operands' signs differ and the result's is not lhs's.
        return self._checked(lhs, rhs, result, lambda: self._negative(
            arith.AndIOp(arith.XOrIOp(lhs, rhs).result, arith.XOrIOp(lhs, result).result)
            .result))

    def mul(self, lhs: ir.Value, rhs: ir.Value) -> ir.Value:
        if self.constant_of(rhs) == 1:
            return lhs
        if self.constant_of(lhs) == 1:
            return rhs
        folded = self._fold(lhs, rhs, lambda a, b: a * b)
        if folded is not None:
            return folded
        result = arith.MulIOp(lhs, rhs).result
        if lhs in self._wide or rhs in self._wide:
            result = self._checked(lhs, rhs, result,
                                   lambda: self._mul_overflows(lhs, rhs, result))
        if self.is_nonneg(lhs) and self.is_nonneg(rhs):
            self._nonneg.add(result)
        return result

    def _mul_overflows(self, lhs: ir.Value, rhs: ir.Value, product: ir.Value) -> ir.Value:
        """Whether the wrapped ``product`` of ``lhs * rhs`` overflowed.

        IREE has no extended multiply on the host, so: for ``lhs`` other than
        0 and -1, the product is exact iff ``product / lhs == rhs``; for -1,
        only ``rhs == INT64_MIN`` overflows.
        """
        zero, minus_one = self.const(0), self.const(-1)
        is_minus_one = self.cmp("eq", lhs, minus_one)
        trivial = arith.OrIOp(self.cmp("eq", lhs, zero), is_minus_one).result
        divisor = self.select(trivial, self.const(1), lhs)
        general = arith.AndIOp(
            arith.XOrIOp(trivial, arith.ConstantOp(ir.IntegerType.get_signless(1), 1).result)
            .result,
            self.cmp("ne", arith.DivSIOp(product, divisor).result, rhs)).result
        smallest = self.cmp("eq", rhs, self.const(INT64_MIN))
        return arith.OrIOp(general, arith.AndIOp(is_minus_one, smallest).result).result

    def _negative(self, value: ir.Value) -> ir.Value:
        return self.cmp("slt", value, self.const(0))

    def product(self, values: Sequence[ir.Value]) -> ir.Value:
        """The product of ``values`` (1 for none)."""
        result = self.const(1)
        for value in values:
            result = self.mul(result, value)
        return result

    def min(self, lhs: ir.Value, rhs: ir.Value) -> ir.Value:
        folded = self._fold(lhs, rhs, min)
        if folded is not None:
            return folded
        result = arith.MinSIOp(lhs, rhs).result
        if self.is_nonneg(lhs) and self.is_nonneg(rhs):
            self._nonneg.add(result)
        return self._widened(lhs, rhs, result)

    def max(self, lhs: ir.Value, rhs: ir.Value) -> ir.Value:
        folded = self._fold(lhs, rhs, max)
        if folded is not None:
            return folded
        result = arith.MaxSIOp(lhs, rhs).result
        if self.is_nonneg(lhs) or self.is_nonneg(rhs):
            self._nonneg.add(result)
        return self._widened(lhs, rhs, result)

    def _widened(self, lhs: ir.Value, rhs: ir.Value, result: ir.Value) -> ir.Value:
        if lhs in self._wide or rhs in self._wide:
            self._wide.add(result)
        return result

    def cmp(self, predicate: str, lhs: ir.Value, rhs: ir.Value) -> ir.Value:
        """``arith.cmpi`` with a predicate name (``eq``, ``ne``, ``sle``, ...)."""
        pred = ir.IntegerAttr.get(ir.IntegerType.get_signless(64), _PREDICATES[predicate])
        return arith.CmpIOp(pred, lhs, rhs).result

    def select(self, cond: ir.Value, true_value: ir.Value, false_value: ir.Value) -> ir.Value:
        return arith.SelectOp(cond, true_value, false_value).result

    def check(self, condition: ir.Value, message: str) -> None:
        """A runtime check: the call fails with ``message`` when false."""
        cf.AssertOp(condition, message)

    def _guard_divisor(self, divisor: ir.Value, message: str,
                       dividend: ir.Value | None = None) -> None:
        constant = self.constant_of(divisor)
        if constant is None or constant == 0:
            self.check(self.cmp("ne", divisor, self.const(0)), message)
        if dividend is not None:
            self.guard_overflow(dividend, divisor, message.replace("division by zero",
                                                                   "division overflow"))

    def guard_overflow(self, dividend: ir.Value, divisor: ir.Value, message: str) -> None:
        """Checks that ``dividend / divisor`` is not ``INT64_MIN / -1`` (a SIGFPE on CPU)."""
        constant = self.constant_of(divisor)
        if self.is_nonneg(dividend) or self.is_nonneg(divisor) or (
                constant is not None and constant != -1):
            return
        type_ = dividend.type
        width = 64 if isinstance(type_, ir.IndexType) else ir.IntegerType(type_).width
        smallest = arith.ConstantOp(type_, -(1 << (width - 1))).result
        minus_one = arith.ConstantOp(type_, -1).result
        overflow = arith.AndIOp(self.cmp("eq", dividend, smallest),
                                self.cmp("eq", divisor, minus_one)).result
        true = arith.ConstantOp(ir.IntegerType.get_signless(1), 1).result
        self.check(arith.XOrIOp(overflow, true).result, message)

    def floordiv(self, lhs: ir.Value, rhs: ir.Value, message: str, *, guard: bool = True
                ) -> ir.Value:
        if guard:
            self._guard_divisor(rhs, message, lhs)
        if self.constant_of(rhs) == 1:
            return lhs
        folded = self._fold(lhs, rhs, lambda a, b: a // b) if self.constant_of(rhs) else None
        if folded is not None:
            return folded
        result = arith.FloorDivSIOp(lhs, rhs).result
        if self.is_nonneg(lhs) and self.is_nonneg(rhs):
            self._nonneg.add(result)
        return result

    def ceildiv(self, lhs: ir.Value, rhs: ir.Value, message: str, *, guard: bool = True
               ) -> ir.Value:
        if guard:
            self._guard_divisor(rhs, message, lhs)
        if self.constant_of(rhs) == 1:
            return lhs
        folded = self._fold(lhs, rhs, lambda a, b: -(-a // b)) if self.constant_of(rhs) else None
        if folded is not None:
            return folded
        result = arith.CeilDivSIOp(lhs, rhs).result
        if self.is_nonneg(lhs) and self.is_nonneg(rhs):
            self._nonneg.add(result)
        return result

    def mod(self, lhs: ir.Value, rhs: ir.Value, message: str, *, guard: bool = True
           ) -> ir.Value:
        """Remainder with the sign of the divisor (Python's ``%``)."""
        if guard:
            self._guard_divisor(rhs, message, lhs)
        folded = self._fold(lhs, rhs, lambda a, b: a % b) if self.constant_of(rhs) else None
        if folded is not None:
            return folded
        rem = arith.RemSIOp(lhs, rhs).result
        if self.is_nonneg(lhs) and self.is_nonneg(rhs):
            return self.mark_nonneg(rem)
        zero = self.const(0)
        # rem has the sign of lhs; move it to the divisor's side when they differ.
        fix = arith.AndIOp(
            self.cmp("ne", rem, zero),
            self.cmp("ne", self.cmp("slt", rem, zero), self.cmp("slt", rhs, zero)),
        ).result
        return self.select(fix, arith.AddIOp(rem, rhs).result, rem)


_PREDICATES = {"eq": 0, "ne": 1, "slt": 2, "sle": 3, "sgt": 4, "sge": 5}


def _here() -> str:
    """``file:line:col`` of the current location (for check messages)."""
    return location_text(ir.Location.current)
