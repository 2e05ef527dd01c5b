"""The OpenAI Agents SDK adapter: the example's real function tools answered by stubs."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path

import pytest
from opentelemetry import context as otel_context
from opentelemetry.context import Context
from tracesim.simulator.stubs import StubBook, stub_function_tools, with_stub_book

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "customer_service"


@pytest.fixture(scope="module")
def example():
    sys.path.insert(0, str(EXAMPLE))
    try:
        import local_model
        import tools

        yield tools, local_model
    finally:
        sys.path.remove(str(EXAMPLE))


def _ask(example, question: str, book: StubBook | None) -> str:
    from agents import Agent, RunConfig, Runner

    tools, local_model = example
    agent = Agent(name="cs", tools=stub_function_tools(tools.TOOLS), model=local_model.LocalModel())
    token = otel_context.attach(with_stub_book(Context(), book)) if book else None
    try:
        quiet = RunConfig(tracing_disabled=True)  # this run only: other tests trace the SDK
        return str(asyncio.run(Runner.run(agent, question, run_config=quiet)).final_output)
    finally:
        if token is not None:
            otel_context.detach(token)


def test_outside_a_run_the_real_tools_answer(example) -> None:
    assert _ask(example, "where is my order A1001?", None) == (
        "Order A1001 (noise-cancelling headphones) is shipped."
    )


def test_in_a_run_the_stub_answers(example) -> None:
    recorded = {"found": True, "order_id": "A1001", "item": "a kettle", "status": "lost"}
    book = StubBook.of(
        [{"name": "lookup_order", "args": {"order_id": "A1001"}, "result": json.dumps(recorded)}]
    )
    assert _ask(example, "where is my order A1001?", book) == "Order A1001 (a kettle) is lost."
    assert [(a.name, a.stubbed) for a in book.calls] == [("lookup_order", True)]


def test_an_unstubbed_call_is_an_error_to_the_model_and_recorded(example) -> None:
    book = StubBook.of([{"name": "get_policy", "result": "n/a"}])
    _ask(example, "where is my order A1001?", book)
    [missing] = book.unstubbed()
    assert missing.name == "lookup_order" and dict(missing.arguments) == {"order_id": "A1001"}
