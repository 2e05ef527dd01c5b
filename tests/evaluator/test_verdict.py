"""One verdict per evaluation (issue 23 item 1): exit code and the line every output prints."""

from __future__ import annotations

from typing import Any

import pytest
from tracesim.evaluator.scoring.gates import EvalConfigError, GateResult, check_gate_names
from tracesim.evaluator.scoring.scoring import conversation_scores
from tracesim.evaluator.scoring.verdict import decide
from tracesim.schemas import MetricResult
from tracesim.schemas.eval_config import EvalConfig


def _gate(passed: bool | None, metric: str = "final_score") -> GateResult:
    return GateResult(
        metric=metric,
        bound="min",
        threshold=0.7,
        scope="mean",
        observed=None if passed is None else (0.9 if passed else 0.5),
        graded=0 if passed is None else 2,
        failing=0 if passed is not False else 1,
        passed=passed,
        reason={
            True: "passed: x",
            False: f"FAILED: mean {metric} 0.500, needs >= 0.7",
            None: "skipped: not graded",
        }[passed],
    )


def test_gates_with_nothing_to_grade_never_pass() -> None:
    verdict = decide([_gate(None)], conversations=0, graded=0)
    assert int(verdict.exit_code) == 3
    assert verdict.headline == "nothing graded: no conversation to grade, so the gates cannot pass"


def test_every_gate_skipped_is_nothing_graded() -> None:
    verdict = decide([_gate(None), _gate(None, "helpfulness")], conversations=2, graded=2)
    assert int(verdict.exit_code) == 3
    assert verdict.headline == (
        "nothing graded: every gate was skipped (its metric was never graded), so the gates "
        "cannot pass"
    )


def test_every_conversation_errored_exits_3_even_without_gates() -> None:
    verdict = decide([], conversations=2, graded=0, errored=2)
    assert int(verdict.exit_code) == 3
    assert verdict.headline == (
        "nothing graded: every conversation (2) ended by an error, so nothing was tested"
    )


def test_an_interrupted_run_cannot_pass() -> None:
    verdict = decide([_gate(True)], conversations=3, graded=2, interrupted=1)
    assert int(verdict.exit_code) == 3 and verdict.headline.startswith(
        "incomplete: 1 conversation interrupted"
    )
    assert int(decide([], conversations=3, graded=2, interrupted=1).exit_code) == 3


def test_a_failed_gate_says_which() -> None:
    verdict = decide([_gate(False), _gate(True, "x")], conversations=2, graded=2)
    assert int(verdict.exit_code) == 1
    assert verdict.headline == "a gate failed: mean final_score 0.500, needs >= 0.7"


def test_errors_under_gates_are_incomplete_and_without_gates_only_said() -> None:
    verdict = decide([_gate(True)], conversations=3, graded=2, errored=1)
    assert int(verdict.exit_code) == 3 and "1 conversation ended by an error" in verdict.headline
    verdict = decide([], conversations=3, graded=2, errored=1, not_passed=1)
    assert int(verdict.exit_code) == 0
    assert verdict.headline == (
        "no gates defined: 1 conversation did not pass and 1 conversation ended by an error, "
        "and nothing sets the exit code (add evaluation.thresholds, e.g. final_score: 0.8)"
    )


def test_collect_only_file_without_gates_still_exits_0() -> None:
    verdict = decide([], conversations=0, graded=0)
    assert int(verdict.exit_code) == 0 and verdict.tone == "warn"  # never shown as a pass
    assert verdict.headline.startswith("nothing to grade: no conversation in the store")
    assert decide([_gate(True)], conversations=1, graded=1).headline == "gates passed"


def test_a_gate_typo_gets_a_did_you_mean() -> None:
    with pytest.raises(
        EvalConfigError, match=r"final_scroe: unknown metric; did you mean 'final_score'\?"
    ):
        check_gate_names(EvalConfig(thresholds={"final_scroe": 0.7}))


def _check(passed: bool) -> MetricResult:
    return MetricResult(
        name="trajectory",
        value=1.0 if passed else 0.0,
        passed=passed,
        details={"kind": "check"},
    )


def test_a_failed_conversation_check_fails_the_conversation() -> None:
    _, final = conversation_scores([], None, checks=[_check(False)])
    assert final.value == 0.0 and final.label == "Failed"
    assert final.reason == "0 of 1 conversation-level check(s) passed (failed: trajectory)"
    _, final = conversation_scores([], None, checks=[_check(True)])
    assert final.value == 1.0 and final.label == "Done"
    turn = MetricResult(name="turn_success", value=1.0, passed=True)
    _, final = conversation_scores([turn], None, checks=[_check(True), _check(False)])
    assert final.value == 0.5 and final.label == "Failed"


def test_an_ended_conversation_is_ungradeable() -> None:
    turn = MetricResult(name="turn_success", value=1.0, passed=True)
    _, final = conversation_scores([turn], None, ended=("Error", "agent: turn 1 timeout"))
    assert final.value is None and final.label == "Error"
    assert final.reason == "not graded: agent: turn 1 timeout"
    assert final.details["arksim_status"] == "Evaluation Failed"


def test_zero_turns_are_not_graded_and_say_so() -> None:
    ratio, final = conversation_scores([], None)
    assert ratio.value is None and ratio.reason == "no turn could be graded"
    assert final.value is None and final.label == "Not graded"


def test_an_explicit_call_with_an_unknown_source_is_kept_with_source_null(caplog: Any) -> None:
    from tracesim.evaluator.load.load import explicit_calls

    turn = {
        "chat_id": "c",
        "turn_id": 0,
        "explicit_tool_calls": [
            {"name": "refund", "arguments": {"order_id": 1}, "source": "telepathy"},
            {"name": "lookup", "source": "agent_response"},
            {"arguments": "no name"},
        ],
    }
    with caplog.at_level("WARNING"):
        calls = explicit_calls(turn)
    assert [(c.name, c.source) for c in calls] == [("refund", None), ("lookup", "agent_response")]
    assert "unknown source 'telepathy'; kept with source NULL" in caplog.text
    assert "explicit_tool_calls[2] skipped" in caplog.text


def test_failed_judges_are_named_when_nothing_was_graded() -> None:
    verdict = decide([_gate(None, "helpfulness")], conversations=2, graded=2, judge_errors=12)
    assert int(verdict.exit_code) == 3
    assert verdict.headline.endswith("so the gates cannot pass (judge: 12 requests failed)")


def test_without_gates_the_line_says_how_many_could_not_be_graded() -> None:
    """No gate: exit 0 when something was graded, never shown as a plain pass; nothing
    graded at all is exit 3, gates or not (SPEC §13: graded nothing never passes)."""
    verdict = decide([], conversations=3, graded=0)
    assert int(verdict.exit_code) == 3 and verdict.tone == "fail"
    assert verdict.headline.startswith(
        "nothing graded: none of 3 conversations could be graded (no judge ran, and no policy"
    )
    assert "evaluation.policies" in verdict.headline
    verdict = decide([], conversations=3, graded=2, not_passed=1)
    assert verdict.headline.startswith(
        "no gates defined: 1 conversation did not pass and 1 conversation could not be graded"
    )
