"""A manual tool loop on the openai client, instrumented by OpenLLMetry (traceloop-sdk).

Only the openai instrumentation runs: no tool spans, no enclosing span. The session id
is an association property; tool results (and the error text) go back to the model as
`tool` messages, so they appear only in the next model span's prompt.
"""

import json
import os

from openai import OpenAI
from opentelemetry import trace
from traceloop.sdk import Traceloop

Traceloop.init(
    app_name=os.environ["TSREC_VARIANT"],
    api_endpoint=os.environ["OTEL_EXPORTER_OTLP_ENDPOINT"],
    telemetry_enabled=False,
    disable_batch=False,
)
Traceloop.set_association_properties({"session_id": "conv-42"})

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


def get_weather(city):
    return "Sunny, 21 C in " + city


def lookup_order(order_id):
    raise ValueError(f"order {order_id} not found")


def main():
    client = OpenAI()
    messages = [{"role": "user", "content": "Weather in Paris twice, then order A1?"}]
    while True:
        reply = client.chat.completions.create(model="scripted", messages=messages, tools=TOOLS)
        message = reply.choices[0].message
        messages.append(message.model_dump(exclude_none=True))
        if not message.tool_calls:
            break
        for call in message.tool_calls:
            args = json.loads(call.function.arguments)
            try:
                result = {"get_weather": get_weather, "lookup_order": lookup_order}[
                    call.function.name
                ](**args)
            except Exception as exc:
                result = f"Error: {exc}"
            messages.append({"role": "tool", "tool_call_id": call.id, "content": result})
    trace.get_tracer_provider().force_flush()


main()
