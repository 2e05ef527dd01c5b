"""`tracesim evaluate --since/--sample [--seed] [--all]`: deterministic, incremental selection
of production conversations, the same on DuckDB and chdb."""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone
from pathlib import Path

import duckdb
import pytest
from click.testing import CliRunner
from tracesim.evaluator import evaluate_db
from tracesim.evaluator.select import Sample, choose, parse_sample, parse_since, sample_key
from tracesim.schemas import create_all
from tracesim.schemas.eval_config import EvalConfig

from tracesim.commands.evaluate import command as evaluate_command
from tracesim.commands.evaluate import production_selection

NOW = datetime.now(timezone.utc).replace(tzinfo=None, microsecond=0)
RECENT = [f"chat-{i:02d}" for i in range(10)]
OLD = [f"old-{i:02d}" for i in range(4)]
NO_JUDGES = EvalConfig(metrics=[])


def _chats() -> list[tuple[str, datetime]]:
    return [(c, NOW - timedelta(hours=1)) for c in RECENT] + [
        (c, NOW - timedelta(days=3)) for c in OLD
    ]


def _duckdb(path: Path) -> str:
    con = duckdb.connect(str(path))
    create_all(con)
    for n, (chat, start) in enumerate(_chats()):
        attrs = {
            "gen_ai.operation.name": "execute_tool",
            "gen_ai.tool.name": "lookup",
            "gen_ai.tool.call.arguments": "{}",
            "gen_ai.conversation.id": chat,
        }
        con.execute(
            "INSERT INTO spans (trace_id, span_id, name, start_time, end_time, attributes, "
            "events, chat_id, turn_id, tool_name) VALUES (?, ?, 'execute_tool lookup', ?, ?, ?, "
            "'[]', ?, NULL, 'lookup')",
            [f"{n + 1:032x}", f"{n + 1:016x}", start, start, json.dumps(attrs), chat],
        )
    con.close()
    return str(path)


def _chdb(directory: Path) -> str:
    pytest.importorskip("chdb", reason="the clickhouse extra is not installed")
    from tests.clickhouse.conftest import request_of, write_exporter_tables
    from tests.collector.otlp import span

    spans = [
        span(
            "execute_tool lookup",
            attrs={
                "gen_ai.tool.name": "lookup",
                "gen_ai.tool.call.arguments": "{}",
                "gen_ai.conversation.id": chat,
            },
            start=int(start.replace(tzinfo=timezone.utc).timestamp() * 1e9),
        )
        for chat, start in _chats()
    ]
    return write_exporter_tables(directory, request_of(({"service.name": "prod"}, spans)))


@pytest.fixture(params=["duckdb", "chdb"])
def store(request, tmp_path: Path) -> str:
    if request.param == "duckdb":
        return _duckdb(tmp_path / "prod.duckdb")
    return _chdb(tmp_path / "ch")


def _evaluate(store: str, tmp_path: Path, **flags) -> tuple[set[str], str]:
    select, reports = production_selection(
        flags.get("since"), flags.get("sample"), flags.get("seed", 0), flags.get("all", False)
    )
    result = evaluate_db(
        store, config=NO_JUDGES, output_dir=tmp_path / "out", progress=False, select=select
    )
    return {c.chat_id for c in result.report.conversations}, reports[0].describe()


def test_sample_keys_are_stable_and_seeded() -> None:
    assert sample_key("chat-01", 0) == sample_key("chat-01", 0) != sample_key("chat-01", 1)
    half = choose(RECENT, Sample(fraction=0.5), seed=3)
    assert half == choose(list(reversed(RECENT)), Sample(fraction=0.5), seed=3)
    assert choose(RECENT + ["new-chat"], Sample(fraction=0.5), seed=3) >= half  # grows stably
    three = choose(RECENT, Sample(count=3), seed=3)
    assert three == set(sorted(RECENT, key=lambda c: sample_key(c, 3))[:3])


@pytest.mark.parametrize(
    ("text", "expected"),
    [("5%", Sample(fraction=0.05)), ("0.25", Sample(fraction=0.25)), ("20", Sample(count=20))],
)
def test_parse_sample(text: str, expected: Sample) -> None:
    assert parse_sample(text) == expected


@pytest.mark.parametrize("bad", ["0", "-3", "150%", "lots", "0%"])
def test_bad_sample_names_the_option(bad: str) -> None:
    with pytest.raises(ValueError, match="--sample"):
        parse_sample(bad)


def test_parse_since() -> None:
    assert parse_since("24h") == timedelta(hours=24) and parse_since("7d") == timedelta(days=7)
    with pytest.raises(ValueError, match="--since 'yesterday'"):
        parse_since("yesterday")


def test_since_and_sample_select_deterministically_and_incrementally(
    store: str, tmp_path: Path
) -> None:
    expected = choose(RECENT, Sample(fraction=0.5), seed=3)
    assert 0 < len(expected) < len(RECENT)
    chosen, said = _evaluate(store, tmp_path, since="24h", sample="50%", seed=3)
    assert chosen == expected  # old chats are outside the window; the hash picks the rest
    assert "active since" in said and "sampled (seed 3)" in said
    again, said = _evaluate(store, tmp_path, since="24h", sample="50%", seed=3)
    # incremental: the sampled chats are evaluated; the same share of the rest picks none
    assert again == set() and f"not evaluated yet: {len(RECENT) - len(expected)}" in said
    forced, _ = _evaluate(store, tmp_path, since="24h", sample="50%", seed=3, all=True)
    assert forced == expected
    rest, _ = _evaluate(store, tmp_path, since="24h")  # the other recent ones, once
    assert rest == set(RECENT) - expected
    counted, _ = _evaluate(store, tmp_path, sample="3", seed=9, all=True)
    assert counted == choose(RECENT + OLD, Sample(count=3), seed=9)


def test_cli_flags_on_duckdb(tmp_path: Path) -> None:
    db = _duckdb(tmp_path / "prod.duckdb")
    runner = CliRunner()
    done = runner.invoke(
        evaluate_command,
        [
            "--db",
            db,
            "--since",
            "24h",
            "--sample",
            "50%",
            "--seed",
            "3",
            "--no-progress",
            "--output-dir",
            str(tmp_path / "o"),
        ],
    )
    assert "selected: 14 conversations" in done.output, done.output
    with duckdb.connect(db, read_only=True) as con:
        chats = {r[0] for r in con.execute("SELECT DISTINCT chat_id FROM tool_calls").fetchall()}
    assert chats == choose(RECENT, Sample(fraction=0.5), seed=3)
    bad = runner.invoke(evaluate_command, ["--db", db, "--sample", "lots"])
    assert bad.exit_code == 2 and "--sample 'lots'" in bad.output
