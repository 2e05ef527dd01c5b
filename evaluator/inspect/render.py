"""`tracesim inspect`'s plain text (no markup: stored text is printed as it is)."""

from __future__ import annotations

from collections import defaultdict

from tracesim.evaluator.extract.audit import KINDS, RESULT_WITHOUT_CALL, Unexplained
from tracesim.evaluator.inspect.model import Inspection

__all__ = ["format_inspection"]


def format_inspection(inspection: Inspection, *, limit: int = 20) -> str:
    """Plain text for a terminal or a CI log; `limit` unkeyed tool spans are listed."""
    lines: list[str] = []
    if not inspection.groups:
        return "no spans stored"
    for g in inspection.groups:
        lines.append(f"service {g.service_name or '(none)'} / scope {g.scope_name or '(none)'}")
        lines.append(
            f"  spans: {g.spans} ({g.unkeyed_spans} without a conversation key)"
            f"; conventions: {', '.join(g.conventions) or 'none recognised'}"
        )
        tools = f"  tool spans: {g.tool_spans}"
        if g.unkeyed_tool_spans:
            tools += f" ({g.unkeyed_tool_spans} unkeyed)"
        if g.tool_spans:
            unread = ", ".join(f"{k} {v}/{g.tool_spans}" for k, v in sorted(g.unread.items()))
            tools += f"; fields not read: {unread or 'none'}"
        lines.append(tools)
        usage = (
            "no usage"
            if g.input_tokens is None and g.output_tokens is None
            else (f"tokens in {g.input_tokens or 0} / out {g.output_tokens or 0}")
        )
        models = f"  model calls: {g.model_calls}"
        if g.model_calls:
            models += f"; {usage}"
            if g.model_calls_without_usage:
                models += f" ({g.model_calls_without_usage} calls without usage)"
        lines.append(models)
    _format_unexplained(inspection, lines, limit)
    if inspection.unkeyed_traces:
        lines.append("")
        lines.append(
            f"unkeyed traces (tool or model calls, no conversation key; each evaluated as a "
            f"conversation of its own): {len(inspection.unkeyed_traces)}"
        )
        lines.extend(f"  trace {trace_id}" for trace_id in inspection.unkeyed_traces[:limit])
        if len(inspection.unkeyed_traces) > limit:
            lines.append(f"  ... and {len(inspection.unkeyed_traces) - limit} more")
        answering = {i.trace_id for i in inspection.unexplained if i.kind == RESULT_WITHOUT_CALL}
        answering &= set(inspection.unkeyed_traces)
        if answering:  # tracesim never joins traces by a replayed history (README)
            lines.append(
                f"  {len(answering)} of them hold results without a call: likely one "
                "conversation split over traces (a trace per model call); a parent span "
                "around the agent loop, or a conversation key on each call, keys it as one"
            )
    if inspection.unkeyed:
        lines.append("")
        lines.append(f"unkeyed tool spans: {len(inspection.unkeyed)}")
        reasons = sorted({item.reason for item in inspection.unkeyed})
        lines.extend(f"  why: {reason}" for reason in reasons)
        for item in inspection.unkeyed[:limit]:
            lines.append(
                f"  {item.name} (trace {item.trace_id}, span {item.span_id}, "
                f"service {item.service_name or '(none)'})"
            )
        if len(inspection.unkeyed) > limit:
            lines.append(f"  ... and {len(inspection.unkeyed) - limit} more")
    return "\n".join(lines)


def _format_unexplained(inspection: Inspection, lines: list[str], limit: int) -> None:
    """The evidence that did not become a call, per kind, `limit` items each."""
    by_kind: dict[str, list[Unexplained]] = defaultdict(list)
    for item in inspection.unexplained:
        by_kind[item.kind].append(item)
    for kind, what in KINDS.items():
        items = by_kind.get(kind)
        if not items:
            continue
        lines.append("")
        lines.append(f"{what}: {len(items)}")
        for item in items[:limit]:
            name = f"{item.name} " if item.name else ""
            detail = f": {item.detail}" if item.detail else ""
            lines.append(f"  {name}(trace {item.trace_id}, span {item.span_id}){detail}")
        if len(items) > limit:
            lines.append(f"  ... and {len(items) - limit} more")
