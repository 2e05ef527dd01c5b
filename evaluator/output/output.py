"""Write an evaluation's rows: `tool_calls`, `scores` and `runs`, chunk by chunk.

Rows are gathered as column lists (`ToolCallColumns`, `ScoreColumns`: no
object per row) and written as Arrow inserts (`INSERT ... SELECT` from a
registered Arrow table; never executemany). `tool_calls` holds the current
derivation: the rows of each chunk's chats are replaced (`write_chunk`).
`scores` is append-only: each evaluation adds its rows under a new
`eval_id`. Each chunk is one transaction (`write_chunk`); the `runs` row
(`write_run`) marks the evaluation complete. `results.json` is written by
`evaluator.output.results_file`.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timezone
from typing import Any

import orjson
import pyarrow as pa
from tracesim.evaluator.output.shared import SharedResult
from tracesim.schemas import ToolCall, ToolCallSource
from tracesim.schemas.results import MetricResult

__all__ = [
    "ENCODED_SCORES_SCHEMA",
    "REPLACED_TABLES",
    "SCORES_SCHEMA",
    "TOOL_CALLS_SCHEMA",
    "TRACED_TURNS_SCHEMA",
    "ScoreColumns",
    "ToolCallColumns",
    "evaluation_columns",
    "tool_call_rows",
    "traced_turns_table",
    "write_chunk",
    "write_run",
]

TOOL_CALLS_SCHEMA = pa.schema(
    [
        ("chat_id", pa.string()),
        ("turn_id", pa.int32()),
        ("seq", pa.int32()),
        ("run_id", pa.string()),
        ("id", pa.string()),
        ("name", pa.string()),
        ("arguments", pa.string()),
        ("result", pa.string()),
        ("error", pa.string()),
        ("source", pa.string()),
        ("traced", pa.bool_()),
        ("span_id", pa.string()),
        ("start_time", pa.timestamp("us")),
        ("duration_ms", pa.float64()),
        ("id_from", pa.string()),
        ("arguments_from", pa.string()),
        ("result_from", pa.string()),
        ("error_from", pa.string()),
        ("conflicts", pa.string()),
    ]
)

REPLACED_TABLES: tuple[str, ...] = ("tool_calls", "traced_turns")
"""Derived tables holding the current derivation: a chunk's chats' rows are replaced."""

TRACED_TURNS_SCHEMA = pa.schema(
    [
        ("chat_id", pa.string()),
        ("turn_id", pa.int32()),
        ("run_id", pa.string()),
        ("trace_id", pa.string()),
        ("user_message", pa.string()),
        ("agent_message", pa.string()),
        ("source", pa.string()),
        ("message_convention", pa.string()),
    ]
)
"""`traced_turns` rows: the turns (and messages) evaluate derived from a collected chat's spans."""

SCORES_SCHEMA = pa.schema(
    [
        ("eval_id", pa.string()),
        ("run_id", pa.string()),
        ("chat_id", pa.string()),
        ("turn_id", pa.int32()),
        ("metric", pa.string()),
        ("value", pa.float64()),
        ("passed", pa.bool_()),
        ("threshold", pa.float64()),
        ("label", pa.string()),
        ("reason", pa.string()),
        ("details", pa.string()),
        ("created_at", pa.timestamp("us")),
    ]
)

ENCODED_SCORES_SCHEMA = pa.schema(
    [
        pa.field(f.name, pa.dictionary(pa.int32(), pa.string()))
        if f.name in ("metric", "label", "reason", "details")
        else f
        for f in SCORES_SCHEMA
    ]
)
"""`SCORES_SCHEMA` with the result's text columns dictionary-encoded (`ScoreColumns.arrays`)."""

_TRACED = ToolCallSource.TRACING_PROCESSOR
_NONE: dict[str, str] = {}


def _naive(value: datetime | None) -> datetime | None:
    """Naive UTC, as the tables store timestamps."""
    if value is None:
        return value
    tz = value.tzinfo
    if tz is None:
        return value
    if tz is timezone.utc:  # what extraction sets: only the zone goes
        return value.replace(tzinfo=None)
    return value.astimezone(timezone.utc).replace(tzinfo=None)


def _dumps(value: Any) -> str:
    return orjson.dumps(value, default=str).decode()


