"""Compare two evaluations scenario by scenario and metric by metric (`tracesim compare`).

Pure: each side is an `EvaluationDigest` (what an evaluation's `runs` row keeps:
its scenarios' trials and metric means). Per scenario in both: the pass counts,
the change of pass rate and the verdict of `evaluator.stats.verdict` (Fisher's
exact test, two-sided, at `alpha`) on the graded trials: a trial that could not
be graded is neither a pass nor a failure of the agent, so it is counted
(`ungraded`) and left out of the test. Per metric: the mean over the scenarios
both sides graded of the paired change (candidate - baseline scenario means),
with a seeded bootstrap interval over those scenarios. Scenarios in one side
only are listed apart and never get a verdict.
"""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import BaseModel, Field
from tracesim.evaluator.stats.bootstrap import paired_change_ci
from tracesim.evaluator.stats.trials import ScenarioTrials, TrialRollup
from tracesim.evaluator.stats.verdict import (
    DEFAULT_ALPHA,
    VerdictName,
    decide,
    holm_adjust,
    scenario_verdict,
)

__all__ = [
    "Comparison",
    "Correction",
    "EvaluationDigest",
    "MetricChange",
    "ScenarioComparison",
    "SideCounts",
    "compare_evaluations",
]

TEST_NAME = "fisher_exact_two_sided"

Correction = Literal["none", "holm"]


class EvaluationDigest(BaseModel):
    """One side of a comparison: an evaluation's identity and its scenarios' trials."""

    eval_id: str
    run_id: str | None = None
    kind: str | None = None
    created_at: datetime | None = None
    db: str = ""
    """The store it was read from."""
    trials: TrialRollup = Field(default_factory=TrialRollup)
    scenarios: list[ScenarioTrials] = Field(default_factory=list)


class SideCounts(BaseModel):
    """One side's trials of a scenario."""

    trials: int
    passed: int
    pass_rate: float | None
    """passed / graded trials (None when none was graded)."""
    flaky: bool
    ungraded: int = 0
    """Trials that could not be graded: left out of the test and of `pass_rate`."""


class ScenarioComparison(BaseModel):
    """One scenario present on both sides."""

    scenario_id: str
    baseline: SideCounts
    candidate: SideCounts
    change: float | None
    """Candidate pass rate - baseline pass rate."""
    verdict: VerdictName
    p_value: float | None
    """Fisher's exact test, two-sided, on the 2x2 table of passes and failures."""
    p_adjusted: float | None = None
    """With `correction: holm`: the Holm-adjusted p-value the verdict was decided on."""


class MetricChange(BaseModel):
    """One metric's change over the scenarios both sides graded."""

    metric: str
    scenarios: int
    """Scenarios paired (graded on both sides)."""
    baseline_mean: float
    candidate_mean: float
    change: float
    """Mean over those scenarios of (candidate mean - baseline mean)."""
    change_ci: list[float] | None
    """95% interval of `change`, seeded percentile bootstrap over the paired scenarios."""


class Comparison(BaseModel):
    """The whole comparison; its JSON is a contract (README "Is my change worse?")."""

    baseline: dict[str, object]
    candidate: dict[str, object]
    test: str = TEST_NAME
    alpha: float = DEFAULT_ALPHA
    correction: Correction = "none"
    """`none`: each scenario tested at alpha; `holm`: Holm-Bonferroni over the scenarios."""
    scenarios: list[ScenarioComparison] = Field(default_factory=list)
    only_in_baseline: list[str] = Field(default_factory=list)
    only_in_candidate: list[str] = Field(default_factory=list)
    metrics: list[MetricChange] = Field(default_factory=list)
    summary: dict[str, int] = Field(default_factory=dict)
    """Scenarios per verdict (regressed, improved, unchanged, inconclusive) and the counts
    of scenarios in one side only."""

    @property
    def regressed(self) -> list[str]:
        """Ids of the scenarios that regressed."""
        return [s.scenario_id for s in self.scenarios if s.verdict == "regressed"]


