"""Column lists -> typed Arrow tables, with range checks that never raise (SPEC §9).

The fast path hands each list to Arrow as is. Only when Arrow refuses a column
(an int past int64 / int32, a timestamp past 2262, a value of the wrong type) is
that column walked in Python: values out of range become NULL and are counted,
so one hostile value can never stop the writer. Pure.
"""

from __future__ import annotations

import logging
from collections.abc import Collection, Mapping, Sequence
from typing import Any

import pyarrow as pa

__all__ = ["COLUMN_TYPES", "table_of"]

log = logging.getLogger(__name__)

_NS = pa.timestamp("ns")
COLUMN_TYPES: dict[str, pa.DataType] = {
    "start_time": _NS,
    "end_time": _NS,
    "time": _NS,
    "observed_time": _NS,
    "duration_ms": pa.float64(),
    "turn_id": pa.int32(),
    "input_tokens": pa.int64(),
    "output_tokens": pa.int64(),
    "severity_number": pa.int32(),
    "conversation_index": pa.int32(),
    "num_turns": pa.int32(),
}
"""Arrow types of the non-text columns (every other column is a string)."""

_INT_RANGES = {
    pa.int32(): (-(2**31), 2**31 - 1),
    pa.int64(): (-(2**63), 2**63 - 1),
    _NS: (-(2**63) + 1, 2**63 - 1),
}
_CONVERSION_ERRORS = (OverflowError, pa.ArrowException, TypeError, ValueError)


def _fits(value: Any, data_type: pa.DataType) -> bool:
    """True when `value` can be stored in a column of `data_type` as it is."""
    if value is None:
        return True
    bounds = _INT_RANGES.get(data_type)
    if bounds is not None:
        return type(value) is int and bounds[0] <= value <= bounds[1]
    if data_type == pa.float64():
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    return isinstance(value, str)


_TEXT = (pa.string(), pa.json_())


def _array(name: str, values: Sequence[Any], data_type: pa.DataType) -> tuple[pa.Array, int]:
    """One typed column and how many values had to be nulled."""
    try:
        return pa.array(values, type=data_type), 0
    except _CONVERSION_ERRORS:
        pass
    kept: list[Any] = []
    nulled = 0
    for value in values:
        if _fits(value, data_type):
            kept.append(float(value) if data_type == pa.float64() and value is not None else value)
        elif data_type in _TEXT and isinstance(value, (bytes, int, float)):
            kept.append(str(value))
        else:
            kept.append(None)
            nulled += 1
    log.warning(
        "%d value(s) of column %s out of range for %s; stored as NULL", nulled, name, data_type
    )
    return pa.array(kept, type=data_type), nulled


def table_of(
    columns: Mapping[str, Sequence[Any]],
    names: Sequence[str],
    *,
    json_columns: Collection[str] = (),
) -> tuple[pa.Table, int]:
    """An Arrow table of the named columns typed for the DDL, and the count of values nulled
    because they did not fit their column. `json_columns` hold JSON text that tracesim wrote
    itself (orjson): typed `arrow.json`, which DuckDB stores in a JSON column as it is,
    without parsing each value again (~0.5 µs a span)."""
    arrays = {}
    nulled = 0
    for name in names:
        data_type = pa.json_() if name in json_columns else COLUMN_TYPES.get(name, pa.string())
        arrays[name], count = _array(name, columns[name], data_type)
        nulled += count
    return pa.table(arrays), nulled
