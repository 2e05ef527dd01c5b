"""A query result kept on local disk while chdb runs another query: the same rows come
back, batch by batch, and no file is left behind, even when the query fails half-way."""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from pathlib import Path

import pyarrow as pa
import pytest
from tracesim.evaluator.store.clickhouse_rows import spilled


@pytest.fixture
def spill_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    return tmp_path


def _batches(n: int) -> Iterator[pa.RecordBatch]:
    for start in range(0, n, 3):
        ids = list(range(start, min(n, start + 3)))
        yield pa.record_batch({"chat_id": [f"c{i}" for i in ids], "turn_id": ids})


def test_rows_come_back_in_batches_and_the_file_is_gone(spill_dir: Path) -> None:
    back = spilled(_batches(10))
    assert list(spill_dir.iterdir()) == []  # already unlinked, still readable
    tables = list(back)
    assert [t.num_rows for t in tables] == [3, 3, 3, 1]
    assert pa.concat_tables(tables).column("turn_id").to_pylist() == list(range(10))


def test_no_rows_is_an_empty_stream(spill_dir: Path) -> None:
    assert list(spilled(iter(()))) == []
    assert list(spill_dir.iterdir()) == []


def test_a_failing_query_leaves_no_file(spill_dir: Path) -> None:
    def failing() -> Iterator[pa.RecordBatch]:
        yield from _batches(4)
        raise RuntimeError("query failed")

    with pytest.raises(RuntimeError, match="query failed"):
        spilled(failing())
    assert list(spill_dir.iterdir()) == []
