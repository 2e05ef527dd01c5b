"""`tracesim init DIR --agent-type TYPE`: write a config, scenarios (and an agent) to start from.

The custom-agent project runs as written (`tracesim run DIR/config.yaml`),
offline, so a newcomer sees a passing run before wiring in their own agent.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path

import click

from tracesim.commands.errors import BadInput
from tracesim.shown import shown

__all__ = ["COLLECT_PORTS", "command", "pick_collector_port", "write_project"]

AGENT_TYPES = ("custom", "chat_completions", "a2a")
COLLECT_PORTS = (4317, 4318)
"""The ports `tracesim collect` listens on by default: a config never takes them."""
FIRST_PORT = 4327
"""Where the search for a free embedded-collector port starts (OTLP's 4317 + 10)."""


def pick_collector_port(first: int = FIRST_PORT, *, host: str = "127.0.0.1") -> int:
    """The first port from `first` that is free now and is not one of `COLLECT_PORTS`, for an
    embedded collector an agent started outside tracesim exports to."""
    import socket

    for port in range(first, first + 200):
        if port in COLLECT_PORTS:
            continue
        with socket.socket() as probe:
            try:
                probe.bind((host, port))
            except OSError:
                continue
        return port
    raise BadInput(f"no free port in {first}-{first + 199} on {host}", command="init")


def _template(name: str) -> str:
    return resources.files("tracesim").joinpath("templates", name).read_text(encoding="utf-8")


def write_project(directory: Path, *, agent_type: str, force: bool = False) -> list[Path]:
    """Write the project files into `directory`; refuse to overwrite unless `force`."""
    files = {
        "config.yaml": _template(f"config.{agent_type}.yaml.tmpl")
        .replace("{dir}", str(directory))
        .replace("{grpc_port}", str(pick_collector_port()) if agent_type != "custom" else ""),
        "scenarios.json": _template("scenarios.json.tmpl"),
    }
    if agent_type == "custom":
        files["agent.py"] = _template("agent.py.tmpl")
    existing = [name for name in files if (directory / name).exists()]
    if existing and not force:
        raise BadInput(
            f"{directory} already has {', '.join(existing)}; pick another folder or pass --force",
            command="init",
        )
    directory.mkdir(parents=True, exist_ok=True)
    written = []
    for name, text in files.items():
        path = directory / name
        path.write_text(text, encoding="utf-8")
        written.append(path)
    return written


@click.command("init")
@click.argument(
    "directory", type=click.Path(file_okay=False, path_type=Path), default=Path("."), required=False
)
@click.option(
    "--agent-type",
    type=click.Choice(AGENT_TYPES),
    default="custom",
    show_default=True,
    help="How tracesim reaches your agent.",
)
@click.option("--force", is_flag=True, help="Overwrite files that exist.")
def command(directory: Path, agent_type: str, force: bool) -> None:
    """Write config.yaml and scenarios.json (and agent.py for a custom agent) into DIRECTORY
    (default: the current folder, as `arksim init`)."""
    for path in write_project(directory, agent_type=agent_type, force=force):
        click.echo(f"wrote {shown(path)}")
    config = directory / "config.yaml"
    if agent_type == "custom":
        click.echo(f"next: tracesim run {config}")
        return
    # a remote agent must answer before the run: say where the config expects it
    endpoint = next(
        (line.split(":", 1)[1].split("#")[0].strip() for line in config.read_text().splitlines()
         if line.strip().startswith("endpoint:")),
        "agent_config.api_config.endpoint",
    )  # fmt: skip
    click.echo(
        f"next: start your agent at {endpoint} (or set agent_config.api_config.endpoint, or "
        f"let tracesim start it with agent_config.server), then tracesim run {config}"
    )
