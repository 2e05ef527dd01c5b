"""Attribute and span names of every span convention tracesim reads or writes.

One place for the strings, so the collector (hot columns, routing), the
simulator (what it emits) and the evaluator (extraction) never disagree.
Legacy names are kept next to the current ones.
"""

from __future__ import annotations

__all__ = [
    "ADK",
    "AI_SDK",
    "ARKSIM",
    "GENAI",
    "LANGCHAIN",
    "LANGFUSE",
    "LOGFIRE",
    "MLFLOW",
    "OPENINFERENCE",
    "OTEL",
    "TRACELOOP",
    "TRACESIM",
    "UIPATH",
    "HAYSTACK",
    "LANGSMITH",
    "DSPY",
    "GENKIT",
    "LANGCHAIN_MESSAGE",
    "LLAMA_INDEX",
    "PLACEHOLDERS",
    "A2A_TOOL_CALL_EXTENSION_URI",
    "ANY_AGENT",
    "MCP",
    "PROVIDER",
    "TOOL_ERROR_WRAPPER",
    "TOOL_SPAN_NAME_SUFFIXES",
]


class TRACESIM:
    """tracesim's own span names and attributes (routing context and turn records)."""

    # span names
    TURN_SPAN = "tracesim.turn"
    CONVERSATION_SPAN = "tracesim.conversation"
    RUN_SPAN = "tracesim.run"
    # routing keys (span attributes, resource attributes, baggage keys)
    CHAT_ID = "tracesim.chat_id"
    TURN_ID = "tracesim.turn_id"
    RUN_ID = "tracesim.run_id"
    SCENARIO_ID = "tracesim.scenario_id"
    # turn record (on tracesim.turn spans)
    USER_MESSAGE = "tracesim.user_message"
    USER_KNOWLEDGE = "tracesim.user.knowledge"  # the fact the LLM user was shown this turn
    AGENT_MESSAGE = "tracesim.agent_message"
    EXPLICIT_TOOL_CALLS = "tracesim.explicit_tool_calls"  # JSON list of ToolCall
    TURN_STATUS = "tracesim.turn.status"  # ok | error | timeout
    ERROR = "tracesim.error"
    AGENT_TYPE = "tracesim.agent_type"
    STUBBED_CALLS = "tracesim.tool_stubs.answered"  # calls the scenario's tool_stubs answered
    UNSTUBBED_CALLS = "tracesim.tool_stubs.unstubbed"  # JSON list of calls no stub matched
    # conversation record (on tracesim.conversation spans)
    CONVERSATION_INDEX = "tracesim.conversation.index"
    CONVERSATION_STATUS = (
        "tracesim.conversation.status"  # completed | max_turns | error | interrupted
    )
    NUM_TURNS = "tracesim.conversation.num_turns"
    SCENARIO = "tracesim.scenario"  # JSON of the scenario (goal, knowledge, assertions)
    # run record (on tracesim.run spans)
    RUN_CONFIG = "tracesim.run.config"  # JSON of the resolved config


class ARKSIM:
    """arksim's routing keys, accepted as aliases of tracesim's."""

    CONVERSATION_ID = "arksim.conversation_id"
    TURN_ID = "arksim.turn_id"


class OTEL:
    """General OpenTelemetry semantic conventions used by tracesim."""

    SERVICE_NAME = "service.name"
    SESSION_ID = "session.id"
    ERROR_TYPE = "error.type"
    EXCEPTION_EVENT = "exception"
    EXCEPTION_MESSAGE = "exception.message"
    EXCEPTION_TYPE = "exception.type"
    EXCEPTION_STACKTRACE = "exception.stacktrace"


