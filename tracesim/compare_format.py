"""A comparison (`evaluator.stats.compare.Comparison`) as text, Markdown or JSON.

Used by `tracesim compare`, the end of `tracesim run` / `evaluate` with a
baseline, and the GitHub step summary. The JSON is the comparison's model dump:
its names are a contract (README "Is my change worse?").
"""

from __future__ import annotations

from typing import Any

import orjson

__all__ = ["comparison_json", "comparison_markdown", "comparison_text", "headline"]

_MARK = {
    "regressed": "REGRESSED",
    "improved": "improved",
    "unchanged": "unchanged",
    "inconclusive": "inconclusive",
}


def _rate(side: dict[str, Any]) -> str:
    rate = side.get("pass_rate")
    flaky = " flaky" if side.get("flaky") else ""
    shown = "-" if rate is None else f"{rate:.0%}"
    ungraded = f" +{side['ungraded']} ungraded" if side.get("ungraded") else ""
    return f"{side['passed']}/{side['trials'] - (side.get('ungraded') or 0)} ({shown}){ungraded}{flaky}"


def _p(value: float | None) -> str:
    return "-" if value is None else f"{value:.3g}"


def _p_head(comparison: dict[str, Any]) -> str:
    return "p (Holm)" if comparison.get("correction") == "holm" else "p"


def _p_of(comparison: dict[str, Any], row: dict[str, Any]) -> float | None:
    """The p-value the verdict was decided on (Holm-adjusted when corrected)."""
    return row.get("p_adjusted") if comparison.get("correction") == "holm" else row["p_value"]


def _num(value: float) -> str:
    return f"{value:+.4g}"


def _ci(ci: list[float] | None) -> str:
    return "-" if not ci else f"[{ci[0]:+.4g}, {ci[1]:+.4g}]"


def headline(comparison: dict[str, Any]) -> str:
    """One line: the verdict counts against the baseline."""
    s = comparison.get("summary", {})
    base = comparison.get("baseline", {}).get("eval_id")
    parts = [f"{s.get(v, 0)} {v}" for v in ("regressed", "improved", "unchanged", "inconclusive")]
    apart = s.get("only_in_baseline", 0) + s.get("only_in_candidate", 0)
    tail = f"; {apart} scenario(s) in one side only" if apart else ""
    holm = ", Holm-corrected" if comparison.get("correction") == "holm" else ""
    return (
        f"against baseline {base}: {', '.join(parts)}{tail} "
        f"(Fisher's exact test, two-sided, alpha {comparison.get('alpha', 0.05):g}{holm})"
    )


def comparison_text(comparison: dict[str, Any]) -> str:
    """A plain-text table for the terminal."""
    lines = [
        f"baseline:  {_who(comparison['baseline'])}",
        f"candidate: {_who(comparison['candidate'])}",
        "",
    ]
    rows = [("scenario", "baseline", "candidate", "change", _p_head(comparison), "verdict")]
    for s in comparison["scenarios"]:
        change = "-" if s["change"] is None else f"{s['change']:+.0%}"
        rows.append(
            (
                s["scenario_id"],
                _rate(s["baseline"]),
                _rate(s["candidate"]),
                change,
                _p(_p_of(comparison, s)),
                _MARK[s["verdict"]],
            )
        )
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    for row in rows:
        lines.append("  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip())
    for key, label in (("only_in_baseline", "baseline"), ("only_in_candidate", "candidate")):
        if comparison[key]:
            lines.append(f"only in the {label}: {', '.join(comparison[key])}")
    if comparison["metrics"]:
        lines.append("")
        lines.append("metric changes (candidate - baseline, paired by scenario, 95% bootstrap):")
        for m in comparison["metrics"]:
            lines.append(
                f"  {m['metric']}: {m['baseline_mean']:.4g} -> {m['candidate_mean']:.4g} "
                f"({_num(m['change'])}, {_ci(m['change_ci'])}) over {m['scenarios']} scenario(s)"
            )
    lines.append("")
    lines.append(headline(comparison))
    if comparison.get("summary", {}).get("inconclusive"):
        lines.append(
            "inconclusive: the pass rates differ, but too few trials to tell a change from "
            "chance; run more (num_conversations_per_scenario) on both sides"
        )
    return "\n".join(lines)


def _run(side: dict[str, Any]) -> str:
    """`run <id>`, or what an evaluation of no single run covered (`--all-runs`, traces)."""
    if side.get("run_id"):
        return f"run {side['run_id']}"
    return "every conversation of the file, no single run"


def _who(side: dict[str, Any]) -> str:
    rate = side.get("pass_rate")
    shown = "-" if rate is None else f"{rate:.0%}"
    return (
        f"eval {side.get('eval_id')} ({_run(side)}) in {side.get('db')}: "
        f"{side.get('passed')}/{side.get('trials')} trials passed ({shown}) over "
        f"{side.get('scenarios')} scenario(s)"
    )


def _md(text: str) -> str:
    return text.replace("|", "\\|")


def comparison_markdown(comparison: dict[str, Any], *, heading: str = "###") -> str:
    """Markdown: a per-scenario before/after table, then metric changes."""
    out = [
        f"{heading} Compared with the baseline",
        "",
        _md(headline(comparison)),
        "",
        f"| scenario | baseline | candidate | change | {_p_head(comparison)} | verdict |",
        "|---|---|---|---|---|---|",
    ]
    for s in comparison["scenarios"]:
        change = "-" if s["change"] is None else f"{s['change']:+.0%}"
        verdict = s["verdict"]
        shown = f"**{verdict}**" if verdict in ("regressed", "improved") else verdict
        out.append(
            f"| {_md(s['scenario_id'])} | {_rate(s['baseline'])} | {_rate(s['candidate'])} "
            f"| {change} | {_p(_p_of(comparison, s))} | {shown} |"
        )
    for key, label in (("only_in_baseline", "baseline"), ("only_in_candidate", "candidate")):
        if comparison[key]:
            out.append("")
            out.append(f"Only in the {label}: {_md(', '.join(comparison[key]))}")
    if comparison["metrics"]:
        out += [
            "",
            "| metric | baseline | candidate | change | 95% interval | scenarios |",
            "|---|---|---|---|---|---|",
        ]
        for m in comparison["metrics"]:
            out.append(
                f"| {_md(m['metric'])} | {m['baseline_mean']:.4g} | {m['candidate_mean']:.4g} "
                f"| {_num(m['change'])} | {_ci(m['change_ci'])} | {m['scenarios']} |"
            )
    return "\n".join(out) + "\n"


def comparison_json(comparison: dict[str, Any]) -> str:
    """The comparison as indented JSON."""
    return orjson.dumps(comparison, option=orjson.OPT_INDENT_2).decode() + "\n"
