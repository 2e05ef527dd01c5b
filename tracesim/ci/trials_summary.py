"""The trials and the baseline comparison as Markdown lines of the GitHub step summary."""

from __future__ import annotations

from typing import Any

__all__ = ["trials_markdown"]


def _pct(value: float | None) -> str:
    return "–" if value is None else f"{value:.0%}"


def trials_markdown(report: Any) -> list[str]:
    """Lines for `report` (an EvaluationReport): the run's trials when a scenario was run more
    than once or is flaky, and the comparison with the baseline when there is one."""
    lines: list[str] = []
    trials = getattr(report, "trials", None)
    scenarios = getattr(report, "scenarios", None) or []
    if trials is not None and trials.trials and any(s.trials > 1 for s in scenarios):
        ci = trials.pass_rate_ci
        interval = f" (95% CI {_pct(ci[0])}–{_pct(ci[1])})" if ci else ""
        k = max(trials.pass_hat_k) if trials.pass_hat_k else None
        hat = f", pass^{k} {trials.pass_hat_k[k]:.2f}" if k else ""
        lines.append(
            f"**Trials:** {trials.passed}/{trials.trials} passed over {trials.scenarios} "
            f"scenario(s), pass rate {_pct(trials.pass_rate)}{interval}{hat}."
        )
        if trials.flaky_scenarios:
            lines.append(
                f"**Flaky scenarios** ({trials.flaky}): "
                + ", ".join(f"`{s}`" for s in trials.flaky_scenarios)
            )
        lines.append("")
    comparison = getattr(report, "comparison", None)
    if comparison:
        from tracesim.compare_format import comparison_markdown

        lines.append(comparison_markdown(comparison, heading="###"))
    return lines
