"""The symshape passes and their registry (packaged as ``symshape_mlir.passes``).

To add a pass: write ``passes/<snake_name>.py`` holding one
:class:`~symshape_mlir.pipeline.ModulePass` subclass, add it to
:data:`PASSES` under its ``name``, and add ``test/lit/<snake_name>.mlir``
(``test/py/test_pass_registry.py`` checks all three).
"""

from __future__ import annotations

import logging

from symshape_mlir.passes.check_guarantees import CheckGuarantees
from symshape_mlir.passes.infer_shapes import InferShapes
from symshape_mlir.passes.resolve import Resolve
from symshape_mlir.passes.specialize import Specialize
from symshape_mlir.passes.strip_annotations import StripAnnotations
from symshape_mlir.passes.to_iree import ToIree
from symshape_mlir.passes.verify_contract import VerifyContract
from symshape_mlir.pipeline import ModulePass

__all__ = ["PASSES"]

logger = logging.getLogger(__name__)

PASSES: dict[str, type[ModulePass]] = {
    "symshape-check-guarantees": CheckGuarantees,
    "symshape-infer-shapes": InferShapes,
    "symshape-resolve": Resolve,
    "symshape-specialize": Specialize,
    "symshape-strip-annotations": StripAnnotations,
    "symshape-to-iree": ToIree,
    "symshape-verify-contract": VerifyContract,
}
"""Every symshape pass and pipeline alias, by pass name."""
