"""Writes a chdb store keeps on local disk until its one open query, the spans stream, ends."""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator, Sequence
from typing import Any

import pyarrow as pa

__all__ = ["DeferredWrites"]


class DeferredWrites:
    """Chunks' rows kept in a local Arrow IPC file until the spans stream ends (chdb runs one
    query at a time: a write would end the stream). Memory stays bounded by a chunk."""

    def __init__(self) -> None:
        self.chunks = 0
        self._dir: str | None = None
        self._sink: Any = None
        self._writer: Any = None
        self._schema = pa.schema(
            [
                ("chat_ids", pa.list_(pa.string())),
                ("tool_calls", pa.binary()),
                ("scores", pa.binary()),
            ]
        )

    @staticmethod
    def _bytes(table: pa.Table | None) -> bytes | None:
        if table is None:
            return None
        sink = pa.BufferOutputStream()
        with pa.ipc.new_stream(sink, table.schema) as writer:
            writer.write_table(table)
        return sink.getvalue().to_pybytes()

    def add(
        self, chat_ids: Sequence[str], tool_calls: pa.Table | None, scores: pa.Table | None
    ) -> None:
        """Keep one chunk's rows on disk."""
        if self._writer is None:
            self._dir = tempfile.mkdtemp(prefix="tracesim-ch-writes-")
            self._sink = pa.OSFile(os.path.join(self._dir, "writes.arrow"), "wb")
            self._writer = pa.ipc.new_stream(self._sink, self._schema)
        batch = pa.record_batch(
            [[list(chat_ids)], [self._bytes(tool_calls)], [self._bytes(scores)]],
            schema=self._schema,
        )
        self._writer.write_batch(batch)
        self.chunks += 1

    def drain(self) -> Iterator[tuple[list[str], pa.Table, pa.Table]]:
        """Each kept chunk in order, then the file is removed."""
        from evaluator.output.output import SCORES_SCHEMA, TOOL_CALLS_SCHEMA

        self._writer.close()
        self._sink.close()
        path = os.path.join(self._dir, "writes.arrow")
        try:
            with pa.OSFile(path, "rb") as source:
                reader = pa.ipc.open_stream(source)
                for batch in reader:
                    for chat_ids, calls, scores in zip(
                        *(c.to_pylist() for c in batch.columns), strict=True
                    ):
                        yield (
                            chat_ids,
                            pa.ipc.open_stream(calls).read_all()
                            if calls
                            else TOOL_CALLS_SCHEMA.empty_table(),
                            pa.ipc.open_stream(scores).read_all()
                            if scores
                            else SCORES_SCHEMA.empty_table(),
                        )
        finally:
            self._writer = None
            self.chunks = 0
            self.discard()

    def discard(self) -> None:
        """Forget what is kept (an evaluation that failed); safe twice."""
        if self._writer is not None:
            self._writer.close()
            self._sink.close()
            self._writer = None
        if self._dir is not None:
            shutil.rmtree(self._dir, ignore_errors=True)
            self._dir = None
        self.chunks = 0
