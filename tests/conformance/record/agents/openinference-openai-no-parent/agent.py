"""A manual tool loop on the openai client, instrumented by openinference-instrumentation-openai.

The tools are `@tracer.tool` functions of OpenInference's tracer; the session id is set
with `using_session("conv-42")` around the whole loop. With AGENT_SPAN=1 (the variant's
env) the loop runs inside one `@tracer.agent` span, so everything is one trace; with
AGENT_SPAN=0 there is no enclosing span: each model call and each tool call is a trace
of its own, tied together only by session.id.
"""

import json
import os

from openai import OpenAI
from openinference.instrumentation import TracerProvider, using_session
from openinference.instrumentation.openai import OpenAIInstrumentor
from opentelemetry import trace
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk.trace.export import BatchSpanProcessor

provider = TracerProvider()
provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter()))
trace.set_tracer_provider(provider)
OpenAIInstrumentor().instrument(tracer_provider=provider)
tracer = provider.get_tracer("conformance-agent")

TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "get_weather",
            "parameters": {"type": "object", "properties": {"city": {"type": "string"}}},
        },
    },
    {
        "type": "function",
        "function": {
            "name": "lookup_order",
            "parameters": {"type": "object", "properties": {"order_id": {"type": "string"}}},
        },
    },
]


@tracer.tool
def get_weather(city: str) -> str:
    """The weather in a city."""
    return "Sunny, 21 C in " + city


@tracer.tool
def lookup_order(order_id: str) -> str:
    """An order's status."""
    raise ValueError(f"order {order_id} not found")


FUNCTIONS = {"get_weather": get_weather, "lookup_order": lookup_order}


def loop(question: str) -> str:
    client = OpenAI()
    messages = [{"role": "user", "content": question}]
    while True:
        reply = client.chat.completions.create(model="scripted", messages=messages, tools=TOOLS)
        message = reply.choices[0].message
        messages.append(message.model_dump(exclude_none=True))
        if not message.tool_calls:
            return message.content
        for call in message.tool_calls:
            try:
                result = FUNCTIONS[call.function.name](**json.loads(call.function.arguments))
            except Exception as exc:  # the tool's error goes back to the model
                result = f"error: {exc}"
            messages.append({"role": "tool", "tool_call_id": call.id, "content": result})


@tracer.agent(name="conformance-agent")
def agent(question: str) -> str:
    return loop(question)


def main():
    question = "Weather in Paris twice, then order A1?"
    with using_session("conv-42"):
        if os.environ.get("AGENT_SPAN", "1") == "1":
            agent(question)
        else:
            loop(question)
    provider.force_flush()


main()
