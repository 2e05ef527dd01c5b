"""`tracesim examples` (arksim's `arksim examples`): list the shipped examples and copy one,
with the helper folders it imports, into a folder where it runs as printed."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from tracesim.cli import cli
from tracesim.examples_bundle import list_examples


def test_every_example_is_listed_with_what_it_needs() -> None:
    result = CliRunner().invoke(cli, ["examples"])
    assert result.exit_code == 0, result.output
    by_name = {e.name: e for e in list_examples()}
    assert set(by_name) >= {"customer_service", "chat_completions_agent", "a2a_agent"}
    assert by_name["a2a_agent"].extras == ("a2a",)  # read from its imports
    assert by_name["customer_service"].extras == ("agents",)
    assert by_name["chat_completions_agent"].helpers == ("shared_tools",)
    assert "a2a_agent  " in result.output and "(needs tracesim[a2a])" in result.output
    assert CliRunner().invoke(cli, ["examples", "--list"]).output == result.output  # arksim's


def test_a_copy_brings_its_helpers_and_runs_offline(tmp_path: Path) -> None:
    runner = CliRunner()
    result = runner.invoke(cli, ["examples", "chat-completions-agent", "--to", str(tmp_path)])
    assert result.exit_code == 0, result.output
    assert f"next: cd {tmp_path} && tracesim run examples/chat_completions_agent/config.yaml" in (
        result.output
    )
    copied = tmp_path / "examples"
    assert (copied / "shared_tools" / "tools.py").is_file()
    assert not (copied / "chat_completions_agent" / "results").exists()  # no stale outputs
    import os

    here = os.getcwd()
    os.chdir(tmp_path)  # the run resolves the server's cwd from the config, as printed
    try:
        run = runner.invoke(
            cli, ["run", "examples/chat_completions_agent/config.yaml", "--no-progress"]
        )
    finally:
        os.chdir(here)
    assert run.exit_code == 0, run.output
    assert (copied / "chat_completions_agent" / "results" / "report.html").is_file()


def test_a_wrong_name_or_an_existing_folder_is_one_line_exit_2(tmp_path: Path) -> None:
    runner = CliRunner()
    result = runner.invoke(cli, ["examples", "custmer_service", "--to", str(tmp_path)])
    assert result.exit_code == 2
    assert "did you mean 'customer_service'?" in result.output
    assert runner.invoke(cli, ["examples", "a2a_agent", "--to", str(tmp_path)]).exit_code == 0
    again = runner.invoke(cli, ["examples", "a2a_agent", "--to", str(tmp_path)])
    assert again.exit_code == 2 and "pass --force" in again.output
    assert "Traceback" not in again.output
    forced = runner.invoke(cli, ["examples", "a2a_agent", "--to", str(tmp_path), "--force"])
    assert forced.exit_code == 0, forced.output


def test_two_examples_sharing_a_helper_go_in_one_folder(tmp_path: Path) -> None:
    runner = CliRunner()
    first = runner.invoke(cli, ["examples", "chat_completions_agent", "--to", str(tmp_path)])
    assert first.exit_code == 0, first.output
    second = runner.invoke(cli, ["examples", "a2a_agent", "--to", str(tmp_path)])
    assert second.exit_code == 0, second.output  # shared_tools is already there, unchanged
    assert (tmp_path / "examples" / "a2a_agent" / "config.yaml").is_file()
    (tmp_path / "examples" / "shared_tools" / "policy.py").write_text("# edited by the user\n")
    third = runner.invoke(cli, ["examples", "customer_service", "--to", str(tmp_path)])
    assert third.exit_code == 0, third.output  # imports no helper: the edit is not touched
    again = runner.invoke(cli, ["examples", "a2a_agent", "--to", str(tmp_path)])
    assert again.exit_code == 2 and "shared_tools" in again.output  # an edit is never lost
    assert "edited" in (tmp_path / "examples" / "shared_tools" / "policy.py").read_text()
