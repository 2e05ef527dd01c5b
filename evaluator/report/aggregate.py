"""Aggregate the chosen evaluation's scores and tool calls for the summary and charts.

Pure functions over the rows `data.py` reads: metric summaries, failures
grouped by label, per-tool counts and latencies.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

from evaluator.report.shape import call_entry, clip

__all__ = [
    "NON_FAILURE_LABELS",
    "MetricSummary",
    "group_failures",
    "metric_summaries",
    "scenario_means",
    "status_by_scenario",
    "tool_rows",
]

NON_FAILURE_LABELS = frozenset({"no failure", "no_failure", "none", "not_run", "pass", "ok"})
"""agent_behavior_failure labels that are not failures (arksim's positive labels)."""


@dataclass
class MetricSummary:
    """One metric of the chosen evaluation, over every turn or conversation it scored."""

    metric: str
    level: str  # "turn" | "conversation" | "mixed"
    total: int
    graded: int
    mean: float | None
    passed: int
    failed: int
    bounded: bool  # every value within [0, 1]: drawn on the 0..1 charts
    histogram: list[int] = field(default_factory=list)  # 10 bins over [0, 1]


def metric_summaries(scores: list[dict[str, Any]]) -> list[MetricSummary]:
    by_metric: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for s in scores:
        by_metric[s["metric"]].append(s)
    out = []
    for metric in sorted(by_metric):
        rows = by_metric[metric]
        values = [r["value"] for r in rows if r["value"] is not None]
        levels = {"turn" if r["turn_id"] is not None else "conversation" for r in rows}
        bounded = all(0.0 <= v <= 1.0 for v in values)
        hist = [0] * 10
        if bounded:
            for v in values:
                hist[min(int(v * 10), 9)] += 1
        out.append(
            MetricSummary(
                metric=metric,
                level=levels.pop() if len(levels) == 1 else "mixed",
                total=len(rows),
                graded=len(values),
                mean=sum(values) / len(values) if values else None,
                passed=sum(1 for r in rows if r["passed"] is True),
                failed=sum(1 for r in rows if r["passed"] is False),
                bounded=bounded,
                histogram=hist,
            )
        )
    return out


def group_failures(
    scores: list[dict[str, Any]], final: dict[str, dict[str, Any]], scenario_of: dict[str, str]
) -> dict[str, dict[str, list[dict[str, Any]]]]:
    """Failing conversations grouped by status, behaviour-failure label and failed metric."""
    groups: dict[str, dict[str, list[dict[str, Any]]]] = {
        "Final status": defaultdict(list),
        "Agent behaviour failure": defaultdict(list),
        "Failed metric": defaultdict(list),
    }
    for chat_id, f in final.items():
        if f["label"] and f["label"] != "Done":
            groups["Final status"][f["label"]].append(
                {
                    "chat_id": chat_id,
                    "scenario": scenario_of.get(chat_id),
                    "turn_id": None,
                    "reason": clip(f["reason"], 300),
                }
            )
    seen_metric: set[tuple[str, str]] = set()
    for s in scores:
        item = {
            "chat_id": s["chat_id"],
            "scenario": scenario_of.get(s["chat_id"]),
            "turn_id": s["turn_id"],
            "reason": clip(s["reason"], 300),
        }
        if s["metric"] == "agent_behavior_failure":
            label = (s["label"] or "").strip()
            if label and label.lower() not in NON_FAILURE_LABELS:
                groups["Agent behaviour failure"][label].append(item)
        elif s["passed"] is False and s["metric"] != "final_score":
            key = (s["metric"], s["chat_id"])
            if key not in seen_metric:  # one entry per conversation and metric
                seen_metric.add(key)
                groups["Failed metric"][s["metric"]].append(item)
    return {
        g: dict(sorted(labels.items(), key=lambda kv: -len(kv[1]))) for g, labels in groups.items()
    }


def tool_rows(calls: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Per tool: calls by how they were observed, errors and latency percentiles."""
    by_name: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for c in calls:
        by_name[c["name"] or "(unnamed)"].append(call_entry(c))
    out = []
    for name, group in sorted(by_name.items(), key=lambda kv: -len(kv[1])):
        ms = sorted(c["ms"] for c in group if c["ms"] is not None)

        def pct(p: float, ms: list[float] = ms) -> float | None:
            return ms[min(len(ms) - 1, int(round(p * (len(ms) - 1))))] if ms else None

        out.append(
            {
                "name": name,
                "calls": len(group),
                "errors": sum(1 for c in group if c["error"]),
                "explicit": sum(1 for c in group if c["observed"] == "explicit"),
                "traced": sum(1 for c in group if c["observed"] == "traced"),
                "both": sum(1 for c in group if c["observed"] == "both"),
                "p50_ms": pct(0.5),
                "p95_ms": pct(0.95),
            }
        )
    return out


def scenario_means(
    scores: list[dict[str, Any]], scenario_of: dict[str, str], summaries: list[MetricSummary]
) -> list[tuple[str, str, float, int]]:
    """(scenario, metric, mean of graded values, graded count) for metrics within [0, 1]."""
    bounded = {m.metric for m in summaries if m.bounded}
    acc: dict[tuple[str, str], list[float]] = defaultdict(list)
    for s in scores:
        if s["value"] is not None and s["metric"] in bounded:
            acc[(scenario_of.get(s["chat_id"], "(none)"), s["metric"])].append(s["value"])
    return [(sc, m, sum(v) / len(v), len(v)) for (sc, m), v in sorted(acc.items())]


def status_by_scenario(
    final: dict[str, dict[str, Any]], scenario_of: dict[str, str]
) -> list[tuple[str, str, int]]:
    """(scenario, final status label, conversations) from the final_score rows."""
    counts: dict[tuple[str, str], int] = defaultdict(int)
    for chat_id, f in final.items():
        counts[(scenario_of.get(chat_id, "(none)"), f["label"] or "(no label)")] += 1
    return [(sc, label, n) for (sc, label), n in sorted(counts.items())]
