"""The writer's side of the decoder process: send a batch, replace a dead child, fall back.

When the child dies the batch is sent once more to a new child whose router is rebuilt
from the store after every batch already prepared is committed (`wait_idle`), so the
store then holds all the old router knew. Dying twice on one batch raises DecoderDied:
the writer then prepares the batch a request at a time, isolating one that kills it.
When no child can be started, or a batch cannot be handed to it (no memfd: file
descriptors or memory exhausted here), decoding goes on in the collector's own process.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from tracesim.collector.routing.routing import Router
from tracesim.collector.store.decoder_process import (
    DecoderDied,
    DecoderProcess,
    DecoderUnreachable,
)
from tracesim.collector.store.prepare_items import Prepared, prepare_items

__all__ = ["RemoteDecoding"]

log = logging.getLogger(__name__)


class RemoteDecoding:
    """Prepares batches in a `DecoderProcess` (the writer's decoding thread only)."""

    def __init__(
        self,
        decoder: DecoderProcess,
        router_factory: Callable[[], Router],
        wait_idle: Callable[[], None],
    ) -> None:
        self.decoder: DecoderProcess | None = decoder
        self._router_factory = router_factory
        self._wait_idle = wait_idle
        self._router: Router | None = None  # once decoding fell back to this process

    def prepare(self, triples: list[tuple[int, int, Any]]) -> Prepared:
        """`prepare_items` of (seq, kind, message or bytes) in the child."""
        payloads = [
            (seq, kind, message if isinstance(message, bytes) else message.SerializeToString())
            for seq, kind, message in triples
            if message is not None
        ]
        for attempt in (1, 2):
            decoder = self.decoder
            if decoder is None:
                assert self._router is not None
                return prepare_items(payloads, self._router)
            try:
                return decoder.prepare(payloads)
            except DecoderUnreachable as error:  # the machine's fault: never the data's
                log.error("%s; decoding in the collector's own process from now on", error)
                self._decode_here()
                continue
            except DecoderDied as error:
                log.error("%s (attempt %d); starting a new one", error, attempt)
                self._restart()
        raise DecoderDied("the decoder process died twice preparing one batch")

    def _decode_here(self) -> None:
        """Stop the child; decode with a router rebuilt from the idle store from now on."""
        assert self.decoder is not None
        self._wait_idle()
        self._router = self._router_factory()
        self.decoder.close()
        self.decoder = None

    def _restart(self) -> None:
        """A new child with a router rebuilt from the idle store; or decoding here."""
        assert self.decoder is not None
        self._wait_idle()
        router = self._router_factory()
        try:
            self.decoder.restart(router)
        except DecoderDied as error:
            log.error("%s; decoding in the collector's own process from now on", error)
            self.decoder.close()
            self.decoder = None
            self._router = router
