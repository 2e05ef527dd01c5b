"""Cases ported from Arize-ai/phoenix (packages/phoenix-evals/tests/phoenix/evals/metrics/
test_classification_evaluators.py) for its tool-calling evaluators.

ToolSelectionEvaluator -> `tool_selection`, ToolInvocationEvaluator ->
`tool_invocation`, ToolResponseHandlingEvaluator -> `tool_result_handling`;
all see the available tools. Their mock LLM answers the first label of the
set; our stand-in model does the same over HTTP.
"""

from __future__ import annotations

import pytest
from tracesim.evaluator.judges import BUILTIN_JUDGES
from tracesim.schemas import ToolCall
from tracesim.schemas.llm_config import LLMConfig

from tests.evaluator.peers._common import judge_once, turn_context

EVALUATORS = {
    "ToolSelectionEvaluator": "tool_selection",
    "ToolInvocationEvaluator": "tool_invocation",
    "ToolResponseHandlingEvaluator": "tool_result_handling",
}
PARAMS = [pytest.param(name, id=peer) for peer, name in EVALUATORS.items()]


def _ctx():
    return turn_context(
        user="Q",
        agent="A",
        calls=[ToolCall(name="S", args={"q": "Q"}, result="R")],
        scenario={"tools": [{"name": "S", "description": "T"}]},
    )


def _first_label(name: str) -> str:
    return BUILTIN_JUDGES[name].schema["properties"]["label"]["enum"][0]


@pytest.mark.parametrize("name", PARAMS)
def test_default_uses_builtin_prompt(name) -> None:
    judge = BUILTIN_JUDGES[name]
    _, body = judge_once(judge, _ctx(), _first_label(name))
    assert body["messages"][0] == {"role": "system", "content": judge.rubric}
    assert "## Available tools" in body["messages"][1]["content"]


@pytest.mark.parametrize("name", PARAMS)
def test_default_sets_name(name) -> None:
    result, body = judge_once(BUILTIN_JUDGES[name], _ctx(), _first_label(name))
    assert result.name == name == body["response_format"]["json_schema"]["name"]


@pytest.mark.parametrize("name", PARAMS)
def test_default_sets_direction(name) -> None:
    """Higher is better: the first (passing) label is worth more than any failing one."""
    judge = BUILTIN_JUDGES[name]
    result, _ = judge_once(judge, _ctx(), _first_label(name))
    assert result.passed is True and result.value == 1.0
    failing = [
        label
        for label in judge.schema["properties"]["label"]["enum"]
        if label not in judge.pass_labels
    ]
    assert failing and all(judge.read({"reasoning": "", "label": f}).value < 1.0 for f in failing)


@pytest.mark.parametrize("name", PARAMS)
def test_kwargs_forwarded(name) -> None:
    """Extra model settings are accepted by the judge's LLM config."""
    llm = LLMConfig(model="judge", temperature=0.0, timeout=30.0)
    assert (llm.temperature, llm.timeout) == (0.0, 30.0)


@pytest.mark.spec_override(
    reason="SPEC §7: judges run at temperature 0 (with a persistent cache keyed by the "
    "request), whatever temperature the model config holds"
)
@pytest.mark.parametrize("name", PARAMS)
def test_kwargs_temperature_stored(name) -> None:
    import duckdb
    from tracesim.evaluator.llm.cache import LLMCache
    from tracesim.evaluator.llm.llm_client import JudgeClient
    from tracesim.schemas import create_all

    con = duckdb.connect()
    create_all(con)
    client = JudgeClient(
        LLMConfig(model="judge", temperature=0.5, base_url="http://127.0.0.1:9"),
        cache=LLMCache(con),
    )
    judge = BUILTIN_JUDGES[name]
    request = client.build_request(
        [{"role": "user", "content": "x"}], schema_name=name, schema=judge.schema
    )
    assert request["temperature"] == 0
