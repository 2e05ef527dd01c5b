"""Budgets end to end: the example agent's own tokens and cost, priced from the config,
gated per conversation and per run."""

from __future__ import annotations

import json
from pathlib import Path

import duckdb
import pytest

from tracesim.config_loader import load_run_config
from tracesim.run import run

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "customer_service" / "config.yaml"


def test_the_agents_cost_is_priced_and_budgets_gate_the_run(tmp_path: Path) -> None:
    loaded = load_run_config(
        EXAMPLE,
        {
            "output_dir": str(tmp_path),
            "evaluation.prices.local-rules-v1.input_per_mtok": "1000",
            "evaluation.prices.local-rules-v1.output_per_mtok": "2000",
            "evaluation.max_thresholds.run_agent_tokens": "100",
            "evaluation.max_thresholds.num_turns": "2",
            "evaluation.max_thresholds.run_agent_cost_usd": "1000",
        },
    )
    outcome = run(loaded, show_progress=False)
    assert outcome.exit_code == 1, outcome.error  # the token budget is far too small
    results = json.loads((tmp_path / "results.json").read_text())
    usage = results["agent_usage"]
    assert usage["conversations"] == 6 and usage["unpriced_conversations"] == 0
    assert usage["tokens"] == usage["input_tokens"] + usage["output_tokens"] > 100
    assert usage["cost_usd"] == pytest.approx(
        (usage["input_tokens"] * 1000 + usage["output_tokens"] * 2000) / 1e6
    )
    gates = {g["metric"]: g for g in results["gates"]}
    assert gates["run_agent_tokens"]["passed"] is False
    assert gates["run_agent_tokens"]["observed"] == usage["tokens"]
    assert gates["num_turns"]["passed"] is True  # no scenario has more than 2 turns
    assert gates["run_agent_cost_usd"]["passed"] is True
    # The per-conversation values are stored like any score, and match the spans' tokens.
    con = duckdb.connect(str(tmp_path / "tracesim.duckdb"), read_only=True)
    try:
        (stored,) = con.execute(
            "SELECT sum(value) FROM scores WHERE metric = 'agent_tokens'"
        ).fetchone()
        (spans,) = con.execute(
            "SELECT sum(coalesce(input_tokens, 0) + coalesce(output_tokens, 0)) FROM spans"
        ).fetchone()
    finally:
        con.close()
    assert stored == usage["tokens"] == spans
