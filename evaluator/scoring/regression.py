"""The regression gate: a comparison with the baseline as one quality gate.

With `evaluation.fail_on_regression`, a run or evaluation compared with its
`evaluation.baseline` fails (exit 1) when any scenario regressed; as a gate it
shows in the terminal, the step summary, JUnit and the report like any other.
"""

from __future__ import annotations

from tracesim.evaluator.scoring.gates import GateResult
from tracesim.evaluator.stats.compare import Comparison

__all__ = ["REGRESSION_METRIC", "regression_gate"]

REGRESSION_METRIC = "baseline_regressions"
"""The gate's name: scenarios that regressed against the baseline (must be 0)."""


def regression_gate(comparison: Comparison) -> GateResult:
    """`baseline_regressions <= 0` over the scenarios both evaluations ran."""
    regressed = comparison.regressed
    paired = len(comparison.scenarios)
    base = comparison.baseline.get("eval_id")
    if regressed:
        reason = (
            f"FAILED: {len(regressed)} of {paired} scenario(s) regressed against baseline "
            f"{base} (Fisher's exact test, alpha {comparison.alpha:g}): {', '.join(regressed)}"
        )
    else:
        reason = (
            f"passed: no scenario of {paired} regressed against baseline {base} "
            f"(alpha {comparison.alpha:g})"
        )
    return GateResult(
        metric=REGRESSION_METRIC,
        bound="max",
        threshold=0.0,
        scope="each",
        observed=float(len(regressed)),
        graded=paired,
        failing=len(regressed),
        passed=None if not paired else not regressed,
        reason=reason if paired else f"skipped: no scenario in common with baseline {base}",
    )