class ToolCallColumns:
    """`tool_calls` rows of a chunk, as one list per column."""

    def __init__(self) -> None:
        self.columns: dict[str, list[Any]] = {name: [] for name in TOOL_CALLS_SCHEMA.names}

    def __len__(self) -> int:
        return len(self.columns["chat_id"])

    def add_turn(
        self, chat_id: str, turn_id: int, run_id: str | None, calls: Sequence[ToolCall]
    ) -> None:
        """Append one turn's merged calls; `traced` = derived from spans or matched to a span."""
        n = len(calls)
        if not n:
            return
        c = self.columns
        c["chat_id"].extend([chat_id] * n)
        c["turn_id"].extend([turn_id] * n)
        c["seq"].extend(range(n))
        c["run_id"].extend([run_id] * n)
        ids, names, arguments = c["id"], c["name"], c["arguments"]
        results, errors, sources, traced = c["result"], c["error"], c["source"], c["traced"]
        span_ids, starts, durations = c["span_id"], c["start_time"], c["duration_ms"]
        id_from, args_from = c["id_from"], c["arguments_from"]
        result_from, error_from, conflicts = c["result_from"], c["error_from"], c["conflicts"]
        for call in calls:
            # a field without an entry came from the call's own source (`source_of`)
            provenance = call.provenance or _NONE
            own = "tool_span" if call.source is _TRACED or call.source is None else "explicit"
            get = provenance.get
            id_from.append(get("id", own) if call.id else None)
            args_from.append(get("arguments", own) if call.arguments else None)
            result_from.append(get("result", own) if call.result is not None else None)
            error_from.append(get("error", own) if call.error is not None else None)
            conflicts.append(get("conflicts"))
            source = call.source
            span_id = call.span_id
            ids.append(call.id)
            names.append(call.name)
            arguments.append(_dumps(call.arguments) if call.arguments else "{}")
            results.append(call.result)
            errors.append(call.error)
            sources.append(source.value if isinstance(source, ToolCallSource) else source)
            traced.append(source == _TRACED or span_id is not None)
            span_ids.append(span_id)
            starts.append(_naive(call.start_time))
            durations.append(call.duration_ms)

    def table(self) -> pa.Table:
        """The rows as an Arrow table of `TOOL_CALLS_SCHEMA`."""
        return pa.Table.from_pydict(self.columns, schema=TOOL_CALLS_SCHEMA)


def traced_turns_table(turns: Sequence[dict[str, Any]]) -> pa.Table:
    """The `traced_turns` rows of the derived turns among `turns` (`source` 'traced'), as an
    Arrow table of `TRACED_TURNS_SCHEMA`; simulated turns are stored in `turns` already."""
    rows = [t for t in turns if t.get("source") == "traced"]
    return pa.Table.from_pydict(
        {name: [t.get(name) for t in rows] for name in TRACED_TURNS_SCHEMA.names},
        schema=TRACED_TURNS_SCHEMA,
    )


def tool_call_rows(
    chat_id: str, turn_id: int, run_id: str | None, calls: Sequence[ToolCall]
) -> list[dict[str, Any]]:
    """The `tool_calls` rows of one turn, as dicts (see `ToolCallColumns.add_turn`)."""
    cols = ToolCallColumns()
    cols.add_turn(chat_id, turn_id, run_id, calls)
    return cols.table().to_pylist()


_RESULT_FIELDS = ("metric", "value", "passed", "threshold", "label", "reason", "details")
"""The `scores` columns a result decides (the rest say whose result it is)."""
_RESULT_TYPES = [SCORES_SCHEMA.field(name).type for name in _RESULT_FIELDS]

ResultRow = tuple[str, float | None, bool | None, float | None, str | None, str, str]


def _result_row(result: MetricResult) -> ResultRow:
    """A result's `scores` values: threshold its own, else its assertion's; details as JSON."""
    details = result.details
    threshold = details.get("threshold")
    if threshold is None:
        assertion = details.get("assertion")
        if isinstance(assertion, dict):
            threshold = assertion.get("threshold")
    return (
        result.name,
        result.value,
        result.passed,
        float(threshold) if isinstance(threshold, (int, float)) else None,
        result.label,
        result.reason,
        _dumps(details),
    )


