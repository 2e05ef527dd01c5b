"""Quality gates and exit codes.

A gate is a bound on one metric from the config: `thresholds[name]` is a
minimum, `max_thresholds[name]` a maximum. With `gate_scope: mean` (default)
the bound is compared with the mean of the metric's graded values over the
whole evaluation (every turn for a turn-level metric, every conversation for
a conversation-level one, both when a metric exists at both levels); with
`gate_scope: each` every graded value must meet it. Not-graded values are
left out. A gate with no graded value is skipped (`passed` None), or fails
when `fail_ungraded_gates` is set.

Exit codes (`ExitCode`; the verdict rules are in `evaluator.scoring.verdict`):
0 passed, 1 a gate failed, 2 bad input or usage, 3 nothing graded, incomplete
(interrupted, ungradeable errors) or internal error.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Mapping, Sequence
from enum import IntEnum
from typing import Literal

from pydantic import BaseModel
from tracesim.evaluator.scoring.tally import GateStats, MetricTally, tally_values
from tracesim.schemas.eval_config import (
    DERIVED_METRICS,
    JUDGE_NAMES,
    USAGE_METRICS,
    EvalConfig,
)

__all__ = [
    "EvalConfigError",
    "ExitCode",
    "GateResult",
    "TOOL_METRICS",
    "check_gate_names",
    "check_trial_rule",
    "evaluate_gates",
    "exit_code_for",
]

TOOL_METRICS: tuple[str, ...] = (
    "tool_call_args",
    "tool_call_order",
    "tool_call_count",
    "tool_call_output",
    "tool_call_f1",
    "tool_call_stats",
    "trajectory",
    "tool_error_rate",
    "tool_latency",
)
"""Deterministic tool-check metric names (from scenario assertions)."""


class ExitCode(IntEnum):
    """Process exit codes of every tracesim command (the README's table)."""

    OK = 0
    GATE_FAILED = 1
    BAD_CONFIG = 2
    """Bad input or usage: config, paths, a locked file, a busy port (nothing ran)."""
    INCOMPLETE = 3
    """Nothing graded, an interrupted run, ungradeable errors under gates."""
    INTERNAL_ERROR = 3
    """A tracesim failure (a traceback was printed): an alias of INCOMPLETE."""


class EvalConfigError(ValueError):
    """The evaluation cannot start: a bad key, gate or custom metrics file (exit code 2)."""


class GateResult(BaseModel):
    """One gate's outcome."""

    metric: str
    """The gated metric."""
    bound: Literal["min", "max"]
    """`min` from `thresholds`, `max` from `max_thresholds`."""
    threshold: float
    """The configured bound."""
    scope: Literal["mean", "each"]
    """Compared with the run mean, or with each value."""
    observed: float | None
    """The mean of the graded values (None when none was graded)."""
    graded: int
    """How many graded values the metric had."""
    failing: int
    """How many graded values are on the wrong side of the bound."""
    passed: bool | None
    """True/False; None = skipped (nothing graded)."""
    reason: str
    """One sentence for the terminal and the report."""


def check_gate_names(config: EvalConfig, *, extra: Iterable[str] = ()) -> None:
    """Raise EvalConfigError when a gate names no known metric (with a did-you-mean)."""
    known = {*JUDGE_NAMES, *DERIVED_METRICS, *TOOL_METRICS, *USAGE_METRICS, *extra}
    known |= {f"run_{name}" for name in USAGE_METRICS}  # budgets on the run's total
    for key in ("thresholds", "max_thresholds", "turn_thresholds", "failure_labels"):
        for name in getattr(config, key):
            if name not in known:
                close = difflib.get_close_matches(name, sorted(known), n=1, cutoff=0.6)
                hint = f"did you mean {close[0]!r}? " if close else ""
                raise EvalConfigError(
                    f"evaluation.{key}.{name}: unknown metric; {hint}"
                    f"known metrics: {', '.join(sorted(known))}"
                )
    for name, labels in config.failure_labels.items():
        _check_labels(name, labels)


def _judge_labels(name: str) -> list[str] | None:
    """The labels the built-in label judge `name` answers (None: not a label judge)."""
    from tracesim.evaluator.judges import BUILTIN_JUDGES, TOOL_JUDGES

    judge = BUILTIN_JUDGES.get(name) or TOOL_JUDGES.get(name)
    if judge is None:
        return None
    enum = judge.schema.get("properties", {}).get("label", {}).get("enum")
    return [str(label) for label in enum] if enum else None


def _check_labels(name: str, labels: Iterable[str]) -> None:
    """Each label of a `failure_labels` gate is one its judge can answer (a typo would make
    the gate pass forever), with a did-you-mean."""
    known = _judge_labels(name)
    if known is None:  # a custom metric: its labels are its own
        return
    for label in labels:
        if label not in known:
            close = difflib.get_close_matches(label, known, n=1, cutoff=0.6)
            hint = f"did you mean {close[0]!r}? " if close else ""
            raise EvalConfigError(
                f"evaluation.failure_labels.{name}: {label!r} is not a label of {name}; "
                f"{hint}its labels: {', '.join(known)}"
            )


def check_trial_rule(config: EvalConfig, *, extra: Iterable[str] = ()) -> None:
    """Raise EvalConfigError when `trial_pass` bounds an unknown metric, or
    `fail_on_regression` has no `baseline` to regress against."""
    known = {*JUDGE_NAMES, *DERIVED_METRICS, *TOOL_METRICS, *USAGE_METRICS, *extra}
    rule = config.trial_pass
    for key in ("min_metrics", "max_metrics"):
        for name in getattr(rule, key):
            if name not in known:
                raise EvalConfigError(
                    f"evaluation.trial_pass.{key}.{name}: unknown metric; known metrics: "
                    f"{', '.join(sorted(known))}"
                )
    if config.fail_on_regression and config.baseline is None:
        raise EvalConfigError(
            "evaluation.fail_on_regression needs evaluation.baseline: {db: ..., ref: latest} "
            "(the evaluation to compare with)"
        )


def _gate(
    metric: str,
    bound: Literal["min", "max"],
    threshold: float,
    stats: GateStats,
    config: EvalConfig,
) -> GateResult:
    scope = config.gate_scope
    word = ">=" if bound == "min" else "<="
    if not stats.graded:
        passed = False if config.fail_ungraded_gates else None
        verdict = "failed" if passed is False else "skipped"
        return GateResult(
            metric=metric,
            bound=bound,
            threshold=threshold,
            scope=scope,
            observed=None,
            graded=0,
            failing=0,
            passed=passed,
            reason=f"{verdict}: {metric} was not graded anywhere",
        )
    mean = stats.total / stats.graded
    failing = stats.failing
    if scope == "mean":
        passed = mean >= threshold if bound == "min" else mean <= threshold
        reason = (
            f"mean {metric} {mean:.3f} over {stats.graded} value(s), needs {word} {threshold:g}"
        )
    else:
        passed = failing == 0
        reason = f"{failing} of {stats.graded} {metric} value(s) miss {word} {threshold:g}"
    return GateResult(
        metric=metric,
        bound=bound,
        threshold=threshold,
        scope=scope,
        observed=mean,
        graded=stats.graded,
        failing=failing,
        passed=passed,
        reason=("passed: " if passed else "FAILED: ") + reason,
    )


def evaluate_gates(
    values: Mapping[str, Sequence[float]] | MetricTally, config: EvalConfig
) -> list[GateResult]:
    """Every configured gate against `values`: metric name -> its graded values, or their
    running tally (`evaluator.scoring.tally`, built with the same config)."""
    tally = values if isinstance(values, MetricTally) else tally_values(values, config)
    gates = [
        _gate(name, "min", bound, tally.gate_stats(name, "min"), config)
        for name, bound in sorted(config.thresholds.items())
    ]
    gates += [
        _gate(name, "max", bound, tally.gate_stats(name, "max"), config)
        for name, bound in sorted(config.max_thresholds.items())
    ]
    gates += [
        _label_gate(name, labels, tally, config)
        for name, labels in sorted(config.failure_labels.items())
    ]
    return gates


def _label_gate(name: str, labels: list[str], tally: MetricTally, config: EvalConfig) -> GateResult:
    """`failure_labels[name]`: the share of graded values with a listed label must be 0."""
    graded, hits = tally.counts.get(name, 0), tally.label_hits.get(name, 0)
    listed = ", ".join(labels)
    if not graded:
        passed = False if config.fail_ungraded_gates else None
        reason = f"{'failed' if passed is False else 'skipped'}: {name} was not graded anywhere"
    else:
        passed = hits == 0
        reason = ("passed: " if passed else "FAILED: ") + (
            f"{hits} of {graded} {name} value(s) labelled one of: {listed}"
        )
    return GateResult(
        metric=f"{name} labels",
        bound="max",
        threshold=0.0,
        scope="each",
        observed=hits / graded if graded else None,
        graded=graded,
        failing=hits,
        passed=passed,
        reason=reason,
    )


def exit_code_for(gates: Sequence[GateResult]) -> ExitCode:
    """GATE_FAILED when any gate failed, else OK (skipped gates do not fail); the gates
    alone: an evaluation's exit code is `evaluator.scoring.verdict.decide`'s."""
    return ExitCode.GATE_FAILED if any(g.passed is False for g in gates) else ExitCode.OK
