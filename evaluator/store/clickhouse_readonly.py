"""Reading a ClickHouse store as a user who may only read (a `readonly = 1` profile, as
analysts' accounts have): `sql`, `report` and `inspect` then use the tables and views an
evaluation created, since such a user may not (re)create them."""

from __future__ import annotations

from typing import TYPE_CHECKING

from tracesim.evaluator.store.base import StoreError
from tracesim.evaluator.store.clickhouse_ddl import TABLES, VIEW_NAMES

if TYPE_CHECKING:
    from tracesim.evaluator.store.clickhouse_store import ClickHouseStore

__all__ = ["prepare_for_reading"]

_READONLY = "Code: 164."  # how the server's READONLY refusal reads in a StoreError


def prepare_for_reading(store: ClickHouseStore) -> None:
    """`store.prepare()`; when the user may not create (READONLY), check instead that what
    the reading commands query exists (StoreError naming what is missing and the fix)."""
    try:
        store.prepare()
        return
    except StoreError as exc:
        if _READONLY not in str(exc):
            raise
    names = [*TABLES, *VIEW_NAMES]
    found = store._c.query(
        "SELECT name FROM system.tables WHERE database = {db:String} AND name IN {n:Array(String)}",
        {"db": store.url.database, "n": names},
    )
    missing = sorted(set(names) - set(found.column("name").to_pylist()))
    if missing:
        raise StoreError(
            f"{store.label}: this user may only read, and tracesim's {', '.join(missing)} "
            f"do not exist in {store.url.database} yet. Fix: run `tracesim evaluate --db ...` "
            "once as a user allowed to CREATE and INSERT there; then any user can read"
        )
