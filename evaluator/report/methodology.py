"""The report's "How scores are computed" section: formula, turn success, statuses, gates,
and each metric of the evaluation, with the parameters this evaluation actually used.

Parameters come from the evaluation's `runs.config` (the EvalConfig it ran with);
the per-metric texts from `evaluator.scoring.methodology` when that module provides them
(custom metrics, and metrics it does not know, get a generic line).
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Callable
from html import escape
from typing import Any

from tracesim.evaluator.report.aggregate import MetricSummary

__all__ = ["SEVERITY_ORDER", "STATUS_ROWS", "methodology_html"]

SEVERITY_ORDER = ("critical", "high", "medium", "low")
"""Severity of behaviour-failure labels (`scores.details.severity`), most severe first."""

STATUS_ROWS = (
    ("Done", "final score = 1.0: every graded turn succeeded (and the goal was completed)"),
    ("Partial Failure", "final score >= {partial} (`partial_failure_threshold`) but below 1.0"),
    ("Failed", "final score below {partial}"),
    (
        "Evaluation Failed",
        "no final score could be computed: no turn was graded (zero turns included) and goal "
        "completion was not graded (judges not run or every judge request failed). tracesim "
        "stores it as `Not graded`; it is never counted as 0",
    ),
    (
        "Error",
        "a turn errored or timed out, or the simulated user's LLM failed: the conversation is "
        "ungradeable (its checks are not graded) and the error names its source",
    ),
    ("Interrupted", "the run was stopped before the conversation ended: ungradeable"),
)
"""Final statuses and how each is reached (`{partial}`: the threshold used)."""

_GENERIC = "A custom metric (or one this version does not describe): its reason says how it scored."


def _describer() -> Callable[[str], str | None]:
    """`methodology_for` of `evaluator.scoring.methodology` if present, else one knowing nothing."""
    try:
        module = importlib.import_module("tracesim.evaluator.scoring.methodology")
    except ImportError:
        return lambda metric: None
    return getattr(module, "methodology_for", lambda metric: None)


def _text(text: str) -> str:
    """Escaped text with `name` shown as code."""
    return re.sub(r"`([^`]+)`", r"<code>\1</code>", escape(text))


def _num(value: Any, default: float) -> str:
    return f"{value if isinstance(value, (int, float)) else default:g}"


def _bands(partial: str) -> str:
    """The score bands' rows (`evaluator.scoring.methodology.score_bands`)."""
    try:
        module = importlib.import_module("tracesim.evaluator.scoring.methodology")
        bands = module.score_bands(float(partial))
    except (ImportError, AttributeError, ValueError):
        return ""
    return "".join(
        f"<tr><td>{escape(band)}</td><td>{escape(span)}</td><td>{escape(text)}</td></tr>"
        for band, span, text in bands
    )


def methodology_html(config: dict[str, Any] | None, metrics: list[MetricSummary]) -> str:
    """The section's HTML for an evaluation run with `config` over `metrics`."""
    config = config if isinstance(config, dict) else {}
    w = _num(config.get("goal_completion_weight"), 0.25)
    rest = f"{1 - float(w):g}"
    partial = _num(config.get("partial_failure_threshold"), 0.6)
    turn_threshold = _num(config.get("turn_success_threshold"), 0.5)
    per_metric = config.get("turn_thresholds") or {}
    overrides = (
        " (per metric: "
        + ", ".join(f"{escape(str(k))} {escape(str(v))}" for k, v in per_metric.items())
        + ")"
        if isinstance(per_metric, dict) and per_metric
        else ""
    )
    describe = _describer()
    rows = "".join(
        f"<tr><td><code>{escape(m.metric)}</code></td><td>{escape(m.level)}</td>"
        f"<td>{_text(describe(m.metric) or _GENERIC)}</td></tr>"
        for m in metrics
    )
    statuses = "".join(
        f"<tr><td><span class='badge {escape(name.replace(' ', '-'))}'>{escape(name)}</span>"
        f"</td><td>{_text(text.format(partial=partial))}</td></tr>"
        for name, text in STATUS_ROWS
    )
    gates = []
    for key, word in (("thresholds", ">="), ("max_thresholds", "<=")):
        bounds = config.get(key) or {}
        if isinstance(bounds, dict):
            gates += [f"{escape(str(k))} {word} {escape(str(v))}" for k, v in bounds.items()]
    scope = escape(str(config.get("gate_scope") or "mean"))
    gate_text = (
        f"Gates of this evaluation: {', '.join(gates)}; compared with the {scope} of the "
        "graded values. A failed gate makes the exit code 1; nothing graded, every gate "
        "skipped, an interrupted run or conversations ended by an error make it 3."
        if gates
        else _text(
            "No gate was defined for this evaluation (`evaluation.thresholds` / "
            "`max_thresholds`): nothing was checked against a bound and the exit code is 0 "
            "whatever the scores."
        )
    )
    severities = ", ".join(f"<span class='sev {s}'>{s}</span>" for s in SEVERITY_ORDER)
    return f"""<section id="methodology"><h2>How scores are computed</h2>
<div class="method">
<p><strong>Final score</strong> (per conversation) = {rest} &times; turn success ratio +
{w} &times; goal completion (<code>goal_completion_weight</code> = {w}), clamped to [0, 1].
When goal completion is not graded the final score is the turn success ratio alone; when no
turn is graded it is goal completion alone; when neither is graded there is no final score.
</p>
<p><strong>Turn success ratio</strong> = successful turns / graded turns.
<strong>Turn success</strong>: a turn whose agent call raised or timed out is not graded
(its conversation is an Error). Otherwise every <em>deciding</em> result of the turn (graded, with a pass/fail) must pass: tool checks
(scenario assertions) by their own verdict, LLM judges at a value of at least
{turn_threshold} (<code>turn_success_threshold</code>){overrides}, label judges by their
label, custom metrics by their pass/fail. A turn nothing decided is not graded and left out
of the ratio. An assertion about a turn the agent's error kept from happening is not graded.
Conversation-level checks cap the final score at the share of them that passed: one failed
check fails the conversation. Zero turns: no graded turn, so no turn success ratio (arksim
counts 1.0).</p>
<p><strong>Not graded</strong> (a judge with no model, nothing to compare) is its own outcome,
shown as &ndash;, never counted as 0 in means, ratios or gates. Behaviour-failure labels carry
a severity: {severities}.</p>
<table class="statuses"><thead><tr><th>status</th><th>when</th></tr></thead>
<tbody>{statuses}</tbody></table>
<h3>Score bands</h3>
<table class="bands"><thead><tr><th>band</th><th>range</th><th>meaning</th></tr></thead>
<tbody>{_bands(partial)}</tbody></table>
<p>{gate_text}</p>
<h3>Metrics in this evaluation</h3>
<table><thead><tr><th>metric</th><th>level</th><th>how it is computed</th></tr></thead>
<tbody>{rows or "<tr><td colspan=3 class='muted'>no scores</td></tr>"}</tbody></table>
</div></section>"""
