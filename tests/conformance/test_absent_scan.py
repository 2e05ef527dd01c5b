"""The scan behind "not in the telemetry" (`absent.py`) on real recordings: it finds a
result that IS where tracesim could pair it, and does not take an earlier call's identical
result, replayed in the model input that asked for this call, for this call's."""

from __future__ import annotations

from tests.conformance.absent import argument_pattern, span_end, texts_of, where_text
from tests.conformance.replay import HERE, load

RESULT = "Sunny, 21 C in Paris"


def test_a_result_in_a_later_model_input_is_found() -> None:
    texts = texts_of(load(HERE / "recordings" / "openlit-groq"))
    [trace] = {t.trace_id for t in texts if t.where.startswith("span 'chat")}
    first = min(t.end for t in texts if t.where.startswith("span 'chat"))
    assert where_text(RESULT, texts, {trace}, after=first)  # the last request's log record


def test_an_earlier_calls_replayed_result_is_not_this_calls() -> None:
    texts = texts_of(load(HERE / "recordings" / "litellm-otel"))
    requests = sorted(
        (t for t in texts if t.where.startswith("span 'litellm_request'")), key=lambda t: t.start
    )
    second = next(t for t in requests if t.trace_id != requests[0].trace_id)
    assert where_text(RESULT, texts, {second.trace_id})  # the first call's, replayed
    assert not where_text(RESULT, texts, {second.trace_id}, after=span_end(second.span_id, texts))


def test_arguments_are_found_as_recorded_calls_show_them_not_as_prose() -> None:
    pattern = argument_pattern("city", "Paris")
    for recorded in ('{"city": "Paris"}', '{\\"city\\": \\"Paris\\"}', "{'city': 'Paris'}"):
        assert pattern.search(recorded), recorded
    assert not pattern.search("What is the weather in Paris? (city names only)")
