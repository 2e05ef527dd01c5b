"""The example agent serving 'production' traffic: no tracesim run, just `instrument()`
exporting to `$OTEL_EXPORTER_OTLP_ENDPOINT`; conversations keyed by the SDK's group_id
(`gen_ai.conversation.id`). Prints the conversation ids as JSON."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "customer_service"
sys.path.insert(0, str(EXAMPLE))

from agent import CustomerServiceAgent  # noqa: E402
from opentelemetry import trace  # noqa: E402

CONVERSATIONS = [
    ["Hi, where is my order A1001?", "Thanks, that's all."],
    [
        "Hi, where is my order A1004?",
        "I'd like a refund for it, it broke. My email is kim@example.com",
    ],
]


async def main() -> list[str]:
    ids = []
    for turns in CONVERSATIONS:
        agent = CustomerServiceAgent()
        ids.append(await agent.get_chat_id())
        for message in turns:
            await agent.execute(message)
    return ids


if __name__ == "__main__":
    chat_ids = asyncio.run(main())
    trace.get_tracer_provider().force_flush()
    print(json.dumps(chat_ids))
