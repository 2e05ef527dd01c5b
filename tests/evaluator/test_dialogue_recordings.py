"""Messages from spans on real recordings: what frameworks emit, not what their docs say.

Each recording is replayed into a real collector and evaluated; its collected turn must
carry the user's question and the agent's final answer, read from that framework's
convention (one recording per message shape in `schemas.message_conventions`)."""

from __future__ import annotations

from pathlib import Path

import pytest
from tracesim.evaluator.output.results_file import read_results
from tracesim.evaluator.pipeline.pipeline import evaluate_db
from tracesim.schemas.eval_config import EvalConfig

from tests.conformance.replay import discover, load, store

QUESTION = "Weather in Paris twice, then order A1?"
ANSWER_START = "It is sunny in Paris"
VARIANTS = {
    "openinference-openai-agents": "openinference",
    "google-genai-openinference": "openinference",  # role `model`, message contents
    "otel-genai-openai-v2-latest-span": "otel_genai",
    "otel-genai-openai-v2-latest-event": "otel_genai",  # the inference details event
    "otel-genai-openai-v2-legacy": "otel_genai_events",
    "openllmetry-decorators-events": "otel_genai_events",
    "vercel-ai-node": "vercel_ai",
    "strands-agents-latest-semconv": "otel_genai",
}
FOLDERS = {folder.name: folder for folder in discover()}


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_a_recorded_turn_has_its_question_and_answer(variant: str, tmp_path: Path) -> None:
    db = store(load(FOLDERS[variant]), transport="grpc", workdir=tmp_path)
    result = evaluate_db(
        db, config=EvalConfig(metrics=[]), output_dir=tmp_path / "out", progress=False
    )
    turns = [t for c in read_results(result.results_path).conversations for t in c.turns]
    [turn] = [t for t in turns if t.user_message]
    assert turn.source == "traced"
    assert turn.user_message == QUESTION
    assert (turn.agent_message or "").startswith(ANSWER_START), turn.agent_message
    assert turn.message_convention == VARIANTS[variant]
