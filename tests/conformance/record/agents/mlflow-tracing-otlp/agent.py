"""MLflow tracing exported over OTLP: a manual openai tool loop.

`mlflow.openai.autolog()` traces the client calls; the tools are `@mlflow.trace`
functions with span_type TOOL, inside an AGENT span. With OTEL_EXPORTER_OTLP_ENDPOINT
set, MLflow exports its spans over OTLP instead of to a tracking server. The session id
is MLflow's trace session (`mlflow.update_current_trace(session_id=...)`).
"""

import json

import mlflow
from mlflow.entities import SpanType
from openai import OpenAI

mlflow.openai.autolog()

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


@mlflow.trace(name="get_weather", span_type=SpanType.TOOL)
def get_weather(city):
    return "Sunny, 21 C in " + city


@mlflow.trace(name="lookup_order", span_type=SpanType.TOOL)
def lookup_order(order_id):
    raise ValueError(f"order {order_id} not found")


@mlflow.trace(name="conformance_agent", span_type=SpanType.AGENT)
def run(question):
    mlflow.update_current_trace(session_id="conv-42")
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


print(run("Weather in Paris twice, then order A1?"))
mlflow.flush_trace_async_logging()
