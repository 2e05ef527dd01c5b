"""A DSPy ReAct program with two tools on dspy.LM (LiteLLM to the scripted model),
instrumented by openinference-instrumentation-dspy (and its LiteLLM instrumentation).

DSPy talks to the model in text fields (next_tool_name / next_tool_args), not tool calls,
and ends with `finish` and an extraction call. A tool's exception becomes the step's
observation and the run goes on. The conversation is OpenInference's session
(`using_session`); DSPy has none. The LM cache is off so every call reaches the model.
"""

import os

import dspy
from openinference.instrumentation import using_session
from openinference.instrumentation.dspy import DSPyInstrumentor
from openinference.instrumentation.litellm import LiteLLMInstrumentor
from opentelemetry import trace
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor

provider = TracerProvider()
provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter()))
trace.set_tracer_provider(provider)
DSPyInstrumentor().instrument(tracer_provider=provider)
LiteLLMInstrumentor().instrument(tracer_provider=provider)


def get_weather(city: str) -> str:
    """Current weather in a city."""
    return "Sunny, 21 C in " + city


def lookup_order(order_id: str) -> str:
    """Look an order up."""
    raise ValueError(f"order {order_id} not found")


def main():
    lm = dspy.LM(
        "openai/scripted",
        api_base=os.environ["OPENAI_BASE_URL"],
        api_key=os.environ["OPENAI_API_KEY"],
        cache=False,
    )
    dspy.configure(lm=lm)
    agent = dspy.ReAct("question -> answer", tools=[get_weather, lookup_order], max_iters=6)
    with using_session("conv-42"):
        print(agent(question="Weather in Paris twice, then order A1?").answer)
    provider.force_flush()


main()
