"""`tracesim run CONFIG [--key value ...]`: drive the scenarios against the agent and capture.

Any config key can be overridden on the command line, dotted for nested
keys (`--max_turns 3`, `--agent_config.module_path x.py`), or with
`--set key=value`; values are parsed as YAML scalars (a path given here is
relative to the current directory). Exit codes (the README's table): 0 passed,
1 a gate failed, 2 bad input (config, scenarios, a locked file, a busy port),
3 nothing graded or incomplete (no turn answered, interrupted conversations,
errors under gates) or an internal error, 130 Ctrl-C.
"""

from __future__ import annotations

import sys
from pathlib import Path

import click

__all__ = ["command"]


@click.command(
    "run",
    context_settings={"ignore_unknown_options": True, "allow_extra_args": True},
)
@click.argument("config", type=click.Path(dir_okay=False))
@click.option(
    "--set",
    "sets",
    multiple=True,
    metavar="KEY=VALUE",
    help="Override a config key (dotted for nested keys); repeatable.",
)
@click.option("--no-progress", is_flag=True, help="Do not show the progress bar.")
@click.option(
    "--capture-only",
    is_flag=True,
    help="Stop after capture (evaluate later with `tracesim evaluate`).",
)
@click.option(
    "--junit-xml",
    "junit_path",
    default=None,
    type=click.Path(dir_okay=False, path_type=Path),
    help="Also write a JUnit XML file: one testcase per conversation (for CI test reports).",
)
@click.pass_context
def command(
    ctx: click.Context,
    config: str,
    sets: tuple[str, ...],
    no_progress: bool,
    capture_only: bool,
    junit_path: Path | None,
) -> None:
    """Drive the scenarios of CONFIG against the agent, capture its traces and evaluate.

    Writes the DuckDB file, results.json and report.html in output_dir. Exit 0 passed,
    1 a gate failed, 2 bad input, 3 nothing graded or incomplete, 130 Ctrl-C.

    Extra `--key value` pairs override config keys, e.g. `--max_turns 3`.
    """
    from tracesim.config_loader import ConfigError, parse_override_args
    from tracesim.paths import PathProblem, check_writable_file
    from tracesim.run import EXIT_BAD_CONFIG, run_from_file

    try:
        overrides = parse_override_args(ctx.args)
        for item in sets:
            key, eq, value = item.partition("=")
            if not eq or not key:
                raise ConfigError(f"--set {item!r}: expected KEY=VALUE")
            overrides[key] = value
        if junit_path is not None:
            check_writable_file(junit_path, what="--junit-xml")
    except (ConfigError, PathProblem) as exc:
        click.echo(f"config error\n{exc}", err=True)
        sys.exit(EXIT_BAD_CONFIG)
    outcome = run_from_file(
        config,
        overrides,
        show_progress=not no_progress,
        evaluate=not capture_only,
        junit_path=junit_path,
    )
    sys.exit(outcome.exit_code)
