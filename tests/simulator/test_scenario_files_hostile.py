"""A scenario file that cannot be read is one line naming it, exit 2 (SPEC §9 "bad config
or scenario files fail before anything runs, naming the file"): JSON nested past the
parser's depth and bytes that are not UTF-8. Before: RecursionError and
UnicodeDecodeError tracebacks from `tracesim run` and `tracesim mcp-mock`."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner
from tracesim.simulator.scenarios import ScenarioError, load_scenarios

from tracesim.cli import cli

DEEP_ARGS = (
    '{"scenarios": [{"scenario_id": "s", "goal": "g", "tool_stubs": [{"name": "t", "args": '
    + '{"a":' * 3000
    + "1"
    + "}" * 3000
    + ', "result": "r"}]}]}'
)


@pytest.mark.parametrize(
    ("content", "says"),
    [
        (DEEP_ARGS.encode(), "nested too deeply"),
        (b'{"scenarios": ' + b"[" * 100_000 + b"]" * 100_000 + b"}", "nested too deeply"),
        (b'\xff\xfe{"scenarios": []}', "not UTF-8 text"),
    ],
    ids=["deep-args", "deep-list", "not-utf8"],
)
def test_an_unreadable_scenario_file_is_one_line_naming_it(
    tmp_path: Path, content: bytes, says: str
) -> None:
    path = tmp_path / "scenarios.json"
    path.write_bytes(content)
    with pytest.raises(ScenarioError, match=says) as raised:
        load_scenarios(path)
    assert str(raised.value).startswith(str(path))
    done = CliRunner().invoke(cli, ["mcp-mock", "--scenarios", str(path)])
    assert done.exit_code == 2, done.output
    assert says in done.output and "Traceback" not in done.output
