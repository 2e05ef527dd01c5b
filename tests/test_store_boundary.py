"""One store interface: only `evaluator/store/` parses `--db` or opens a database to read.

Every reader (evaluate, report, inspect, sql, the CI outputs, the pytest plugin) goes
through `evaluator.store.open_store`; a module elsewhere that branches on a store URL
(`"://" in db`, `startswith("clickhouse")`, `is_store_url`) or imports a database driver
is a second, diverging way to reach a store. The exceptions are named below, each with
its reason.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
FOLDERS = ("collector", "evaluator", "simulator", "schemas", "providers", "tracesim")
STORE_PACKAGE = "evaluator/store/"
DRIVERS = ("duckdb", "chdb", "clickhouse_connect")
DRIVER_ALLOWED = {
    "collector/store/store.py": "the collector's writer: it owns the DuckDB file",
    "collector/store/spans_table.py": "the writer's spans table (split from store.py)",
    "collector/store/writer_batches.py": "the writer's batches: which DuckDB errors are a row's",
    "collector/query/query.py": "the collector answering queries on its own file",
    "collector/query/query_pool.py": "the collector's reader cursors on its own file",
    "collector/query/store_routes.py": "the collector serving its own file to the store",
    "collector/query/sql_guard.py": "parses SQL with DuckDB's parser (in memory, no file)",
    "tracesim/commands/import_.py": "catches the DuckDB errors of the collector it starts to "
    "write the file (it reads through open_store)",
}
URL_PARSING_ALLOWED = {
    "simulator/otlp.py": "an OTLP exporter endpoint (host:port or URL), not a store",
    "tracesim/agent_server.py": "an agent's HTTP endpoint, not a store",
}
_URL_HELPERS = {"is_store_url", "parse_store_url", "StoreURL"}
_SCHEME_WORDS = ("://", "clickhouse", "chdb", "duckdb")


def _texts(node: ast.AST) -> list[str]:
    return [
        n.value for n in ast.walk(node) if isinstance(n, ast.Constant) and isinstance(n.value, str)
    ]


def store_access_problems(path: Path) -> list[str]:
    """What in `path` reaches a store around `open_store` (line: reason)."""
    tree = ast.parse(path.read_text(), filename=str(path))
    problems: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] in DRIVERS:
                    problems.append(f"{node.lineno}: imports {alias.name}")
        elif isinstance(node, ast.ImportFrom) and node.module:
            if node.module.split(".")[0] in DRIVERS:
                problems.append(f"{node.lineno}: imports from {node.module}")
            named = {alias.name for alias in node.names} & _URL_HELPERS
            if node.module.startswith("tracesim.evaluator.store") and named:
                problems.append(f"{node.lineno}: parses store URLs ({', '.join(sorted(named))})")
        elif isinstance(node, ast.Compare) and any(
            isinstance(op, (ast.In, ast.NotIn, ast.Eq, ast.NotEq)) for op in node.ops
        ):
            if any(word in text for text in _texts(node) for word in _SCHEME_WORDS):
                problems.append(f"{node.lineno}: branches on a store URL ({ast.unparse(node)})")
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in ("startswith", "endswith", "split", "partition", "find")
            and any(
                word in text for arg in node.args for text in _texts(arg) for word in _SCHEME_WORDS
            )
        ):
            problems.append(f"{node.lineno}: branches on a store URL ({ast.unparse(node)})")
    return problems


def _modules() -> list[Path]:
    return sorted(p for folder in FOLDERS for p in (ROOT / folder).rglob("*.py"))


def test_only_the_store_package_reaches_stores() -> None:
    offenders = []
    for path in _modules():
        name = path.relative_to(ROOT).as_posix()
        if name.startswith(STORE_PACKAGE):
            continue
        for problem in store_access_problems(path):
            driver = "imports" in problem and "store URLs" not in problem
            if driver and name in DRIVER_ALLOWED:
                continue
            if not driver and name in URL_PARSING_ALLOWED:
                continue
            offenders.append(f"{name}:{problem}")
    assert not offenders, (
        "reach stores through evaluator.store.open_store (add a store class or a store "
        "method instead):\n" + "\n".join(offenders)
    )


def test_every_exception_still_exists() -> None:
    """A stale exception would let a new module of the same name through unnoticed."""
    missing = [n for n in (*DRIVER_ALLOWED, *URL_PARSING_ALLOWED) if not (ROOT / n).is_file()]
    assert not missing


@pytest.mark.parametrize(
    "source",
    [
        "import duckdb\n",
        "def f():\n    import chdb\n",
        "from clickhouse_connect import get_client\n",
        "def f(db):\n    return '://' in str(db)\n",
        "def f(db):\n    return db.startswith('clickhouse')\n",
        "def f(db):\n    return db.split('://', 1)[0] == 'chdb'\n",
        "from tracesim.evaluator.store import is_store_url\n",
        "from tracesim.evaluator.store.url import parse_store_url\n",
    ],
)
def test_the_detector_sees_each_way_around(tmp_path: Path, source: str) -> None:
    sample = tmp_path / "m.py"
    sample.write_text(source)
    assert store_access_problems(sample)


def test_the_detector_lets_the_store_interface_pass(tmp_path: Path) -> None:
    sample = tmp_path / "m.py"
    sample.write_text(
        "from tracesim.evaluator.store import open_store\n"
        "def f(db):\n    with open_store(db, read_only=True) as s:\n        return s.inspect()\n"
    )
    assert store_access_problems(sample) == []
