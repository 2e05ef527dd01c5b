"""`evaluation.trial_pass` and `evaluation.baseline`: when a trial passes, what it is compared with.

A scenario run k times is one scenario with k trials (SPEC §13). By default a
trial passes when its conversation's final status is `Done`; `trial_pass`
can accept other statuses and require metric bounds. `baseline` names an
earlier evaluation that `tracesim run` / `evaluate` compare with at the end.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

__all__ = ["BaselineConfig", "FINAL_STATUSES", "TrialPassRule"]

FINAL_STATUSES: tuple[str, ...] = ("Done", "Partial Failure", "Failed")
"""Graded conversation statuses (`Not graded` never passes a trial)."""


class TrialPassRule(BaseModel):
    """When one trial (one conversation of a scenario) passes.

    All conditions must hold. A metric named in `min_metrics` / `max_metrics` that the
    trial did not grade fails the trial (it cannot be shown to pass)."""

    model_config = ConfigDict(extra="forbid")

    statuses: list[str] = Field(default_factory=lambda: ["Done"])
    """Final statuses that pass (of Done, Partial Failure, Failed)."""
    min_metrics: dict[str, float] = Field(default_factory=dict)
    """Metric -> lowest passing value of the trial's mean of that metric
    (e.g. `tool_call_args: 1.0`, `goal_completion: 0.75`)."""
    max_metrics: dict[str, float] = Field(default_factory=dict)
    """Metric -> highest passing value (e.g. `agent_cost_usd: 0.02`, `tool_error_rate: 0`)."""

    @field_validator("statuses")
    @classmethod
    def _known_statuses(cls, value: list[str]) -> list[str]:
        for status in value:
            if status not in FINAL_STATUSES:
                raise ValueError(
                    f"trial_pass.statuses: {status!r} is not a status; one of "
                    f"{', '.join(FINAL_STATUSES)}"
                )
        return value


class BaselineConfig(BaseModel):
    """The evaluation a run is compared with (`tracesim compare` at the end of the run)."""

    model_config = ConfigDict(extra="forbid")

    db: str | None = None
    """The store holding the baseline (DuckDB file, `clickhouse://...`, `chdb://DIR`);
    default: the run's own store. Relative paths are resolved against the config file."""
    ref: str = "latest"
    """An eval id, a run id, or `latest` (the newest evaluation before this one)."""
    alpha: float = Field(default=0.05, gt=0, lt=1)
    """Significance level of the exact test on each scenario's pass counts."""
    correction: Literal["none", "holm"] = "none"
    """`holm`: Holm-Bonferroni over the scenarios (alpha bounds any false verdict of the
    whole comparison, not of each scenario); `none`: each scenario at alpha."""