class GENAI:
    """OpenTelemetry GenAI semantic conventions (current and legacy names)."""

    OPERATION_NAME = "gen_ai.operation.name"
    TOOL_DEFINITIONS = "gen_ai.tool.definitions"  # JSON list of the tools offered to the model
    OP_CHAT = "chat"
    OP_TEXT_COMPLETION = "text_completion"
    OP_GENERATE_CONTENT = "generate_content"
    OP_EMBEDDINGS = "embeddings"
    OP_EXECUTE_TOOL = "execute_tool"
    OP_INVOKE_AGENT = "invoke_agent"
    OP_CREATE_AGENT = "create_agent"
    EXECUTE_TOOL_SPAN_PREFIX = "execute_tool "
    OP_CALL_LLM = "call_llm"  # any-agent's model-call operation (agno, google, langchain, ...)
    INFERENCE_OPERATIONS: tuple[str, ...] = (
        OP_CHAT,
        OP_TEXT_COMPLETION,
        OP_GENERATE_CONTENT,
        OP_EMBEDDINGS,
        OP_CALL_LLM,
    )
    """Operations whose span IS a model call (SPEC §5): `llm_calls` counts these only."""
    CALL_BEARING_OPERATIONS: tuple[str, ...] = (
        OP_EXECUTE_TOOL,
        OP_CHAT,
        OP_TEXT_COMPLETION,
        OP_GENERATE_CONTENT,
        OP_CALL_LLM,
    )
    """Operations of spans that may record or request tool calls: an unkeyed trace holding
    one is evaluated as a conversation of its own (SPEC §3)."""

    CONVERSATION_ID = "gen_ai.conversation.id"
    PROVIDER_NAME = "gen_ai.provider.name"
    SYSTEM = "gen_ai.system"  # legacy provider name
    REQUEST_MODEL = "gen_ai.request.model"
    RESPONSE_MODEL = "gen_ai.response.model"
    RESPONSE_ID = "gen_ai.response.id"
    REQUEST_TEMPERATURE = "gen_ai.request.temperature"
    USAGE_INPUT_TOKENS = "gen_ai.usage.input_tokens"
    USAGE_OUTPUT_TOKENS = "gen_ai.usage.output_tokens"
    USAGE_PROMPT_TOKENS = "gen_ai.usage.prompt_tokens"  # legacy
    USAGE_COMPLETION_TOKENS = "gen_ai.usage.completion_tokens"  # legacy
    INPUT_MESSAGES = "gen_ai.input.messages"
    OUTPUT_MESSAGES = "gen_ai.output.messages"
    SYSTEM_INSTRUCTIONS = "gen_ai.system_instructions"
    AGENT_NAME = "gen_ai.agent.name"
    AGENT_ID = "gen_ai.agent.id"
    TOOL_NAME = "gen_ai.tool.name"
    TOOL_CALL_ID = "gen_ai.tool.call.id"
    TOOL_CALL_ARGUMENTS = "gen_ai.tool.call.arguments"
    TOOL_CALL_RESULT = "gen_ai.tool.call.result"
    TOOL_DESCRIPTION = "gen_ai.tool.description"
    TOOL_TYPE = "gen_ai.tool.type"
    # events / log records (legacy content events; Strands uses them on tool spans too)
    EVENT_CHOICE = "gen_ai.choice"  # {index, finish_reason, message: {tool_calls}}
    EVENT_TOOL_MESSAGE = "gen_ai.tool.message"  # {content, id}
    PART_TOOL_CALL = "tool_call"  # a gen_ai.*.messages part {type, id, name, arguments}
    PART_TOOL_CALL_RESPONSE = "tool_call_response"  # {type, id, response}
    # OpenAI Responses API: a `function_call` output item has an item `id` and the
    # `call_id` the tool's answer names; some instrumentations copy the item id as `id`
    # (one call under two ids: `history.turn_replays` pairs the reply with its replay).
    RESPONSES_CALL_ID = "call_id"
    # legacy indexed prompt/completion attributes (OpenLLMetry, older GenAI)
    COMPLETION_PREFIX = "gen_ai.completion."
    PROMPT_PREFIX = "gen_ai.prompt."


