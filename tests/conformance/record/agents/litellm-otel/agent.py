"""A manual tool loop on litellm.completion, traced by LiteLLM's own OpenTelemetry callback
(`litellm.callbacks = ["otel"]`, configured by OTEL_EXPORTER / OTEL_ENDPOINT as its docs
say): no other instrumentation. The session id goes in as LiteLLM's `litellm_session_id`
and as request metadata; the failure goes back to the model as the tool message text.
"""

import json
import os

import litellm

litellm.callbacks = ["otel"]

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
    messages = [{"role": "user", "content": "Weather in Paris twice, then order A1?"}]
    while True:
        reply = litellm.completion(
            model="openai/scripted",
            api_base=os.environ["OPENAI_BASE_URL"],
            api_key="sk-local-scripted",
            messages=messages,
            tools=TOOLS,
            litellm_session_id="conv-42",
            metadata={"session_id": "conv-42"},
        )
        message = reply.choices[0].message
        messages.append(message.model_dump(exclude_none=True))
        if not message.tool_calls:
            print(message.content)
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
    litellm.flush() if hasattr(litellm, "flush") else None
    from opentelemetry import trace

    provider = trace.get_tracer_provider()
    if hasattr(provider, "force_flush"):
        provider.force_flush()
    for callback in litellm.callbacks:
        flush = getattr(getattr(callback, "tracer_provider", None), "force_flush", None)
        if flush:
            flush()


main()
