"""The exact-vs-upper-bound contract (SPEC §7).

* :func:`verify_contract` — judges what inference recorded that each op
  requires: proven, checked at run time, or rejected (or, in ``defer``
  mode, checked at run time too);
* :func:`check_guarantees` — passes never upgrade a guarantee;
* :class:`UnsupportedDynamicShapeError` — the one error for "needed an exact
  extent, had a bound or nothing".
"""

from symshape_mlir.contract.errors import UnsupportedDynamicShapeError, describe
from symshape_mlir.contract.guarantees import check_guarantees
from symshape_mlir.contract.verify import (
    MODES,
    UNPROVEN,
    ContractError,
    ContractReport,
    verify_contract,
)

__all__ = [
    "MODES",
    "UNPROVEN",
    "ContractError",
    "ContractReport",
    "UnsupportedDynamicShapeError",
    "check_guarantees",
    "describe",
    "verify_contract",
]
