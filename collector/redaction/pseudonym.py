"""Stable pseudonyms for redacted conversation ids: same input, same token, so keying works.

A rule that would change a conversation id (`session.id`, `gen_ai.conversation.id`, ...)
replaces it whole with `tracesim-pseudonym-<hmac>`: an HMAC-SHA256 of the raw value under
a secret key, so the token cannot be reversed or guessed from a list of likely ids, and
every span, log and resource naming the same conversation still lands in the same chat.
The collector keeps its key beside the database (`<db>.pseudonym-key`, mode 0600), so a
restart, a spool replay or the next run into the same file gives the same tokens. A token
is never pseudonymised again (replaying a redacted spool record changes nothing).
"""

from __future__ import annotations

import hashlib
import hmac
import os
import re
from pathlib import Path
from typing import Any

__all__ = ["PSEUDONYM_PREFIX", "Pseudonyms", "load_or_create_key"]

PSEUDONYM_PREFIX = "tracesim-pseudonym-"
_TOKEN = re.compile(re.escape(PSEUDONYM_PREFIX) + r"[0-9a-f]{24}")
_KEY_BYTES = 32


class Pseudonyms:
    """Keyed tokens for raw values. Thread-safe (the key is replaced only before start)."""

    def __init__(self, key: bytes | None = None) -> None:
        self._key = key or os.urandom(_KEY_BYTES)

    def use_key(self, key: bytes) -> None:
        """Use `key` from now on (the collector's persisted one)."""
        self._key = key

    def token(self, value: Any) -> str:
        """The pseudonym of `value` (a token stays itself)."""
        text = value if isinstance(value, str) else str(value)
        if _TOKEN.fullmatch(text):
            return text
        digest = hmac.new(self._key, text.encode("utf-8", "surrogatepass"), hashlib.sha256)
        return PSEUDONYM_PREFIX + digest.hexdigest()[:24]


def load_or_create_key(path: str | Path) -> bytes:
    """The key stored at `path`, created (random, mode 0600) when there is none."""
    path = Path(path)
    try:
        data = path.read_bytes()
        if len(data) >= _KEY_BYTES:
            return data[:_KEY_BYTES]
    except FileNotFoundError:
        pass
    key = os.urandom(_KEY_BYTES)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:  # another process made it first: use theirs
        return path.read_bytes()[:_KEY_BYTES]
    with os.fdopen(fd, "wb") as out:
        out.write(key)
        out.flush()
        os.fsync(out.fileno())
    return key
