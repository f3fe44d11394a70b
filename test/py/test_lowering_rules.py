"""The table of symshape-resolve's per-op lowering rules."""

from __future__ import annotations

import pytest

from symshape_mlir.lowering.ops import RULES, rule


def test_registering_a_lowering_rule_twice_fails() -> None:
    """One op has one lowering rule: a second is an error, not a replacement."""
    first = RULES["symshape.reshape"]
    with pytest.raises(ValueError, match=r"a lowering rule for 'symshape\.reshape' is already"):
        rule("symshape.reshape")(lambda op, state: None)
    assert RULES["symshape.reshape"] is first
