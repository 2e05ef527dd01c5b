"""Request headers from config: `${ENV_VAR}` substitution, resolved once at `open()`.

Config files hold secrets by reference (`Authorization: Bearer ${AGENT_TOKEN}`);
a variable that is not set is a configuration error raised before the first
turn, naming the header and the variable, never a request with an empty token.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping

from tracesim.simulator.connectors.base import ConnectorError

__all__ = ["merge_headers", "substitute_env"]

_ENV_REF = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")


def substitute_env(
    headers: Mapping[str, str], *, environ: Mapping[str, str] | None = None
) -> dict[str, str]:
    """Return `headers` with every `${NAME}` replaced from `environ` (default `os.environ`).

    Raises ConnectorError naming the header and the missing variable.
    """
    env = os.environ if environ is None else environ
    resolved: dict[str, str] = {}
    for name, value in headers.items():
        missing = [ref for ref in _ENV_REF.findall(value) if ref not in env]
        if missing:
            raise ConnectorError(
                f"header {name!r} refers to environment variable ${{{missing[0]}}}, "
                f"which is not set: export {missing[0]}=... before running, "
                "or remove the header from agent_config.api_config.headers"
            )
        resolved[name] = _ENV_REF.sub(lambda m: env[m.group(1)], value)
    return resolved


def merge_headers(*layers: Mapping[str, str]) -> dict[str, str]:
    """Merge header dicts case-insensitively; later layers win (turn context over config)."""
    merged: dict[str, tuple[str, str]] = {}
    for layer in layers:
        for name, value in layer.items():
            merged[name.lower()] = (name, value)
    return dict(merged.values())
