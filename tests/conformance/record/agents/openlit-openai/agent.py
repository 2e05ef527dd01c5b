"""A manual tool loop on the openai client, instrumented by OpenLIT (openlit.init).

OpenLIT sets up its own OTLP providers from OTEL_EXPORTER_OTLP_ENDPOINT and
auto-instruments the openai client. Tools are traced with `@openlit.trace`, OpenLIT's
documented way to trace your own functions, and the whole run sits in
`openlit.start_trace(...)`. OpenLIT has no session API; the conversation id goes on
every auto-instrumented span through `custom_span_attributes`.
"""

import json

import openlit
from openai import OpenAI
from opentelemetry import trace
from opentelemetry._logs import get_logger_provider

openlit.init(
    application_name="conformance-agent",
    custom_span_attributes={"gen_ai.conversation.id": "conv-42"},
    disable_metrics=True,
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


@openlit.trace
def get_weather(city):
    return "Sunny, 21 C in " + city


@openlit.trace
def lookup_order(order_id):
    raise ValueError(f"order {order_id} not found")


FUNCTIONS = {"get_weather": get_weather, "lookup_order": lookup_order}


def main():
    client = OpenAI()
    messages = [{"role": "user", "content": "Weather in Paris twice, then order A1?"}]
    with openlit.start_trace("conformance-agent"):
        while True:
            reply = client.chat.completions.create(model="scripted", messages=messages, tools=TOOLS)
            message = reply.choices[0].message
            messages.append(message.model_dump(exclude_none=True))
            if not message.tool_calls:
                break
            for call in message.tool_calls:
                try:
                    result = FUNCTIONS[call.function.name](**json.loads(call.function.arguments))
                except Exception as exc:  # the tool's error goes back to the model
                    result = f"error: {exc}"
                messages.append({"role": "tool", "tool_call_id": call.id, "content": result})
    trace.get_tracer_provider().force_flush()
    provider = get_logger_provider()
    if hasattr(provider, "force_flush"):
        provider.force_flush()


main()