class OPENINFERENCE:
    """OpenInference (Arize) semantic conventions."""

    SPAN_KIND = "openinference.span.kind"
    LLM_TOOLS_PREFIX = "llm.tools."  # llm.tools.<i>.tool.json_schema: tools offered to the model
    KIND_TOOL = "TOOL"
    KIND_LLM = "LLM"
    KIND_AGENT = "AGENT"
    KIND_CHAIN = "CHAIN"
    TOOL_NAME = "tool.name"
    TOOL_ID = "tool.id"
    TOOL_DESCRIPTION = "tool.description"
    TOOL_PARAMETERS = "tool.parameters"  # a JSON schema: never arguments
    TOOL_CALL_ID = "tool_call.id"
    TOOL_CALL_FUNCTION_NAME = "tool_call.function.name"
    TOOL_CALL_FUNCTION_ARGUMENTS = "tool_call.function.arguments"
    INPUT_VALUE = "input.value"
    OUTPUT_VALUE = "output.value"
    INPUT_MIME_TYPE = "input.mime_type"
    OUTPUT_MIME_TYPE = "output.mime_type"
    LLM_MODEL_NAME = "llm.model_name"
    LLM_PROVIDER = "llm.provider"
    LLM_TOKEN_COUNT_PROMPT = "llm.token_count.prompt"
    LLM_TOKEN_COUNT_COMPLETION = "llm.token_count.completion"
    LLM_TOKEN_COUNT_TOTAL = "llm.token_count.total"
    LLM_OUTPUT_MESSAGES_PREFIX = "llm.output_messages."
    LLM_INPUT_MESSAGES_PREFIX = "llm.input_messages."
    SESSION_ID = "session.id"
    USER_ID = "user.id"


class TRACELOOP:
    """OpenLLMetry (Traceloop) conventions."""

    SPAN_KIND = "traceloop.span.kind"
    KIND_TOOL = "tool"
    KIND_TASK = "task"
    KIND_AGENT = "agent"
    KIND_WORKFLOW = "workflow"
    ENTITY_NAME = "traceloop.entity.name"
    ENTITY_INPUT = "traceloop.entity.input"  # JSON {"args": [...], "kwargs": {...}}
    ENTITY_OUTPUT = "traceloop.entity.output"
    WORKFLOW_NAME = "traceloop.workflow.name"
    LLM_REQUEST_TYPE = "llm.request.type"  # chat | completion | embedding (older releases)
    REQUEST_TYPE_OPERATIONS = {
        "chat": "chat",
        "completion": "text_completion",
        "embedding": "embeddings",
    }
    LLM_USAGE_TOTAL_TOKENS = "llm.usage.total_tokens"
    ASSOCIATION_PREFIX = "traceloop.association.properties."  # + user keys (session_id, ...)


class LOGFIRE:
    """Logfire / Pydantic AI attributes (older releases; newer ones use GENAI)."""

    TOOL_ARGUMENTS = "tool_arguments"
    TOOL_RESPONSE = "tool_response"
    MSG = "logfire.msg"
    SPAN_TYPE = "logfire.span_type"
    MSG_TEMPLATE = "logfire.msg_template"
    # Logfire's OpenAI Agents SDK integration: a FunctionSpanData span is the template
    # below with plain `name` (the tool), `input` (JSON object text), `output`, `error`.
    AGENTS_FUNCTION_TEMPLATE = "Function: {name}"
    AGENTS_FUNCTION_NAME = "name"
    AGENTS_FUNCTION_INPUT = "input"
    AGENTS_FUNCTION_OUTPUT = "output"
    # its Responses spans: the Responses API object, `output[]` function_call {call_id, ...}
    AGENTS_RESPONSE = "response"
    # its trace root: the Agents SDK trace's `group_id` (RunConfig.group_id, documented by
    # the SDK as the link between traces of one conversation, e.g. a chat thread id)
    AGENTS_GROUP_ID = "group_id"
    RESPONSE_OBJECT = "response"  # the object's `object` field


