"""SQL bounding what the router preloads after a restart, in bytes, inside DuckDB.

The router's maps are bounded in bytes (`routing.bounded_lru`), but the preload used to
read up to `router_capacity` (1M) rows, conversation ids of any length included, into
Python before the byte bound trimmed them. These helpers charge each row what the
router will (`size_of`: overhead, trace id, chat id), add the charges up newest first in
DuckDB over the small columns only, and read only the rows that fit.
"""

from __future__ import annotations

from tracesim.collector.routing.bounded_lru import ENTRY_OVERHEAD

__all__ = ["budget_parameters", "charge", "within_budget"]

_UNBOUNDED = 1 << 62


def charge(*texts: str) -> str:
    """SQL: the bytes `BoundedLru` charges an entry holding these text columns (a
    character each when ASCII, four otherwise; NULL counts 0)."""
    terms = [str(ENTRY_OVERHEAD)]
    for text in texts:
        terms.append(
            f"coalesce(CASE WHEN strlen({text}) = length({text}) THEN strlen({text}) "
            f"ELSE 4 * length({text}) END, 0)"
        )
    return " + ".join(terms)


def within_budget(select: str, order: str) -> str:
    """SQL: the rows of `select` (which has a `cost` column) in `order`, up to and
    including the first past the budget, with `charged`, the bytes up to each row.
    Parameters: `budget_parameters(limit, max_bytes)`. Keep rows whose `charged` is at
    most max_bytes, the first `limit`: the one row more says whether that was all."""
    return (
        f"SELECT * FROM (SELECT *, sum(cost) OVER (ORDER BY {order} ROWS UNBOUNDED "
        f"PRECEDING) AS charged FROM ({select})) WHERE charged - cost <= ? "
        f"ORDER BY {order} LIMIT ?"
    )


def budget_parameters(limit: int, max_bytes: int | None) -> list[int]:
    """The parameters of `within_budget`: the byte budget (None: unbounded), `limit` + 1."""
    return [_UNBOUNDED if max_bytes is None else max_bytes, limit + 1]
