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

In-process agents (`AgentConnector.in_process`) are driven on lanes
(`simulator.lanes`): each worker a thread with its own loop calling the agent
inline, this loop the watchdog that records an agent blocking its lane past
the turn timeout and lets the run go on. Other connectors run on this loop.
"""

from __future__ import annotations

import asyncio
import sys
import time
import uuid
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, Protocol, TypeVar

from opentelemetry import context as otel_context
from opentelemetry import trace
from opentelemetry.context import Context
from opentelemetry.trace import Tracer
from tracesim.schemas.conventions import TRACESIM
from tracesim.schemas.error_source import SOURCE_AGENT, SOURCE_USER, tag_error
from tracesim.schemas.scenario import Scenario
from tracesim.simulator.connectors.base import AgentConnector, TurnContext
from tracesim.simulator.heap import frozen_heap
from tracesim.simulator.ids import new_chat_id
from tracesim.simulator.lane_calls import (
    ProgressQueue,
    close_conversation,
    close_quietly,
    flush_in_process_agent,
    on_users_loop,
)
from tracesim.simulator.lanes import Claim, Lane, LaneAbandoned, drive_on_lanes
from tracesim.simulator.results import ConversationResult, RunResult, TurnResult, describe_error
from tracesim.simulator.routing import inject_headers, with_routing_baggage
from tracesim.simulator.run_spans import emit_conversation_span, end_turn_span
from tracesim.simulator.span_limits import bounded_text
from tracesim.simulator.stubs.context import with_stub_book
from tracesim.simulator.stubs.matching import StubBook
from tracesim.simulator.users.base import Message
from tracesim.simulator.users.factory import UserFactory

__all__ = ["RunObserver", "Runner"]

T = TypeVar("T")



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
        self._post: Callable[..., None] = _call
        """Delivers an observer hook: at once, or queued for the run's loop (lanes)."""
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

        async def drive(index: int, lane: Lane | None = None) -> None:
            scenario, repeat = jobs[index]
            conversation = ConversationResult(
                chat_id="", scenario_id=scenario.scenario_id, conversation_index=repeat
            )
            slots[index] = conversation  # the watchdog may finish it for a blocked lane
            await self._conversation(conversation, scenario, lane)

        try:
            workers = min(self._num_workers, len(jobs)) or 1
            with frozen_heap():
                if jobs and getattr(self._connector_factory(), "in_process", False):
                    await self._run_on_lanes(drive, len(jobs), workers)
                else:
                    next_job = iter(range(len(jobs)))

                    async def worker() -> None:
                        for index in next_job:
                            await drive(index)

                    await asyncio.gather(*(worker() for _ in range(workers)))
        finally:
            run_span.end()
        result = RunResult(run_id=self.run_id)
        result.conversations = [c for c in slots if c is not None]
        result.wall_seconds = time.perf_counter() - started
        return result

    async def _run_on_lanes(
        self, drive: Callable[[int, Lane], Awaitable[None]], jobs: int, workers: int
    ) -> None:
        """In-process agents: each worker is a lane (`simulator.lanes`), this loop the
        watchdog; progress reaches the observer from here, a few times a second."""
        progress = ProgressQueue()
        self._post = progress.post
        try:
            await drive_on_lanes(workers, jobs=jobs, drive=drive, on_tick=progress.deliver)
        finally:
            self._post = _call
            progress.deliver()

    async def _conversation(
        self, conversation: ConversationResult, scenario: Scenario, lane: Lane | None
    ) -> None:
        start_ns = time.time_ns()
        connector = self._connector_factory()
        claim: Claim | None = None

        def end(status: str | None = None, error: str | None = None) -> None:
            """Record the conversation's end (also called by the watchdog for a lane)."""
            if status is not None:
                conversation.status = status  # type: ignore[assignment]
            if error is not None:
                conversation.error = conversation.error or error
            if not conversation.chat_id:
                conversation.chat_id = new_chat_id()
            emit_conversation_span(
                self._tracer,
                conversation,
                run_id=self.run_id,
                agent_type=self._agent_type,
                scenario_json=self._scenario_json[scenario.scenario_id],
                start_ns=start_ns,
            )
            if self._observer is not None:
                self._post(self._observer.on_conversation_end, conversation)

        if lane is not None:
            claim = lane.new_claim()
            lane.on_interrupt = lambda: end("interrupted", _interrupted(conversation))
        user = None
        source = SOURCE_AGENT
        abandoned = False
        try:
            conversation.chat_id = await connector.open()
            source = SOURCE_USER
            user = self._user_factory.create(scenario, conversation_index=conversation.conversation_index)
            await self._turns(conversation, connector, user, scenario, lane=lane, end=end)
        except LaneAbandoned:  # the watchdog recorded this conversation
            abandoned = True
            raise
        except asyncio.CancelledError:  # the run was stopped: never `completed`
            conversation.status = "interrupted"
            conversation.error = conversation.error or _interrupted(conversation)
            raise
        except Exception as exc:  # the agent's open() or the simulated user failed
            conversation.status = "error"
            conversation.error = conversation.error or tag_error(source, describe_error(exc))
        finally:
            if abandoned:
                await close_quietly(connector, user, lane)
            else:
                await close_conversation(conversation, connector, user, lane=lane, end=end)
                if claim is not None:
                    claim.settle()  # LaneAbandoned: the watchdog recorded it meanwhile
                end()
                if lane is not None:
                    lane.claim = lane.on_interrupt = None

    async def _turns(
        self,
        conversation: ConversationResult,
        connector: AgentConnector,
        user: Any,
        scenario: Scenario,
        *,
        lane: Lane | None = None,
        end: Callable[..., None],
    ) -> None:
        history: list[Message] = []
        max_turns = scenario.max_turns or self._max_turns
        book = None if scenario.tool_stubs is None else StubBook.of(scenario.tool_stubs)
        user_lane = None if not getattr(user, "needs_home_loop", True) else lane
        for turn_id in range(max_turns):
            try:
                if user_lane is None:  # the user runs right here
                    message = await user.next_message(tuple(history))
                else:
                    message = await on_users_loop(
                        user, lambda: user.next_message(tuple(history)), user_lane
                    )
            except Exception as exc:  # noqa: BLE001 - the user simulator's failure, not the agent's
                conversation.status = "error"
                conversation.error = tag_error(SOURCE_USER, describe_error(exc))
                return
            if message is None:
                conversation.status = "completed"
                return
            shown = getattr(user, "turn_knowledge", None)  # user.knowledge per turn
            turn = await self._turn(
                connector, conversation, scenario, turn_id, message, history,
                book=book, lane=lane, end=end, knowledge=shown[-1] if shown else None,
            )  # fmt: skip
            if not self._record_turn(conversation, turn):
                return
            history.append({"role": "user", "content": message})
            history.append({"role": "assistant", "content": turn.agent_message})
        conversation.status = "completed" if user.finished() else "max_turns"

    def _record_turn(self, conversation: ConversationResult, turn: TurnResult) -> bool:
        """Add `turn` to its conversation; False when it failed (the conversation ends)."""
        conversation.turns.append(turn)
        if self._observer is not None:
            self._post(self._observer.on_turn_end, conversation, turn)
        if turn.status == "ok":
            return True
        conversation.status = "error"
        conversation.error = tag_error(
            SOURCE_AGENT, f"turn {turn.turn_id} {turn.status}: {turn.error}"
        )
        return False

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
        lane: Lane | None = None,
        end: Callable[..., None] | None = None,
        knowledge: str | None = None,
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
        if knowledge is not None:  # the fact the LLM user was shown (user.knowledge)
            span.set_attribute(TRACESIM.USER_KNOWLEDGE, bounded_text(knowledge))
        turn_ctx = trace.set_span_in_context(span, ctx)
        result = TurnResult(turn_id=turn_id, user_message=message)
        result.trace_id = format(span.get_span_context().trace_id, "032x")
        turn = TurnContext(
            chat_id=chat_id,
            turn_id=turn_id,
            headers=inject_headers(turn_ctx) if connector.sends_headers else {},
            history=tuple(history),
        )
        began = time.perf_counter()

        def stalled() -> None:
            """The watchdog's record of a turn whose agent blocked the lane's loop."""
            error = (
                f"no answer within {self._turn_timeout} s: the agent blocked its event loop "
                "(a blocking call inside async code?); its thread was left behind"
            )
            result.status, result.error = "timeout", error
            result.agent_seconds = time.perf_counter() - began
            span.record_exception(TimeoutError(error))
            end_turn_span(span, result, book=book, stubbed_before=stubbed_before)
            self._record_turn(conversation, result)
            if end is not None:
                end()

        token = otel_context.attach(turn_ctx)
        try:
            if lane is None or lane.claim is None:
                response = await self._bounded(connector.send(message, turn=turn))
            else:  # the lanes' watchdog keeps the deadline: no timer per turn
                response = await lane.watched(
                    self._turn_timeout, stalled, lambda: connector.send(message, turn=turn)
                )
            result.agent_message = response.content
            result.tool_calls = list(response.tool_calls)
        except (asyncio.TimeoutError, TimeoutError) as exc:
            result.status = "timeout"
            result.error = (
                describe_error(exc) if str(exc) else f"no answer within {self._turn_timeout} s"
            )
            span.record_exception(exc)
        except Exception as exc:
            result.status = "timeout" if "timeout" in type(exc).__name__.lower() else "error"
            result.error = describe_error(exc)
            span.record_exception(exc)
        finally:
            result.agent_seconds = time.perf_counter() - began
            otel_context.detach(token)
        if self._flush_agent_spans:
            await flush_in_process_agent(on_lane=lane is not None)
        end_turn_span(span, result, book=book, stubbed_before=stubbed_before)
        return result

    async def _bounded(self, send: Awaitable[T]) -> T:
        """`send` within the turn timeout, in the caller's task (no task per turn on 3.11+)."""
        if self._turn_timeout is None:
            return await send
        if sys.version_info >= (3, 11):
            async with asyncio.timeout(self._turn_timeout):
                return await send
        return await asyncio.wait_for(send, self._turn_timeout)


def _call(hook: Callable[..., None], *args: Any) -> None:
    hook(*args)


def _interrupted(conversation: ConversationResult) -> str:
    return f"interrupted after {conversation.num_turns} turn(s): the run was stopped"