class ADK:
    """Google Agent Development Kit attributes."""

    SESSION_ID = "gcp.vertex.agent.session_id"  # on call_llm spans (ADK 1 telemetry schema)
    TOOL_CALL_ARGS = "gcp.vertex.agent.tool_call_args"
    TOOL_RESPONSE = "gcp.vertex.agent.tool_response"
    EVENT_ID = "gcp.vertex.agent.event_id"
    LLM_REQUEST = "gcp.vertex.agent.llm_request"
    LLM_RESPONSE = "gcp.vertex.agent.llm_response"
    MERGED_TOOLS_NAME = "(merged tools)"  # gen_ai.tool.name of the span summarising parallel calls


class MLFLOW:
    """MLflow tracing spans exported over OTLP (values are JSON text)."""

    SPAN_TYPE = "mlflow.spanType"  # JSON string: "TOOL", "LLM", "CHAT_MODEL", "AGENT", ...
    SPAN_INPUTS = "mlflow.spanInputs"
    SPAN_OUTPUTS = "mlflow.spanOutputs"
    TRACE_SESSION = "mlflow.trace.session"
    TRACE_TAG_PREFIX = "mlflow.traceTag."  # user trace tags, exported on the root span
    CHAT_USAGE = "mlflow.chat.tokenUsage"  # JSON {input_tokens, output_tokens, total_tokens}
    TYPE_TOOL = "TOOL"
    MODEL_TYPES = ("LLM", "CHAT_MODEL")


class LANGFUSE:
    """Langfuse's OTel attributes."""

    SESSION_ID = "langfuse.session.id"
    OBSERVATION_TYPE = "langfuse.observation.type"  # tool / generation / agent / span
    TYPE_TOOL = "tool"
    TYPE_GENERATION = "generation"
    INPUT = "langfuse.observation.input"  # a tool's {"args": [], "kwargs": {...}}
    OUTPUT = "langfuse.observation.output"  # a tool's result; a generation's message JSON
    USAGE_DETAILS = "langfuse.observation.usage_details"  # JSON, OpenAI usage names
    MODEL_NAME = "langfuse.observation.model.name"


class LANGCHAIN:
    """LangChain / LangGraph values seen inside other conventions' payloads."""

    THREAD_ID = "thread_id"  # LangGraph's configurable thread id, copied into run metadata
    LANGSMITH_METADATA_PREFIX = "langsmith.metadata."
    # Tool classes a tool span may be named after instead of the tool (LangChain.js callbacks)
    GENERIC_TOOL_CLASSES = frozenset(
        ("StructuredTool", "DynamicStructuredTool", "DynamicTool", "Tool", "BaseTool")
    )


class AI_SDK:  # noqa: N801 - the Vercel AI SDK's own prefix
    """Vercel AI SDK (`experimental_telemetry`) attributes."""

    METADATA_PREFIX = "ai.telemetry.metadata."  # + the keys the app passes as metadata
    TOOL_CALL_NAME = "ai.toolCall.name"  # on `ai.toolCall` spans (newer releases add gen_ai.*)
    TOOL_CALL_ID = "ai.toolCall.id"
    TOOL_CALL_ARGS = "ai.toolCall.args"  # JSON text
    TOOL_CALL_RESULT = "ai.toolCall.result"  # JSON text (a string result is a JSON string)
    SETTINGS_CONTEXT_PREFIX = "ai.settings.context."  # AI SDK 7 runtimeContext (sessionId)
    OPERATION_ID = "ai.operationId"  # `ai.generateText.doGenerate`: the provider call
    # operation-id suffixes of the spans that ARE the model call (the outer `ai.generateText`
    # span repeats the summed usage of its steps: a mirror, not a call)
    INFERENCE_SUFFIXES = {".doGenerate": "chat", ".doStream": "chat", ".doEmbed": "embeddings"}


