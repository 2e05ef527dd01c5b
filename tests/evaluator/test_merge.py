"""merge_tool_calls: SPEC §6 dedup of explicit and traced calls."""

from __future__ import annotations

from datetime import datetime, timezone

from tracesim.evaluator import merge_tool_calls
from tracesim.schemas import ToolCall, ToolCallSource

EXPLICIT = ToolCallSource.AGENT_RESPONSE
TRACED = ToolCallSource.TRACING_PROCESSOR


def _at(second: int) -> datetime:
    return datetime(2025, 1, 1, 0, 0, second, tzinfo=timezone.utc)


def explicit(name: str, args: dict | None = None, **kw) -> ToolCall:
    return ToolCall(name=name, arguments=args or {}, source=EXPLICIT, **kw)


def traced(name: str, args: dict | None = None, *, second: int = 0, **kw) -> ToolCall:
    kw.setdefault("span_id", f"{second:016x}")
    return ToolCall(
        name=name,
        arguments=args or {},
        source=TRACED,
        start_time=_at(second),
        duration_ms=2.0,
        **kw,
    )


def test_explicit_wins_and_absorbs_a_traced_twin_by_id() -> None:
    e = explicit("search", {"q": "x"}, id="c1", result="explicit result")
    t = traced("search", {"q": "other"}, id="c1", second=1, result="traced", error="late error")
    [merged] = merge_tool_calls([e], [t])
    assert merged.source is EXPLICIT
    assert merged.arguments == {"q": "x"}
    assert merged.result == "explicit result"  # explicit value kept
    assert merged.error == "late error"  # missing value filled
    assert merged.span_id == t.span_id and merged.start_time == t.start_time
    assert merged.duration_ms == 2.0


def test_absorbed_by_name_and_canonical_arguments() -> None:
    e = explicit("f", {"b": [1, {"c": 2.0}], "a": 1})
    t = traced("f", {"a": 1.0, "b": [1, {"c": 2}]}, id="tc-9", second=3, result="ok")
    [merged] = merge_tool_calls([e], [t])
    assert (merged.result, merged.id, merged.span_id) == ("ok", "tc-9", t.span_id)


def test_string_vs_number_and_bool_vs_int_are_different_calls() -> None:
    merged = merge_tool_calls(
        [explicit("f", {"a": "1"}), explicit("g", {"a": True})],
        [traced("f", {"a": 1}, second=1), traced("g", {"a": 1}, second=2)],
    )
    assert [(c.name, c.source) for c in merged] == [
        ("f", EXPLICIT),
        ("g", EXPLICIT),
        ("f", TRACED),
        ("g", TRACED),
    ]
    assert merged[0].span_id is None  # not traced


def test_genuine_repeats_stay_two_calls() -> None:
    twice = [explicit("ping"), explicit("ping")]
    spans = [traced("ping", second=1), traced("ping", second=2), traced("ping", second=3)]
    merged = merge_tool_calls(twice, spans)
    assert [c.source for c in merged] == [EXPLICIT, EXPLICIT, TRACED]
    assert [c.span_id for c in merged] == [spans[0].span_id, spans[1].span_id, spans[2].span_id]


def test_each_traced_call_absorbed_once_explicit_repeats_without_trace() -> None:
    merged = merge_tool_calls([explicit("ping"), explicit("ping")], [traced("ping", second=1)])
    assert len(merged) == 2
    assert merged[0].span_id is not None and merged[1].span_id is None


def test_id_match_beats_an_earlier_signature_match() -> None:
    spans = [traced("f", {"a": 1}, id="x", second=1), traced("f", {"a": 1}, id="y", second=2)]
    merged = merge_tool_calls(
        [explicit("f", {"a": 1}, id="y"), explicit("f", {"a": 1}, id="x")], spans
    )
    assert [c.span_id for c in merged] == [spans[1].span_id, spans[0].span_id]


def test_signature_match_leaves_a_call_claimed_by_another_explicit_id() -> None:
    spans = [traced("f", id="b", second=1), traced("f", second=2)]
    merged = merge_tool_calls([explicit("f"), explicit("f", id="b")], spans)
    assert [c.span_id for c in merged] == [spans[1].span_id, spans[0].span_id]


def test_output_order_explicit_then_leftovers_by_start_time() -> None:
    spans = [traced("late", second=9), traced("a", second=1), traced("early", second=2)]
    merged = merge_tool_calls([explicit("z"), explicit("a")], spans)
    assert [c.name for c in merged] == ["z", "a", "early", "late"]


