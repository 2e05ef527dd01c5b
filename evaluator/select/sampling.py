"""Deterministic samples of conversations: by a hash of the chat id, never by chance.

A chat's sample key is the first 8 bytes of SHA-256(`seed:chat_id`), so the
same seed picks the same chats on every backend, in every order, and a chat
keeps its key as the store grows: `--sample 5%` picks the chats whose key falls
in the lowest 5% of the key space (a new evaluation of a grown store picks
the same old chats plus 5% of the new ones); `--sample 20` picks the 20
eligible chats with the smallest keys.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import timedelta

__all__ = ["Sample", "choose", "parse_sample", "parse_since", "sample_key"]

_SPAN = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*(s|m|h|d|w)\s*$", re.IGNORECASE)
_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 604800}


@dataclass(frozen=True)
class Sample:
    """A share of the chats (`fraction`) or a number of them (`count`)."""

    fraction: float | None = None
    count: int | None = None

    def describe(self) -> str:
        return f"{self.fraction:.4g} of" if self.fraction is not None else f"{self.count} of"


def parse_sample(text: str) -> Sample:
    """`5%` or `0.05` (a share), `20` (a count); ValueError says what is accepted."""
    value = str(text).strip()
    try:
        if value.endswith("%"):
            share = float(value[:-1]) / 100
        elif "." in value:
            share = float(value)
        else:
            count = int(value)
            if count < 1:
                raise ValueError
            return Sample(count=count)
    except ValueError:
        raise ValueError(
            f"--sample {text!r}: give a share (5% or 0.05) or a number of conversations (20)"
        ) from None
    if not 0 < share <= 1:
        raise ValueError(f"--sample {text!r}: a share must be above 0% and at most 100%")
    return Sample(fraction=share)


def parse_since(text: str) -> timedelta:
    """`90s`, `30m`, `24h`, `7d`, `2w`; ValueError says what is accepted."""
    match = _SPAN.match(str(text))
    if match is None:
        raise ValueError(f"--since {text!r}: give a duration such as 30m, 24h or 7d")
    return timedelta(seconds=float(match.group(1)) * _UNITS[match.group(2).lower()])


def sample_key(chat_id: str, seed: int = 0) -> int:
    """The chat's position in the sample order (see the module doc)."""
    digest = hashlib.sha256(f"{seed}:{chat_id}".encode()).digest()
    return int.from_bytes(digest[:8], "big")


def choose(chat_ids: Iterable[str], sample: Sample, *, seed: int = 0) -> set[str]:
    """The chats of `chat_ids` the sample picks."""
    if sample.fraction is not None:
        limit = sample.fraction * 2**64
        return {c for c in chat_ids if sample_key(c, seed) < limit}
    ranked = sorted(set(chat_ids), key=lambda c: (sample_key(c, seed), c))
    return set(ranked[: sample.count])
