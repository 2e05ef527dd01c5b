"""`tracesim compare` on ClickHouse (chdb): the example's v1 and its worse version replayed
into the exporter's tables, evaluated there, compared there and against a DuckDB file."""

from __future__ import annotations

import json
from pathlib import Path

import duckdb
from click.testing import CliRunner
from tracesim.evaluator.pipeline.pipeline import evaluate_db

from tests.clickhouse.conftest import StoreDB
from tests.clickhouse.exporter_mapping import request_from_duckdb
from tracesim.cli import cli
from tracesim.commands.evaluate import load_eval_settings
from tracesim.config_loader import load_run_config
from tracesim.run import run

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "customer_service" / "config.yaml"
NEEDS_IDENTITY = {"cancel-processing-order", "cancel-wrong-email", "refund-damaged-item"}


def test_compare_reads_clickhouse_and_mixes_stores(tmp_path: Path) -> None:
    out = tmp_path / "duck"
    runs = []
    for variant in ("v1", "skip_verification"):
        loaded = load_run_config(
            EXAMPLE,
            {
                "output_dir": str(out),
                "num_conversations_per_scenario": "4",
                "num_workers": "auto",
                "agent_config.init_kwargs.variant": variant,
            },
        )
        outcome = run(loaded, show_progress=False)
        assert outcome.exit_code == 0, outcome.error
        runs.append(outcome.run_id)
    duck = out / "tracesim.duckdb"
    con = duckdb.connect(str(duck), read_only=True)
    try:
        request = request_from_duckdb(con)
    finally:
        con.close()
    maker = StoreDB(tmp_path / "ch", "chdb")
    try:
        url = maker(request)
        config, llm = load_eval_settings(EXAMPLE)
        for run_id in runs:
            evaluate_db(
                url,
                config=config,
                llm=llm,
                run_id=run_id,
                base_dir=EXAMPLE.parent,
                output_dir=tmp_path / run_id,
                progress=False,
            )
        both_ch = CliRunner().invoke(
            cli,
            [
                "compare",
                "--db",
                url,
                "--baseline",
                runs[0],
                "--candidate",
                runs[1],
                "--format",
                "json",
                "--fail-on-regression",
            ],
        )
        mixed = CliRunner().invoke(
            cli,
            [
                "compare",
                "--baseline-db",
                str(duck),
                "--baseline",
                runs[0],
                "--candidate-db",
                url,
                "--candidate",
                "latest",
                "--format",
                "json",
            ],
        )
        missing = CliRunner().invoke(
            cli, ["compare", "--db", url, "--baseline", "nope", "--candidate", "latest"]
        )
    finally:
        maker.close()
    assert both_ch.exit_code == 1, both_ch.output
    comparison = json.loads(both_ch.output)
    regressed = {s["scenario_id"] for s in comparison["scenarios"] if s["verdict"] == "regressed"}
    assert regressed == NEEDS_IDENTITY
    assert comparison["candidate"]["db"] == url
    assert mixed.exit_code == 0, mixed.output
    mixed_json = json.loads(mixed.output)
    assert mixed_json["summary"]["regressed"] == 3
    assert mixed_json["baseline"]["db"] == str(duck)
    assert mixed_json["candidate"]["run_id"] == runs[1]
    assert missing.exit_code == 2 and "no evaluation or run 'nope'" in missing.output

