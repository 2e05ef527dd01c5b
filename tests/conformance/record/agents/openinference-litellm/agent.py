"""A manual tool loop on LiteLLM, instrumented by openinference-instrumentation-litellm.

Only the model calls are instrumented (the LiteLLM instrumentation), inside one
OpenInference agent span with `using_session("conv-42")`; the tools are plain
functions without spans of their own, as in a loop that only instruments its LLM
client. Their calls and results reach the telemetry only through the model calls.
"""

import json
import os

import litellm
from openinference.instrumentation import TracerProvider, using_session
from openinference.instrumentation.litellm import LiteLLMInstrumentor
from opentelemetry import trace
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk.trace.export import BatchSpanProcessor

provider = TracerProvider()
provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter()))
trace.set_tracer_provider(provider)
LiteLLMInstrumentor().instrument(tracer_provider=provider)
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


def get_weather(city):
    return "Sunny, 21 C in " + city


def lookup_order(order_id):
    raise ValueError(f"order {order_id} not found")


FUNCTIONS = {"get_weather": get_weather, "lookup_order": lookup_order}


@tracer.agent(name="conformance-agent")
def agent(question: str) -> str:
    messages = [{"role": "user", "content": question}]
    while True:
        reply = litellm.completion(
            model="openai/scripted",
            api_base=os.environ["OPENAI_BASE_URL"],
            messages=messages,
            tools=TOOLS,
        )
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


def main():
    with using_session("conv-42"):
        print(agent("Weather in Paris twice, then order A1?"))
    provider.force_flush()


main()
