"""Statistics for verdicts on non-deterministic agents (SPEC §13): pure functions, no I/O.

- `proportions`: Wilson interval, pass@k and pass^k from n trials and c passes;
- `exact_test`: Fisher's exact test on a 2x2 table of pass counts;
- `bootstrap`: seeded percentile bootstrap intervals of a mean and of a paired mean change;
- `clustered`: a run's pass-rate interval with its trials clustered by scenario;
- `trials`: one scenario's trials rolled up, and a run's roll-up over scenarios;
- `verdict`: regressed / improved / unchanged / inconclusive for one scenario;
- `compare`: two evaluations paired scenario by scenario and metric by metric.
"""

from tracesim.evaluator.stats.bootstrap import bootstrap_mean_ci, paired_change_ci
from tracesim.evaluator.stats.clustered import clustered_pass_rate_interval, design_effect
from tracesim.evaluator.stats.compare import (
    Comparison,
    EvaluationDigest,
    compare_evaluations,
)
from tracesim.evaluator.stats.exact_test import fisher_exact
from tracesim.evaluator.stats.proportions import pass_at_k, pass_hat_k, wilson_interval
from tracesim.evaluator.stats.trials import (
    ScenarioTrials,
    TrialRollup,
    roll_up,
    scenario_trials,
)
from tracesim.evaluator.stats.verdict import DEFAULT_ALPHA, Verdict, scenario_verdict

__all__ = [
    "Comparison",
    "DEFAULT_ALPHA",
    "EvaluationDigest",
    "ScenarioTrials",
    "TrialRollup",
    "Verdict",
    "bootstrap_mean_ci",
    "clustered_pass_rate_interval",
    "compare_evaluations",
    "design_effect",
    "fisher_exact",
    "paired_change_ci",
    "pass_at_k",
    "pass_hat_k",
    "roll_up",
    "scenario_trials",
    "scenario_verdict",
    "wilson_interval",
]
