"""`add_results` gives each conversation its own copy of the judges' not-run results: equal
to a deep copy (fields set included), sharing no dict or list with the original."""

from __future__ import annotations

from tracesim.evaluator.load.load import ConversationData
from tracesim.evaluator.pipeline.judging import not_run_results
from tracesim.evaluator.pipeline.stages import ConversationWork, add_results
from tracesim.schemas import MetricResult
from tracesim.schemas.eval_config import EvalConfig


def test_each_conversation_gets_results_equal_to_deep_copies_and_its_own() -> None:
    results = [
        *not_run_results(EvalConfig(), "no model configured"),
        MetricResult(name="x", reason="r", details={"a": [1, {"b": [2]}], "t": (3, [4])}),
    ]
    works = [ConversationWork(ConversationData(f"chat-{i}", {}, {})) for i in range(2)]
    add_results(works, results)
    first, second = (w.conv_results for w in works)
    deep = [r.model_copy(deep=True) for r in results]
    assert first == second == deep
    assert [r.model_fields_set for r in first] == [r.model_fields_set for r in deep]
    first[-1].details["a"][1]["b"].append(9)
    first[-1].details["t"][1].append(5)
    first[0].details["level"] = "changed"
    assert second[-1].details == results[-1].details == {"a": [1, {"b": [2]}], "t": (3, [4])}
    assert second[0].details == results[0].details != first[0].details
