"""A manual tool loop on a provider SDK (Anthropic, Google GenAI, Bedrock Converse), traced
only by that provider's instrumentation: no framework, no tool spans.

Chosen by env: TSREC_API (anthropic | gemini | bedrock), TSREC_INSTR (openllmetry |
openinference | otel), TSREC_STREAM=1 for streamed replies, TSREC_ROOT=1 to wrap the loop
in one application span carrying the conversation id (otherwise each model call is its own
trace and there is no conversation id). Tool errors go back the way each API documents
(Anthropic `is_error`, Bedrock `status: error`, Gemini `{"error": ...}`).
"""

import json
import os

from opentelemetry import trace
from opentelemetry._logs import set_logger_provider
from opentelemetry.exporter.otlp.proto.http._log_exporter import OTLPLogExporter
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk._logs import LoggerProvider
from opentelemetry.sdk._logs.export import BatchLogRecordProcessor
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor

API = os.environ["TSREC_API"]
INSTR = os.environ["TSREC_INSTR"]
STREAM = os.environ.get("TSREC_STREAM") == "1"
ROOT = os.environ.get("TSREC_ROOT") == "1"
QUESTION = "Weather in Paris twice, then order A1?"

resource = Resource.create({"service.name": os.environ["TSREC_VARIANT"]})
provider = TracerProvider(resource=resource)
provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter()))
trace.set_tracer_provider(provider)
logs = LoggerProvider(resource=resource)
logs.add_log_record_processor(BatchLogRecordProcessor(OTLPLogExporter()))
set_logger_provider(logs)
try:  # the contrib GenAI instrumentations emit their events through the event API
    from opentelemetry._events import set_event_logger_provider
    from opentelemetry.sdk._events import EventLoggerProvider

    set_event_logger_provider(EventLoggerProvider(logs))
except ImportError:
    pass


def _instrument() -> None:
    if INSTR == "openinference":
        module = {
            "anthropic": "openinference.instrumentation.anthropic:AnthropicInstrumentor",
            "gemini": "openinference.instrumentation.google_genai:GoogleGenAIInstrumentor",
            "bedrock": "openinference.instrumentation.bedrock:BedrockInstrumentor",
        }[API]
    elif INSTR == "openllmetry":
        module = {
            "anthropic": "opentelemetry.instrumentation.anthropic:AnthropicInstrumentor",
            "bedrock": "opentelemetry.instrumentation.bedrock:BedrockInstrumentor",
            "gemini": "opentelemetry.instrumentation.google_generativeai:GoogleGenerativeAiInstrumentor",
        }[API]
    else:
        module = {
            "gemini": "opentelemetry.instrumentation.google_genai:GoogleGenAiSdkInstrumentor",
            "bedrock": "opentelemetry.instrumentation.botocore:BotocoreInstrumentor",
        }[API]
    path, name = module.split(":")
    getattr(__import__(path, fromlist=[name]), name)().instrument()


def get_weather(city):
    return "Sunny, 21 C in " + city


def lookup_order(order_id):
    raise ValueError(f"order {order_id} not found")


IMPL = {"get_weather": get_weather, "lookup_order": lookup_order}
SCHEMAS = {
    "get_weather": {"type": "object", "properties": {"city": {"type": "string"}}},
    "lookup_order": {"type": "object", "properties": {"order_id": {"type": "string"}}},
}


def _run(name, args):
    """(result, error) of one tool call."""
    try:
        return IMPL[name](**args), None
    except Exception as exc:  # the tool's failure goes back to the model
        return None, str(exc)


