"""OpenLLMetry decorators with prompts/completions as OTel log events (use_attributes=False).

Same agent as openllmetry-decorators; the openai instrumentation emits message content
as log events through the global logger provider set here (OTLP/HTTP logs), not as span
attributes.

The agent loop calls the openai client by hand; each tool is a `@tool` function, so its
span carries `traceloop.entity.input` / `traceloop.entity.output`; the failing tool's
exception is recorded by the decorator and re-raised into the loop. The session id is
an association property.
"""

import json
import os

from openai import OpenAI
from opentelemetry import trace
from opentelemetry._logs import set_logger_provider
from opentelemetry.exporter.otlp.proto.http._log_exporter import OTLPLogExporter
from opentelemetry.sdk._logs import LoggerProvider
from opentelemetry.sdk._logs.export import BatchLogRecordProcessor
from traceloop.sdk import Traceloop
from traceloop.sdk.decorators import agent, tool, workflow

logs = LoggerProvider()
logs.add_log_record_processor(BatchLogRecordProcessor(OTLPLogExporter()))
set_logger_provider(logs)

Traceloop.init(
    use_attributes=False,
    app_name=os.environ["TSREC_VARIANT"],
    api_endpoint=os.environ["OTEL_EXPORTER_OTLP_ENDPOINT"],
    telemetry_enabled=False,
    disable_batch=False,
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


@tool(name="get_weather")
def get_weather(city):
    return "Sunny, 21 C in " + city


@tool(name="lookup_order")
def lookup_order(order_id):
    raise ValueError(f"order {order_id} not found")


@agent(name="conformance_agent")
def run_agent(question):
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


@workflow(name="conformance")
def main():
    Traceloop.set_association_properties({"session_id": "conv-42"})
    return run_agent("Weather in Paris twice, then order A1?")


main()
trace.get_tracer_provider().force_flush()
logs.force_flush()
