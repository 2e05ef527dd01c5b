"""Text from spans never drives the user's terminal (SPEC §9, hostile input): a conversation
id, service, span or tool name carrying escape sequences (`ESC ] 0 ; title BEL` retitles
the terminal, `ESC [ 2 J` clears it) or other control characters is shown with them
replaced, by `evaluate`, `inspect` and `sql`. Before, `evaluate`'s table and `inspect`
printed them as sent."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from tracesim.schemas.terminal_text import printable

from tracesim.cli import cli

HOSTILE = "\x1b]0;pwned\x07\x1b[2J\x01\x9bx\x00"
CONTROL = [chr(c) for c in (*range(0x00, 0x09), *range(0x0B, 0x20), *range(0x7F, 0xA0))]


def _span(index: int, name: str, attrs: dict[str, str]) -> dict:
    return {
        "traceId": f"{index:032x}",
        "spanId": f"{index:016x}",
        "name": name,
        "startTimeUnixNano": str(1_700_000_000_000_000_000 + index),
        "endTimeUnixNano": str(1_700_000_001_000_000_000 + index),
        "attributes": [{"key": k, "value": {"stringValue": v}} for k, v in attrs.items()],
        "status": {"code": 2, "message": HOSTILE},
    }


@pytest.fixture
def hostile_db(tmp_path: Path) -> Path:
    chat = HOSTILE + "chat"
    message = json.dumps([{"role": "user", "parts": [{"type": "text", "content": HOSTILE}]}])
    spans = [
        _span(
            1,
            "chat" + HOSTILE,
            {
                "gen_ai.conversation.id": chat,
                "gen_ai.operation.name": "chat",
                "gen_ai.input.messages": message,
            },
        ),
        _span(
            2,
            "tool",
            {
                "gen_ai.conversation.id": chat,
                "gen_ai.operation.name": "execute_tool",
                "gen_ai.tool.name": HOSTILE + "tool",
            },
        ),
    ]
    resource = {"attributes": [{"key": "service.name", "value": {"stringValue": HOSTILE}}]}
    document = {"resourceSpans": [{"resource": resource, "scopeSpans": [{"spans": spans}]}]}
    trace_file = tmp_path / "hostile.json"
    trace_file.write_text(json.dumps(document))
    db = tmp_path / "h.duckdb"
    done = CliRunner().invoke(cli, ["import", str(trace_file), "--db", str(db)])
    assert done.exit_code == 0, done.output
    return db


def _clean(output: str) -> bool:
    return not any(char in output for char in CONTROL)


def test_evaluate_inspect_and_sql_show_no_control_character_from_spans(
    hostile_db: Path, tmp_path: Path
) -> None:
    runner = CliRunner()
    evaluated = runner.invoke(
        cli, ["evaluate", "--db", str(hostile_db), "--output-dir", str(tmp_path / "out")]
    )
    assert evaluated.exit_code == 3, evaluated.output  # nothing graded never passes
    assert "pwned" in evaluated.output and _clean(evaluated.output), repr(evaluated.output)
    inspected = runner.invoke(cli, ["inspect", "--db", str(hostile_db)])
    assert "pwned" in inspected.output and _clean(inspected.output), repr(inspected.output)
    rows = runner.invoke(cli, ["sql", "--db", str(hostile_db), "SELECT name, chat_id FROM spans"])
    assert "pwned" in rows.output and _clean(rows.output), repr(rows.output)


def test_printable_keeps_newlines_tabs_and_text() -> None:
    assert printable("a\tb\nc é ✓") == "a\tb\nc é ✓"
    assert printable(HOSTILE) == "\ufffd]0;pwned\ufffd\ufffd[2J\ufffd\ufffdx\ufffd"


def test_scenarios_from_db_says_skipped_conversations_without_control_characters(
    hostile_db: Path, tmp_path: Path
) -> None:
    done = CliRunner().invoke(
        cli, ["scenarios", "from-db", "--db", str(hostile_db), "-o", str(tmp_path / "s.json")]
    )
    assert "skipped" in done.output and "pwned" in done.output, done.output
    assert _clean(done.output), repr(done.output)
