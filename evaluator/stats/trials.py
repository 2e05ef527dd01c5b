"""A scenario run k times is one scenario with k trials: its pass statistics, and a run's.

`scenario_trials` rolls up one scenario's trial outcomes (pass / fail / could not
grade) and the per-trial metric means; `roll_up` the run over its scenarios. A
trial that could not be graded counts as a trial that did not pass and is
counted apart (`ungraded`), never dropped: a flaky grader must not look like a
reliable agent.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from pydantic import BaseModel, Field
from tracesim.evaluator.stats.bootstrap import DEFAULT_SEED, bootstrap_mean_ci
from tracesim.evaluator.stats.clustered import clustered_pass_rate_interval
from tracesim.evaluator.stats.proportions import pass_curves, wilson_interval

__all__ = ["ScenarioTrials", "TrialOutcome", "TrialRollup", "roll_up", "scenario_trials"]

TrialOutcome = bool | None
"""True passed, False failed, None could not be graded (counted as not passed)."""


class ScenarioTrials(BaseModel):
    """One scenario's trials (results.json `scenarios[]`, `runs.summary`)."""

    scenario_id: str
    """The scenario."""
    trials: int
    """Conversations run of this scenario (`num_conversations_per_scenario` or its `repeats`)."""
    passed: int
    """Trials that passed the trial rule (`evaluation.trial_pass`; default status `Done`)."""
    ungraded: int = 0
    """Trials that could not be graded (counted in `trials`, never in `passed`)."""
    pass_rate: float | None = None
    """passed / trials (None with no trial)."""
    pass_rate_ci: list[float] | None = None
    """95% Wilson interval of the pass rate, [low, high]."""
    pass_at_k: dict[int, float] = Field(default_factory=dict)
    """k -> P(at least one of k trials passes), k = 1..trials (tau-bench's estimator)."""
    pass_hat_k: dict[int, float] = Field(default_factory=dict)
    """k -> pass^k, P(all k trials pass), k = 1..trials (tau-bench's estimator)."""
    flaky: bool = False
    """The same scenario both passed and failed (a graded failure: an ungraded trial alone
    does not make a scenario flaky)."""
    metric_means: dict[str, float] = Field(default_factory=dict)
    """Metric -> mean over the trials of each trial's mean graded value (trials that graded
    the metric only)."""
    metric_graded: dict[str, int] = Field(default_factory=dict)
    """Metric -> how many trials graded it."""


class TrialRollup(BaseModel):
    """A run's trials over all its scenarios (results.json `trials`, `runs.summary`)."""

    scenarios: int = 0
    """Scenarios with at least one trial."""
    trials: int = 0
    passed: int = 0
    ungraded: int = 0
    pass_rate: float | None = None
    """All passes / all trials."""
    pass_rate_ci: list[float] | None = None
    """95% interval of the pass rate, clustered by scenario (`clustered`): Wilson over the
    effective number of trials (trials / design effect), Student's t for few scenarios. The
    trials of a scenario share its difficulty, so it is wider than a Wilson interval over all
    trials when scenarios differ; with one trial per scenario it is that Wilson interval."""
    pass_at_k: dict[int, float] = Field(default_factory=dict)
    """k -> mean over scenarios of their pass@k, k = 1..the fewest trials of a scenario."""
    pass_hat_k: dict[int, float] = Field(default_factory=dict)
    """k -> mean over scenarios of their pass^k (tau-bench's headline), same k."""
    flaky: int = 0
    """How many scenarios are flaky."""
    flaky_scenarios: list[str] = Field(default_factory=list)
    """Their ids."""
    metric_means: dict[str, float] = Field(default_factory=dict)
    """Metric -> mean over scenarios of the scenario means (each scenario weighs the same)."""
    metric_ci: dict[str, list[float]] = Field(default_factory=dict)
    """Metric -> 95% interval of that mean, seeded percentile bootstrap over scenarios."""
    seed: int = DEFAULT_SEED
    """The bootstrap's seed (`evaluation.seed`): the same values and seed, the same intervals."""


def scenario_trials(
    scenario_id: str,
    outcomes: Sequence[TrialOutcome],
    metric_means: Sequence[Mapping[str, float]] = (),
) -> ScenarioTrials:
    """Roll one scenario's trials up: `outcomes` one per trial, `metric_means` each trial's
    metric -> mean graded value (optional)."""
    n = len(outcomes)
    c = sum(1 for o in outcomes if o is True)
    failed = sum(1 for o in outcomes if o is False)
    sums: dict[str, float] = {}
    counts: dict[str, int] = {}
    for means in metric_means:
        for name, value in means.items():
            sums[name] = sums.get(name, 0.0) + value
            counts[name] = counts.get(name, 0) + 1
    ci = wilson_interval(n, c)
    at_k, hat_k = pass_curves(n, c)
    return ScenarioTrials(
        scenario_id=scenario_id,
        trials=n,
        passed=c,
        ungraded=sum(1 for o in outcomes if o is None),
        pass_rate=c / n if n else None,
        pass_rate_ci=list(ci) if ci else None,
        pass_at_k=dict(enumerate(at_k, start=1)),
        pass_hat_k=dict(enumerate(hat_k, start=1)),
        flaky=c > 0 and failed > 0,
        metric_means={name: sums[name] / counts[name] for name in sorted(sums)},
        metric_graded={name: counts[name] for name in sorted(counts)},
    )


def roll_up(scenarios: Iterable[ScenarioTrials], *, seed: int | None = None) -> TrialRollup:
    """The run's roll-up of its scenarios' trials (bootstrap seeded by `seed` when given)."""
    items = [s for s in scenarios if s.trials > 0]
    if not items:
        return TrialRollup()
    n = sum(s.trials for s in items)
    c = sum(s.passed for s in items)
    ci = clustered_pass_rate_interval([(s.trials, s.passed) for s in items])
    k_max = min(s.trials for s in items)
    per_metric: dict[str, list[float]] = {}
    for s in items:
        for name, value in s.metric_means.items():
            per_metric.setdefault(name, []).append(value)
    extra = {} if seed is None else {"seed": seed}
    metric_ci = {}
    for name, values in sorted(per_metric.items()):
        interval = bootstrap_mean_ci(values, **extra)
        if interval is not None:
            metric_ci[name] = list(interval)
    flaky = sorted(s.scenario_id for s in items if s.flaky)
    return TrialRollup(
        scenarios=len(items),
        trials=n,
        passed=c,
        ungraded=sum(s.ungraded for s in items),
        pass_rate=c / n,
        pass_rate_ci=list(ci) if ci else None,
        pass_at_k={k: sum(s.pass_at_k[k] for s in items) / len(items) for k in range(1, k_max + 1)},
        pass_hat_k={
            k: sum(s.pass_hat_k[k] for s in items) / len(items) for k in range(1, k_max + 1)
        },
        flaky=len(flaky),
        flaky_scenarios=flaky,
        metric_means={name: sum(v) / len(v) for name, v in sorted(per_metric.items())},
        metric_ci=metric_ci,
        seed=DEFAULT_SEED if seed is None else seed,
    )
