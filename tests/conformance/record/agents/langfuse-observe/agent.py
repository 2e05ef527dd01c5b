"""Langfuse SDK tracing (OpenTelemetry-based) sent to our own OTLP exporter.

The Langfuse client is given the app's TracerProvider (OTLP/HTTP to the endpoint), so
its observations reach any OTel collector. A manual openai loop: the client is
Langfuse's drop-in `langfuse.openai.OpenAI` (generation observations), the loop an
`@observe(as_type="agent")`, the tools `@observe(as_type="tool")`. The session id is
Langfuse's `propagate_attributes(session_id=...)`. Langfuse's own exporter points at
the capture server's root, which answers 404 to its path, so only our exporter records.
"""

import json
import os

from langfuse import Langfuse, observe, propagate_attributes
from langfuse.openai import OpenAI
from opentelemetry import trace
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor

provider = TracerProvider()
provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter()))
trace.set_tracer_provider(provider)
langfuse = Langfuse(
    public_key="pk-lf-local",
    secret_key="sk-lf-local",
    base_url=os.environ["OTEL_EXPORTER_OTLP_ENDPOINT"],
    tracer_provider=provider,
)

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


@observe(name="get_weather", as_type="tool")
def get_weather(city):
    return "Sunny, 21 C in " + city


@observe(name="lookup_order", as_type="tool")
def lookup_order(order_id):
    raise ValueError(f"order {order_id} not found")


@observe(name="conformance_agent", as_type="agent")
def run(question):
    client = OpenAI()
    messages = [{"role": "user", "content": question}]
    while True:
        reply = client.chat.completions.create(model="scripted", messages=messages, tools=TOOLS)
        message = reply.choices[0].message
        messages.append(message.model_dump(exclude_none=True))
        if not message.tool_calls:
            return message.content
        for call in message.tool_calls:
            args = json.loads(call.function.arguments)
            try:
                result = {"get_weather": get_weather, "lookup_order": lookup_order}[
                    call.function.name
                ](**args)
            except Exception as exc:
                result = f"Error: {exc}"
            messages.append({"role": "tool", "tool_call_id": call.id, "content": result})


with propagate_attributes(session_id="conv-42"):
    print(run("Weather in Paris twice, then order A1?"))
langfuse.flush()
provider.force_flush()
