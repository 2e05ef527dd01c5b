"""What `tracesim collect` prints while it runs, so a user sees that spans arrive.

Rate-limited: at most one progress line per interval (spans stored since the last
line, conversations and services so far), each new service and new conversation
named once (a few per line, then "and N more"), and a protocol mix-up (an exporter
speaking OTLP/HTTP to the gRPC port, or gRPC to the HTTP port) said the first time
it happens with the port to use, then counted. New services and conversations are
read from the store with a query over the spans received since the last look (the
`received_at` column), never from the wire.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from tracesim.collect_front import GRPC, HTTP, Mixup

__all__ = ["CollectConsole", "mixup_line"]

MAX_NAMED = 5
"""New conversations named per line; the rest are counted."""
MAX_REMEMBERED = 200_000
"""Conversations remembered to tell new from known; past this, they are counted only."""
_SLACK_SECONDS = 15
"""Spans are committed a little after they are received (a batch, 0.2 s, more under load):
look back this far each time (each look re-reads this many seconds of spans)."""


def mixup_line(mixup: Mixup, host: str, ports: dict[str, int | None]) -> str:
    """One line saying which exporter spoke to which port, and the port to use."""
    right = ports.get(mixup.spoke)
    wrong = ports.get(mixup.port_protocol)
    other_protocol = "grpc" if mixup.port_protocol == GRPC else "http/protobuf"
    what = "an OTLP/HTTP exporter" if mixup.spoke == HTTP else "a gRPC exporter"
    port_name = "gRPC" if mixup.port_protocol == GRPC else "OTLP/HTTP"
    head = f"{what} ({mixup.peer}) is sending to the {port_name} port {wrong}"
    if not mixup.served or right is None:
        flag = "--http-port" if mixup.spoke == HTTP else "--grpc-port"
        return (
            f"{head}: NOT stored, the {mixup.spoke} receiver is off ({flag} -1); "
            f"set OTEL_EXPORTER_OTLP_PROTOCOL={other_protocol} in the agent, or start "
            f"`tracesim collect` with {flag}"
        )
    return (
        f"{head}: stored, but point it at the right port: "
        f"OTEL_EXPORTER_OTLP_ENDPOINT=http://{host}:{right} "
        f"(or OTEL_EXPORTER_OTLP_PROTOCOL={other_protocol} to keep port {wrong})"
    )


class CollectConsole:
    """Prints collector progress through `echo`; `tick` is called by the serving loop."""

    def __init__(
        self,
        collector: Any,
        echo: Callable[[str], None],
        *,
        host: str,
        ports: dict[str, int | None],
        wake: threading.Event | None = None,
    ) -> None:
        self._collector = collector
        self._echo = echo
        self._host = host
        self._ports = ports
        self._lock = threading.Lock()
        self.wake = wake or threading.Event()
        """Set when something should be said before the next interval (a first mix-up)."""
        self._mixups: dict[tuple[str, str], int] = {}
        self._unsaid: list[Mixup] = []
        self._said_counts: dict[tuple[str, str], int] = {}
        self._spans = collector.stats().spans_stored
        self._since: str | None = None  # newest received_at seen, ISO text
        self._services: set[str] = set()
        self._conversations: set[str] = set()
        self._conversations_counted = 0
        self._baseline()

    def _baseline(self) -> None:
        """What the file already held: never announced as new."""
        _, rows = self._collector.query(
            "SELECT max(received_at)::VARCHAR,"
            " list(DISTINCT service_name) FILTER (service_name <> '') FROM spans"
        )
        latest, services = rows[0] if rows else (None, None)
        self._since = latest
        self._services.update(services or [])

    def on_mixup(self, mixup: Mixup) -> None:
        """A connection that came to the wrong port (called from the front's thread)."""
        key = (mixup.port_protocol, mixup.spoke)
        with self._lock:
            self._mixups[key] = self._mixups.get(key, 0) + 1
            if self._mixups[key] == 1:
                self._unsaid.append(mixup)
                self.wake.set()

    def tick(self, *, progress: bool = True) -> None:
        """Say what is new since the last call: mix-ups, then (with `progress`) services,
        conversations and counts."""
        with self._lock:
            unsaid, self._unsaid = self._unsaid, []
            counts = dict(self._mixups)
        for mixup in unsaid:
            self._echo(mixup_line(mixup, self._host, self._ports))
            self._said_counts[(mixup.port_protocol, mixup.spoke)] = 1
        for key, n in counts.items():
            said = self._said_counts.get(key, 0)
            if n > said:
                port = self._ports.get(key[0])
                self._echo(
                    f"{n - said} more connection(s) speaking {key[1]} to the {key[0]} port {port}"
                )
                self._said_counts[key] = n
        if progress:
            self._progress()

    def _progress(self) -> None:
        stored = self._collector.stats().spans_stored
        if stored == self._spans:
            return
        new_services, new_conversations = self._new_names()
        for service in new_services:
            self._echo(f"new service: {service}")
        if new_conversations:
            named = ", ".join(new_conversations[:MAX_NAMED])
            more = len(new_conversations) - MAX_NAMED
            self._echo(f"new conversation(s): {named}" + (f" and {more} more" if more > 0 else ""))
        self._echo(
            f"{stored} spans stored since start ({stored - self._spans:+d}), "
            f"{self._conversations_counted} new conversation(s), "
            f"{len(self._services)} service(s)"
        )
        self._spans = stored

    def _new_names(self) -> tuple[list[str], list[str]]:
        since = "1970-01-01" if self._since is None else str(self._since)
        _, rows = self._collector.query(
            "SELECT max(received_at)::VARCHAR,"
            " list(DISTINCT service_name) FILTER (service_name <> ''),"
            " list(DISTINCT chat_id) FILTER (chat_id IS NOT NULL) FROM spans"
            f" WHERE received_at >= ?::TIMESTAMP - INTERVAL {_SLACK_SECONDS} SECOND",
            [since],
        )
        latest, services, chats = rows[0] if rows else (None, None, None)
        if latest is not None:  # ISO text: its order is time order
            self._since = latest if self._since is None else max(str(self._since), latest)
        new_services = sorted(set(services or []) - self._services)
        self._services.update(new_services)
        new_chats = sorted(set(chats or []) - self._conversations)
        self._conversations_counted += len(new_chats)
        if len(self._conversations) < MAX_REMEMBERED:
            self._conversations.update(new_chats)
        return new_services, new_chats
