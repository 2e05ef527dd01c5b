"""The agent's own usage per conversation: tokens, cost, turns and tool calls (budgets).

Tokens come from the spans' hot columns (`input_tokens`, `output_tokens`, `model`,
filled at ingest from whichever convention the span uses). A span that carries
tokens and has a descendant that also carries tokens is an aggregate (an agent
or chain span summing its model calls, as LangChain and OpenInference agents
record them) and is not counted again: only the lowest carriers are summed. An agent with
no spans of its own is measured by the usage its answers reported (a chat-completions
`usage`, written on the turn's span): counted for a turn only when no other span of that
turn carries tokens, so the same calls are never counted twice.

Cost = tokens x the model's price (`tracesim.schemas.prices`: the config's
`evaluation.prices` over a built-in table). A model with no price is never
guessed: `agent_cost_usd` is then not graded and its reason names the model
and the fix. Values are counts and USD, not in [0, 1]; lower is better.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from tracesim.schemas import MetricResult
from tracesim.schemas.conventions import TRACESIM
from tracesim.schemas.prices import ModelPrice, price_for

__all__ = ["UsageTotals", "agent_usage", "count_metric"]

_KIND = {"kind": "usage"}
TURN_SPAN = TRACESIM.TURN_SPAN


class UsageTotals:
    """Token counts per model of one conversation's lowest token-carrying spans."""

    __slots__ = ("per_model", "spans")

    def __init__(self) -> None:
        self.per_model: dict[str | None, list[int]] = {}
        self.spans = 0

    @classmethod
    def of_spans(cls, spans: Iterable[Mapping[str, Any]]) -> UsageTotals:
        """Sum the spans' tokens, leaving out aggregates of their descendants' tokens."""
        totals = cls()
        parent: dict[str, str | None] = {}
        carriers: list[Mapping[str, Any]] = []
        for span in spans:
            span_id = span.get("span_id")
            if span_id:
                parent[span_id] = span.get("parent_span_id")
            if span.get("input_tokens") is not None or span.get("output_tokens") is not None:
                carriers.append(span)
        # a turn span's usage is the agent's own report of the turn (its chat-completions
        # answer, `simulator.connectors.chat_completions_usage`): the same calls as its
        # spans, so it counts only for a turn where no other span carries tokens
        traced_turns = {s.get("turn_id") for s in carriers if s.get("name") != TURN_SPAN}
        carriers = [
            s
            for s in carriers
            if s.get("name") != TURN_SPAN or s.get("turn_id") not in traced_turns
        ]
        aggregates: set[str] = set()
        for span in carriers:
            up = parent.get(span.get("span_id") or "")
            seen = 0
            while up and up not in aggregates and seen < 1000:
                aggregates.add(up)
                up = parent.get(up)
                seen += 1
        for span in carriers:
            if span.get("span_id") in aggregates:
                continue
            counts = totals.per_model.setdefault(span.get("model") or None, [0, 0])
            counts[0] += int(span.get("input_tokens") or 0)
            counts[1] += int(span.get("output_tokens") or 0)
            totals.spans += 1
        return totals


def _result(name: str, value: float | None, reason: str, **details: Any) -> MetricResult:
    return MetricResult(name=name, value=value, reason=reason, details={**_KIND, **details})


def agent_usage(
    spans: Iterable[Mapping[str, Any]], *, prices: Mapping[str, ModelPrice] | None = None
) -> list[MetricResult]:
    """`agent_input_tokens`, `agent_output_tokens`, `agent_tokens` and `agent_cost_usd` of one
    conversation; [] when no span carried a token count (nothing to measure)."""
    totals = UsageTotals.of_spans(spans)
    if not totals.spans:
        return []
    inp = sum(c[0] for c in totals.per_model.values())
    out = sum(c[1] for c in totals.per_model.values())
    models = {
        str(m): {"input_tokens": c[0], "output_tokens": c[1]} for m, c in totals.per_model.items()
    }
    where = f"{totals.spans} model call span(s)"
    results = [
        _result("agent_input_tokens", float(inp), f"{inp} input tokens over {where}"),
        _result("agent_output_tokens", float(out), f"{out} output tokens over {where}"),
        _result(
            "agent_tokens", float(inp + out), f"{inp + out} tokens over {where}", models=models
        ),
    ]
    cost = 0.0
    unpriced: list[str] = []
    for model, (m_in, m_out) in sorted(totals.per_model.items(), key=lambda kv: str(kv[0])):
        price = price_for(model, prices)
        if price is None:
            unpriced.append(str(model))
            continue
        models[str(model)]["cost_usd"] = price.cost(m_in, m_out)
        cost += price.cost(m_in, m_out)
    if unpriced:
        names = ", ".join(unpriced)
        results.append(
            _result(
                "agent_cost_usd",
                None,
                f"no price for model(s) {names}: add evaluation.prices.<model>: "
                "{input_per_mtok: ..., output_per_mtok: ...} to the config",
                models=models,
            )
        )
    else:
        results.append(_result("agent_cost_usd", cost, f"${cost:.6f} over {where}", models=models))
    return results


def count_metric(name: str, value: int, what: str) -> MetricResult:
    """A count budgets gate (`num_turns`, `num_tool_calls`)."""
    return _result(name, float(value), f"{value} {what}")
