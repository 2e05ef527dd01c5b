"""`evaluation`: which metrics run, their thresholds and the quality gates.

Owned by the evaluator; the run config embeds it as its `evaluation` key.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

__all__ = ["EvalConfig"]


class EvalConfig(BaseModel):
    """Evaluation settings (filled in by the evaluator work)."""

    model_config = ConfigDict(extra="forbid")
