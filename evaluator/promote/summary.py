"""Goal and knowledge of a collected conversation, summarised by the configured LLM.

One structured-output request per conversation through the judges' client
(cache, retries, limiter), temperature 0: the same conversation gives the
same summary. Any failure falls back to the first user message and says so.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Sequence
from typing import Any

from tracesim.evaluator.promote.scenario import Summary, fallback_summary

__all__ = ["summarise"]

logger = logging.getLogger(__name__)

_SCHEMA = {
    "type": "object",
    "properties": {
        "goal": {"type": "string"},
        "knowledge": {"type": "array", "items": {"type": "string"}},
    },
    "required": ["goal", "knowledge"],
    "additionalProperties": False,
}
_INSTRUCTIONS = (
    "You turn a recorded customer conversation into a test scenario for a simulated user. "
    "From the USER's messages only, state the user's goal in one sentence (what they wanted "
    "done) and list the facts the user knew and gave (ids, emails, dates), one per item. "
    "Do not describe what the agent did."
)


def _parse(content: str) -> Summary:
    value = json.loads(content)
    goal = value.get("goal") if isinstance(value, dict) else None
    knowledge = value.get("knowledge") if isinstance(value, dict) else None
    if not isinstance(goal, str) or not goal.strip() or not isinstance(knowledge, list):
        raise ValueError("the summary needs a goal and a knowledge list")
    return Summary(goal.strip(), [str(k) for k in knowledge if str(k).strip()], source="llm")


def summarise(
    conversations: Sequence[Sequence[str]], llm: Any, *, cache_con: Any = None
) -> list[Summary]:
    """One Summary per conversation (its user messages), in order."""
    from tracesim.evaluator.llm.cache import LLMCache
    from tracesim.evaluator.llm.llm_client import JudgeClient

    async def run() -> list[Summary]:
        client = JudgeClient(llm, cache=LLMCache(cache_con))
        try:

            async def one(messages: Sequence[str]) -> Summary:
                transcript = "\n".join(f"[turn {i}] User: {m}" for i, m in enumerate(messages))
                request = client.build_request(
                    [
                        {"role": "system", "content": _INSTRUCTIONS},
                        {"role": "user", "content": transcript},
                    ],
                    schema_name="scenario_summary",
                    schema=_SCHEMA,
                )
                try:
                    return await client.ask(request, parse=_parse)
                except Exception as exc:  # noqa: BLE001 - one summary never stops the export
                    logger.warning("LLM summary failed (%s); using the first user message", exc)
                    fallback = fallback_summary(messages)
                    return Summary(fallback.goal, fallback.knowledge, f"first user message ({exc})")

            return list(await asyncio.gather(*(one(m) for m in conversations)))
        finally:
            await client.aclose()

    return asyncio.run(run())
