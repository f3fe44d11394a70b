"""Shared fixtures of the Python tests."""

from __future__ import annotations

import pytest

from driver_support import DRIVER_TARGETS, require_driver


@pytest.fixture(scope="module", params=list(DRIVER_TARGETS))
def driver(request: pytest.FixtureRequest) -> str:
    """A runtime driver with a device here; the others are skipped with the reason."""
    name: str = request.param
    require_driver(name)
    return name
