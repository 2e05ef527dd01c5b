"""Rule 3 of SPEC §3: a span without its own key belongs to the turn whose trace it is in.

`Router` remembers trace_id -> (chat_id, turn_id) of every `tracesim.turn` span
(bounded LRU) and which traces have stored spans still without a turn, so the
store only back-fills traces that need it. Not thread-safe: the writer thread
owns it.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterable
from typing import Any

from collector.routing_keys import RULE_NONE, RULE_SESSION, RULE_TRACE

__all__ = ["Router"]


class Router:
    """Trace -> turn map and the set of traces awaiting their turn span."""

    def __init__(self, *, capacity: int = 1_000_000) -> None:
        self.capacity = capacity
        self._turns: OrderedDict[str, tuple[str, int]] = OrderedDict()
        self._waiting: OrderedDict[str, None] = OrderedDict()
        self.waiting_overflow = False
        """True when `_waiting` lost entries: back-fill then runs for every new turn span."""

    def learn(self, trace_id: str, chat_id: str, turn_id: int) -> None:
        """Remember the turn of a trace."""
        self._turns[trace_id] = (chat_id, turn_id)
        self._turns.move_to_end(trace_id)
        if len(self._turns) > self.capacity:
            self._turns.popitem(last=False)

    def preload(
        self,
        rows: Iterable[tuple[str, str, int]],
        waiting: Iterable[str],
        *,
        waiting_complete: bool,
    ) -> None:
        """Load known turns and waiting traces from the store after a restart."""
        for trace_id, chat_id, turn_id in rows:
            if trace_id and chat_id is not None and turn_id is not None:
                self.learn(trace_id, chat_id, turn_id)
        for trace_id in waiting:
            self._mark_waiting(trace_id)
        if not waiting_complete:
            self.waiting_overflow = True

    def _mark_waiting(self, trace_id: str) -> None:
        """Note that stored spans of this trace have no turn yet."""
        self._waiting[trace_id] = None
        self._waiting.move_to_end(trace_id)
        if len(self._waiting) > self.capacity:
            self._waiting.popitem(last=False)
            self.waiting_overflow = True

    def route(self, columns: dict[str, list[Any]], rules: list[int]) -> None:
        """Apply rule 3 in place to rows keyed by nothing or only by rule 4."""
        turns = self._turns
        trace_ids, chats, turn_ids = columns["trace_id"], columns["chat_id"], columns["turn_id"]
        for index, rule in enumerate(rules):
            if rule != RULE_NONE and rule != RULE_SESSION:
                if turn_ids[index] is None:
                    known = turns.get(trace_ids[index])
                    if known is not None and known[0] == chats[index]:
                        turn_ids[index] = known[1]
                    else:
                        self._mark_waiting(trace_ids[index])
                continue
            trace_id = trace_ids[index]
            if trace_id is None:
                continue
            known = turns.get(trace_id)
            if known is None:
                self._mark_waiting(trace_id)
                continue
            chats[index], turn_ids[index] = known
            rules[index] = RULE_TRACE

    def backfill_targets(self, turns: Iterable[tuple[str, str, int]]) -> list[tuple[str, str, int]]:
        """Of newly learned (trace_id, chat_id, turn_id), those whose stored spans may need keying."""
        targets = []
        for trace_id, chat_id, turn_id in turns:
            if self.waiting_overflow or trace_id in self._waiting:
                targets.append((trace_id, chat_id, turn_id))
        return targets

    def settled(self, trace_ids: Iterable[str]) -> None:
        """Forget traces whose back-fill committed."""
        for trace_id in trace_ids:
            self._waiting.pop(trace_id, None)
