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
import logging
import os
import re
import secrets
import stat
import time
from pathlib import Path
from typing import Any

__all__ = ["PSEUDONYM_PREFIX", "Pseudonyms", "load_or_create_key"]

PSEUDONYM_PREFIX = "tracesim-pseudonym-"
_TOKEN = re.compile(re.escape(PSEUDONYM_PREFIX) + r"[0-9a-f]{24}")
_KEY_BYTES = 32
log = logging.getLogger(__name__)


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
    """The key stored at `path`, created (random, mode 0600) when there is none.

    The file is made whole before it appears (written and fsync'd under a temporary name,
    then linked into place), so a crash never leaves an empty key behind; one found
    shorter than a key (left by a crash of an earlier version: its HMACs were guessable)
    is moved aside, never deleted, and replaced. A key readable by others is made 0600:
    whoever reads it can test guessed conversation ids against the pseudonyms.
    """
    path = Path(path)
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        data = None
    if data is not None and len(data) >= _KEY_BYTES:
        _owner_only(path)
        return data[:_KEY_BYTES]
    if data is not None:
        aside = path.with_name(f"{path.name}.damaged-{time.strftime('%Y%m%dT%H%M%S')}")
        os.replace(path, aside)
        log.warning(
            "%s held %d bytes, not a %d-byte key: moved to %s; conversation ids redacted "
            "from now on get new pseudonyms",
            path,
            len(data),
            _KEY_BYTES,
            aside,
        )
    return _create(path)


def _create(path: Path) -> bytes:
    """A new key at `path`, appearing whole; another process's key if it made one first."""
    key = os.urandom(_KEY_BYTES)
    temporary = path.with_name(f"{path.name}.{os.getpid()}.{secrets.token_hex(4)}.tmp")
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(key)
            out.flush()
            os.fsync(out.fileno())
        try:
            os.link(temporary, path)  # never replaces a key another process made
        except FileExistsError:
            return load_or_create_key(path)
    finally:
        temporary.unlink(missing_ok=True)
    return key


def _owner_only(path: Path) -> None:
    """Make the key file readable by its owner only (a warning when that fails)."""
    mode = path.stat().st_mode
    if not mode & (stat.S_IRWXG | stat.S_IRWXO):
        return
    try:
        os.chmod(path, 0o600)
    except OSError as error:
        log.warning("%s is readable by others and cannot be made 0600: %s", path, error)
        return
    log.warning("%s was readable by others (mode %o): made 0600", path, stat.S_IMODE(mode))
