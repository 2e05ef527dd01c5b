"""Random ids for conversations, without a system call per id.

`uuid.uuid4()` reads `os.urandom`, which releases the GIL: with the
collector and the exporter busy in the same process, taking it back costs
up to a switch interval (5 ms) per conversation. Chat ids need to be unique,
not secret: a generator seeded once from the OS (and again after a fork)
gives the same uuid4 shape.
"""

from __future__ import annotations

import os
import random
import uuid

__all__ = ["new_chat_id"]

_rng = random.Random(os.urandom(32))


def _reseed() -> None:
    _rng.seed(os.urandom(32))


os.register_at_fork(after_in_child=_reseed)


def new_chat_id() -> str:
    """A random version-4 uuid, as 32 hex digits (`uuid.uuid4().hex` shape)."""
    return uuid.UUID(int=_rng.getrandbits(128), version=4).hex