class LANGCHAIN_MESSAGE:  # noqa: N801 - LangChain's serialised message shapes
    """LangChain message envelopes found in tool outputs (OpenInference, OpenLLMetry)."""

    LC_MARKER = "lc"  # {"lc": 1, "type": "constructor", "id": [..., "ToolMessage"], "kwargs": {}}
    CONSTRUCTOR = "constructor"
    KWARGS = "kwargs"
    TOOL_TYPE = "tool"  # ToolMessage.type
    CONTENT = "content"
    TOOL_CALL_ID = "tool_call_id"
    TOOL_CALL_TYPE = "tool_call"  # a ToolCall dict {"name", "args", "id", "type": "tool_call"}


class LLAMA_INDEX:  # noqa: N801 - the framework's name
    """LlamaIndex values inside OpenInference attributes."""

    TOOL_OUTPUT_KEYS = ("tool_name", "raw_output")  # a dumped ToolOutput: its raw_output
    RAW_OUTPUT = "raw_output"
    IS_ERROR = "is_error"  # ToolOutput: the raw_output is the error
    CALL_RESULT_KEYS = ("tool_kwargs", "tool_output")  # a ToolCallResult step event
    CALL_ID = "tool_id"
    CALL_OUTPUT = "tool_output"
    TOOL_ARGUMENTS = "tool.arguments"  # OpenLLMetry's llama-index step span (JSON object)
    # LlamaIndex's own OTel integration: step spans whose input event is a ToolCall carry
    # its Python repr, "ToolCall(tool_name='t', tool_kwargs={...}, tool_id='c1')"
    STEP_INPUT_EVENT = "llamaindex.step.input_event"
    STEP_INPUT_SUMMARY = "llamaindex.step.input_summary"
    TOOL_CALL_EVENT = "ToolCall"
    # ... and its model spans: no attribute says so, only the span event named after the
    # instrumentation event LlamaIndex dispatched when the model call started
    MODEL_START_EVENTS = {
        "LLMChatStartEvent": GENAI.OP_CHAT,
        "LLMCompletionStartEvent": GENAI.OP_TEXT_COMPLETION,
    }


PLACEHOLDERS: frozenset[str] = frozenset(
    ("", "<not specified>", "<not serializable>", "N/A", "None", "null")
)
"""Values frameworks write where they have none, missing (SPEC §5): Google ADK's `<not
specified>`; a tool returning nothing recorded as Python's `None` (any-agent over
llama-index and tinyagent) or JSON `null` (any-agent over langchain)."""


class HAYSTACK:
    """Haystack's OpenTelemetry tracer (opentelemetry-haystack): no gen_ai.* at all."""

    TOOL_NAME = "haystack.tool.name"
    TOOL_INPUT = "haystack.agent.step.tool.input"  # JSON object text
    TOOL_OUTPUT = "haystack.agent.step.tool.output"  # text, or {"error": ...} on failure
    TOOL_ERROR = "haystack.tool.error"  # true on failure
    LLM_OUTPUT = "haystack.agent.step.llm.output"  # {"replies": [{meta.usage, content[]}]}
    ERROR_PREFIX = "Failed to invoke Tool"  # "... with parameters {...}. Error: <message>"
    ERROR_MARKER = ". Error: "


class LANGSMITH:
    """LangSmith's OTel export (LANGSMITH_TRACING_MODE=otel): a tool run's input and output
    ride on the legacy GenAI prompt / completion keys."""

    TOOL_INPUT = "gen_ai.prompt"  # JSON object text on tool spans
    TOOL_OUTPUT = "gen_ai.completion"  # {"output": ToolMessage dict}


