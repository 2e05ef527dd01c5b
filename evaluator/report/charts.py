"""The report's overview charts as plotly figures (serialised to JSON for the page).

Built in Python with `plotly.graph_objects` so they stay testable and
consistent; drawn in the browser by the one embedded copy of plotly.js.
Per-conversation charts (span waterfalls) are drawn lazily in JS instead,
see `assets.py`.
"""

from __future__ import annotations

from dataclasses import dataclass

import plotly.graph_objects as go
import plotly.io as pio
from tracesim.evaluator.report.data import ReportData

__all__ = ["LOWER_IS_BETTER", "STATUS_COLORS", "TOP_N", "Chart", "build_charts", "worst_scenarios"]

TOP_N = 15
"""Rows a per-scenario or per-tool chart draws: the worst (or busiest) ones; the rest are in
the conversation list and the tables, so a chart's height never grows with the run."""

STATUS_COLORS = {"Done": "#2e9d5b", "Partial Failure": "#e8a33d", "Failed": "#d9534f"}
"""Final status label -> colour, shared with the page's CSS badges."""
_SOURCE_COLORS = {"explicit": "#6f8fd6", "traced": "#9b7ad1", "both": "#3f6fb0"}
_LAYOUT = {
    "margin": {"l": 150, "r": 20, "t": 60, "b": 50},
    "template": "plotly_white",
    "font": {"family": "system-ui, -apple-system, Segoe UI, sans-serif", "size": 12},
    "legend": {"orientation": "h", "x": 1, "xanchor": "right", "y": 1.0, "yanchor": "bottom"},
}
LOWER_IS_BETTER = frozenset({"tool_error_rate", "tool_latency"})
"""Metrics where 0 is good: kept off the red-to-green per-scenario heatmap."""


@dataclass
class Chart:
    """One figure on the page: a DOM id, a heading, a one-line caption, the figure JSON."""

    id: str
    title: str
    caption: str
    figure_json: str


def _count_axis(largest: float) -> dict:
    """Axis settings for counts: whole numbers only (never 0.5 calls)."""
    axis: dict = {"tickformat": "d", "rangemode": "tozero"}
    if largest <= 10:
        axis["dtick"] = 1
    return axis


def _count_colorbar(largest: float) -> dict:
    """A heatmap colour bar of counts: whole numbers, each once."""
    bar: dict = {"tickformat": "d"}
    if largest <= 10:
        bar["dtick"] = 1
    return bar


def _figure(fig: go.Figure, title: str, height: int) -> str:
    fig.update_layout(
        **_LAYOUT, title={"text": title, "x": 0, "y": 0.98, "font": {"size": 14}}, height=height
    )
    return pio.to_json(fig, validate=False, pretty=False)


def worst_scenarios(data: ReportData, limit: int = TOP_N) -> list[str]:
    """Scenarios by share of conversations not Done (then Failed count), worst first."""
    totals: dict[str, int] = {}
    bad: dict[str, int] = {}
    failed: dict[str, int] = {}
    for sc, label, n in data.status_by_scenario:
        totals[sc] = totals.get(sc, 0) + n
        if label != "Done":
            bad[sc] = bad.get(sc, 0) + n
        if label == "Failed":
            failed[sc] = failed.get(sc, 0) + n
    order = sorted(totals, key=lambda sc: (-bad.get(sc, 0) / totals[sc], -failed.get(sc, 0), sc))
    return order[:limit]


