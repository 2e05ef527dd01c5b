"""`tracesim mcp-mock`: the official MCP client against the mock over stdio and streamable HTTP;
its calls are spans of the caller's turn in a real collector."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import anyio
import duckdb
import pytest
from opentelemetry import context as otel_context
from opentelemetry import trace
from opentelemetry.context import Context
from opentelemetry.sdk.trace import TracerProvider
from tracesim.collector.collector import Collector
from tracesim.simulator.routing import with_routing_baggage

SCENARIOS = {
    "scenarios": [
        {
            "scenario_id": "replay-1",
            "turns": ["where is A1?"],
            "tools": [
                {
                    "name": "lookup_order",
                    "inputSchema": {
                        "type": "object",
                        "properties": {"order_id": {"type": "string"}},
                        "required": ["order_id"],
                    },
                }
            ],
            "tool_stubs": [
                {"name": "lookup_order", "args": {"order_id": "A1"}, "result": {"status": "lost"}},
                {"name": "refund", "error": "refunds are down"},
            ],
        },
        {
            "scenario_id": "other",
            "turns": ["hi"],
            "tool_stubs": [{"name": "lookup_order", "result": "from the other scenario"}],
        },
    ]
}
TRACESIM = str(Path(sys.executable).parent / "tracesim")
TRACE_ID = 0x4BF92F3577B34DA6A3CE929D0E0E4736


def _turn_context() -> Context:
    """A turn's context as the simulator makes it: a parent span and the routing baggage."""
    parent = trace.NonRecordingSpan(
        trace.SpanContext(
            TRACE_ID, 0x00F067AA0BA902B7, is_remote=False, trace_flags=trace.TraceFlags(1)
        )
    )
    ctx = trace.set_span_in_context(parent, Context())
    return with_routing_baggage(ctx, chat_id="chat-7", turn_id=0, scenario_id="replay-1")


async def _session_calls(session) -> dict:
    await session.initialize()
    listed = await session.list_tools()
    token = otel_context.attach(_turn_context())
    try:
        found = await session.call_tool("lookup_order", {"order_id": "A1"})
        failed = await session.call_tool("refund", {"order_id": "A1"})
        missing = await session.call_tool("lookup_order", {"order_id": "Z9"})
    finally:
        otel_context.detach(token)
    return {"tools": listed.tools, "found": found, "failed": failed, "missing": missing}


def _check(answers: dict) -> None:
    tools = {t.name: t for t in answers["tools"]}
    assert set(tools) == {"lookup_order", "refund"}
    assert tools["lookup_order"].input_schema["required"] == ["order_id"]
    found = answers["found"]
    assert not found.is_error and json.loads(found.content[0].text) == {"status": "lost"}
    assert found.structured_content == {"status": "lost"}
    assert answers["failed"].is_error and answers["failed"].content[0].text == "refunds are down"
    missing = answers["missing"]
    assert missing.is_error and "no tool stub matches lookup_order" in missing.content[0].text


def _mock_spans(db: Path) -> list[tuple]:
    with duckdb.connect(str(db), read_only=True) as con:
        return con.execute(
            "SELECT trace_id, chat_id, tool_name, status_code FROM spans "
            "WHERE service_name = 'tracesim-mcp-mock' AND name LIKE 'tools/call%' "
            "ORDER BY start_time"
        ).fetchall()


def _expect_turn_spans(db: Path) -> None:
    spans = _mock_spans(db)
    assert [s[2] for s in spans] == ["lookup_order", "refund", "lookup_order"]
    assert {s[0] for s in spans} == {format(TRACE_ID, "032x")}  # spans of the caller's turn
    assert {s[1] for s in spans} == {"chat-7"}
    assert [s[3] for s in spans] == ["UNSET", "ERROR", "ERROR"]


@pytest.fixture(autouse=True)
def _sdk_provider():
    """The client side traces like an instrumented agent (so `_meta` carries the context)."""
    if not isinstance(trace.get_tracer_provider(), TracerProvider):
        trace.set_tracer_provider(TracerProvider())


def test_stdio_transport(tmp_path: Path) -> None:
    from mcp import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    scenarios = tmp_path / "scenarios.json"
    scenarios.write_text(json.dumps(SCENARIOS))
    db = tmp_path / "c.duckdb"
    with Collector(db, grpc_port=0, http_port=None) as collector:
        params = StdioServerParameters(
            command=TRACESIM,
            args=["mcp-mock", "--scenarios", str(scenarios)],
            env={"OTEL_EXPORTER_OTLP_ENDPOINT": collector.grpc_endpoint},
        )

        async def main() -> dict:
            async with stdio_client(params) as (read, write):
                async with ClientSession(read, write) as session:
                    return await _session_calls(session)

        _check(anyio.run(main))
        assert collector.flush(10)
    _expect_turn_spans(db)


