"""Shared helpers of the ported arksim cases: the SPEC-override marker and a counter."""

from __future__ import annotations

import pytest

__all__ = ["spec_override"]


def spec_override(reason: str) -> pytest.MarkDecorator:
    """Mark a ported arksim case whose expected outcome SPEC.md overrides (reason says why)."""
    return pytest.mark.spec_override(reason=reason)
