"""A chdb evaluation keeps its rows on local disk and writes each table once at the end: a
first evaluation deletes nothing, a re-evaluation one DELETE in all, and the rows are the
same whichever way they reach ClickHouse."""

from __future__ import annotations

import tempfile
from collections.abc import Callable
from pathlib import Path

import pytest
from tracesim.evaluator.pipeline.pipeline import evaluate_db
from tracesim.schemas.eval_config import EvalConfig

from tests.clickhouse.conftest import query, request_of
from tests.collector.otlp import new_span_id, new_trace_id, span

_CHATS = ("c1", "c2", "c3")


def _request():  # noqa: ANN202 - a protobuf request
    spans = []
    for chat in _CHATS:
        for turn in range(2):
            trace, root = new_trace_id(), new_span_id()
            spans.append(
                span(
                    "tracesim.turn",
                    trace_id=trace,
                    span_id=root,
                    attrs={"tracesim.chat_id": chat, "tracesim.turn_id": turn},
                )
            )
            for tool in ("lookup", "refund"):
                spans.append(
                    span(
                        f"execute_tool {tool}",
                        trace_id=trace,
                        parent=root,
                        attrs={"gen_ai.tool.name": tool, "gen_ai.tool.call.arguments": "{}"},
                    )
                )
    return request_of(({"service.name": "agent"}, spans))


def _deletes(url: str) -> int:
    rows = query(
        url,
        "SELECT count() AS n FROM system.mutations "
        "WHERE database = 'otel' AND table = 'tool_calls'",
    )
    return rows[0]["n"]


def _evaluate(url: str, out: Path) -> str:
    # chunk_rows=5: every chat is a chunk of its own, all kept and written at the end
    result = evaluate_db(url, config=EvalConfig(), output_dir=out, progress=False, chunk_rows=5)
    return result.eval_id


def _check_rows(url: str, eval_ids: list[str]) -> None:
    calls = query(
        url,
        "SELECT chat_id, turn_id, groupArray(seq) AS seqs, arraySort(groupArray(name)) AS names "
        "FROM tool_calls GROUP BY chat_id, turn_id ORDER BY ALL",
    )
    assert [(r["chat_id"], r["turn_id"], sorted(r["seqs"]), r["names"]) for r in calls] == [
        (c, t, [0, 1], ["lookup", "refund"]) for c in _CHATS for t in range(2)
    ]
    per_eval = query(url, "SELECT eval_id, count() AS n FROM scores GROUP BY eval_id ORDER BY n")
    assert sorted(r["eval_id"] for r in per_eval) == sorted(eval_ids)
    assert len({r["n"] for r in per_eval}) == 1  # each evaluation wrote the same score rows
    assert per_eval[0]["n"] > len(_CHATS)


def test_first_evaluation_deletes_nothing_and_reevaluation_deletes_once(
    exporter_db: Callable[..., str], tmp_path: Path
) -> None:
    url = exporter_db(_request())
    first = _evaluate(url, tmp_path / "a")
    assert _deletes(url) == 0
    _check_rows(url, [first])
    second = _evaluate(url, tmp_path / "b")
    assert _deletes(url) == 1  # three chunks, one DELETE
    _check_rows(url, [first, second])


def test_spill_path_with_glob_characters_writes_the_same_rows(
    exporter_db: Callable[..., str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # ClickHouse's file() would read `{`, `[`, `*` as a glob: those rows go through Python
    spill = tmp_path / "tmp{a,b}[x]"
    spill.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(spill))
    url = exporter_db(_request())
    first = _evaluate(url, tmp_path / "a")
    second = _evaluate(url, tmp_path / "b")
    _check_rows(url, [first, second])
    assert list(spill.iterdir()) == []  # the spill files are gone
