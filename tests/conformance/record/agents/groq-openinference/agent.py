"""A manual tool loop on a second set of provider SDKs (Groq, Mistral, Cohere v2, Ollama,
Anthropic, OpenAI chat completions, the OpenAI Responses API, Bedrock Converse), traced only
by that provider's instrumentation: no framework.

Chosen by env: TSREC_API (groq | mistral | cohere | ollama | anthropic | openai | responses |
bedrock), TSREC_INSTR (openinference | openllmetry | otel | openlit | logfire), TSREC_STREAM=1
for streamed replies. The loop runs inside one application span carrying the conversation id
(OpenInference: its session; others: gen_ai.conversation.id on the root). A tool's failure
goes back to the model as the tool message's text ("Error: ...").
"""

import json
import os

API = os.environ["TSREC_API"]
INSTR = os.environ["TSREC_INSTR"]
STREAM = os.environ.get("TSREC_STREAM") == "1"
QUESTION = "Weather in Paris twice, then order A1?"
ROOT_URL = os.environ["MODEL_ROOT_URL"]
SDK = {"responses": "openai"}  # the SDK an API is called through, when it is not its name


def _setup():
    """The tracer provider (and logs) for the chosen instrumentation; returns flush()."""
    if INSTR == "logfire":
        import logfire

        # logfire exports to OTEL_EXPORTER_OTLP_ENDPOINT itself when not sending to its cloud
        logfire.configure(
            send_to_logfire=False, service_name=os.environ["TSREC_VARIANT"], console=False
        )
        getattr(logfire, f"instrument_{SDK.get(API, API)}")()
        return logfire.force_flush
    if INSTR == "openlit":
        import openlit

        openlit.init(
            otlp_endpoint=os.environ["OTEL_EXPORTER_OTLP_ENDPOINT"],
            application_name=os.environ["TSREC_VARIANT"],
            disable_metrics=True,
            capture_message_content=True,
        )
        from opentelemetry import trace

        return lambda: trace.get_tracer_provider().force_flush()
    from opentelemetry import trace
    from opentelemetry._logs import set_logger_provider
    from opentelemetry.exporter.otlp.proto.http._log_exporter import OTLPLogExporter
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
    from opentelemetry.sdk._logs import LoggerProvider
    from opentelemetry.sdk._logs.export import BatchLogRecordProcessor
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import BatchSpanProcessor

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
    module = {
        ("openinference", "groq"): "openinference.instrumentation.groq:GroqInstrumentor",
        ("openinference", "mistral"): "openinference.instrumentation.mistralai:MistralAIInstrumentor",
        ("openllmetry", "groq"): "opentelemetry.instrumentation.groq:GroqInstrumentor",
        ("openllmetry", "mistral"): "opentelemetry.instrumentation.mistralai:MistralAiInstrumentor",
        ("openllmetry", "cohere"): "opentelemetry.instrumentation.cohere:CohereInstrumentor",
        ("openllmetry", "ollama"): "opentelemetry.instrumentation.ollama:OllamaInstrumentor",
        ("openinference", "responses"): "openinference.instrumentation.openai:OpenAIInstrumentor",
        ("openllmetry", "responses"): "opentelemetry.instrumentation.openai:OpenAIInstrumentor",
        ("otel", "responses"): "opentelemetry.instrumentation.openai_v2:OpenAIInstrumentor",
    }[(INSTR, API)]
    path, name = module.split(":")
    getattr(__import__(path, fromlist=[name]), name)().instrument()

    def flush():
        provider.force_flush()
        logs.force_flush()

    return flush


def get_weather(city):
    return "Sunny, 21 C in " + city


def lookup_order(order_id):
    raise ValueError(f"order {order_id} not found")


IMPL = {"get_weather": get_weather, "lookup_order": lookup_order}
SCHEMAS = {
    "get_weather": {"type": "object", "properties": {"city": {"type": "string"}}},
    "lookup_order": {"type": "object", "properties": {"order_id": {"type": "string"}}},
}
FUNCTIONS = [
    {"type": "function", "function": {"name": n, "description": n, "parameters": s}}
    for n, s in SCHEMAS.items()
]


def _run(name, args):
    """The text the model gets back for one tool call: the result, or 'Error: ...'."""
    try:
        return IMPL[name](**args)
    except Exception as exc:  # the tool's failure goes back to the model
        return f"Error: {exc}"


def _chat_loop(create, stream_create=None):
    """An OpenAI-shaped chat loop (Groq, Mistral): assistant tool_calls, tool messages."""
    messages = [{"role": "user", "content": QUESTION}]
    while True:
        if STREAM:
            message = _collect(stream_create(messages))
        else:
            reply = create(messages)
            choice = reply.choices[0].message
            calls = [
                {"id": c.id, "name": c.function.name, "arguments": c.function.arguments}
                for c in choice.tool_calls or []
            ]
            message = {"content": choice.content, "calls": calls}
        if not message["calls"]:
            return message["content"]
        messages.append(
            {
                "role": "assistant",
                "content": message["content"] or "",
                "tool_calls": [
                    {
                        "id": c["id"],
                        "type": "function",
                        "function": {"name": c["name"], "arguments": c["arguments"]},
                    }
                    for c in message["calls"]
                ],
            }
        )
        for call in message["calls"]:
            content = _run(call["name"], json.loads(call["arguments"]))
            messages.append(
                {"role": "tool", "tool_call_id": call["id"], "name": call["name"], "content": content}
            )


