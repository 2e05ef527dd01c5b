"""Attribute and span names of every span convention tracesim reads or writes.

One place for the strings, so the collector (hot columns, routing), the
simulator (what it emits) and the evaluator (extraction) never disagree.
Legacy names are kept next to the current ones.
"""

from __future__ import annotations

__all__ = [
    "ADK",
    "ARKSIM",
    "GENAI",
    "LOGFIRE",
    "OPENINFERENCE",
    "OTEL",
    "TRACELOOP",
    "TRACESIM",
    "A2A_TOOL_CALL_EXTENSION_URI",
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
    AGENT_MESSAGE = "tracesim.agent_message"
    EXPLICIT_TOOL_CALLS = "tracesim.explicit_tool_calls"  # JSON list of ToolCall
    TURN_STATUS = "tracesim.turn.status"  # ok | error | timeout
    ERROR = "tracesim.error"
    AGENT_TYPE = "tracesim.agent_type"
    # conversation record (on tracesim.conversation spans)
    CONVERSATION_INDEX = "tracesim.conversation.index"
    CONVERSATION_STATUS = "tracesim.conversation.status"  # completed | error | max_turns
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
    LLM_REQUEST_TYPE = "llm.request.type"
    LLM_USAGE_TOTAL_TOKENS = "llm.usage.total_tokens"


class LOGFIRE:
    """Logfire / Pydantic AI attributes (older releases; newer ones use GENAI)."""

    TOOL_ARGUMENTS = "tool_arguments"
    TOOL_RESPONSE = "tool_response"
    MSG = "logfire.msg"
    SPAN_TYPE = "logfire.span_type"


class ADK:
    """Google Agent Development Kit attributes."""

    TOOL_CALL_ARGS = "gcp.vertex.agent.tool_call_args"
    TOOL_RESPONSE = "gcp.vertex.agent.tool_response"
    EVENT_ID = "gcp.vertex.agent.event_id"
    LLM_REQUEST = "gcp.vertex.agent.llm_request"
    LLM_RESPONSE = "gcp.vertex.agent.llm_response"
    MERGED_TOOLS_NAME = "(merged tools)"  # gen_ai.tool.name of the span summarising parallel calls


A2A_TOOL_CALL_EXTENSION_URI = "https://arksim.arklex.ai/a2a/tool-call-capture/v1"
"""arksim's A2A tool-call-capture extension (SPEC §8)."""
