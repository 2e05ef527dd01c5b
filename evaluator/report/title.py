"""Name the report after what was tested (the agent, else the folder), never after a hash.

Sources, first found wins: the agent name in `run_summary.json` next to the
DuckDB file (written by `tracesim run`, only when its run_id is this
evaluation's run); the services that sent spans (a `tracesim collect`
file), the simulator's own service left out; the folder the file is in
(`results/` stands for its parent) or, for a ClickHouse store, its URL (label,
no password). The eval_id stays in the page's metadata.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

__all__ = ["SIMULATOR_SERVICE_PREFIX", "run_name", "run_title"]

SIMULATOR_SERVICE_PREFIX = "tracesim"
"""Prefix of the services tracesim itself traces under (`tracesim-simulator`, ...): never
the name of the agent under test."""
_MAX_SERVICES = 2


def _from_run_summary(db_path: Path, run_id: str | None) -> str | None:
    path = db_path.parent / "run_summary.json"
    try:
        body = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(body, dict) or (run_id is not None and body.get("run_id") != run_id):
        return None
    agent = (
        ((body.get("config") or {}).get("agent_config") or {})
        if isinstance(body.get("config"), dict)
        else {}
    )
    name = agent.get("agent_name") if isinstance(agent, dict) else None
    return str(name) if name else None


def _from_services(con: Any) -> str | None:
    rows = con.execute(
        "SELECT service_name FROM spans WHERE coalesce(service_name, '') <> ''"
        " AND NOT starts_with(service_name, ?) GROUP BY 1 ORDER BY count(*) DESC, 1 LIMIT ?",
        [SIMULATOR_SERVICE_PREFIX, _MAX_SERVICES + 1],
    ).fetchall()
    names = [r[0] for r in rows]
    if not names:
        return None
    extra = " and more" if len(names) > _MAX_SERVICES else ""
    return ", ".join(names[:_MAX_SERVICES]) + extra


def _from_folder(db_path: Path) -> str:
    folder = db_path.resolve().parent
    if folder.name in ("results", "output", "out") and folder.parent.name:
        folder = folder.parent
    return folder.name or db_path.stem


def run_name(con: Any, db_path: str, run: dict[str, Any] | None) -> str:
    """What was tested: agent name, else span services, else the folder."""
    path = Path(db_path)
    if not path.is_file():  # a store's label (its URL, never a password), not a folder
        return _from_services(con) or db_path.split(" (", 1)[0]
    name = _from_run_summary(path, (run or {}).get("run_id"))
    return name or _from_services(con) or _from_folder(path)


def run_title(con: Any, db_path: str, run: dict[str, Any] | None) -> str:
    """`<what was tested> · <run | evaluation> <when>` (the name alone with no run row)."""
    name = run_name(con, db_path, run)
    if not run:
        return name
    what = "run" if run.get("kind") == "run" else "evaluation"
    when = run.get("started_at") or run.get("finished_at")
    when_text = str(when)[:16] if when is not None else ""
    return f"{name} · {what} {when_text}".rstrip()
