"""`tracesim mcp-mock` keeps a bounded amount per call whatever the client sends (SPEC §9
"memory is bounded in bytes, whatever the input"): 300 calls with 100 KB arguments in
one conversation leave almost nothing behind. Before: every call's arguments stayed, in
the conversation's book and in the last 4,096 answers (30 MB here, unbounded per
conversation)."""

from __future__ import annotations

import tracemalloc

from tracesim.simulator.scenarios import parse_scenarios
from tracesim.simulator.stubs.mcp_mock import MockTools


def test_calls_with_huge_arguments_are_not_kept() -> None:
    scenarios = parse_scenarios(
        [
            {
                "scenario_id": "s",
                "goal": "g",
                "tool_stubs": [{"name": "lookup", "args": {"id": "A1"}, "result": "ok"}],
            }
        ]
    )
    tools = MockTools(scenarios)
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        for index in range(300):
            arguments = {"id": "A1", "blob": f"{index}" + "x" * 100_000}
            assert tools.answer("lookup", arguments, chat_id="c1").result == "ok"
            tools.answer("unknown", arguments, chat_id="c1")  # unstubbed, said at exit
        held = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert held < 2_000_000, f"{held / 1e6:.1f} MB kept for 600 calls"
    assert [a.name for a in tools.answers if not a.stubbed] == ["unknown"] * 300
