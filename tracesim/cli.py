"""The `tracesim` command line. Each subcommand lives in `tracesim/commands/<name>.py`
as a click command named `command`, imported only when it is invoked so that
`tracesim --help` stays fast."""

from __future__ import annotations

import importlib
import os

import click

__all__ = ["main", "cli"]

_COMMANDS: dict[str, str] = {
    "init": "Write a config, scenarios and an agent skeleton to start from.",
    "examples": "List the shipped examples, or copy one into a folder, ready to run offline.",
    "collect": "Receive OTLP spans and logs and store them in DuckDB.",
    "run": "Drive the scenarios of a config against an agent, capture and evaluate.",
    "evaluate": "Re-evaluate what a DuckDB file holds, without re-running the agent.",
    "report": "Write the HTML report of a DuckDB file.",
    "compare": "Compare two evaluations: which scenarios regressed (exact test on trials).",
    "sql": "Run a read-only SQL query over a DuckDB file (or a running collector).",
    "import": "Load trace files (OTLP, Collector file exporter, Jaeger, Tempo) into DuckDB.",
    "inspect": "Show what tracesim understood of a capture (conventions, tool and model spans).",
    "simulate": "arksim's name: run without evaluating (= run --capture-only).",
    "simulate-evaluate": "arksim's name for `run`.",
    "show-prompts": "Print the LLM judges' prompts, labels and methodology.",
    "scenarios": "Make scenarios from collected conversations (scenarios from-db).",
    "mcp-mock": "Serve scenario tool stubs as an MCP server (stdio or streamable HTTP).",
}


class _LazyGroup(click.Group):
    """A group whose subcommands are imported on first use."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(_COMMANDS)

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        if name not in _COMMANDS:
            return None
        module_name = name.replace("-", "_")
        if module_name == "import":  # a keyword: the module is `import_`
            module_name = "import_"
        module = importlib.import_module(f"tracesim.commands.{module_name}")
        return module.command

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        with formatter.section("Commands"):
            formatter.write_dl(sorted(_COMMANDS.items()))


@click.group(cls=_LazyGroup)
@click.version_option(package_name="tracesim")
def cli() -> None:
    """tracesim: OpenTelemetry-native trace collector and offline evaluator for AI agents."""


def main() -> None:
    """Console-script entry point."""
    # gRPC's C core logs to stderr by itself (e.g. a port conflict, which the collector
    # reports in its own words); silence it unless the user asked for its logs.
    os.environ.setdefault("GRPC_VERBOSITY", "NONE")
    cli()
