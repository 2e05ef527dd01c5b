"""Real files for the user-view report tests: a `tracesim run` with a failing check and an
agent that raises, and a file filled by a real collector alone (no run, no evaluation)."""

from __future__ import annotations

import json
import os
import textwrap
from pathlib import Path

import yaml
from opentelemetry import trace
from opentelemetry.exporter.otlp.proto.grpc.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from tracesim.collector.collector import Collector

from tracesim.config_loader import load_run_config
from tracesim.run import RunOutcome, run

__all__ = ["collected_only_db", "failing_run"]

AGENT = """
from tracesim import AgentResponse, BaseAgent, ToolCall


def charge_card(order_id):
    raise ValueError(f"database exploded while charging {order_id}")


class ShopAgent(BaseAgent):
    async def execute(self, user_query, **kwargs):
        if "crash" in user_query:
            charge_card("A9")
        return AgentResponse(
            content="I looked it up.",
            tool_calls=[ToolCall(name="lookup_order", arguments={"order_id": "A1"})],
        )
"""

SCENARIOS = {
    "scenarios": [
        {
            "scenario_id": "refund-needed",
            "goal": "refund",
            "turns": ["I want a refund for A1"],
            "assertions": [
                {
                    "type": "tool_calls",
                    "turn": 0,
                    "match_mode": "contains",
                    "expected": [{"name": "issue_refund", "args": {"order_id": "A1"}}],
                }
            ],
        },
        {
            "scenario_id": "agent-crash",
            "goal": "pay",
            "turns": ["please crash now", "and then?"],
            "assertions": [
                {
                    "type": "tool_calls",
                    "turn": 1,
                    "match_mode": "contains",
                    "expected": [{"name": "lookup_order"}],
                }
            ],
        },
        {
            "scenario_id": "order-ok",
            "goal": "status",
            "turns": ["where is A1"],
            "assertions": [
                {
                    "type": "tool_calls",
                    "turn": 0,
                    "match_mode": "contains",
                    "expected": [{"name": "lookup_order"}],
                }
            ],
        },
    ]
}


def failing_run(root: Path) -> RunOutcome:
    """`tracesim run` of three scenarios, no gate, no judge model: one check fails, one
    agent raises on turn 0 (its turn-1 assertion fails as not reached), one passes."""
    (root / "agent.py").write_text(textwrap.dedent(AGENT))
    (root / "scenarios.json").write_text(json.dumps(SCENARIOS))
    config = {
        "agent_config": {"agent_type": "custom", "module_path": "agent.py"},
        "scenario_file_path": "scenarios.json",
        "output_dir": "results",
        "user": {"type": "scripted"},
        "trace_wait": {"settle": 0.2, "wait_timeout": 5},
    }
    (root / "config.yaml").write_text(yaml.safe_dump(config))
    key = os.environ.pop("OPENAI_API_KEY", None)  # judges not run: the collapsed line
    try:
        return run(load_run_config(root / "config.yaml"), show_progress=False)
    finally:
        if key is not None:
            os.environ["OPENAI_API_KEY"] = key


def collected_only_db(path: Path) -> Path:
    """Two sessions sent over OTLP to a real collector: `sess-a` with two requests (two
    traces, a tool each, one failing), `sess-b` with one request. Every span carries the
    session id (`gen_ai.conversation.id`)."""
    with Collector(path, grpc_port=0, http_port=None) as collector:
        provider = TracerProvider(resource=Resource.create({"service.name": "shop-agent"}))
        provider.add_span_processor(
            SimpleSpanProcessor(OTLPSpanExporter(endpoint=collector.grpc_endpoint, insecure=True))
        )
        tracer = provider.get_tracer("prod")
        for session, tool, fails in (
            ("sess-a", "lookup_order", False),
            ("sess-a", "issue_refund", True),
            ("sess-b", "lookup_order", False),
        ):
            attrs = {"gen_ai.conversation.id": session}
            with tracer.start_as_current_span("invoke_agent shop", attributes=attrs):
                with tracer.start_as_current_span(
                    "chat gpt-x",
                    attributes={
                        **attrs,
                        "gen_ai.operation.name": "chat",
                        "gen_ai.request.model": "gpt-x",
                    },
                ):
                    pass
                with tracer.start_as_current_span(
                    f"execute_tool {tool}",
                    attributes={
                        **attrs,
                        "gen_ai.operation.name": "execute_tool",
                        "gen_ai.tool.name": tool,
                        "gen_ai.tool.call.arguments": '{"order_id": "A1"}',
                    },
                ) as span:
                    if fails:
                        span.set_status(trace.Status(trace.StatusCode.ERROR, "refund service down"))
        provider.shutdown()
        assert collector.flush(10)
    return path
