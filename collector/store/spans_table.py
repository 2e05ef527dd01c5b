"""The `spans` table as the collector creates it: its JSON columns zstd-compressed.

Kept apart from `collector.store.store` (connection and writes): a storage choice of
the collector's own, the columns and keys staying those of `schemas.ddl`.
"""

from __future__ import annotations

import logging
import re

import duckdb
from tracesim.schemas.ddl import SPANS_DDL

__all__ = ["create_spans"]

log = logging.getLogger(__name__)

_JSON_COLUMN = re.compile(r"\b(attributes|resource_attributes|events|links) JSON,")


def create_spans(con: duckdb.DuckDBPyConnection) -> None:
    """Create `spans` (when new) with its JSON columns zstd-compressed: DuckDB otherwise
    tries every method on each segment at each checkpoint (~1.4 µs a span more), and the
    file is larger. The columns tracesim filters on keep DuckDB's choice (fast to read).
    A DuckDB without zstd for text gets the plain table from `create_all`."""
    ddl, count = _JSON_COLUMN.subn(r"\1 JSON USING COMPRESSION zstd,", SPANS_DDL)
    if count != 4:  # the DDL changed shape: leave it to create_all
        return
    try:
        con.execute(ddl)
    except duckdb.Error as error:
        log.info("spans keeps DuckDB's default compression: %s", error)
