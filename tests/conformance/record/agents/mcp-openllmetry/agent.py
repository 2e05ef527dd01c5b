"""An MCP client + server pair (the official `mcp` package, stdio), both traced by OpenLLMetry
(traceloop-sdk: its mcp instrumentation on both sides, its openai instrumentation on the
client's model calls).

The client offers the server's tools to the scripted model and runs each requested call
with `session.call_tool`; a tool failure comes back as an MCP error result (`isError`),
whose text goes back to the model. The session id is an association property of the
client; the server is another process (another service) and gets the trace context from
the MCP request.
"""

import asyncio
import os
import sys
from pathlib import Path

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from openai import OpenAI
from opentelemetry import trace
from traceloop.sdk import Traceloop
from traceloop.sdk.decorators import workflow

Traceloop.init(
    app_name=os.environ["TSREC_VARIANT"],
    api_endpoint=os.environ["OTEL_EXPORTER_OTLP_ENDPOINT"],
    telemetry_enabled=False,
    disable_batch=False,
)
Traceloop.set_association_properties({"session_id": "conv-42"})


@workflow(name="mcp_agent")
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
                    "parameters": t.inputSchema,
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
                import json

                result = await session.call_tool(
                    call.function.name, json.loads(call.function.arguments)
                )
                text = "".join(getattr(c, "text", "") for c in result.content)
                content = f"Error: {text}" if result.isError else text
                messages.append({"role": "tool", "tool_call_id": call.id, "content": content})


print(asyncio.run(run_agent("Weather in Paris twice, then order A1?")))
trace.get_tracer_provider().force_flush()
