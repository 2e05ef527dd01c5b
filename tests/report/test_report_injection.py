"""The HTML report escapes everything a span carries (SPEC §9, hostile input): markup and
script in conversation ids, tool, span and service names, messages, tool arguments and
results, status messages and attribute names never appear as markup in report.html; the
embedded data is JSON with `<`, `>` and `&` escaped, and the page builds its DOM from
text nodes."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from tracesim.cli import cli

PAYLOAD = "<img src=x onerror=alert(1)>\"'</script><script>alert(2)</script><!--"


def _span(index: int, name: str, attrs: dict[str, str], kind: int = 1) -> dict:
    return {
        "traceId": f"{index:032x}",
        "spanId": f"{index:016x}",
        "name": name,
        "kind": kind,
        "startTimeUnixNano": str(1_700_000_000_000_000_000 + index),
        "endTimeUnixNano": str(1_700_000_001_000_000_000 + index),
        "attributes": [{"key": k, "value": {"stringValue": v}} for k, v in attrs.items()],
        "status": {"code": 2, "message": PAYLOAD},
    }


def test_no_span_text_becomes_markup_in_the_report(tmp_path: Path) -> None:
    chat = PAYLOAD + "chat"
    messages = [{"role": "user", "parts": [{"type": "text", "content": PAYLOAD}]}]
    replies = [{"role": "assistant", "parts": [{"type": "text", "content": PAYLOAD}]}]
    spans = [
        _span(
            1,
            "chat " + PAYLOAD,
            {
                "gen_ai.conversation.id": chat,
                "gen_ai.operation.name": "chat",
                "gen_ai.input.messages": json.dumps(messages),
                "gen_ai.output.messages": json.dumps(replies),
            },
            kind=3,
        ),
        _span(
            2,
            PAYLOAD,
            {
                "gen_ai.conversation.id": chat,
                "gen_ai.operation.name": "execute_tool",
                "gen_ai.tool.name": PAYLOAD,
                "gen_ai.tool.call.arguments": json.dumps({"q": PAYLOAD}),
                "gen_ai.tool.call.result": PAYLOAD,
                PAYLOAD: PAYLOAD,
            },
        ),
    ]
    resource = {"attributes": [{"key": "service.name", "value": {"stringValue": PAYLOAD}}]}
    scope = {"name": PAYLOAD}
    document = {
        "resourceSpans": [{"resource": resource, "scopeSpans": [{"scope": scope, "spans": spans}]}]
    }
    trace_file = tmp_path / "hostile.json"
    trace_file.write_text(json.dumps(document))
    db = tmp_path / "h.duckdb"
    runner = CliRunner()
    assert runner.invoke(cli, ["import", str(trace_file), "--db", str(db)]).exit_code == 0
    out = tmp_path / "out"
    done = runner.invoke(cli, ["evaluate", "--db", str(db), "--output-dir", str(out)])
    # Nothing here can be graded (no judge, policy or scenario): exit 3, report still written.
    assert done.exit_code == 3, done.output
    html = (out / "report.html").read_text()
    assert "onerror=alert(1)" in html  # the text is there, escaped
    for raw in ("<img src=x", "<script>alert", "</script><script>", "onerror=alert(1)>"):
        assert raw not in html, raw