def _status(data: ReportData) -> Chart | None:
    if not data.status_by_scenario:
        return None
    every = {sc for sc, _, _ in data.status_by_scenario}
    scenarios = worst_scenarios(data)
    labels = [lab for lab in STATUS_COLORS if any(lab == x for _, x, _ in data.status_by_scenario)]
    labels += sorted({lab for _, lab, _ in data.status_by_scenario} - set(labels))
    counts = {(sc, lab): n for sc, lab, n in data.status_by_scenario}
    fig = go.Figure(
        [
            go.Bar(
                name=lab,
                y=scenarios,
                x=[counts.get((sc, lab), 0) for sc in scenarios],
                orientation="h",
                marker_color=STATUS_COLORS.get(lab, "#888"),
            )
            for lab in labels
        ]
    )
    totals = [sum(counts.get((sc, lab), 0) for lab in labels) for sc in scenarios]
    fig.update_layout(barmode="stack", xaxis_title="conversations")
    fig.update_yaxes(autorange="reversed")
    fig.update_xaxes(**_count_axis(max(totals, default=0)))
    capped = len(every) > len(scenarios)
    title = (
        f"Final status: the {len(scenarios)} worst of {len(every)} scenarios"
        if capped
        else "Final status per scenario"
    )
    return Chart(
        "chart-status",
        title,
        "Conversations by final status, worst scenarios (largest share not Done) on top."
        + (" Every scenario is in the conversation list's filter." if capped else ""),
        _figure(fig, title, 120 + 28 * len(scenarios)),
    )


def _means(data: ReportData) -> Chart | None:
    metrics = [m for m in data.metrics if m.bounded and m.graded]
    if not metrics:
        return None
    metrics.sort(key=lambda m: m.metric, reverse=True)
    fig = go.Figure(
        go.Bar(
            y=[m.metric for m in metrics],
            x=[m.mean for m in metrics],
            orientation="h",
            marker_color="#3f6fb0",
            text=[f"{m.mean:.2f} (n={m.graded})" for m in metrics],
            textposition="auto",
            customdata=[[m.level, m.total - m.graded, m.passed, m.failed] for m in metrics],
            hovertemplate="%{y}: mean %{x:.3f}<br>%{customdata[0]} level, "
            "%{customdata[1]} not graded<br>passed %{customdata[2]}, failed %{customdata[3]}"
            "<extra></extra>",
        )
    )
    fig.update_xaxes(range=[0, 1.05], title="mean of graded values")
    return Chart(
        "chart-means",
        "Metric means",
        "Mean of graded values; not-graded results (NULL) are left out, never counted as 0.",
        _figure(fig, "Metric means", 100 + 24 * len(metrics)),
    )


def _distribution(data: ReportData) -> Chart | None:
    metrics = [m for m in data.metrics if m.bounded and m.graded]
    if not metrics:
        return None
    metrics.sort(key=lambda m: m.metric, reverse=True)
    bins = [f"{i / 10:.1f}–{(i + 1) / 10:.1f}" for i in range(10)]
    fig = go.Figure(
        go.Heatmap(
            z=[m.histogram for m in metrics],
            x=bins,
            y=[m.metric for m in metrics],
            colorscale="Blues",
            colorbar=_count_colorbar(max((max(m.histogram) for m in metrics), default=0)),
            hovertemplate="%{y} in %{x}: %{z} results<extra></extra>",
        )
    )
    fig.update_xaxes(title="value")
    return Chart(
        "chart-distribution",
        "Score distribution",
        "How many results fall in each tenth of [0, 1], per metric.",
        _figure(fig, "Score distribution", 100 + 24 * len(metrics)),
    )


def _per_scenario(data: ReportData) -> Chart | None:
    if not data.scenario_means:
        return None
    every = sorted({sc for sc, _, _, _ in data.scenario_means})
    scenarios = _worst_by_mean(data, TOP_N)
    metrics = sorted(
        {m for _, m, _, _ in data.scenario_means if m not in LOWER_IS_BETTER}, reverse=True
    )
    if not metrics:  # only lower-is-better metrics: nothing for a red-to-green map
        return None
    cell = {(sc, m): (mean, n) for sc, m, mean, n in data.scenario_means}
    z = [[cell.get((sc, m), (None, 0))[0] for sc in scenarios] for m in metrics]
    text = [[f"{v:.2f}" if v is not None else "" for v in row] for row in z]
    fig = go.Figure(
        go.Heatmap(
            z=z,
            x=scenarios,
            y=metrics,
            zmin=0,
            zmax=1,
            colorscale="RdYlGn",
            text=text,
            texttemplate="%{text}",
            hovertemplate="%{y} / %{x}: mean %{z:.3f}<extra></extra>",
        )
    )
    title = (
        f"Metric means: the {len(scenarios)} lowest of {len(every)} scenarios"
        if len(every) > len(scenarios)
        else "Metric means per scenario"
    )
    return Chart(
        "chart-scenarios",
        title,
        "Mean of graded values per scenario, lowest mean first (blank: not graded there; "
        "error rates and latencies are in the tools table).",
        _figure(fig, title, 120 + 24 * len(metrics)),
    )


