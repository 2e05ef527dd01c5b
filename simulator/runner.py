"""Drive conversations against the agent and record each turn as a span (SPEC §3).

Each turn is a new trace rooted at a `tracesim.turn` span; the agent is
called inside it with the routing context active (OTel context + baggage
for in-process agents, `traceparent`/`baggage` headers in `TurnContext`
for HTTP agents). A `tracesim.conversation` span (its own trace) closes
each conversation and a `tracesim.run` span covers the run. The runner
writes nothing else: the spans go through the tracer's exporter to the
collector.

Failure policy: an agent that raises or times out on a turn gets that turn
recorded (`error` / `timeout`, exception type and message) and ENDS ITS
CONVERSATION (status `error`): the agent's state after a failure is
unknown, so later turns would test nothing meaningful. Every other
conversation runs on. A failing simulated user also ends only its own
conversation. A conversation's error names its source (`schemas.error_source`:
the agent, the simulated user's LLM, tracesim). A run stopped (Ctrl-C, a
cancelled task) records every unfinished conversation as `interrupted`.
"""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import Callable, Sequence
from typing import Any, Protocol

from opentelemetry import context as otel_context
from opentelemetry import trace
from opentelemetry.context import Context
from opentelemetry.sdk.trace import TracerProvider as SDKTracerProvider
from opentelemetry.trace import Status, StatusCode, Tracer
from tracesim.schemas.conventions import TRACESIM
from tracesim.schemas.error_source import SOURCE_AGENT, SOURCE_USER, tag_error
from tracesim.schemas.scenario import Scenario
from tracesim.simulator.connectors.base import AgentConnector, TurnContext
from tracesim.simulator.results import ConversationResult, RunResult, TurnResult
from tracesim.simulator.routing import inject_headers, with_routing_baggage
from tracesim.simulator.span_limits import bounded_json, bounded_text
from tracesim.simulator.stubs.context import with_stub_book
from tracesim.simulator.stubs.matching import StubBook
from tracesim.simulator.users.base import Message
from tracesim.simulator.users.factory import UserFactory

__all__ = ["RunObserver", "Runner"]


class RunObserver(Protocol):
    """Progress hooks (called on the event loop; must be quick)."""

    def on_turn_end(self, conversation: ConversationResult, turn: TurnResult) -> None: ...

    def on_conversation_end(self, conversation: ConversationResult) -> None: ...


