"""A seeded random walk over the shapes the lane's attacks found (`test_lane_attacks`):
tool spans nested in tool spans through agent spans, sole text arguments that may be the
turn's or a delegate's answer, ids missing, repeated or shifted, failed spans, model
replies requesting all, some or other arguments, failure flags and model spans whose
instrumentation failed. Every turn the lane claims must be the general model's reading
with an empty audit. (Before the lane's fixes for `test_lane_attacks`, 65 of 3,000 such turns
were claimed wrongly; the hypothesis fuzz of `test_lane_equivalence` had none of these.)
"""

from __future__ import annotations

import random
from typing import Any

import orjson
from tracesim.evaluator.extract.lane import lane_calls

from tests.evaluator.test_lane_attacks import (
    STACK,
    TURN,
    anthropic_input,
    chat,
    check,
    reply,
    row,
    tool,
    turn_span,
)

_NAMES = ["weather", "search", "final_answer", "research"]
_TEXTS = ["It is 42", "Paris", "Hello there", "done"]
_RESULTS = [*_TEXTS, "Ran.\nIt is 42", "Ran.\nParis", '{"error": "x"}']


def _turn(rng: random.Random) -> list[dict[str, Any]]:
    told = {"tracesim.agent_message": rng.choice(_TEXTS)} if rng.random() < 0.2 else {}
    rows = [turn_span(**told)]
    span_ids = [TURN]
    count = rng.randint(1, 4)
    requests = []
    for i in range(count):
        name = rng.choice(_NAMES)
        parent = rng.choice(span_ids + [TURN] * 3)
        if rng.random() < 0.3:  # an agent span between the call and its parent
            agent = f"{0xB0 + i:016x}"
            rows.append(row(agent, parent, "invoke_agent helper", 5 + i, {}))
            span_ids.append(agent)
            parent = agent
        if rng.random() < 0.5:
            args: dict[str, Any] = {"q": rng.choice(_TEXTS)}
        else:
            args = {"city": rng.choice(_TEXTS), "n": i}
        call_id = rng.choice([f"call_{i}", f"call_{i}", None, "", f"call_{(i + 1) % count}"])
        failed = rng.random() < 0.15
        span_id = f"{0xA0 + i:016x}"
        rows.append(
            tool(
                span_id,
                name,
                call_id,
                args,
                rng.choice(_RESULTS),
                10 + 10 * i,
                parent=parent,
                status="ERROR" if failed else "UNSET",
                message=rng.choice([None, "boom"]) if failed else None,
            )
        )
        span_ids.append(span_id)
        requests.append((f"call_{i}", name, args if rng.random() < 0.8 else {"city": "Lyon"}))
    if rng.random() < 0.7:
        asked = requests if rng.random() < 0.8 else requests[:-1]
        rows.append(chat("0000000000000002", 5, asked, parent=rng.choice([TURN, span_ids[-1]])))
    if rng.random() < 0.3:
        rows.append(reply("0000000000000003", 900, rng.choice(_TEXTS)))
    if rng.random() < 0.1:
        rows.append(anthropic_input("00000000000000f1", 950, "call_0"))
    if rng.random() < 0.1:
        model = row("0000000000000004", TURN, "chat m", 3, {"gen_ai.operation.name": "chat"})
        exception = {
            "exception.type": "KeyError",
            "exception.message": "'tool_calls'",
            "exception.stacktrace": STACK,
        }
        model["events"] = orjson.dumps([{"name": "exception", "attributes": exception}]).decode()
        rows.append(model)
    return rows


def test_random_nested_turns_claimed_by_the_lane_read_as_the_general_model() -> None:
    rng = random.Random(1)
    claimed = declined = 0
    for _ in range(800):
        rows = _turn(rng)
        if check(rows):
            claimed += 1
        elif lane_calls(rows) is None:
            declined += 1
    assert claimed > 100 and declined > 100  # both sides of the predicate are exercised
