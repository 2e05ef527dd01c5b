"""A manual tool loop on the openai client, instrumented by opentelemetry-instrumentation-openai-v2.

Latest GenAI semconv (OTEL_SEMCONV_STABILITY_OPT_IN=gen_ai_latest_experimental); the
content mode (SPAN_ONLY / EVENT_ONLY) comes from the variant's env. The agent and tool
spans come from opentelemetry-util-genai's helpers (invoke_local_agent, tool), the way
its README tells a user to instrument their own agent loop.
"""

import json

from openai import OpenAI
from opentelemetry import trace
from opentelemetry._logs import set_logger_provider
from opentelemetry.exporter.otlp.proto.http._log_exporter import OTLPLogExporter
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.instrumentation.openai_v2 import OpenAIInstrumentor
from opentelemetry.sdk._logs import LoggerProvider
from opentelemetry.sdk._logs.export import BatchLogRecordProcessor
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor
from opentelemetry.util.genai.handler import get_telemetry_handler

provider = TracerProvider()
provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter()))
trace.set_tracer_provider(provider)
logs = LoggerProvider()
logs.add_log_record_processor(BatchLogRecordProcessor(OTLPLogExporter()))
set_logger_provider(logs)
OpenAIInstrumentor().instrument()
handler = get_telemetry_handler()

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


FUNCTIONS = {"get_weather": get_weather, "lookup_order": lookup_order}


def main():
    client = OpenAI()
    messages = [{"role": "user", "content": "Weather in Paris twice, then order A1?"}]
    with handler.invoke_local_agent(agent_name="conformance", request_model="scripted") as agent:
        agent.conversation_id = "conv-42"
        while True:
            reply = client.chat.completions.create(model="scripted", messages=messages, tools=TOOLS)
            message = reply.choices[0].message
            messages.append(message.model_dump(exclude_none=True))
            if not message.tool_calls:
                break
            for call in message.tool_calls:
                args = json.loads(call.function.arguments)
                try:
                    with handler.tool(
                        call.function.name, tool_call_id=call.id, tool_type="function"
                    ) as tool:
                        tool.arguments = args
                        result = FUNCTIONS[call.function.name](**args)
                        tool.tool_result = result
                except Exception as exc:  # the tool's error goes back to the model
                    result = f"error: {exc}"
                messages.append({"role": "tool", "tool_call_id": call.id, "content": result})
    provider.force_flush()
    logs.force_flush()


main()