def _collect(chunks):
    """A streamed chat reply put together (OpenAI-shaped deltas; Mistral wraps them in .data)."""
    content, calls = "", {}
    for chunk in chunks:
        chunk = getattr(chunk, "data", chunk)
        if not chunk.choices:
            continue
        delta = chunk.choices[0].delta
        content += delta.content or ""
        for call in delta.tool_calls or []:
            slot = calls.setdefault(call.index or 0, {"id": "", "name": "", "arguments": ""})
            slot["id"] = call.id or slot["id"]
            slot["name"] = call.function.name or slot["name"]
            slot["arguments"] += call.function.arguments or ""
    return {"content": content, "calls": [calls[i] for i in sorted(calls)]}


def run_groq():
    import groq

    client = groq.Groq(api_key="gsk-local", base_url=ROOT_URL)
    kwargs = dict(model="llama-scripted", tools=FUNCTIONS)
    return _chat_loop(
        lambda m: client.chat.completions.create(messages=m, **kwargs),
        lambda m: client.chat.completions.create(messages=m, stream=True, **kwargs),
    )


def run_mistral():
    try:  # mistralai 2+ moved the client
        from mistralai.client import Mistral
    except ImportError:
        from mistralai import Mistral

    client = Mistral(api_key="local", server_url=ROOT_URL)
    kwargs = dict(model="mistral-scripted", tools=FUNCTIONS)
    return _chat_loop(
        lambda m: client.chat.complete(messages=m, **kwargs),
        lambda m: client.chat.stream(messages=m, **kwargs),
    )


def run_openai():
    import openai

    client = openai.OpenAI()
    kwargs = dict(model="scripted", tools=FUNCTIONS)
    return _chat_loop(
        lambda m: client.chat.completions.create(messages=m, **kwargs),
        lambda m: client.chat.completions.create(messages=m, stream=True, **kwargs),
    )


def run_cohere():
    import cohere

    client = cohere.ClientV2(api_key="local", base_url=ROOT_URL)
    messages = [{"role": "user", "content": QUESTION}]
    while True:
        reply = client.chat(model="command-scripted", messages=messages, tools=FUNCTIONS)
        message = reply.message
        if not message.tool_calls:
            return message.content[0].text
        messages.append(
            {"role": "assistant", "tool_plan": message.tool_plan, "tool_calls": message.tool_calls}
        )
        for call in message.tool_calls:
            content = _run(call.function.name, json.loads(call.function.arguments))
            messages.append({"role": "tool", "tool_call_id": call.id, "content": content})


def run_ollama():
    import ollama

    client = ollama.Client(host=ROOT_URL)
    messages = [{"role": "user", "content": QUESTION}]
    while True:
        if STREAM:
            parts = list(
                client.chat(model="llama-scripted", messages=messages, tools=FUNCTIONS, stream=True)
            )
            calls = [c for p in parts for c in p.message.tool_calls or []]
            content = "".join(p.message.content or "" for p in parts)
        else:
            reply = client.chat(model="llama-scripted", messages=messages, tools=FUNCTIONS)
            calls, content = reply.message.tool_calls or [], reply.message.content
        if not calls:
            return content
        messages.append({"role": "assistant", "content": content or "", "tool_calls": calls})
        for call in calls:
            result = _run(call.function.name, dict(call.function.arguments))
            messages.append({"role": "tool", "tool_name": call.function.name, "content": result})


def run_responses():
    """The OpenAI Responses API: function_call output items, function_call_output inputs."""
    import openai

    client = openai.OpenAI()
    tools = [
        {"type": "function", "name": n, "description": n, "parameters": s}
        for n, s in SCHEMAS.items()
    ]
    items = [{"role": "user", "content": QUESTION}]
    while True:
        kwargs = dict(model="scripted", input=items, tools=tools)
        if STREAM:
            reply = None
            for event in client.responses.create(stream=True, **kwargs):
                if event.type == "response.completed":
                    reply = event.response
        else:
            reply = client.responses.create(**kwargs)
        calls = [item for item in reply.output if item.type == "function_call"]
        if not calls:
            return reply.output_text
        for call in calls:
            items.append(
                {
                    "type": "function_call",
                    "call_id": call.call_id,
                    "name": call.name,
                    "arguments": call.arguments,
                }
            )
            output = _run(call.name, json.loads(call.arguments))
            items.append({"type": "function_call_output", "call_id": call.call_id, "output": output})


def run_bedrock():
    """Bedrock Converse: toolUse blocks, toolResult blocks with status error on failure."""
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
            text = _run(use["name"], use["input"])
            block = {"toolUseId": use["toolUseId"], "content": [{"text": text}]}
            if text.startswith("Error: "):
                block["status"] = "error"
            results.append({"toolResult": block})
        messages.append({"role": "user", "content": results})


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
            text = _run(use.name, use.input)
            block = {"type": "tool_result", "tool_use_id": use.id, "content": text}
            if text.startswith("Error: "):
                block["is_error"] = True
            results.append(block)
        messages.append({"role": "user", "content": results})


def main():
    flush = _setup()
    from opentelemetry import trace

    run = globals()[f"run_{API}"]
    tracer = trace.get_tracer("conformance.agent")
    attributes = {} if INSTR == "openinference" else {"gen_ai.conversation.id": "conv-42"}
    with tracer.start_as_current_span("agent.run", attributes=attributes):
        if INSTR == "openinference":
            from openinference.instrumentation import using_session

            with using_session("conv-42"):
                answer = run()
        else:
            answer = run()
    print(json.dumps(answer))
    flush()


main()
