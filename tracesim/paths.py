"""Where the CLI reads and writes by default, and checks that a path can be written.

Every command that takes `--db` defaults to the same file, `DEFAULT_DB_PATH`
(or `$TRACESIM_DB`), so `tracesim collect`, `sql`, `report` and `evaluate`
meet without flags; `tracesim run` writes `<output_dir>/tracesim.duckdb`,
which is the same file when run from the config's folder with the default
`output_dir: results`.
"""

from __future__ import annotations

import os
from pathlib import Path

__all__ = [
    "DB_ENV",
    "DEFAULT_DB_PATH",
    "PathProblem",
    "check_writable_dir",
    "check_writable_file",
    "outputs_dir",
]

DEFAULT_DB_PATH = "results/tracesim.duckdb"
"""The DuckDB file every command uses when `--db` is not given."""
DB_ENV = "TRACESIM_DB"
"""Environment variable overriding `DEFAULT_DB_PATH`."""


def outputs_dir(db_path: str | Path) -> Path:
    """Where `results.json` and `report.html` of `db_path` go by default: beside it for the
    name runs write (`tracesim.duckdb`), else in `<stem>_results/` beside it, so two
    databases in one folder never overwrite each other's outputs."""
    path = Path(db_path)
    if path.name == Path(DEFAULT_DB_PATH).name:
        return path.parent
    return path.parent / f"{path.stem}_results"


class PathProblem(ValueError):
    """A path cannot be used; `str()` says which, why and what to do."""


def _first_existing(path: Path) -> Path:
    current = path
    while not current.exists() and current != current.parent:
        current = current.parent
    return current


def check_writable_dir(path: str | Path, *, what: str) -> Path:
    """Raise PathProblem unless `path` is (or can be created as) a writable folder.

    Creates nothing: a missing folder is fine when its nearest existing
    ancestor is a writable folder (it is created later, by whoever writes).
    """
    path = Path(path).expanduser()
    if path.exists():
        if not path.is_dir():
            raise PathProblem(f"{what} {path} is a file, not a folder; give a folder path")
        if not os.access(path, os.W_OK | os.X_OK):
            raise PathProblem(
                f"{what} {path}: the folder is not writable; choose another one "
                "or fix its permissions"
            )
        return path
    ancestor = _first_existing(path.parent)
    if not ancestor.is_dir():
        raise PathProblem(
            f"{what} {path}: cannot create it because {ancestor} is a file, not a folder"
        )
    if not os.access(ancestor, os.W_OK | os.X_OK):
        raise PathProblem(
            f"{what} {path}: cannot create it, {ancestor} is not writable; choose another "
            "folder or fix its permissions"
        )
    return path


def check_writable_file(path: str | Path, *, what: str) -> Path:
    """Raise PathProblem unless the file `path` can be written (its folder may be created)."""
    path = Path(path).expanduser()
    if path.is_dir():
        raise PathProblem(f"{what} {path} is a folder; give a file path such as {path / 'x'}")
    try:
        check_writable_dir(path.parent, what="folder")
    except PathProblem as exc:
        raise PathProblem(f"{what} {path}: cannot write the file there: {exc}") from None
    if path.exists() and not os.access(path, os.W_OK):
        raise PathProblem(f"{what} {path}: the file is not writable")
    return path
