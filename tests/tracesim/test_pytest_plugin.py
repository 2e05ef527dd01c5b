"""The pytest plugin (entry point `pytest11`): a team's own test suite runs scenarios against
its agent through the `tracesim_run` fixture and asserts on the scores."""

from __future__ import annotations

import json
from importlib import metadata

import pytest

from tests.report.user_view_fixtures import AGENT

pytest_plugins = ["pytester"]

SCENARIOS = {
    "scenarios": [
        {
            "scenario_id": "order-ok",
            "goal": "status",
            "turns": ["where is A1"],
            "assertions": [
                {
                    "type": "tool_calls",
                    "turn": 0,
                    "match_mode": "contains",
                    "expected": [{"name": "lookup_order", "args": {"order_id": "A1"}}],
                }
            ],
        }
    ]
}
BAD = {
    "scenarios": [
        {
            "scenario_id": "refund-needed",
            "goal": "refund",
            "turns": ["I want a refund for A1"],
            "assertions": [
                {
                    "type": "tool_calls",
                    "turn": 0,
                    "match_mode": "contains",
                    "expected": [{"name": "issue_refund"}],
                }
            ],
        }
    ]
}

USER_TESTS = """
def test_agent_passes(tracesim_run):
    result = tracesim_run("ok.json", agent="agent.py:ShopAgent")
    result.assert_passed()
    assert result.passed and result.exit_code == 0
    assert result.mean("trajectory") == 1.0
    assert result.conversation("order-ok").status == "Done"
    assert result.report_path.is_file() and result.db_path.is_file()
    assert result.trials("order-ok").passed == result.trials().passed == 1


def test_trials_of_a_repeated_scenario(tracesim_run):
    result = tracesim_run(
        "ok.json", agent="agent.py:ShopAgent", num_conversations_per_scenario=3
    )
    trials = result.trials("order-ok")
    assert (trials.trials, trials.passed, trials.flaky) == (3, 3, False)
    assert trials.pass_hat_k[3] == 1.0


def test_agent_misses_a_refund(tracesim_run):
    result = tracesim_run("bad.json", agent="agent.py:ShopAgent")
    assert result.mean("trajectory") == 0.0
    result.assert_passed()


def test_a_gate_from_an_override(tracesim_run):
    result = tracesim_run(
        "ok.json", agent="agent.py:ShopAgent", **{"evaluation.thresholds.final_score": 0.5}
    )
    assert result.exit_code == 0 and result.report.gates[0].metric == "final_score"


def test_a_whole_config(tracesim_run):
    result = tracesim_run(config="config.yaml", **{"evaluation.thresholds.final_score": 0.5})
    assert result.exit_code == 0 and result.conversation("order-ok").status == "Done"
"""

CONFIG = """
agent_config: {agent_type: custom, module_path: agent.py, class_name: ShopAgent}
scenario_file_path: ok.json
"""


def test_the_plugin_is_registered_as_a_pytest11_entry_point() -> None:
    (entry,) = [e for e in metadata.entry_points(group="pytest11") if e.name == "tracesim"]
    assert entry.value == "tracesim.pytest_plugin"


def test_a_user_suite_asserts_on_scores_through_the_fixture(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    pytester.makefile(".py", agent=AGENT)
    pytester.makefile(".json", ok=json.dumps(SCENARIOS), bad=json.dumps(BAD))
    pytester.makefile(".yaml", config=CONFIG)
    pytester.makepyfile(test_my_agent=USER_TESTS)
    result = pytester.runpytest_subprocess("-q", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=4, failed=1)
    text = result.stdout.str()
    # the failure says which conversation, which check and what was expected
    assert "refund-needed #0" in text and "trajectory (turn 0)" in text
    assert "contains: 0 matched of 1 expected" in text
    # ... and names the missing and the actual call, not only a count
    assert (
        "expected, not found: issue_refund" in text and "actual, not expected: lookup_order" in text
    )
