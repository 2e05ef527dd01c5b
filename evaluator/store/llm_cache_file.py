"""The LLM judge cache of stores that are not a DuckDB file opened here (ClickHouse, a
running collector's file): a local DuckDB file, so a re-evaluation makes no LLM call."""

from __future__ import annotations

import logging
import os
from pathlib import Path
from typing import Any

__all__ = ["LLM_CACHE_ENV", "open_llm_cache"]

log = logging.getLogger(__name__)

LLM_CACHE_ENV = "TRACESIM_LLM_CACHE"
"""The cache file (default `~/.cache/tracesim/llm_cache.duckdb`)."""


def open_llm_cache() -> Any | None:
    """A DuckDB connection on the cache file with its table; None (in-memory cache) when
    the file is not usable, e.g. held by another evaluation (said in the log)."""
    import duckdb
    from tracesim.schemas.ddl import LLM_CACHE_DDL

    default = Path.home() / ".cache" / "tracesim" / "llm_cache.duckdb"
    path = Path(os.environ.get(LLM_CACHE_ENV) or default)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        con = duckdb.connect(str(path))
        con.execute(LLM_CACHE_DDL)
    except (OSError, duckdb.Error) as exc:
        log.warning("LLM cache %s not usable (%s): judged answers are not kept", path, exc)
        return None
    return con