def run_anthropic():
    import anthropic

    client = anthropic.Anthropic()
    tools = [{"name": n, "description": n, "input_schema": s} for n, s in SCHEMAS.items()]
    messages = [{"role": "user", "content": QUESTION}]
    while True:
        kwargs = dict(model="claude-scripted", max_tokens=256, messages=messages, tools=tools)
        if STREAM:
            with client.messages.stream(**kwargs) as stream:
                for _ in stream:
                    pass
                reply = stream.get_final_message()
        else:
            reply = client.messages.create(**kwargs)
        messages.append({"role": "assistant", "content": [b.model_dump() for b in reply.content]})
        uses = [b for b in reply.content if b.type == "tool_use"]
        if not uses:
            return reply.content[0].text
        results = []
        for use in uses:
            result, error = _run(use.name, use.input)
            block = {"type": "tool_result", "tool_use_id": use.id, "content": result or error}
            if error is not None:
                block["is_error"] = True
            results.append(block)
        messages.append({"role": "user", "content": results})


def run_gemini():
    from google import genai
    from google.genai import types

    client = genai.Client(
        api_key="local-scripted",
        http_options=types.HttpOptions(base_url=os.environ["MODEL_ROOT_URL"]),
    )
    declarations = [
        types.FunctionDeclaration(name=n, description=n, parameters_json_schema=s)
        for n, s in SCHEMAS.items()
    ]
    config = types.GenerateContentConfig(
        tools=[types.Tool(function_declarations=declarations)],
        automatic_function_calling=types.AutomaticFunctionCallingConfig(disable=True),
    )
    contents = [types.Content(role="user", parts=[types.Part(text=QUESTION)])]
    while True:
        if STREAM:
            chunks = list(
                client.models.generate_content_stream(
                    model="gemini-scripted", contents=contents, config=config
                )
            )
            parts = [p for c in chunks for p in (c.candidates[0].content.parts or [])]
            content = types.Content(role="model", parts=parts)
        else:
            reply = client.models.generate_content(
                model="gemini-scripted", contents=contents, config=config
            )
            content = reply.candidates[0].content
        contents.append(content)
        calls = [p.function_call for p in content.parts if p.function_call]
        if not calls:
            return "".join(p.text or "" for p in content.parts)
        answers = []
        for call in calls:
            result, error = _run(call.name, dict(call.args or {}))
            response = {"result": result} if error is None else {"error": error}
            answers.append(types.Part.from_function_response(name=call.name, response=response))
        contents.append(types.Content(role="user", parts=answers))


def run_bedrock():
    import boto3

    client = boto3.client("bedrock-runtime", region_name="us-east-1")
    tool_config = {
        "tools": [
            {"toolSpec": {"name": n, "description": n, "inputSchema": {"json": s}}}
            for n, s in SCHEMAS.items()
        ]
    }
    messages = [{"role": "user", "content": [{"text": QUESTION}]}]
    while True:
        reply = client.converse(
            modelId="anthropic.claude-scripted-v1:0", messages=messages, toolConfig=tool_config
        )
        message = reply["output"]["message"]
        messages.append(message)
        uses = [b["toolUse"] for b in message["content"] if "toolUse" in b]
        if not uses:
            return message["content"][0]["text"]
        results = []
        for use in uses:
            result, error = _run(use["name"], use["input"])
            block = {"toolUseId": use["toolUseId"], "content": [{"text": result or error}]}
            if error is not None:
                block["status"] = "error"
            results.append({"toolResult": block})
        messages.append({"role": "user", "content": results})


def main():
    _instrument()
    run = {"anthropic": run_anthropic, "gemini": run_gemini, "bedrock": run_bedrock}[API]
    if ROOT:
        tracer = trace.get_tracer("conformance.agent")
        # OpenInference spans get session.id from using_session; others read the root's id
        attributes = {} if INSTR == "openinference" else {"gen_ai.conversation.id": "conv-42"}
        with tracer.start_as_current_span("agent.run", attributes=attributes):
            if INSTR == "openinference":
                from openinference.instrumentation import using_session

                with using_session("conv-42"):
                    answer = run()
            else:
                answer = run()
    else:
        answer = run()
    print(json.dumps(answer))
    provider.force_flush()
    logs.force_flush()


main()