class Runner:
    """Runs every scenario `num_conversations_per_scenario` times, `num_workers` at a time."""

    def __init__(
        self,
        *,
        tracer: Tracer,
        connector_factory: Callable[[], AgentConnector],
        user_factory: UserFactory,
        scenarios: Sequence[Scenario],
        run_id: str | None = None,
        agent_type: str = "custom",
        max_turns: int = 5,
        num_conversations_per_scenario: int = 1,
        num_workers: int = 4,
        turn_timeout: float | None = None,
        run_config_json: str | None = None,
        flush_agent_spans: bool = True,
        observer: RunObserver | None = None,
    ) -> None:
        self._tracer = tracer
        self._connector_factory = connector_factory
        self._user_factory = user_factory
        self._scenarios = list(scenarios)
        self.run_id = run_id or uuid.uuid4().hex
        self._agent_type = agent_type
        self._max_turns = max_turns
        self._repeats = num_conversations_per_scenario
        self._num_workers = num_workers
        self._turn_timeout = turn_timeout
        self._run_config_json = run_config_json
        self._flush_agent_spans = flush_agent_spans
        self._observer = observer
        self._scenario_json = {
            s.scenario_id: s.model_dump_json(exclude_none=True) for s in self._scenarios
        }

    @property
    def total_conversations(self) -> int:
        """How many conversations `run` will drive."""
        return sum(s.repeats or self._repeats for s in self._scenarios)

    async def run(self) -> RunResult:
        """Drive all conversations; never raises for an agent's or user's failure."""
        jobs = [(s, i) for s in self._scenarios for i in range(s.repeats or self._repeats)]
        slots: list[ConversationResult | None] = [None] * len(jobs)
        started = time.perf_counter()
        run_span = self._tracer.start_span(
            TRACESIM.RUN_SPAN,
            context=Context(),
            attributes={
                TRACESIM.RUN_ID: self.run_id,
                TRACESIM.AGENT_TYPE: self._agent_type,
                **({TRACESIM.RUN_CONFIG: self._run_config_json} if self._run_config_json else {}),
            },
        )
        next_job = iter(range(len(jobs)))

        async def worker() -> None:
            for index in next_job:
                scenario, repeat = jobs[index]
                slots[index] = await self._conversation(scenario, repeat)

        try:
            workers = min(self._num_workers, len(jobs)) or 1
            await asyncio.gather(*(worker() for _ in range(workers)))
        finally:
            run_span.end()
        result = RunResult(run_id=self.run_id)
        result.conversations = [c for c in slots if c is not None]
        result.wall_seconds = time.perf_counter() - started
        return result

    async def _conversation(self, scenario: Scenario, repeat: int) -> ConversationResult:
        start_ns = time.time_ns()
        connector = self._connector_factory()
        conversation = ConversationResult(
            chat_id="", scenario_id=scenario.scenario_id, conversation_index=repeat
        )
        user = None
        source = SOURCE_AGENT
        try:
            conversation.chat_id = await connector.open()
            source = SOURCE_USER
            user = self._user_factory.create(scenario, conversation_index=repeat)
            await self._turns(conversation, connector, user, scenario)
        except asyncio.CancelledError:  # the run was stopped: never `completed`
            conversation.status = "interrupted"
            conversation.error = conversation.error or (
                f"interrupted after {conversation.num_turns} turn(s): the run was stopped"
            )
            raise
        except Exception as exc:  # the agent's open() or the simulated user failed
            conversation.status = "error"
            conversation.error = conversation.error or tag_error(source, _describe(exc))
        finally:
            if not conversation.chat_id:
                conversation.chat_id = uuid.uuid4().hex
            for closer in (connector.close, getattr(user, "close", None)):
                if closer is None:
                    continue
                try:
                    await closer()
                except Exception as exc:  # a failing close is recorded, never fatal
                    conversation.error = conversation.error or f"close: {_describe(exc)}"
            self._emit_conversation(conversation, scenario, start_ns)
            if self._observer is not None:
                self._observer.on_conversation_end(conversation)
        return conversation

    async def _turns(
        self,
        conversation: ConversationResult,
        connector: AgentConnector,
        user: Any,
        scenario: Scenario,
    ) -> None:
        history: list[Message] = []
        max_turns = scenario.max_turns or self._max_turns
        book = None if scenario.tool_stubs is None else StubBook.of(scenario.tool_stubs)
        for turn_id in range(max_turns):
            try:
                message = await user.next_message(tuple(history))
            except Exception as exc:  # noqa: BLE001 - the user simulator's failure, not the agent's
                conversation.status = "error"
                conversation.error = tag_error(SOURCE_USER, _describe(exc))
                return
            if message is None:
                conversation.status = "completed"
                return
            turn = await self._turn(
                connector, conversation, scenario, turn_id, message, history, book=book
            )
            conversation.turns.append(turn)
            if self._observer is not None:
                self._observer.on_turn_end(conversation, turn)
            if turn.status != "ok":
                conversation.status = "error"
                conversation.error = tag_error(
                    SOURCE_AGENT, f"turn {turn_id} {turn.status}: {turn.error}"
                )
                return
            history.append({"role": "user", "content": message})
            history.append({"role": "assistant", "content": turn.agent_message})
        conversation.status = "completed" if user.finished() else "max_turns"

    async def _turn(
        self,
        connector: AgentConnector,
        conversation: ConversationResult,
        scenario: Scenario,
        turn_id: int,
        message: str,
        history: list[Message],
        *,
        book: StubBook | None = None,
    ) -> TurnResult:
        chat_id = conversation.chat_id
        # A fresh Context: every turn is the root of its own trace.
        ctx = with_routing_baggage(
            Context(),
            chat_id=chat_id,
            turn_id=turn_id,
            run_id=self.run_id,
            scenario_id=scenario.scenario_id,
        )
        ctx = with_stub_book(ctx, book)
        stubbed_before = len(book.calls) if book is not None else 0
        span = self._tracer.start_span(
            TRACESIM.TURN_SPAN,
            context=ctx,
            attributes={
                TRACESIM.CHAT_ID: chat_id,
                TRACESIM.TURN_ID: turn_id,
                TRACESIM.RUN_ID: self.run_id,
                TRACESIM.SCENARIO_ID: scenario.scenario_id,
                TRACESIM.USER_MESSAGE: bounded_text(message),
            },
        )
        turn_ctx = trace.set_span_in_context(span, ctx)
        result = TurnResult(turn_id=turn_id, user_message=message)
        result.trace_id = format(span.get_span_context().trace_id, "032x")
        turn = TurnContext(
            chat_id=chat_id,
            turn_id=turn_id,
            headers=inject_headers(turn_ctx),
            history=tuple(history),
        )
        token = otel_context.attach(turn_ctx)
        began = time.perf_counter()
        try:
            send = connector.send(message, turn=turn)
            if self._turn_timeout is None:
                response = await send
            else:
                response = await asyncio.wait_for(send, self._turn_timeout)
            result.agent_message = response.content
            result.tool_calls = list(response.tool_calls)
        except (asyncio.TimeoutError, TimeoutError) as exc:
            result.status = "timeout"
            result.error = (
                _describe(exc) if str(exc) else f"no answer within {self._turn_timeout} s"
            )
            span.record_exception(exc)
        except Exception as exc:
            result.status = "timeout" if "timeout" in type(exc).__name__.lower() else "error"
            result.error = _describe(exc)
            span.record_exception(exc)
        finally:
            result.agent_seconds = time.perf_counter() - began
            otel_context.detach(token)
        if self._flush_agent_spans:
            await _flush_in_process_agent()
        # bounded so the turn span always fits the collector's request limit
        span.set_attribute(TRACESIM.AGENT_MESSAGE, bounded_text(result.agent_message))
        span.set_attribute(
            TRACESIM.EXPLICIT_TOOL_CALLS,
            bounded_json([c.model_dump(mode="json", exclude_none=True) for c in result.tool_calls]),
        )
        span.set_attribute(TRACESIM.TURN_STATUS, result.status)
        if book is not None:
            _record_stubs(span, book.calls[stubbed_before:])
        if result.error is not None:
            error = bounded_text(result.error)
            span.set_attribute(TRACESIM.ERROR, error)
            span.set_status(Status(StatusCode.ERROR, error))
        span.end()
        return result

    def _emit_conversation(
        self, conversation: ConversationResult, scenario: Scenario, start_ns: int
    ) -> None:
        attributes: dict[str, Any] = {
            TRACESIM.CHAT_ID: conversation.chat_id,
            TRACESIM.RUN_ID: self.run_id,
            TRACESIM.SCENARIO_ID: scenario.scenario_id,
            TRACESIM.CONVERSATION_INDEX: conversation.conversation_index,
            TRACESIM.AGENT_TYPE: self._agent_type,
            TRACESIM.NUM_TURNS: conversation.num_turns,
            TRACESIM.CONVERSATION_STATUS: conversation.status,
            TRACESIM.SCENARIO: self._scenario_json[scenario.scenario_id],
        }
        if conversation.error is not None:
            attributes[TRACESIM.ERROR] = conversation.error
        span = self._tracer.start_span(
            TRACESIM.CONVERSATION_SPAN,
            context=Context(),
            attributes=attributes,
            start_time=start_ns,
        )
        if conversation.status == "error":
            span.set_status(Status(StatusCode.ERROR, conversation.error or "error"))
        span.end()


def _record_stubs(span: Any, answers: Sequence[Any]) -> None:
    """Say on the turn span how many calls stubs answered and which no stub matched."""
    span.set_attribute(TRACESIM.STUBBED_CALLS, sum(a.stubbed for a in answers))
    missing = [{"name": a.name, "arguments": dict(a.arguments)} for a in answers if not a.stubbed]
    if missing:
        span.set_attribute(TRACESIM.UNSTUBBED_CALLS, bounded_json(missing))


async def _flush_in_process_agent() -> None:
    """Flush the global SDK provider (where `instrument()` put the agent's exporter).

    Runs in a thread so a slow exporter never blocks the other conversations.
    Skipped when the global provider is not an SDK provider (nothing to flush).
    The simulator's own provider is never the global one.
    """
    provider = trace.get_tracer_provider()
    if isinstance(provider, SDKTracerProvider):
        await asyncio.to_thread(provider.force_flush)


def _describe(exc: BaseException) -> str:
    text = str(exc)
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__
