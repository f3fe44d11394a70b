"""Shared fixtures of the Python tests."""

from __future__ import annotations

from pathlib import Path

import pytest

from driver_support import DRIVER_TARGETS, require_driver


@pytest.fixture(scope="module", params=list(DRIVER_TARGETS))
def driver(request: pytest.FixtureRequest) -> str:
    """A runtime driver with a device here; the others are skipped with the reason."""
    name: str = request.param
    require_driver(name)
    return name


@pytest.fixture(scope="module")
def cache_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A runtime disk cache private to the requesting test module."""
    return tmp_path_factory.mktemp("runtime-cache")
