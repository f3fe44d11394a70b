"""Command-line tools; ``symshape-opt`` lives in :mod:`symshape_mlir.tools.opt`."""

import logging

__all__: list[str] = []

logger = logging.getLogger(__name__)
