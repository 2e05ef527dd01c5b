"""Rules 3 and 4 of SPEC §3 across a trace: a span without its own key takes its trace's.

`Router` remembers trace_id -> (chat_id, turn_id) of every `tracesim.turn` span
(rule 3) and trace_id -> (chat_id, start) of the outermost conversation id seen on
a span of a trace (rule 4: frameworks put it on the agent or root span only), both
LRUs bounded in entries and in bytes (`bounded_lru`: conversation ids are client-chosen
text of any length). Outermost is earliest-starting (an ancestor starts no later than
its descendants): a nested agent's own session (a delegate agent tool, a coding agent
inside an orchestrator: OpenAI Agents handoffs, ADK AgentTool) stays an attribute and
the whole trace is one conversation, whatever the arrival order; stored rows keyed by a
nested session are re-keyed when the outer one arrives. It also remembers which traces have stored rows still without a
turn (`_waiting`) or without any chat (`_unkeyed`), so the store back-fills only
traces that need it, whatever the arrival order, and after a restart
(`preload`). Not thread-safe: the writer thread owns it.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from tracesim.collector.routing.bounded_lru import BoundedLru
from tracesim.collector.routing.routing_keys import RULE_NONE, RULE_SESSION, RULE_TRACE

__all__ = ["DEFAULT_MAX_BYTES", "Router"]

DEFAULT_MAX_BYTES = 32 << 20
"""Bytes each of the router's four maps may hold (conversation ids are client-chosen):
128 MiB at most in all, whatever the ids."""


class Router:
    """Trace -> turn and trace -> conversation maps, and the traces awaiting either."""

    def __init__(self, *, capacity: int = 1_000_000, max_bytes: int = DEFAULT_MAX_BYTES) -> None:
        self.capacity = capacity
        self.max_bytes = max_bytes
        bounds = {"capacity": capacity, "max_bytes": max_bytes}
        self._turns = BoundedLru(**bounds)
        self._sessions = BoundedLru(**bounds)
        self._waiting = BoundedLru(**bounds)
        self._unkeyed = BoundedLru(**bounds)
        self._new_sessions: list[tuple[str, str]] = []
        self._changed_sessions: set[str] = set()
        """Traces whose conversation changed this batch (their stored rows are re-keyed)."""
        self.waiting_overflow = False
        """True when `_waiting` lost entries: back-fill then runs for every new turn span."""
        self.unkeyed_overflow = False
        """True when `_unkeyed` lost entries: back-fill then runs for every new conversation."""

    def learn(self, trace_id: str, chat_id: str, turn_id: int) -> None:
        """Remember the turn of a trace."""
        self._turns.put(trace_id, (chat_id, turn_id))

    def learn_session(self, trace_id: str, chat_id: str, start: int | None = None) -> bool:
        """Remember a trace's conversation id: the one on the earliest-starting span wins (a
        known one without a start stays); True when the trace's conversation changed."""
        known = self._sessions.get(trace_id)
        if known is not None:
            if known[0] == chat_id or known[1] is None or start is None or start >= known[1]:
                return False
            self._changed_sessions.add(trace_id)
        self._sessions.put(trace_id, (chat_id, start))
        return True

    def session_of(self, trace_id: str) -> str | None:
        """The conversation id keying `trace_id` (rule 4), if one is known."""
        known = self._sessions.get(trace_id)
        return known[0] if known is not None else None

    def preload(
        self,
        rows: Iterable[tuple[str, str, int]],
        waiting: Iterable[str],
        *,
        waiting_complete: bool,
        sessions: Iterable[tuple[str, str]] = (),
        unkeyed: Iterable[str] = (),
        unkeyed_complete: bool = True,
    ) -> None:
        """Load known turns, conversations and waiting traces from the store after a restart."""
        for trace_id, chat_id, turn_id in rows:
            if trace_id and chat_id is not None and turn_id is not None:
                self.learn(trace_id, chat_id, turn_id)
        for trace_id, chat_id in sessions:
            if trace_id and chat_id:
                self.learn_session(trace_id, chat_id)
        for trace_id in waiting:
            self._mark_waiting(trace_id)
        for trace_id in unkeyed:
            self._mark_unkeyed(trace_id)
        if not waiting_complete:
            self.waiting_overflow = True
        if not unkeyed_complete:
            self.unkeyed_overflow = True

    def _mark_waiting(self, trace_id: str) -> None:
        """Note that stored rows of this trace have no turn yet."""
        if self._waiting.put(trace_id, None):
            self.waiting_overflow = True

    def _mark_unkeyed(self, trace_id: str) -> None:
        """Note that stored rows of this trace have no chat yet."""
        if self._unkeyed.put(trace_id, None):
            self.unkeyed_overflow = True

    def route(self, columns: dict[str, list[Any]], rules: list[int]) -> None:
        """Apply rules 3 and 4 in place to rows keyed by nothing or only by rule 4.

        The conversation ids of this batch are learned before unkeyed rows are routed,
        so the order of spans within a batch does not matter.
        """
        turns, sessions = self._turns, self._sessions
        trace_ids, chats, turn_ids = columns["trace_id"], columns["chat_id"], columns["turn_id"]
        starts = columns.get("start_time") or columns.get("time")
        unkeyed: list[int] = []
        keyed_by_session: list[int] = []
        for index, rule in enumerate(rules):
            if rule == RULE_NONE:
                unkeyed.append(index)
                continue
            trace_id = trace_ids[index]
            if rule == RULE_SESSION:
                known = turns.get(trace_id)
                if known is not None:
                    chats[index], turn_ids[index] = known
                    rules[index] = RULE_TRACE
                    continue
                start = starts[index] if starts is not None else None
                if trace_id is not None and self.learn_session(trace_id, chats[index], start):
                    self._new_sessions.append((trace_id, chats[index]))
                if turn_ids[index] is None and trace_id is not None:
                    self._mark_waiting(trace_id)
                keyed_by_session.append(index)
                continue
            if turn_ids[index] is None:
                known = turns.get(trace_id)
                if known is not None and known[0] == chats[index]:
                    turn_ids[index] = known[1]
                else:
                    self._mark_waiting(trace_id)
        for index in keyed_by_session:  # the trace's outermost conversation, not the span's
            trace_id = trace_ids[index]
            outer = self.session_of(trace_id) if trace_id is not None else None
            if outer is not None:
                chats[index] = outer
        for index in unkeyed:
            trace_id = trace_ids[index]
            if trace_id is None:
                continue
            known = turns.get(trace_id)
            if known is not None:
                chats[index], turn_ids[index] = known
                rules[index] = RULE_TRACE
                continue
            self._mark_waiting(trace_id)
            session = sessions.get(trace_id)
            if session is not None:
                chats[index] = session[0]
                rules[index] = RULE_SESSION
            else:
                self._mark_unkeyed(trace_id)

    def backfill_targets(self, turns: Iterable[tuple[str, str, int]]) -> list[tuple[str, str, int]]:
        """Of newly learned (trace_id, chat_id, turn_id), those whose stored spans may need keying."""
        targets = []
        for trace_id, chat_id, turn_id in turns:
            if self.waiting_overflow or trace_id in self._waiting:
                targets.append((trace_id, chat_id, turn_id))
        return targets

    def session_backfill_targets(self) -> list[tuple[str, str]]:
        """(trace_id, chat_id) of conversations learned since the last call whose trace has
        stored rows without a chat (rule 4 back-fill); those traces stop being unkeyed."""
        learned, self._new_sessions = self._new_sessions, []
        changed, self._changed_sessions = self._changed_sessions, set()
        targets = []
        for trace_id, chat_id in learned:
            if self.session_of(trace_id) != chat_id:
                continue  # an earlier-starting span of this batch named the outer one
            # a trace whose conversation changed (an outer one after a nested one) has rows
            # keyed by the nested one: re-keyed with the unkeyed ones
            if self.unkeyed_overflow or trace_id in self._unkeyed or trace_id in changed:
                targets.append((trace_id, chat_id))
                self._unkeyed.pop(trace_id, None)
        return targets

    @property
    def bytes_held(self) -> int:
        """Bytes charged to the router's maps now (each at most `max_bytes`)."""
        return sum(lru.bytes for lru in (self._turns, self._sessions, self._waiting, self._unkeyed))

    def settled(self, trace_ids: Iterable[str]) -> None:
        """Forget traces whose back-fill committed."""
        for trace_id in trace_ids:
            self._waiting.pop(trace_id, None)