def _worst_by_mean(data: ReportData, limit: int) -> list[str]:
    """Scenarios by their mean over the higher-is-better metrics, lowest first."""
    sums: dict[str, list[float]] = {}
    for sc, metric, mean, _ in data.scenario_means:
        if metric not in LOWER_IS_BETTER and mean is not None:
            sums.setdefault(sc, []).append(mean)
    every = {sc for sc, _, _, _ in data.scenario_means}
    order = sorted(every, key=lambda sc: (sum(sums.get(sc, [1.0])) / len(sums.get(sc, [1.0])), sc))
    return order[:limit]


def _service_tools(data: ReportData) -> Chart | None:
    """Tool calls per service and tool: the heatmap of traces with no per-scenario scores
    (a file filled by `tracesim collect` alone)."""
    if not data.tool_services or _per_scenario(data) is not None:
        return None
    busiest: dict[str, int] = {}
    for _, t, n in data.tool_services:
        busiest[t] = busiest.get(t, 0) + n
    top = set(sorted(busiest, key=lambda t: (-busiest[t], t))[:TOP_N])
    services = sorted({sv for sv, t, _ in data.tool_services if t in top})
    tools = sorted(top, reverse=True)
    cell = {(sv, t): n for sv, t, n in data.tool_services}
    z = [[cell.get((sv, t), 0) for sv in services] for t in tools]
    fig = go.Figure(
        go.Heatmap(
            z=z,
            x=services,
            y=tools,
            colorscale="Blues",
            text=[[str(v) if v else "" for v in row] for row in z],
            texttemplate="%{text}",
            colorbar=_count_colorbar(max((n for _, _, n in data.tool_services), default=0)),
            hovertemplate="%{x} called %{y} %{z} time(s)<extra></extra>",
        )
    )
    fig.update_xaxes(title="service")
    return Chart(
        "chart-service-tools",
        "Tool calls per service",
        "Tool spans per service and tool, as captured.",
        _figure(fig, "Tool calls per service", 140 + 26 * len(tools)),
    )


def _tools(data: ReportData) -> Chart | None:
    if not data.tools:
        return None
    tools = list(reversed(data.tools[:TOP_N]))  # busiest first, on top
    names = [t["name"] for t in tools]
    bars = [
        go.Bar(
            name=kind,
            y=names,
            x=[t[kind] for t in tools],
            orientation="h",
            marker_color=color,
        )
        for kind, color in _SOURCE_COLORS.items()
    ]
    bars.append(
        go.Bar(
            name="errors",
            y=names,
            x=[t["errors"] for t in tools],
            orientation="h",
            marker_color="#d9534f",
            customdata=[[t["p50_ms"], t["p95_ms"]] for t in tools],
            hovertemplate="%{y}: %{x} errors<br>p50 %{customdata[0]:.0f} ms, "
            "p95 %{customdata[1]:.0f} ms<extra></extra>",
        )
    )
    fig = go.Figure(bars)
    largest = max((max(t[k] for k in (*_SOURCE_COLORS, "errors")) for t in tools), default=0)
    fig.update_layout(barmode="group", xaxis_title="calls")
    fig.update_xaxes(**_count_axis(largest))
    more = len(data.tools) - len(tools)
    return Chart(
        "chart-tools",
        "Tool calls by how they were observed",
        "explicit: reported by the agent only; traced: seen in spans only; "
        "both: reported and matched to a span. Red: calls that returned an error."
        + (f" The {len(tools)} busiest tools; {more} more in the tools table." if more else ""),
        _figure(fig, "Tool calls", 140 + 60 * len(names)),
    )


def build_charts(data: ReportData) -> list[Chart]:
    """Every overview chart the data supports (charts with nothing to show are left out)."""
    builders = (_status, _tools, _means, _per_scenario, _service_tools, _distribution)
    return [chart for build in builders if (chart := build(data)) is not None]
