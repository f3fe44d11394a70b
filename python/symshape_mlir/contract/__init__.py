"""The exact-vs-upper-bound contract (SPEC §7).

* :func:`verify_contract` — consumers that need exact extents get them, or
  runtime checks (``defer``);
* :func:`check_guarantees` — passes never upgrade a guarantee;
* :class:`UnsupportedDynamicShapeError` — the one error for "needed an exact
  extent, had a bound or nothing".
"""

from symshape_mlir.contract.errors import UnsupportedDynamicShapeError, describe
from symshape_mlir.contract.guarantees import check_guarantees
from symshape_mlir.contract.verify import MODES, ContractError, verify_contract

__all__ = [
    "MODES",
    "ContractError",
    "UnsupportedDynamicShapeError",
    "check_guarantees",
    "describe",
    "verify_contract",
]
