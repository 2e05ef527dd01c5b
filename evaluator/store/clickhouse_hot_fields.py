"""The hot columns (operation, tool_name, model, input_tokens, output_tokens) in ClickHouse
SQL over the exporter's `SpanAttributes`, derived as the collector derives them
(`collector.routing.hot_fields`): the same conventions, in the same precedence, so
`spans`, `llm_calls` and the tool spans answer alike on DuckDB and ClickHouse.

One `_hot_branch` column says which convention's reader applies (the early returns of
`hot_fields`); each hot column then picks its value from that branch.
"""

from __future__ import annotations

from tracesim.evaluator.store.clickhouse_schema import ExporterSchema, string_literal
from tracesim.schemas.conventions import (
    AI_SDK,
    GENAI,
    GENKIT,
    HAYSTACK,
    LANGFUSE,
    LLAMA_INDEX,
    LOGFIRE,
    MLFLOW,
    OPENINFERENCE,
    TRACELOOP,
)

__all__ = ["hot_columns"]

_GENERIC, _NONE, _MLFLOW, _HAYSTACK, _LANGFUSE, _GENKIT = (
    "'generic'",
    "'none'",
    "'mlflow'",
    "'haystack'",
    "'langfuse'",
    "'genkit'",
)


def _int(expr: str) -> str:
    return f"toInt64OrNull(trimBoth({expr}))"


def _first(*exprs: str) -> str:
    return exprs[0] if len(exprs) == 1 else f"coalesce({', '.join(exprs)})"


def _keys(schema: ExporterSchema) -> str:
    """Every attribute key of the span (Map keys, or the JSON column's paths)."""
    if schema.variant == "map":
        return "mapKeys(SpanAttributes)"
    return "JSONAllPaths(SpanAttributes)"


def _records_a_model_call(schema: ExporterSchema) -> str:
    """An OpenInference LLM span with usage or messages (`hot_fields._records_a_model_call`)."""

    def a(key: str) -> str:
        return schema.attr("SpanAttributes", key)

    prefixes = " OR ".join(
        f"startsWith(k, {string_literal(p)})"
        for p in (OPENINFERENCE.LLM_INPUT_MESSAGES_PREFIX, OPENINFERENCE.LLM_OUTPUT_MESSAGES_PREFIX)
    )
    return (
        f"({a(OPENINFERENCE.LLM_TOKEN_COUNT_PROMPT)} IS NOT NULL "
        f"OR {a(OPENINFERENCE.LLM_TOKEN_COUNT_COMPLETION)} IS NOT NULL "
        f"OR arrayExists(k -> {prefixes}, {_keys(schema)}))"
    )


