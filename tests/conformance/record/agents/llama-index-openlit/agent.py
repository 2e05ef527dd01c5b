"""A llama-index FunctionAgent on OpenAILike, instrumented by OpenLIT (`openlit.init`: its
llama_index and openai instrumentations).

llama-index has no conversation id of its own, and OpenLIT no session: the run is wrapped
in one application span carrying `gen_ai.conversation.id`. Tools are plain functions turned
into FunctionTools by the agent; the agent workflow hands a tool's exception back to the
model as an error output.
AGENT_STREAMING (the variant's env) is FunctionAgent's `streaming` flag: on by default,
and then the model is asked without usage, so no tokens reach the telemetry.
"""

import asyncio
import os

import openlit
from llama_index.core.agent.workflow import FunctionAgent
from llama_index.llms.openai_like import OpenAILike
from opentelemetry import trace

openlit.init(
    otlp_endpoint=os.environ["OTEL_EXPORTER_OTLP_ENDPOINT"],
    application_name=os.environ["TSREC_VARIANT"],
    disable_metrics=True,
    capture_message_content=True,
)


def get_weather(city: str) -> str:
    """The weather in a city."""
    return "Sunny, 21 C in " + city


def lookup_order(order_id: str) -> str:
    """An order's status."""
    raise ValueError(f"order {order_id} not found")


async def main():
    llm = OpenAILike(
        model="scripted",
        api_base=os.environ["OPENAI_BASE_URL"],
        api_key=os.environ["OPENAI_API_KEY"],
        is_chat_model=True,
        is_function_calling_model=True,
        context_window=8192,
    )
    agent = FunctionAgent(
        tools=[get_weather, lookup_order],
        llm=llm,
        system_prompt="Answer with the tools.",
        streaming=os.environ.get("AGENT_STREAMING", "1") == "1",
    )
    tracer = trace.get_tracer("conformance.agent")
    try:
        with tracer.start_as_current_span(
            "agent.run", attributes={"gen_ai.conversation.id": "conv-42"}
        ):
            print(await agent.run(user_msg="Weather in Paris twice, then order A1?"))
    finally:
        trace.get_tracer_provider().force_flush()


asyncio.run(main())
