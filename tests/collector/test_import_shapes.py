"""Every field of every import format, given a value of the wrong type or range, is a
TraceFileError naming the file (exit 2 in `tracesim import`), never a traceback: each
path of a small valid document of each format is replaced by each odd value in turn.
Before, 21 places of the Jaeger and SDK-span readers raised TypeError, AttributeError or
ValueError (an id past 128 bits, a number where a list is expected)."""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from tracesim.collector.importers import TraceFileError, read_trace_file

TRACE = "0af7651916cd43dd8448eb211c80319c"
OTLP = {
    "resourceSpans": [
        {
            "resource": {"attributes": [{"key": "service.name", "value": {"stringValue": "s"}}]},
            "scopeSpans": [
                {
                    "scope": {"name": "sc", "version": "1"},
                    "spans": [
                        {
                            "traceId": TRACE,
                            "spanId": "b7ad6b7169203331",
                            "parentSpanId": "b7ad6b7169203332",
                            "name": "n",
                            "kind": 2,
                            "startTimeUnixNano": "1700000000000000000",
                            "endTimeUnixNano": "1700000001000000000",
                            "attributes": [
                                {"key": "k", "value": {"stringValue": "v"}},
                                {
                                    "key": "a",
                                    "value": {"arrayValue": {"values": [{"intValue": 1}]}},
                                },
                            ],
                            "events": [{"timeUnixNano": "1700000000500000000", "name": "e"}],
                            "links": [{"traceId": TRACE, "spanId": "b7ad6b7169203333"}],
                            "status": {"code": 2, "message": "m"},
                        }
                    ],
                }
            ],
        }
    ]
}
JAEGER = {
    "data": [
        {
            "traceID": TRACE,
            "spans": [
                {
                    "traceID": TRACE,
                    "spanID": "b7ad6b7169203331",
                    "operationName": "op",
                    "references": [
                        {"refType": "CHILD_OF", "traceID": TRACE, "spanID": "b7ad6b7169203332"}
                    ],
                    "startTime": 1700000000000000,
                    "duration": 1000,
                    "tags": [{"key": "k", "type": "string", "value": "v"}],
                    "logs": [
                        {
                            "timestamp": 1700000000000500,
                            "fields": [{"key": "event", "type": "string", "value": "e"}],
                        }
                    ],
                    "processID": "p1",
                }
            ],
            "processes": {"p1": {"serviceName": "svc", "tags": []}},
        }
    ]
}
SDK = [
    {
        "name": "n",
        "context": {"trace_id": "0x" + TRACE, "span_id": "0xb7ad6b7169203331", "trace_state": "[]"},
        "kind": "SpanKind.INTERNAL",
        "parent_id": None,
        "start_time": "2023-11-14T22:13:20.000000Z",
        "end_time": "2023-11-14T22:13:21.000000Z",
        "status": {"status_code": "UNSET"},
        "attributes": {"k": "v"},
        "events": [{"name": "e", "timestamp": "2023-11-14T22:13:20.500000Z", "attributes": {}}],
        "links": [],
        "resource": {"attributes": {"service.name": "s"}, "schema_url": ""},
    }
]
TEMPO = {"batches": copy.deepcopy(OTLP["resourceSpans"])}
ODD: list[Any] = [None, -1, 2**70, 1.5, 1e308, "", "zz", [], {}, [1], {"a": 1}, True, "2023-13-45"]


def _paths(value: Any, path: tuple = ()) -> Iterator[tuple]:
    yield path
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _paths(item, (*path, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _paths(item, (*path, index))


def _replaced(document: Any, path: tuple, value: Any) -> Any:
    copied = copy.deepcopy(document)
    target = copied
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = copy.deepcopy(value)
    return copied


@pytest.mark.parametrize(
    "document", [OTLP, JAEGER, SDK, TEMPO], ids=["otlp", "jaeger", "sdk", "tempo"]
)
def test_a_wrong_value_in_any_field_is_a_trace_file_error(document: Any, tmp_path: Path) -> None:
    trace_file = tmp_path / "t.json"
    trace_file.write_text(json.dumps(document))
    assert read_trace_file(trace_file).requests  # the document itself is valid
    failures = []
    for path in list(_paths(document))[1:]:
        for value in ODD:
            trace_file.write_text(json.dumps(_replaced(document, path, value)))
            try:
                read_trace_file(trace_file)
            except TraceFileError as error:
                assert str(error).startswith(str(trace_file))
            except Exception as error:  # noqa: BLE001 - collected, then reported together
                failures.append(f"{path} = {value!r}: {type(error).__name__}: {error}")
    assert not failures, "\n".join(failures[:20])
