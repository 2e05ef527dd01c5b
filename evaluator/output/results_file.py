"""`results.json`: written conversation by conversation, read back through the model.

The pipeline learns the run summary and the gates only at the end, but the
conversations' entries are ready chunk by chunk: `ResultsWriter` spools each
entry (one compact JSON line) to a temporary file as it comes, and `finish`
writes the report's head (pretty-printed) followed by the spooled entries,
then renames the file into place. Memory holds no conversation's details.

`summarize` turns a `MetricResult` into the `MetricSummary` dict the file
keeps (see `evaluator.output.results_model` for what is kept and why).
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import IO, Any

import orjson
from tracesim.evaluator.output.results_model import EvaluationReport
from tracesim.evaluator.output.shared import SharedResult
from tracesim.schemas.results import MetricResult

__all__ = ["ResultsWriter", "encode_entry", "failure_details", "read_results", "summarize"]

_CHECK_KINDS = frozenset({"check", "check_info"})


def failure_details(details: dict[str, Any]) -> dict[str, Any]:
    """A failed tool check's details without what went right: `calls` keeps the entries
    that did not match, `tools` the tools that failed; `pairs` (matched pairs) and
    empty or null entries are dropped. The `scores` table keeps the whole."""
    out: dict[str, Any] = {}
    for key, value in details.items():
        if key == "pairs" or value is None or value == [] or value == {}:
            continue
        if key == "calls" and isinstance(value, list):
            value = [c for c in value if not (isinstance(c, dict) and c.get("matched") is True)]
        elif key == "tools" and isinstance(value, dict):
            value = {
                tool: item
                for tool, item in value.items()
                if isinstance(item, dict) and item.get("passed") is False
            }
        if value or value in (0, False):
            out[key] = value
    return out


def summarize(result: MetricResult) -> dict[str, Any]:
    """The `MetricSummary` dict of one result: reason if failed or not graded, the failure
    details if a failed tool check; keys whose value is None are left out. A
    `SharedResult`'s summary is built once (and shared: never change it)."""
    if type(result) is SharedResult:
        summary = result._summary
        if summary is None:
            summary = result._summary = _summary(result)
        return summary
    return _summary(result)


def _summary(result: MetricResult) -> dict[str, Any]:
    out: dict[str, Any] = {"name": result.name}
    value, passed, label = result.value, result.passed, result.label
    if value is not None:
        out["value"] = value
    if passed is not None:
        out["passed"] = passed
    if label is not None:
        out["label"] = label
    if (passed is False or value is None) and label != "not_run" and result.reason:
        out["reason"] = result.reason
    if passed is False and result.details.get("kind") in _CHECK_KINDS:
        out["details"] = failure_details(result.details)
    return out


def encode_entry(conversation: dict[str, Any]) -> bytes:
    """One conversation's `results.json` entry as the spool holds it (compact JSON)."""
    return orjson.dumps(conversation, default=str)


class ResultsWriter:
    """Spools conversation entries, then writes `results.json` whole (atomically) in `finish`."""

    def __init__(self, output_dir: str | Path) -> None:
        self.path = Path(output_dir) / "results.json"
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._spool_path = self.path.with_suffix(".json.conversations.tmp")
        self._spool: IO[bytes] | None = self._spool_path.open("wb")
        self._count = 0

    def add(self, conversation: dict[str, Any]) -> None:
        """Append one conversation's entry (a `ConversationResult`-shaped dict)."""
        self.add_encoded(encode_entry(conversation))

    def add_encoded(self, entry: bytes) -> None:
        """Append one entry already encoded by `encode_entry` (a worker process encodes them)."""
        assert self._spool is not None, "ResultsWriter already finished"
        self._spool.write(b",\n    " if self._count else b"    ")
        self._spool.write(entry)
        self._count += 1

    def finish(self, report: EvaluationReport) -> Path:
        """Write `report` (its `conversations` ignored) with the spooled entries; return the path."""
        assert self._spool is not None, "ResultsWriter already finished"
        self._spool.close()
        self._spool = None
        head = orjson.dumps(
            report.model_dump(mode="json", exclude={"conversations"}), option=orjson.OPT_INDENT_2
        )
        tmp = self.path.with_suffix(".json.tmp")
        try:
            with tmp.open("wb") as out:
                out.write(head.rstrip()[:-1].rstrip())  # drop the closing brace
                out.write(
                    b',\n  "conversations": [\n' if self._count else b',\n  "conversations": []'
                )
                if self._count:
                    with self._spool_path.open("rb") as spool:
                        shutil.copyfileobj(spool, out, 1 << 20)
                    out.write(b"\n  ]")
                out.write(b"\n}\n")
            tmp.replace(self.path)
        finally:
            self._spool_path.unlink(missing_ok=True)
        return self.path

    def abort(self) -> None:
        """Drop the spooled entries (an evaluation that failed writes no results.json)."""
        if self._spool is not None:
            self._spool.close()
            self._spool = None
        self._spool_path.unlink(missing_ok=True)


def read_results(path: str | Path) -> EvaluationReport:
    """A `results.json`, validated (conversations with their metrics and turns)."""
    return EvaluationReport.model_validate_json(Path(path).read_bytes())
