"""The report's trials section: each scenario's trials, and the before/after view of a
comparison with the baseline (both from the evaluation's `runs.summary`)."""

from __future__ import annotations

from html import escape
from typing import Any

__all__ = ["trials_html", "trials_section"]

_VERDICT_BADGE = {
    "regressed": "fail",
    "improved": "pass",
    "unchanged": "notgraded",
    "inconclusive": "warn",
}


def _run(side: dict[str, Any]) -> str:
    """`run <id>`, or what an evaluation of no single run covered (`--all-runs`, traces)."""
    run_id = side.get("run_id")
    return f"run {run_id}" if run_id else "every conversation of its file, no single run"


def _pct(value: Any) -> str:
    return "–" if not isinstance(value, (int, float)) else f"{value:.0%}"


def _ci(ci: Any) -> str:
    if not isinstance(ci, list) or len(ci) != 2:
        return "–"
    return f"{_pct(ci[0])}–{_pct(ci[1])}"


def _table(headers: list[str], rows: list[list[str]]) -> str:
    head = "".join(f"<th>{escape(h)}</th>" for h in headers)
    body = "".join("<tr>" + "".join(f"<td>{c}</td>" for c in row) + "</tr>" for row in rows)
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def _hat(values: Any) -> str:
    if not isinstance(values, dict) or not values:
        return "–"
    k = max(values, key=lambda key: int(key))
    return f"{float(values[k]):.2f} (k={escape(str(k))})"


def _scenarios(summary: dict[str, Any]) -> str:
    scenarios = summary.get("scenarios") or []
    if not any(isinstance(s, dict) and s.get("trials", 0) > 1 for s in scenarios):
        return ""  # one trial each: the conversation list says it all
    rows = []
    for s in scenarios:
        flaky = "<span class='badge warn'>flaky</span>" if s.get("flaky") else ""
        rows.append(
            [
                escape(str(s.get("scenario_id"))),
                f"{s.get('passed')}/{s.get('trials')}",
                _pct(s.get("pass_rate")),
                _ci(s.get("pass_rate_ci")),
                _hat(s.get("pass_hat_k")),
                flaky,
            ]
        )
    t = summary.get("trials") or {}
    head = (
        f"<p class='muted'>{escape(str(t.get('passed')))}/{escape(str(t.get('trials')))} trials "
        f"passed, pass rate {_pct(t.get('pass_rate'))} (95% CI over scenarios {_ci(t.get('pass_rate_ci'))}), "
        f"pass^k {_hat(t.get('pass_hat_k'))}, {escape(str(t.get('flaky', 0)))} flaky scenario(s).</p>"
    )
    return (
        "<h3>Trials per scenario</h3>"
        + head
        + _table(["scenario", "passed", "pass rate", "95% interval", "pass^k", ""], rows)
    )


def _comparison(comparison: Any) -> str:
    if not isinstance(comparison, dict):
        return ""
    base = comparison.get("baseline") or {}
    rows = []
    for s in comparison.get("scenarios") or []:
        b, c = s.get("baseline") or {}, s.get("candidate") or {}
        verdict = str(s.get("verdict"))
        p = s.get("p_value")
        rows.append(
            [
                escape(str(s.get("scenario_id"))),
                f"{b.get('passed')}/{b.get('trials')} ({_pct(b.get('pass_rate'))})",
                f"{c.get('passed')}/{c.get('trials')} ({_pct(c.get('pass_rate'))})",
                "–" if p is None else f"{p:.3g}",
                f"<span class='badge {_VERDICT_BADGE.get(verdict, 'notgraded')}'>"
                f"{escape(verdict)}</span>",
            ]
        )
    summary = comparison.get("summary") or {}
    counts = ", ".join(
        f"{summary.get(v, 0)} {v}" for v in ("regressed", "improved", "unchanged", "inconclusive")
    )
    apart = [
        f"only in the {side}: {escape(', '.join(comparison.get(key) or []))}"
        for key, side in (("only_in_baseline", "baseline"), ("only_in_candidate", "candidate"))
        if comparison.get(key)
    ]
    return (
        "<h3>Before / after: compared with the baseline</h3>"
        f"<p class='muted'>Baseline evaluation {escape(str(base.get('eval_id')))} "
        f"({escape(_run(base))}): {counts}. Fisher's exact test on each "
        f"scenario's pass counts, two-sided, alpha {comparison.get('alpha', 0.05)}.</p>"
        + _table(["scenario", "before", "after", "p", "verdict"], rows)
        + "".join(f"<p class='muted'>{line}</p>" for line in apart)
    )


def _agent_usage(usage: Any) -> str:
    if not isinstance(usage, dict) or not usage.get("conversations"):
        return ""
    cost = usage.get("cost_usd")
    priced = f", ${cost:.4f}" if isinstance(cost, (int, float)) else ", cost unknown"
    unpriced = usage.get("unpriced_conversations") or 0
    note = f" ({unpriced} conversation(s) with a model of unknown price)" if unpriced else ""
    return (
        f"<p class='muted'>Agent model usage: {escape(str(usage.get('input_tokens')))} + "
        f"{escape(str(usage.get('output_tokens')))} tokens over "
        f"{escape(str(usage.get('conversations')))} conversation(s){priced}{note}.</p>"
    )


def trials_html(run: dict[str, Any] | None) -> str:
    """The section's HTML for the evaluation's `runs` row ('' when there is nothing to show)."""
    summary = (run or {}).get("summary")
    if not isinstance(summary, dict):
        return ""
    return (
        _agent_usage(summary.get("agent_usage"))
        + _scenarios(summary)
        + _comparison(summary.get("comparison"))
    )


def trials_section(run: dict[str, Any] | None) -> str:
    """`trials_html` as the report's `trials` section ('' when empty)."""
    body = trials_html(run)
    if not body:
        return ""
    return f'<section id="trials"><h2>Trials and baseline</h2>{body}</section>'