class ScoreColumns:
    """`scores` rows of a chunk (eval_id and created_at added on write).

    Each row is (run_id, chat_id, turn_id) and the position of its result's values among
    the chunk's distinct results: a `SharedResult` (many turns hold it) is encoded once
    and its columns are expanded by Arrow (`take`), not value by value in Python.
    """

    _NAMES = ("run_id", "chat_id", "turn_id", *_RESULT_FIELDS)

    def __init__(self) -> None:
        self._run_ids: list[str | None] = []
        self._chat_ids: list[str] = []
        self._turn_ids: list[int | None] = []
        self._positions: list[int] = []
        self._rows: list[ResultRow] = []
        self._shared: dict[int, int] = {}
        """id of a SharedResult -> its position in `_rows` (`_held` keeps the ids unique)."""
        self._held: list[MetricResult] = []

    def __len__(self) -> int:
        return len(self._chat_ids)

    def add(
        self, run_id: str | None, chat_id: str, turn_id: int | None, result: MetricResult
    ) -> None:
        """Append one result."""
        self.add_all(run_id, chat_id, turn_id, (result,))

    def add_all(
        self,
        run_id: str | None,
        chat_id: str,
        turn_id: int | None,
        results: Sequence[MetricResult],
    ) -> None:
        """Append several results of one turn (or of the conversation: `turn_id` None)."""
        rows, shared, positions = self._rows, self._shared, self._positions
        for result in results:
            if type(result) is SharedResult:
                position = shared.get(id(result))
                if position is None:
                    row = result._row
                    if row is None:
                        row = result._row = _result_row(result)
                    position = shared[id(result)] = len(rows)
                    rows.append(row)
                    self._held.append(result)
            else:
                position = len(rows)
                rows.append(_result_row(result))
            positions.append(position)
        n = len(results)
        self._run_ids.extend([run_id] * n)
        self._chat_ids.extend([chat_id] * n)
        self._turn_ids.extend([turn_id] * n)

    def arrays(self, *, encoded: bool = False) -> dict[str, pa.Array]:
        """The columns (all but eval_id and created_at) as Arrow arrays. `encoded`: the
        text columns as dictionary arrays over the distinct results (no copy per row: a
        `take` of the details cost ~15 us a turn at 9 rows a turn; DuckDB inserts either
        form alike, `ENCODED_SCORES_SCHEMA`)."""
        out: dict[str, pa.Array] = {
            "run_id": pa.array(self._run_ids, pa.string()),
            "chat_id": pa.array(self._chat_ids, pa.string()),
            "turn_id": pa.array(self._turn_ids, pa.int32()),
        }
        positions = pa.array(self._positions, pa.int32())
        distinct = list(zip(*self._rows, strict=True)) if self._rows else [()] * 7
        for name, kind, values in zip(_RESULT_FIELDS, _RESULT_TYPES, distinct, strict=True):
            array = pa.array(values, kind)
            if encoded and kind == pa.string():
                out[name] = pa.DictionaryArray.from_arrays(positions, array)
            else:
                out[name] = array.take(positions)
        return out

    @property
    def columns(self) -> dict[str, list[Any]]:
        """The columns as Python lists (for tests and small tables)."""
        return {name: array.to_pylist() for name, array in self.arrays().items()}

    def table(self, eval_id: str, created_at: datetime, *, encoded: bool = False) -> pa.Table:
        """The rows as an Arrow table of `SCORES_SCHEMA` (`ENCODED_SCORES_SCHEMA`: `arrays`)."""
        cols = self.arrays(encoded=encoded)
        cols.update(evaluation_columns(eval_id, created_at, len(self)))
        schema = ENCODED_SCORES_SCHEMA if encoded else SCORES_SCHEMA
        return pa.Table.from_arrays([cols[k] for k in schema.names], schema=schema)


def evaluation_columns(eval_id: str, created_at: datetime, n: int) -> dict[str, pa.Array]:
    """The `eval_id` and `created_at` columns of `n` scores rows: one value repeated in Arrow
    (a Python list of n datetimes cost ~3 us a row to convert)."""
    return {
        "eval_id": pa.repeat(pa.scalar(eval_id, pa.string()), n),
        "created_at": pa.repeat(pa.scalar(created_at, SCORES_SCHEMA.field("created_at").type), n),
    }


def _insert(con: Any, table: str, arrow: pa.Table) -> None:
    name = f"_tracesim_new_{table}"
    con.register(name, arrow)
    try:
        columns = ", ".join(arrow.schema.names)
        con.execute(f"INSERT INTO {table} ({columns}) SELECT {columns} FROM {name}")
    finally:
        con.unregister(name)


def write_chunk(
    con: Any,
    *,
    eval_id: str,
    created_at: datetime,
    chat_ids: Sequence[str],
    tool_calls: ToolCallColumns,
    scores: ScoreColumns,
    traced_turns: pa.Table | None = None,
) -> None:
    """Replace the chats' tool calls and traced turns, append the scores, in one
    transaction."""
    if not chat_ids:
        return
    keys = pa.table({"chat_id": pa.array(list(chat_ids), pa.string())})
    con.execute("BEGIN TRANSACTION")
    try:
        con.register("_tracesim_chats", keys)
        try:
            for table in REPLACED_TABLES:  # the range prunes row groups before the semi-join
                con.execute(
                    f"DELETE FROM {table} WHERE chat_id BETWEEN ? AND ? "
                    "AND chat_id IN (SELECT chat_id FROM _tracesim_chats)",
                    [min(chat_ids), max(chat_ids)],
                )
        finally:
            con.unregister("_tracesim_chats")
        if len(tool_calls):
            _insert(con, "tool_calls", tool_calls.table())
        if traced_turns is not None and traced_turns.num_rows:
            _insert(con, "traced_turns", traced_turns)
        if len(scores):
            _insert(con, "scores", scores.table(eval_id, created_at, encoded=True))
        con.execute("COMMIT")
    except BaseException:
        try:
            con.execute("ROLLBACK")
        except Exception:  # noqa: BLE001 - a failed COMMIT already rolled back: keep
            pass  # its error (a full disk, ...), not "no transaction is active"
        raise


def write_run(con: Any, run_row: dict[str, Any]) -> None:
    """Insert the evaluation's `runs` row."""
    columns = list(run_row)
    con.execute(
        f"INSERT INTO runs ({', '.join(columns)}) VALUES ({', '.join('?' for _ in columns)})",
        [run_row[c] for c in columns],
    )
