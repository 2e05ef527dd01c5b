"""The A2A example agent's `AgentExecutor`: shared shop policy, tool calls in artifacts.

Per message: continue the caller's trace (W3C headers of the request, kept
by the sdk in `call_context.state["headers"]`), run the policy's tools
under `execute_tool` spans, then publish the task: the reply as one artifact
in two chunks (the second `append`ed), and complete it.

Tool calls go into the reply artifact's metadata under
`"<URI>/tool_calls"`, with the URI in the artifact's `extensions`, ONLY when
the client asked for the extension in its `A2A-Extensions` header
(`RequestContext.requested_extensions`): tool arguments and results can be
personal data, so a client that did not ask gets the text alone.

`CaptureQuirks` makes the agent misbehave on purpose, to test the client
against every case of SPEC §8.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from a2a.helpers import new_data_part, new_task_from_user_message
from a2a.server.agent_execution import AgentExecutor, RequestContext
from a2a.server.events import EventQueue
from a2a.server.tasks import TaskUpdater
from a2a.types import Artifact, Part, Task, TaskState, TaskStatus
from opentelemetry import context as otel_context
from opentelemetry.trace import SpanKind, Tracer
from tracesim.schemas import A2A_TOOL_CALL_EXTENSION_URI, GENAI

from examples.shared_tools import Shop, ToolOutcome, extract_context, run_turn

__all__ = ["TOOL_CALLS_KEY", "CaptureQuirks", "CustomerServiceExecutor", "SeenA2ARequest"]

TOOL_CALLS_KEY = f"{A2A_TOOL_CALL_EXTENSION_URI}/tool_calls"
REPLY_ARTIFACT_ID = "reply"


@dataclass
class CaptureQuirks:
    """Test-only deviations from the well-behaved agent."""

    extra_entries: list[Any] = field(default_factory=list)
    """Raw entries appended to the tool-call list (bad names, non-object arguments, ...)."""
    untagged_artifact: bool = False
    """Also emit an artifact carrying tool calls whose `extensions` do not list the URI."""
    final_snapshot: Literal["none", "same", "differs"] = "none"
    """After the artifact updates, send a Task snapshot with the same calls, or only the first one."""
    tool_progress: Literal["none", "text", "structured"] = "none"
    """Announce each tool call and its outcome in working-state status updates, as agents built
    like seed 004 do: text only ("🔧 Calling tool: **name**", "✅ Tool **name** completed",
    "❌ Tool **name** failed"), or with `tool_call` / `tool_result` objects in the metadata."""


@dataclass(frozen=True)
class SeenA2ARequest:
    """What the agent received (tests assert on it)."""

    headers: dict[str, str]
    requested_extensions: frozenset[str]
    message_extensions: tuple[str, ...]
    context_id: str
    task_id: str
    text: str


def _entries(outcomes: list[ToolOutcome]) -> list[dict[str, Any]]:
    entries = []
    for outcome in outcomes:
        entry: dict[str, Any] = {
            "id": outcome.call.id,
            "name": outcome.call.name,
            "arguments": outcome.call.arguments,
        }
        if outcome.result is not None:
            entry["result"] = outcome.result
        if outcome.error is not None:
            entry["error"] = outcome.error
        entries.append(entry)
    return entries


def _halves(text: str) -> tuple[str, str]:
    cut = text.find(" ", len(text) // 2)
    return (text, "") if cut < 0 else (text[:cut], text[cut:])


class CustomerServiceExecutor(AgentExecutor):
    """Runs the shared policy for each message; remembers each context's conversation."""

    def __init__(
        self,
        *,
        shop: Shop,
        tracer: Tracer,
        quirks: CaptureQuirks | None = None,
        declares_capture: bool = True,
    ) -> None:
        self.shop = shop
        self.declares_capture = declares_capture
        """False when the card does not list the extension: tool calls are then never emitted."""
        self.tracer = tracer
        self.quirks = quirks or CaptureQuirks()
        self.seen: list[SeenA2ARequest] = []
        self._conversations: dict[str, list[dict[str, str]]] = {}

    async def execute(self, context: RequestContext, event_queue: EventQueue) -> None:
        """Answer one message: tool spans, reply artifact (with tool calls if asked), completion."""
        headers: dict[str, str] = dict(context.call_context.state.get("headers") or {})
        text = context.get_user_input()
        message = context.message
        self.seen.append(
            SeenA2ARequest(
                headers=headers,
                requested_extensions=frozenset(context.requested_extensions),
                message_extensions=tuple(message.extensions) if message else (),
                context_id=context.context_id or "",
                task_id=context.task_id or "",
                text=text,
            )
        )
        conversation = self._conversations.setdefault(context.context_id or "", [])
        conversation.append({"role": "user", "content": text})
        token = otel_context.attach(extract_context(headers))
        try:
            with self.tracer.start_as_current_span(
                f"{GENAI.OP_INVOKE_AGENT} customer-service",
                kind=SpanKind.SERVER,
                attributes={
                    GENAI.OPERATION_NAME: GENAI.OP_INVOKE_AGENT,
                    GENAI.AGENT_NAME: "customer-service",
                },
            ):
                reply, outcomes = run_turn(conversation, shop=self.shop, tracer=self.tracer)
        finally:
            otel_context.detach(token)
        conversation.append({"role": "assistant", "content": reply})
        capture = (
            self.declares_capture and A2A_TOOL_CALL_EXTENSION_URI in context.requested_extensions
        )
        await self._publish(
            context, event_queue, reply, _entries(outcomes) + self.quirks.extra_entries, capture
        )

    async def _publish(
        self,
        context: RequestContext,
        event_queue: EventQueue,
        reply: str,
        entries: list[Any],
        capture: bool,
    ) -> None:
        task = context.current_task
        if task is None:
            assert context.message is not None
            task = new_task_from_user_message(context.message)
            await event_queue.enqueue_event(task)
        updater = TaskUpdater(event_queue, task.id, task.context_id)
        if self.quirks.tool_progress != "none":
            await self._announce(updater, entries)
        tagged = {
            "metadata": {TOOL_CALLS_KEY: entries},
            "extensions": [A2A_TOOL_CALL_EXTENSION_URI],
        }
        first, rest = _halves(reply)
        await updater.add_artifact(
            [Part(text=first)],
            artifact_id=REPLY_ARTIFACT_ID,
            name="reply",
            append=False,
            last_chunk=not rest,
            **(tagged if capture else {}),
        )
        if rest:
            await updater.add_artifact(
                [Part(text=rest)], artifact_id=REPLY_ARTIFACT_ID, append=True, last_chunk=True
            )
        if capture and self.quirks.untagged_artifact:
            await updater.add_artifact(
                [new_data_part({"note": "tool calls without the extension listed"})],
                artifact_id="untagged",
                metadata={TOOL_CALLS_KEY: entries},
            )
        if self.quirks.final_snapshot != "none":
            kept = entries if self.quirks.final_snapshot == "same" else entries[:1]
            artifact = Artifact(
                artifact_id=REPLY_ARTIFACT_ID, name="reply", parts=[Part(text=reply)]
            )
            if capture:
                artifact.metadata.update({TOOL_CALLS_KEY: kept})
                artifact.extensions.append(A2A_TOOL_CALL_EXTENSION_URI)
            snapshot = Task(
                id=task.id,
                context_id=task.context_id,
                status=TaskStatus(state=TaskState.TASK_STATE_WORKING),
                artifacts=[artifact],
            )
            await event_queue.enqueue_event(snapshot)
        await updater.complete()

    async def _announce(self, updater: TaskUpdater, entries: list[Any]) -> None:
        """Seed 004's tool progress: a working status update per call and per outcome."""
        structured = self.quirks.tool_progress == "structured"
        for entry in entries:
            if not isinstance(entry, dict):
                continue
            name, failed = entry["name"], entry.get("error") is not None
            call = {"name": name, "args": entry.get("arguments") or {}, "id": entry.get("id")}
            result = {"name": name, "status": "error" if failed else "success"}
            icon, outcome = ("❌", "failed") if failed else ("✅", "completed")
            for text, key, value in (
                (f"🔧 Calling tool: **{name}**", "tool_call", call),
                (f"{icon} Tool **{name}** {outcome}", "tool_result", result),
            ):
                message = updater.new_agent_message(
                    [Part(text=text)], metadata={key: value} if structured else None
                )
                await updater.update_status(TaskState.TASK_STATE_WORKING, message=message)

    async def cancel(self, context: RequestContext, event_queue: EventQueue) -> None:
        """Nothing runs long enough to cancel: mark the task cancelled."""
        if context.task_id and context.context_id:
            await TaskUpdater(event_queue, context.task_id, context.context_id).cancel()
