"""Errors of the ingest pipeline, each marked permanent or retryable once (receivers map them)."""

from __future__ import annotations

__all__ = ["CollectorError", "InvalidRequest", "Busy", "TooLarge", "Unauthenticated", "StoreLocked"]


class CollectorError(Exception):
    """Base class of collector errors."""

    retryable = False


class InvalidRequest(CollectorError):
    """Malformed request: permanent (gRPC INVALID_ARGUMENT, HTTP 400)."""


class TooLarge(CollectorError):
    """Request over the size limit: permanent (RESOURCE_EXHAUSTED, HTTP 413)."""


class Unauthenticated(CollectorError):
    """Missing or wrong bearer token (UNAUTHENTICATED, HTTP 401)."""


class Busy(CollectorError):
    """Queue or spool full, or shutting down: retryable (UNAVAILABLE, HTTP 503)."""

    retryable = True


class StoreLocked(CollectorError):
    """The DuckDB file is opened read-write by another process."""


class NotADuckDBFile(CollectorError):
    """The store path is an existing file that is not a DuckDB database (DuckDB itself
    would open a .json or .csv as an in-memory database: acknowledged spans would be lost)."""
