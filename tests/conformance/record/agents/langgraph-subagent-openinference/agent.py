"""A LangGraph orchestrator whose tool runs a second LangGraph agent (a nested delegate),
instrumented by openinference-instrumentation-langchain.

The orchestrator (create_react_agent) offers `weather_agent` (a tool that invokes the
delegate react agent, which has `get_weather`) and `lookup_order` (raises: LangGraph's
ToolNode hands the error to the model as a tool message with status error). The delegate
runs inside its own session ("delegate-7"): the orchestrator's `conv-42` must key the trace.
"""

from langchain_core.tools import tool
from langchain_openai import ChatOpenAI
from langgraph.prebuilt import ToolNode, create_react_agent
from openinference.instrumentation import using_session
from openinference.instrumentation.langchain import LangChainInstrumentor
from opentelemetry import trace
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor

provider = TracerProvider()
provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter()))
trace.set_tracer_provider(provider)
LangChainInstrumentor().instrument(tracer_provider=provider)

model = ChatOpenAI(model="scripted", temperature=0)


@tool
def get_weather(city: str) -> str:
    """The weather in a city."""
    return "Sunny, 21 C in " + city


delegate = create_react_agent(model, [get_weather], name="weather_delegate")


@tool
def weather_agent(input: str) -> str:  # noqa: A002 - the delegate's one argument
    """Ask the weather delegate."""
    with using_session("delegate-7"):
        state = delegate.invoke({"messages": [("user", input)]})
    return state["messages"][-1].content


@tool
def lookup_order(order_id: str) -> str:
    """An order's status."""
    raise ValueError(f"order {order_id} not found")


def main():
    tools = ToolNode([weather_agent, lookup_order], handle_tool_errors=True)
    orchestrator = create_react_agent(model, tools, name="orchestrator")
    try:
        with using_session("conv-42"):
            state = orchestrator.invoke({"messages": [("user", "Weather in Paris, then order A1?")]})
        print(state["messages"][-1].content)
    finally:
        provider.force_flush()


main()
