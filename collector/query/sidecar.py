"""The sidecar file `<db>.collector.json`: where a running collector of a DuckDB file answers.

A running collector holds the DuckDB file's lock, so readers (`tracesim sql`)
query its HTTP endpoint instead; the sidecar tells them which one, even on a
non-default port. It holds the endpoints and whether a bearer token is
required, never the token. Written atomically once the receivers listen,
removed on a clean shutdown; a crash leaves it behind, so readers treat it
as a hint and check that the endpoint answers (`read_sidecar` does not).
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from tracesim.schemas.frames import SIDECAR_SUFFIX

__all__ = ["SIDECAR_SUFFIX", "read_sidecar", "remove_sidecar", "sidecar_path", "write_sidecar"]


def sidecar_path(db_path: str | Path) -> Path:
    """The sidecar file of a DuckDB file."""
    return Path(f"{db_path}{SIDECAR_SUFFIX}")


def write_sidecar(
    db_path: str | Path,
    *,
    http_endpoint: str | None,
    grpc_endpoint: str | None,
    token_required: bool,
    nonce: str | None = None,
) -> Path:
    """Write the sidecar atomically (temporary file + rename); returns its path. `nonce`
    names this collector start; `GET /tracesim/identity` answers the same one."""
    path = sidecar_path(db_path)
    document = {
        "db_path": str(Path(db_path).resolve()),
        "nonce": nonce,
        "http_endpoint": http_endpoint,
        "grpc_endpoint": grpc_endpoint,
        "token_required": token_required,
        "pid": os.getpid(),
    }
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    temporary.write_text(json.dumps(document, indent=2) + "\n", encoding="utf-8")
    os.replace(temporary, path)
    return path


def read_sidecar(db_path: str | Path) -> dict[str, Any] | None:
    """The sidecar's content, or None when there is none or it is unreadable."""
    try:
        document = json.loads(sidecar_path(db_path).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return document if isinstance(document, dict) else None


def remove_sidecar(db_path: str | Path) -> None:
    """Delete the sidecar (no error when it is already gone)."""
    sidecar_path(db_path).unlink(missing_ok=True)