def test_leftovers_without_time_come_last_and_naive_times_are_utc() -> None:
    naive = ToolCall(name="naive", source=TRACED, start_time=datetime(2025, 1, 1, 0, 0, 5))
    untimed = ToolCall(name="untimed", source=TRACED)
    merged = merge_tool_calls([explicit("x")], [untimed, naive, traced("first", second=1)])
    assert [c.name for c in merged] == ["x", "first", "naive", "untimed"]


def test_inputs_are_not_mutated_and_empty_sides() -> None:
    e = explicit("f")
    t = traced("f", second=1, result="r")
    merge_tool_calls([e], [t])
    assert e.result is None and e.span_id is None
    assert merge_tool_calls([], [t]) == [t]
    assert merge_tool_calls([e], []) == [e]
    assert merge_tool_calls([], []) == []


def test_a2a_and_chat_completions_sources_are_explicit_too() -> None:
    a2a = ToolCall(name="f", source=ToolCallSource.A2A_PROTOCOL, id="1")
    chat = ToolCall(name="g", source=ToolCallSource.CHAT_COMPLETIONS)
    merged = merge_tool_calls([a2a, chat], [traced("g", second=1), traced("f", id="1", second=2)])
    assert [(c.name, c.source) for c in merged] == [
        ("f", ToolCallSource.A2A_PROTOCOL),
        ("g", ToolCallSource.CHAT_COMPLETIONS),
    ]
    assert all(c.span_id for c in merged)


def test_absorbed_call_keeps_explicit_group_and_fills_a_missing_one():
    """The explicit group wins; an ungrouped explicit call takes its traced twin's group."""
    merged = merge_tool_calls(
        [explicit("a", id="1", group="msg-1"), explicit("b", id="2")],
        [
            traced("a", id="1", second=1, group="span-x"),
            traced("b", id="2", second=2, group="span-x"),
        ],
    )
    assert [(call.name, call.group) for call in merged] == [("a", "msg-1"), ("b", "span-x")]
    assert all(call.source is EXPLICIT for call in merged)


def test_unmatched_traced_call_keeps_its_group():
    """A leftover traced call is emitted as is, group included."""
    merged = merge_tool_calls([explicit("a")], [traced("z", second=1, group="span-y")])
    assert [(call.name, call.group) for call in merged] == [("a", None), ("z", "span-y")]


def _reference_merge(explicit_calls: list[ToolCall], traced_calls: list[ToolCall]) -> list:
    """SPEC §6's rule written plainly: signatures are (name, canonical arguments)."""
    from tracesim.evaluator.calls.canonical import canonical_args

    free = [True] * len(traced_calls)
    explicit_ids = {c.id for c in explicit_calls if c.id}

    def allowed(index: int, own_id: str) -> bool:
        other = traced_calls[index].id
        return free[index] and not (other in explicit_ids and other != own_id)

    out = []
    for call in explicit_calls:
        twin = None
        if call.id:
            twin = next(
                (i for i, t in enumerate(traced_calls) if t.id == call.id and allowed(i, call.id)),
                None,
            )
        if twin is None:
            signature = (call.name, canonical_args(call.arguments))
            twin = next(
                (
                    i
                    for i, t in enumerate(traced_calls)
                    if (t.name, canonical_args(t.arguments)) == signature and allowed(i, call.id)
                ),
                None,
            )
        if twin is not None:
            free[twin] = False
        out.append((call.name, call.id, twin))
    leftovers = [i for i in range(len(traced_calls)) if free[i]]
    leftovers.sort(key=lambda i: traced_calls[i].start_time)
    return out + [("leftover", i) for i in leftovers]


def test_merge_pairs_as_the_plain_rule_on_random_calls() -> None:
    """The merge's name index + canonical comparison pairs exactly as signature lookup."""
    import random

    rng = random.Random(5)
    args_pool = [{}, {"a": 1}, {"a": 1.0}, {"a": True}, {"a": "1"}, {"a": [1, 2]}, {"b": None}]
    for _ in range(500):
        traced_calls = [
            traced(
                rng.choice("xy"),
                dict(rng.choice(args_pool)),
                second=k,
                id=rng.choice(["", "", "c1", "c2"]),
            )
            for k in range(rng.randint(1, 5))
        ]
        explicit_calls = [
            explicit(rng.choice("xy"), dict(rng.choice(args_pool)), id=rng.choice(["", "c1", "c3"]))
            for _ in range(rng.randint(1, 4))
        ]
        merged = merge_tool_calls(explicit_calls, traced_calls)
        expected = _reference_merge(explicit_calls, traced_calls)
        for call, want in zip(merged, expected, strict=True):
            if want[0] == "leftover":
                assert call is traced_calls[want[1]]
            elif want[2] is None:
                assert call.span_id is None
            else:
                assert call.span_id == traced_calls[want[2]].span_id