def hot_columns(schema: ExporterSchema) -> str:
    """SELECT items: `_hot_branch`, operation, tool_name, model, input_tokens, output_tokens."""

    def a(key: str) -> str:
        return schema.attr("SpanAttributes", key)

    def has(key: str) -> str:
        return f"{a(key)} IS NOT NULL"

    lit = string_literal
    prefix = GENAI.EXECUTE_TOOL_SPAN_PREFIX
    tool = lit(GENAI.OP_EXECUTE_TOOL)
    chat = lit(GENAI.OP_CHAT)
    kind = f"upper({a(OPENINFERENCE.SPAN_KIND)})"
    is_tl_tool = f"ifNull({a(TRACELOOP.SPAN_KIND)} = {lit(TRACELOOP.KIND_TOOL)}, false)"
    named_tool = f"startsWith(SpanName, {lit(prefix)})"
    logfire_tool = (
        f"ifNull({a(LOGFIRE.MSG_TEMPLATE)} = {lit(LOGFIRE.AGENTS_FUNCTION_TEMPLATE)}, false)"
    )
    llama_tool = (
        f"ifNull({a(LLAMA_INDEX.STEP_INPUT_EVENT)} = {lit(LLAMA_INDEX.TOOL_CALL_EVENT)}, false)"
    )
    oi_kinds = ", ".join(
        lit(k) for k in (OPENINFERENCE.KIND_TOOL, OPENINFERENCE.KIND_LLM, OPENINFERENCE.KIND_AGENT)
    )
    branch = (
        f"multiIf({has(GENAI.OPERATION_NAME)}, {_GENERIC}, "
        f"{kind} = {lit(OPENINFERENCE.KIND_LLM)} AND NOT {_records_a_model_call(schema)}, {_NONE}, "
        f"ifNull({kind} IN ({oi_kinds}), false) OR {is_tl_tool} OR {named_tool} "
        f"OR {has(AI_SDK.TOOL_CALL_NAME)}, {_GENERIC}, "
        f"{has(MLFLOW.SPAN_TYPE)}, {_MLFLOW}, "
        f"{has(HAYSTACK.TOOL_NAME)}, {_GENERIC}, "
        f"{has(HAYSTACK.LLM_OUTPUT)}, {_HAYSTACK}, "
        f"{has(LANGFUSE.OBSERVATION_TYPE)}, {_LANGFUSE}, "
        f"{has(GENKIT.SUBTYPE)}, {_GENKIT}, {_GENERIC})"
    )
    operation_id, request_type = a(AI_SDK.OPERATION_ID), a(TRACELOOP.LLM_REQUEST_TYPE)
    suffixes = ", ".join(
        f"endsWith({operation_id}, {lit(suffix)}), {lit(op)}"
        for suffix, op in AI_SDK.INFERENCE_SUFFIXES.items()
    )
    request_types = ", ".join(
        f"{request_type} = {lit(rt)}, {lit(op)}"
        for rt, op in TRACELOOP.REQUEST_TYPE_OPERATIONS.items()
    )
    span_kind = "upper(replaceRegexpOne(toString(SpanKind), '^SPAN_KIND_', ''))"
    usage = (GENAI.USAGE_INPUT_TOKENS, GENAI.USAGE_OUTPUT_TOKENS)
    event_operations = ", ".join(
        f"has(`Events.Name`, {lit(event)}), {lit(op)}"
        for event, op in LLAMA_INDEX.MODEL_START_EVENTS.items()
    )
    generic_operation = (
        f"coalesce({a(GENAI.OPERATION_NAME)}, multiIf("
        f"{kind} = 'TOOL', {tool}, {kind} = 'LLM', {chat}, "
        f"{kind} = 'AGENT', {lit(GENAI.OP_INVOKE_AGENT)}, "
        f"{is_tl_tool} OR {named_tool} OR {has(AI_SDK.TOOL_CALL_NAME)} "
        f"OR {has(HAYSTACK.TOOL_NAME)} OR {llama_tool} OR {logfire_tool}, {tool}, "
        f"{operation_id} IS NOT NULL, multiIf({suffixes}, NULL), "
        f"{request_types}, NULL), "
        # an inference span known by what it carries (`hot_fields._carries_an_inference`)
        f"multiIf({span_kind} = 'CLIENT' AND "
        f"{_first(a(GENAI.RESPONSE_MODEL), a(GENAI.REQUEST_MODEL))} "
        f"IS NOT NULL AND {has(GENAI.RESPONSE_ID)} AND {_first(*(_int(a(k)) for k in usage))} "
        f"IS NOT NULL, {chat}, "
        # a model span known by its start event only (`hot_fields._event_operation`)
        f"{event_operations}, NULL))"
    )
    span_type = f"trimBoth({a(MLFLOW.SPAN_TYPE)})"
    chat_types = ", ".join(lit(f'"{t}"') for t in MLFLOW.MODEL_TYPES)
    mlflow_operation = (
        f"multiIf({span_type} = {lit(chr(34) + MLFLOW.TYPE_TOOL + chr(34))}, {tool}, "
        f"{span_type} IN ({chat_types}), {chat}, "
        f"{span_type} = '\"AGENT\"', {lit(GENAI.OP_INVOKE_AGENT)}, NULL)"
    )
    observation = a(LANGFUSE.OBSERVATION_TYPE)
    langfuse_operation = (
        f"multiIf({observation} = {lit(LANGFUSE.TYPE_TOOL)}, {tool}, "
        f"{observation} = {lit(LANGFUSE.TYPE_GENERATION)}, {chat}, NULL)"
    )
    subtype = a(GENKIT.SUBTYPE)
    genkit_tool = f"ifNull({subtype} = {lit(GENKIT.SUBTYPE_TOOL)}, false)"
    genkit_model = f"ifNull({subtype} = {lit(GENKIT.SUBTYPE_MODEL)}, false)"
    operation = (
        f"multiIf(_hot_branch = {_GENERIC}, {generic_operation}, _hot_branch = {_MLFLOW}, "
        f"{mlflow_operation}, _hot_branch = {_HAYSTACK}, {chat}, _hot_branch = {_LANGFUSE}, "
        f"{langfuse_operation}, _hot_branch = {_GENKIT}, "
        f"multiIf({genkit_tool}, {tool}, {genkit_model}, {chat}, NULL), NULL)"
    )
    generic_tool = _first(
        a(GENAI.TOOL_NAME),
        a(OPENINFERENCE.TOOL_NAME),
        a(AI_SDK.TOOL_CALL_NAME),
        a(HAYSTACK.TOOL_NAME),
        f"if({is_tl_tool}, {a(TRACELOOP.ENTITY_NAME)}, NULL)",
        f"if({named_tool}, nullIf(trimBoth(substring(SpanName, {len(prefix) + 1})), ''), NULL)",
        f"if({logfire_tool}, {a(LOGFIRE.AGENTS_FUNCTION_NAME)}, NULL)",
    )
    tool_name = (
        f"multiIf(_hot_branch = {_GENERIC}, {generic_tool}, "
        f"_hot_branch = {_MLFLOW} AND operation = {tool}, nullIf(toString(SpanName), ''), "
        f"_hot_branch = {_LANGFUSE} AND operation = {tool}, nullIf(toString(SpanName), ''), "
        f"_hot_branch = {_GENKIT} AND {genkit_tool}, {a(GENKIT.NAME)}, "
        "NULL)"
    )
    replies = f"JSONExtractArrayRaw(ifNull({a(HAYSTACK.LLM_OUTPUT)}, ''), 'replies')"
    haystack_model = _first(
        f"arrayFirst(m -> m IS NOT NULL, arrayMap(r -> nullIf(JSONExtractString(r, 'meta', "
        f"'model'), ''), {replies}))",
        a(GENAI.RESPONSE_MODEL),
    )
    model = (
        f"multiIf(_hot_branch = {_GENERIC}, "
        f"{_first(a(GENAI.RESPONSE_MODEL), a(GENAI.REQUEST_MODEL), a(OPENINFERENCE.LLM_MODEL_NAME))}, "
        f"_hot_branch = {_MLFLOW} AND operation = {chat}, {a(GENAI.REQUEST_MODEL)}, "
        f"_hot_branch = {_HAYSTACK}, {haystack_model}, "
        f"_hot_branch = {_LANGFUSE} AND operation = {chat}, {a(LANGFUSE.MODEL_NAME)}, "
        f"_hot_branch = {_GENKIT} AND {genkit_model}, "
        f"{_first(a(GENKIT.NAME), a(GENAI.RESPONSE_MODEL))}, NULL)"
    )

    def haystack_tokens(field: str, fallback: str) -> str:
        values = (
            f"arrayMap(v -> assumeNotNull(v), arrayFilter(v -> v IS NOT NULL, arrayMap(r -> JSONExtract(r, 'meta', 'usage', "
            f"{lit(field)}, 'Nullable(Int64)'), {replies})))"
        )
        return f"if(empty({values}), {_int(a(fallback))}, arraySum({values}))"

    def json_int(column: str, *fields: str) -> str:
        usage = f"ifNull({a(column)}, '')"
        extract = f"JSONExtract({usage}, {lit(fields[0])}, 'Nullable(Int64)')"
        if len(fields) == 2:
            extract = (
                f"if(JSONHas({usage}, {lit(fields[0])}), {extract}, "
                f"JSONExtract({usage}, {lit(fields[1])}, 'Nullable(Int64)'))"
            )
        return f"if(startsWith({usage}, '{{'), {extract}, NULL)"

    def genkit_tokens(field: str, fallback: str) -> str:
        output = f"ifNull({a(GENKIT.OUTPUT)}, '')"
        extract = f"JSONExtract({output}, {lit(GENKIT.USAGE)}, {lit(field)}, 'Nullable(Int64)')"
        return f"coalesce(if(startsWith({output}, '{{'), {extract}, NULL), {_int(a(fallback))})"

    def tokens(
        keys: tuple[str, ...],
        mlflow: str,
        haystack: tuple[str, str],
        langfuse: tuple,
        genkit: tuple[str, str],
    ) -> str:
        return (
            f"multiIf(_hot_branch = {_GENERIC}, {_first(*(_int(a(k)) for k in keys))}, "
            f"_hot_branch = {_MLFLOW}, {json_int(MLFLOW.CHAT_USAGE, mlflow)}, "
            f"_hot_branch = {_HAYSTACK}, {haystack_tokens(*haystack)}, "
            f"_hot_branch = {_LANGFUSE} AND operation = {chat}, "
            f"{json_int(LANGFUSE.USAGE_DETAILS, *langfuse)}, "
            f"_hot_branch = {_GENKIT} AND {genkit_model}, {genkit_tokens(*genkit)}, NULL)"
        )

    input_tokens = tokens(
        (GENAI.USAGE_INPUT_TOKENS, GENAI.USAGE_PROMPT_TOKENS, OPENINFERENCE.LLM_TOKEN_COUNT_PROMPT),
        "input_tokens",
        ("prompt_tokens", GENAI.USAGE_INPUT_TOKENS),
        ("prompt_tokens", "input"),
        (GENKIT.INPUT_TOKENS, GENAI.USAGE_INPUT_TOKENS),
    )
    output_tokens = tokens(
        (
            GENAI.USAGE_OUTPUT_TOKENS,
            GENAI.USAGE_COMPLETION_TOKENS,
            OPENINFERENCE.LLM_TOKEN_COUNT_COMPLETION,
        ),
        "output_tokens",
        ("completion_tokens", GENAI.USAGE_OUTPUT_TOKENS),
        ("completion_tokens", "output"),
        (GENKIT.OUTPUT_TOKENS, GENAI.USAGE_OUTPUT_TOKENS),
    )
    return (
        f"{branch} AS _hot_branch, {operation} AS operation, {tool_name} AS tool_name, "
        f"{model} AS model, {input_tokens} AS input_tokens, {output_tokens} AS output_tokens"
    )
