"""Unkeyed traces are never joined by a replayed message history (README, "Conversation
keys"); `inspect` says when unkeyed traces hold results without a call, the sign of one
conversation split over traces (LiteLLM's callback: a trace per model call)."""

from __future__ import annotations

from pathlib import Path

from tracesim.evaluator.inspect.inspect import format_inspection

from tests.conformance.replay import discover, load, replay


def _inspect(variant: str, tmp_path: Path) -> str:
    [folder] = [f for f in discover() if f.name == variant]
    return format_inspection(replay(load(folder), transport="grpc", workdir=tmp_path).inspection)


def test_results_in_unkeyed_traces_are_said_to_split_a_conversation(tmp_path: Path) -> None:
    text = _inspect("litellm-otel", tmp_path)
    assert "unkeyed traces (tool or model calls" in text
    assert "3 of them hold results without a call: likely one conversation split" in text
    # unkeyed traces whose calls all got their results: no such hint
    assert "split over traces" not in _inspect("any-agent-openai", tmp_path)
