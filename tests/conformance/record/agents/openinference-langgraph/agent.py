"""A LangGraph `create_react_agent` on ChatOpenAI, instrumented by openinference-instrumentation-langchain.

The conversation is a LangGraph thread (`configurable.thread_id = "conv-42"` with an
in-memory checkpointer), LangGraph's normal way to name a conversation. Tools are
LangChain `@tool` functions; lookup_order raises as the script says, and the run
ends however LangGraph's ToolNode handles that by default.
"""

from langchain_core.tools import tool
from langchain_openai import ChatOpenAI
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.prebuilt import create_react_agent
from openinference.instrumentation.langchain import LangChainInstrumentor
from opentelemetry import trace
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor

provider = TracerProvider()
provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter()))
trace.set_tracer_provider(provider)
LangChainInstrumentor().instrument(tracer_provider=provider)


@tool
def get_weather(city: str) -> str:
    """The weather in a city."""
    return "Sunny, 21 C in " + city


@tool
def lookup_order(order_id: str) -> str:
    """An order's status."""
    raise ValueError(f"order {order_id} not found")


def main():
    model = ChatOpenAI(model="scripted", temperature=0)
    agent = create_react_agent(model, [get_weather, lookup_order], checkpointer=InMemorySaver())
    config = {"configurable": {"thread_id": "conv-42"}}
    try:
        result = agent.invoke(
            {"messages": [("user", "Weather in Paris twice, then order A1?")]}, config
        )
        print(result["messages"][-1].content)
    finally:
        provider.force_flush()


main()
