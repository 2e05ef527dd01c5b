"""Where real instrumentations put a conversation (session, thread) id: SPEC §3 rule 4.

One ordered list, first match wins. Each entry names the convention it serves;
the conformance corpus (`tests/conformance/`) is the evidence. The collector
keys spans by it (chat_id only), the evaluator and `tracesim inspect` read it.
"""

from __future__ import annotations

from tracesim.schemas.conventions import (
    ADK,
    AI_SDK,
    ARKSIM,
    GENAI,
    LANGCHAIN,
    LANGFUSE,
    LOGFIRE,
    MLFLOW,
    OPENINFERENCE,
    OTEL,
    TRACELOOP,
    TRACESIM,
)

__all__ = ["CONVERSATION_ID_KEYS", "EXPLICIT_KEYS"]

_SESSION_NAMES = ("session_id", "thread_id", "conversation_id", "chat_id")
_SESSION_NAMES_CAMEL = ("sessionId", "threadId", "conversationId", "chatId")

CONVERSATION_ID_KEYS: tuple[str, ...] = (
    GENAI.CONVERSATION_ID,  # OTel GenAI (ADK 2 invoke_agent, util-genai, Pydantic AI, ...)
    OTEL.SESSION_ID,  # OTel general; OpenInference (LangChain/LangGraph thread ids land here)
    OPENINFERENCE.SESSION_ID,  # same key, named for the reader
    ADK.SESSION_ID,  # Google ADK 1 telemetry schema (call_llm spans)
    LANGFUSE.SESSION_ID,  # Langfuse SDK
    MLFLOW.TRACE_SESSION,  # MLflow trace metadata copied onto spans
    # OpenLLMetry association properties (LangGraph's thread_id arrives as one)
    *(TRACELOOP.ASSOCIATION_PREFIX + name for name in _SESSION_NAMES),
    # Vercel AI SDK `experimental_telemetry.metadata`; AI SDK 7 runtime context
    *(AI_SDK.METADATA_PREFIX + name for name in _SESSION_NAMES_CAMEL + _SESSION_NAMES),
    *(AI_SDK.SETTINGS_CONTEXT_PREFIX + name for name in _SESSION_NAMES_CAMEL + _SESSION_NAMES),
    # MLflow user trace tags (exported on the root span; metadata is not exported)
    *(MLFLOW.TRACE_TAG_PREFIX + name for name in _SESSION_NAMES + _SESSION_NAMES_CAMEL),
    # LangSmith's OTel export of run metadata
    *(LANGCHAIN.LANGSMITH_METADATA_PREFIX + name for name in _SESSION_NAMES),
    LOGFIRE.AGENTS_GROUP_ID,  # OpenAI Agents SDK trace group_id (Logfire: on the root span)
)
"""Attribute keys holding a conversation id (rule 4), in precedence order (no duplicates)."""
CONVERSATION_ID_KEYS = tuple(dict.fromkeys(CONVERSATION_ID_KEYS))

EXPLICIT_KEYS: tuple[tuple[str, str], ...] = (
    (TRACESIM.CHAT_ID, TRACESIM.TURN_ID),
    (ARKSIM.CONVERSATION_ID, ARKSIM.TURN_ID),
)
"""(chat key, turn key) pairs of rules 1 and 2, in precedence order (tracesim, then arksim)."""