class GENKIT:
    """Genkit's own telemetry (JS and Go `genkit-tracer`: no gen_ai.* at all), read as OTel
    GenAI (specific to Genkit: `evaluator.extract.readers.genkit`, `collector.routing.hot_fields`).
    An action span says what it runs in `genkit:metadata:subtype`; its `genkit:input` and
    `genkit:output` are JSON: a tool's arguments and JSON-encoded result, a model's request
    `{messages, tools}` and response `{message, finishReason, usage}`. Messages hold parts
    `{text}`, `{toolRequest: {name, ref, input}}` and `{toolResponse: {name, ref, output}}`
    (`ref`: the call id)."""

    SUBTYPE = "genkit:metadata:subtype"
    SUBTYPE_TOOL = "tool"
    SUBTYPE_MODEL = "model"
    NAME = "genkit:name"  # the tool's name; the model's (`provider/model`)
    INPUT = "genkit:input"
    OUTPUT = "genkit:output"
    MESSAGES = "messages"
    MESSAGE = "message"
    CONTENT = "content"
    FINISH_REASON = "finishReason"
    USAGE = "usage"
    INPUT_TOKENS = "inputTokens"
    OUTPUT_TOKENS = "outputTokens"
    TEXT = "text"
    TOOL_REQUEST = "toolRequest"
    TOOL_RESPONSE = "toolResponse"
    REF = "ref"
    ROLES = {"model": "assistant"}  # Genkit's role names that differ from GenAI's


class DSPY:
    """DSPy ReAct (through OpenInference): its built-in `finish` tool, which the model calls
    to end the loop, takes no arguments and returns a constant; the answer is extracted by a
    model call after it. No general signal tells it from a real tool without arguments:
    named as specific (`extract.answer_tools`)."""

    FINISH_TOOL = "finish"
    FINISH_RESULT = "Completed."


class ANY_AGENT:  # noqa: N801 - the library's name
    """mozilla-ai any-agent's spans (one convention over agno, google, langchain, llama-index,
    openai, smolagents, tinyagent): GenAI names, its own keys for a tool's values."""

    TOOL_ARGS = "gen_ai.tool.args"  # JSON object text on execute_tool spans
    OUTPUT = "gen_ai.output"  # a tool's result (call_llm: [{tool.name, tool.args}] requests)


class PROVIDER:
    """Provider request bodies instrumentations record whole (OpenInference `input.value`):
    where a tool's result, and whether it failed, travel back to the model."""

    ANTHROPIC_TOOL_RESULT = "tool_result"  # Messages API block {tool_use_id, content, is_error}
    ANTHROPIC_IS_ERROR = "is_error"
    BEDROCK_TOOL_RESULT = "toolResult"  # Converse API block {toolUseId, content, status}


class MCP:
    """OTel MCP semantic conventions (client and server spans of one JSON-RPC request)."""

    METHOD_NAME = "mcp.method.name"
    TOOLS_CALL = "tools/call"  # the method of a tool invocation
    SESSION_ID = "mcp.session.id"  # an MCP transport session: never a conversation (SPEC §3)
    TOOL_ERROR = "tool_error"  # error.type of a tools/call whose result has isError=true


TOOL_SPAN_NAME_SUFFIXES: tuple[str, ...] = (
    ".__call__",  # OpenInference TOOL spans named after the callable (no tool.name)
    ".call",
    ".invoke",
    ".ainvoke",
    ".run",
    ".arun",
    ".forward",  # smolagents Tool.forward
    ".execute",
    ".tool",  # OpenLLMetry `@tool` spans: `<name>.tool`
)
"""Suffixes a tool span's name carries after the tool's own name, stripped when the span
names the tool only by its span name (SPEC §5; OpenInference JS/Python, OpenLLMetry)."""


TOOL_ERROR_WRAPPER = r"^Error executing tool [^\s:]+: "
"""Text a tool server puts before the tool's own error message, removed (specific: the MCP
Python SDK's FastMCP server, seen through OpenLLMetry's MCP spans)."""


class UIPATH:
    """UiPath-style agent spans."""

    TOOL_SYNTHESIZED = "tool.synthesized"  # a container span around the real tool span


A2A_TOOL_CALL_EXTENSION_URI = "https://arksim.arklex.ai/a2a/tool-call-capture/v1"
"""arksim's A2A tool-call-capture extension (SPEC §8)."""