def test_streamable_http_transport(tmp_path: Path) -> None:
    from mcp import ClientSession
    from mcp.client.streamable_http import streamable_http_client

    scenarios = tmp_path / "scenarios.json"
    scenarios.write_text(json.dumps(SCENARIOS))
    db = tmp_path / "c.duckdb"
    with Collector(db, grpc_port=0, http_port=None) as collector:
        process = subprocess.Popen(
            [
                TRACESIM,
                "mcp-mock",
                "--scenarios",
                str(scenarios),
                "--transport",
                "http",
                "--port",
                "0",
                "--otlp-endpoint",
                collector.grpc_endpoint,
            ],
            stderr=subprocess.PIPE,
            text=True,
        )
        try:
            line = process.stderr.readline()
            assert "serving http://127.0.0.1:" in line, line
            url = line.rsplit(" ", 1)[-1].strip()

            async def main() -> dict:
                async with streamable_http_client(url) as (read, write, *_):
                    async with ClientSession(read, write) as session:
                        return await _session_calls(session)

            _check(anyio.run(main))
        finally:
            process.terminate()
            process.wait(10)
        assert collector.flush(10)
    _expect_turn_spans(db)


def test_bad_scenarios_file_is_one_line_and_exit_2(tmp_path: Path) -> None:
    bad = tmp_path / "s.json"
    bad.write_text(
        json.dumps([{"scenario_id": "x", "turns": ["a"], "tool_stubs": [{"name": "t"}]}])
    )
    done = subprocess.run(
        [TRACESIM, "mcp-mock", "--scenarios", str(bad)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2
    assert (
        done.stderr.startswith("tracesim mcp-mock: ")
        and "needs a 'result' or an 'error'" in done.stderr
    )
    assert "Traceback" not in done.stderr


def _rpc(client, url: str, body: dict, headers: dict) -> dict | None:
    """One JSON-RPC message over streamable HTTP; the answer from a JSON or SSE body."""
    reply = client.post(
        url,
        json=body,
        headers={"accept": "application/json, text/event-stream", **headers},
    )
    assert reply.status_code < 300, reply.text
    if "id" not in body:
        return None
    if reply.headers.get("content-type", "").startswith("application/json"):
        return reply.json()
    for line in reply.text.splitlines():
        if line.startswith("data:") and '"id"' in line:
            return json.loads(line[5:])
    raise AssertionError(reply.text)


def test_http_headers_carry_the_context_when_meta_does_not(tmp_path: Path) -> None:
    """A client that propagates W3C headers (an HTTP instrumentation), not `_meta`."""
    import httpx

    scenarios = tmp_path / "scenarios.json"
    scenarios.write_text(json.dumps(SCENARIOS))
    db = tmp_path / "c.duckdb"
    with Collector(db, grpc_port=0, http_port=None) as collector:
        process = subprocess.Popen(
            [
                TRACESIM,
                "mcp-mock",
                "--scenarios",
                str(scenarios),
                "--transport",
                "http",
                "--port",
                "0",
                "--otlp-endpoint",
                collector.grpc_endpoint,
            ],
            stderr=subprocess.PIPE,
            text=True,
        )
        try:
            url = process.stderr.readline().rsplit(" ", 1)[-1].strip()
            with httpx.Client(timeout=30) as client:
                init = client.post(
                    url,
                    json={
                        "jsonrpc": "2.0",
                        "id": 1,
                        "method": "initialize",
                        "params": {
                            "protocolVersion": "2025-06-18",
                            "capabilities": {},
                            "clientInfo": {"name": "raw", "version": "0"},
                        },
                    },
                    headers={"accept": "application/json, text/event-stream"},
                )
                assert init.status_code == 200, init.text
                session = {
                    "mcp-session-id": init.headers["mcp-session-id"],
                    "mcp-protocol-version": "2025-06-18",
                }
                _rpc(
                    client, url, {"jsonrpc": "2.0", "method": "notifications/initialized"}, session
                )
                traced = {
                    **session,
                    "traceparent": f"00-{TRACE_ID:032x}-00f067aa0ba902b7-01",
                    "baggage": "tracesim.chat_id=chat-7,tracesim.turn_id=0,"
                    "tracesim.scenario_id=replay-1",
                }
                answer = _rpc(
                    client,
                    url,
                    {
                        "jsonrpc": "2.0",
                        "id": 2,
                        "method": "tools/call",
                        "params": {"name": "lookup_order", "arguments": {"order_id": "Z9"}},
                    },
                    traced,
                )
        finally:
            process.terminate()
            process.wait(10)
        assert collector.flush(10)
    # replay-1 has no stub for Z9 (the other scenario would have answered): chosen by baggage
    assert answer["result"]["isError"] is True
    assert [s[:3] for s in _mock_spans(db)] == [(f"{TRACE_ID:032x}", "chat-7", "lookup_order")]
