"""A LangGraph `create_react_agent` on ChatOpenAI, instrumented by openinference-instrumentation-langchain.

The conversation is a LangGraph thread (`configurable.thread_id = "conv-42"` with an
in-memory checkpointer), LangGraph's normal way to name a conversation. Tools are
LangChain `@tool` functions in a `ToolNode(handle_tool_errors=True)`, the documented way
to hand a tool's exception back to the model, so the run reaches its final answer.
"""

from langchain_core.tools import tool
from langchain_openai import ChatOpenAI
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.prebuilt import ToolNode, create_react_agent
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
    tools = ToolNode([get_weather, lookup_order], handle_tool_errors=True)
    agent = create_react_agent(model, tools, checkpointer=InMemorySaver())
    config = {"configurable": {"thread_id": "conv-42"}}
    try:
        result = agent.invoke(
            {"messages": [("user", "Weather in Paris twice, then order A1?")]}, config
        )
        print(result["messages"][-1].content)
    finally:
        provider.force_flush()


main()