def _side(digest: EvaluationDigest) -> dict[str, object]:
    t = digest.trials
    return {
        "eval_id": digest.eval_id,
        "run_id": digest.run_id,
        "kind": digest.kind,
        "created_at": digest.created_at.isoformat() if digest.created_at else None,
        "db": digest.db,
        "scenarios": len(digest.scenarios),
        "trials": t.trials,
        "passed": t.passed,
        "pass_rate": t.pass_rate,
    }


def _counts(s: ScenarioTrials) -> SideCounts:
    graded = s.trials - s.ungraded
    return SideCounts(
        trials=s.trials,
        passed=s.passed,
        pass_rate=s.passed / graded if graded else None,
        flaky=s.flaky,
        ungraded=s.ungraded,
    )


def compare_evaluations(
    baseline: EvaluationDigest,
    candidate: EvaluationDigest,
    *,
    alpha: float = DEFAULT_ALPHA,
    correction: Correction = "none",
    seed: int | None = None,
) -> Comparison:
    """Pair `candidate` with `baseline` by scenario id (see the module); `correction:
    holm` decides the verdicts on Holm-adjusted p-values (many scenarios, one alpha)."""
    base = {s.scenario_id: s for s in baseline.scenarios}
    cand = {s.scenario_id: s for s in candidate.scenarios}
    common = sorted(base.keys() & cand.keys())
    rows: list[ScenarioComparison] = []
    for sid in common:
        b, c = base[sid], cand[sid]
        v = scenario_verdict(
            b.trials - b.ungraded, b.passed, c.trials - c.ungraded, c.passed, alpha=alpha
        )
        before, after = _counts(b), _counts(c)
        change = (
            after.pass_rate - before.pass_rate
            if after.pass_rate is not None and before.pass_rate is not None
            else None
        )
        rows.append(
            ScenarioComparison(
                scenario_id=sid,
                baseline=before,
                candidate=after,
                change=change,
                verdict=v.verdict,
                p_value=v.p_value,
            )
        )
    if correction == "holm":
        adjusted = holm_adjust([row.p_value for row in rows])
        for row, p_adj in zip(rows, adjusted, strict=True):
            before, after = row.baseline, row.candidate
            graded_b, graded_c = before.trials - before.ungraded, after.trials - after.ungraded
            change = after.passed * graded_b - before.passed * graded_c
            row.p_adjusted = p_adj
            row.verdict = decide(change, p_adj, alpha=alpha)
    metric_names = sorted(
        {n for sid in common for n in base[sid].metric_means}
        & {n for sid in common for n in cand[sid].metric_means}
    )
    extra = {} if seed is None else {"seed": seed}
    metrics: list[MetricChange] = []
    for name in metric_names:
        paired = [
            (base[sid].metric_means[name], cand[sid].metric_means[name])
            for sid in common
            if name in base[sid].metric_means and name in cand[sid].metric_means
        ]
        if not paired:
            continue
        before = [p[0] for p in paired]
        after = [p[1] for p in paired]
        change, ci = paired_change_ci(before, after, **extra)
        metrics.append(
            MetricChange(
                metric=name,
                scenarios=len(paired),
                baseline_mean=sum(before) / len(before),
                candidate_mean=sum(after) / len(after),
                change=change,
                change_ci=list(ci) if ci else None,
            )
        )
    summary = {v: 0 for v in ("regressed", "improved", "unchanged", "inconclusive")}
    for row in rows:
        summary[row.verdict] += 1
    only_base = sorted(base.keys() - cand.keys())
    only_cand = sorted(cand.keys() - base.keys())
    summary["only_in_baseline"] = len(only_base)
    summary["only_in_candidate"] = len(only_cand)
    return Comparison(
        baseline=_side(baseline),
        candidate=_side(candidate),
        alpha=alpha,
        correction=correction,
        scenarios=rows,
        only_in_baseline=only_base,
        only_in_candidate=only_cand,
        metrics=metrics,
        summary=summary,
    )
