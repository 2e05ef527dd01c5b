"""An MCP client + server pair on the official `mcp` SDK 2.x, whose own OpenTelemetry
support traces both sides: client request spans and server spans (`mcp.method.name`,
`tools/call` server spans with gen_ai.operation.name=execute_tool), the trace context
carried in the requests' `_meta`. The app is an agent loop on the openai client (model
spans by opentelemetry-instrumentation-openai-v2) that, like agent frameworks do, wraps
each tool call in its own GenAI `execute_tool` span: one call is seen as an app tool span,
an MCP client span and an MCP server span. The conversation id is on the app's root span.
"""

import asyncio
import json
import os
import sys
from pathlib import Path

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from openai import OpenAI
from opentelemetry import trace
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.instrumentation.openai_v2 import OpenAIInstrumentor
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor

provider = TracerProvider(resource=Resource.create({"service.name": os.environ["TSREC_VARIANT"]}))
provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter()))
trace.set_tracer_provider(provider)
OpenAIInstrumentor().instrument()
tracer = trace.get_tracer("conformance.agent")


def _schema(tool):
    return getattr(tool, "input_schema", None) or getattr(tool, "inputSchema", None) or {}


async def run_agent(question: str) -> str:
    params = StdioServerParameters(
        command=sys.executable,
        args=[str(Path(__file__).with_name("server.py"))],
        env=dict(os.environ),
    )
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        listed = await session.list_tools()
        tools = [
            {
                "type": "function",
                "function": {
                    "name": t.name,
                    "description": t.description or t.name,
                    "parameters": _schema(t),
                },
            }
            for t in listed.tools
        ]
        client = OpenAI()
        messages = [{"role": "user", "content": question}]
        while True:
            reply = client.chat.completions.create(model="scripted", messages=messages, tools=tools)
            message = reply.choices[0].message
            messages.append(message.model_dump(exclude_none=True))
            if not message.tool_calls:
                return message.content
            for call in message.tool_calls:
                attributes = {
                    "gen_ai.operation.name": "execute_tool",
                    "gen_ai.tool.name": call.function.name,
                    "gen_ai.tool.call.id": call.id,
                    "gen_ai.tool.call.arguments": call.function.arguments,
                }
                with tracer.start_as_current_span(
                    f"execute_tool {call.function.name}", attributes=attributes
                ) as span:
                    result = await session.call_tool(
                        call.function.name, json.loads(call.function.arguments)
                    )
                    text = "".join(getattr(c, "text", "") for c in result.content)
                    failed = getattr(result, "is_error", None) or getattr(result, "isError", False)
                    if failed:
                        span.set_status(trace.StatusCode.ERROR, text)
                        span.set_attribute("error.type", "tool_error")
                    else:
                        span.set_attribute("gen_ai.tool.call.result", text)
                content = f"Error: {text}" if failed else text
                messages.append({"role": "tool", "tool_call_id": call.id, "content": content})


def main():
    with tracer.start_as_current_span(
        "invoke_agent conformance",
        attributes={"gen_ai.operation.name": "invoke_agent", "gen_ai.conversation.id": "conv-42"},
    ):
        print(asyncio.run(run_agent("Weather in Paris twice, then order A1?")))
    provider.force_flush()


main()
