"""Registers the `spec_override` marker of the ported arksim cases."""

from __future__ import annotations

import pytest


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "spec_override(reason): a ported arksim case whose outcome SPEC.md overrides"
    )
