"""The report's section on tool evidence that did not become a call (SPEC §5: nothing is
dropped in silence): counts per kind from `runs.summary.unexplained_evidence`, and where to
see each piece (`tracesim inspect`)."""

from __future__ import annotations

from html import escape
from typing import Any

from tracesim.evaluator.extract.audit import KINDS

__all__ = ["evidence_section"]


def evidence_section(run: dict[str, Any] | None) -> str:
    """The `<section id="evidence">` ("" when the evaluation explained every piece)."""
    summary = (run or {}).get("summary")
    counts = summary.get("unexplained_evidence") if isinstance(summary, dict) else None
    if not isinstance(counts, dict):
        return ""
    items = "".join(
        f"<li>{escape(str(counts[kind]))} {escape(what)}</li>"
        for kind, what in KINDS.items()
        if isinstance(counts.get(kind), int) and counts[kind]
    )
    if not items:
        return ""
    return (
        '<section id="evidence"><h2>Tool evidence that did not become a call</h2>'
        f"<ul>{items}</ul><p class='muted'>The tool calls scored may be incomplete: "
        "<code>tracesim inspect --db FILE</code> lists each piece and why.</p></section>"
    )
