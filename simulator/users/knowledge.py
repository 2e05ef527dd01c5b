"""Which of a scenario's knowledge items the LLM simulated user is shown each turn
(`user.knowledge`), as arksim selects knowledge per turn.

- `all` (default): every fact in the user's instructions, every turn;
- `per_turn`: one fact a turn, a different one each turn until all were shown, then again
  (arksim's pick-one rotation), in an order fixed by the conversation's seed;
- `relevant`: the fact the agent's last message asks about (the most words in common;
  facts not yet shown first), else the next fact not yet shown. This answers what arksim
  asks a second LLM call for ("is the user asking or answering?") without one: a question
  from the agent about a fact brings that fact, otherwise the user moves on to the next.

With one knowledge item (or none) every strategy is `all`. The fact chosen for a turn is
handed to the model in a message just before its reply (arksim's `[Reference knowledge for
this turn]`), and `LLMUser.turn_knowledge` keeps it per turn.
"""

from __future__ import annotations

import random
import re
from collections.abc import Sequence
from typing import Literal

__all__ = ["KNOWLEDGE_STRATEGIES", "KnowledgeSelector", "KnowledgeStrategy"]

KnowledgeStrategy = Literal["all", "per_turn", "relevant"]
KNOWLEDGE_STRATEGIES: tuple[str, ...] = ("all", "per_turn", "relevant")

_WORD = re.compile(r"[a-z0-9]+")
_STOP = frozenset(
    "a an and are as at be by can could do for from have i in is it me my of on or please "
    "the this to was what when where which who will with would you your".split()
)


def _words(text: str) -> set[str]:
    return {w for w in _WORD.findall(text.lower()) if w not in _STOP and len(w) > 1}


class KnowledgeSelector:
    """Picks the fact of each turn for one conversation (stateful: what was shown)."""

    def __init__(
        self, knowledge: Sequence[str], strategy: KnowledgeStrategy, *, seed: int | None = None
    ) -> None:
        self.facts = [str(fact) for fact in knowledge]
        self.strategy: KnowledgeStrategy = strategy if len(self.facts) > 1 else "all"
        order = list(range(len(self.facts)))
        if self.strategy == "per_turn":
            random.Random(seed).shuffle(order)  # reproducible per conversation
        self._order = order
        self._shown: list[int] = []

    @property
    def in_instructions(self) -> bool:
        """True when every fact goes in the user's instructions (`all`)."""
        return self.strategy == "all"

    def _next_unshown(self) -> int:
        if len(set(self._shown)) >= len(self.facts):
            self._shown = []  # all shown: start over
        return next(i for i in self._order if i not in self._shown)

    def pick(self, agent_message: str | None) -> str | None:
        """The fact for the user's next message (None under `all`)."""
        if self.strategy == "all":
            return None
        index = self._next_unshown()
        if self.strategy == "relevant" and agent_message:
            asked = _words(agent_message)
            overlaps = [len(asked & _words(fact)) for fact in self.facts]
            best = max(overlaps)
            if best:
                fresh = [i for i in self._order if overlaps[i] == best and i not in self._shown]
                index = fresh[0] if fresh else overlaps.index(best)
        self._shown.append(index)
        return self.facts[index]
