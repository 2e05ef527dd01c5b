"""Connector for agents speaking A2A (a2a-sdk 1.x client, JSON-RPC or HTTP+JSON).

`open()` resolves the agent card from `api_config.endpoint` (its
`/.well-known/agent-card.json`) and builds an sdk client from it; streaming
is used when the card says `capabilities.streaming`, unless
`api_config.streaming` forces it on or off.

Conversation identity: the chat_id is a fresh uuid4 hex, sent as the
message's `context_id`. If the agent answers with another `context_id`
(servers may assign their own), later turns use the agent's, so the agent
sees one conversation; the chat_id itself never changes. Each turn starts a
new task (a completed task cannot take more messages); the task id is sent
back only when the previous task stopped in `input-required` or
`auth-required`, i.e. is waiting for this message.

Every request carries the config headers (`${ENV}` resolved at `open()`),
the turn's W3C `traceparent`/`baggage`, and `A2A-Extensions:
<tool-call-capture URI>`; the message also lists the URI in
`Message.extensions`. Tool calls come from artifact metadata
(`a2a_capture`). sdk and httpx exceptions become `ConnectorError` in
`_translate_errors`, the one place where that happens.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import httpx
from a2a.client import A2ACardResolver, ClientCallContext, ClientConfig, ClientFactory
from a2a.client.errors import A2AClientTimeoutError, AgentCardResolutionError
from a2a.extensions.common import HTTP_EXTENSION_HEADER
from a2a.types import Message, Part, Role, SendMessageRequest, StreamResponse
from a2a.utils.errors import A2AError
from google.protobuf.json_format import MessageToDict
from tracesim.schemas import A2A_TOOL_CALL_EXTENSION_URI, AgentResponse
from tracesim.schemas.agent_config import A2AAgentConfig, A2AApiConfig
from tracesim.simulator.connectors.a2a_capture import CaptureAccumulator, normalize_struct_numbers
from tracesim.simulator.connectors.base import AgentConnector, ConnectorError, TurnContext
from tracesim.simulator.connectors.headers import merge_headers, substitute_env
from tracesim.simulator.connectors.limits import (
    MAX_RESPONSE_BYTES,
    CappedTransport,
    ResponseTooLarge,
)

__all__ = ["A2AConnector", "apply_event"]

_WAITING_STATES = {"TASK_STATE_INPUT_REQUIRED", "TASK_STATE_AUTH_REQUIRED"}
_FAILED_STATES = {"TASK_STATE_FAILED", "TASK_STATE_REJECTED", "TASK_STATE_CANCELED"}


def apply_event(accumulator: CaptureAccumulator, event: StreamResponse) -> None:
    """Fold one sdk `StreamResponse` into `accumulator` (see a2a_capture for the rules)."""
    kind = event.WhichOneof("payload")
    if kind is None:
        return
    payload = normalize_struct_numbers(MessageToDict(getattr(event, kind)))
    if kind == "task":
        accumulator.on_task(payload)
    elif kind == "artifact_update":
        accumulator.on_artifact_update(payload)
    elif kind == "status_update":
        accumulator.on_status_update(payload)
    elif kind == "message":
        accumulator.on_message(payload)


class A2AConnector(AgentConnector):
    """Drives one conversation against an A2A agent."""

    def __init__(
        self, config: A2AAgentConfig | A2AApiConfig, *, max_response_bytes: int = MAX_RESPONSE_BYTES
    ) -> None:
        self._api = config.api_config if isinstance(config, A2AAgentConfig) else config
        self._max_response_bytes = max_response_bytes
        self._http: httpx.AsyncClient | None = None
        self._client = None
        self._context_id = ""
        self._pending_task_id = ""
        self.streaming: bool | None = None
        """Whether turns are streamed (known after `open()`)."""
        self.card_declares_capture: bool | None = None
        """Whether the agent card lists the tool-call-capture extension (known after `open()`)."""

    async def open(self) -> str:
        """Fetch the agent card, create the sdk client; return a fresh chat_id."""
        headers = substitute_env(self._api.headers)
        self._http = httpx.AsyncClient(
            timeout=self._api.timeout,
            headers=headers,
            transport=CappedTransport(limit=self._max_response_bytes),
        )
        async with self._translate_errors():
            card = await A2ACardResolver(self._http, self._api.endpoint).get_agent_card()
            self.streaming = (
                self._api.streaming
                if self._api.streaming is not None
                else card.capabilities.streaming
            )
            factory = ClientFactory(ClientConfig(streaming=self.streaming, httpx_client=self._http))
            self._client = factory.create(card)
        self.card_declares_capture = any(
            ext.uri == A2A_TOOL_CALL_EXTENSION_URI for ext in card.capabilities.extensions
        )
        self._context_id = uuid.uuid4().hex
        return self._context_id

    async def close(self) -> None:
        """Close the sdk client and its HTTP client. Safe twice, and before `open`."""
        client, self._client = self._client, None
        http, self._http = self._http, None
        if client is not None:
            await client.close()
        if http is not None:
            await http.aclose()

    def build_message(self, user_message: str) -> Message:
        """The user message of one turn (context id, pending task id, extension requested)."""
        message = Message(
            role=Role.ROLE_USER,
            message_id=uuid.uuid4().hex,
            context_id=self._context_id,
            parts=[Part(text=user_message)],
            extensions=[A2A_TOOL_CALL_EXTENSION_URI],
        )
        if self._pending_task_id:
            message.task_id = self._pending_task_id
        return message

    async def send(self, user_message: str, *, turn: TurnContext) -> AgentResponse:
        """Send one message; return the reply text and the captured tool calls."""
        if self._client is None:
            raise ConnectorError("A2AConnector.send() called before open()")
        request = SendMessageRequest(message=self.build_message(user_message))
        headers = merge_headers(turn.headers, {HTTP_EXTENSION_HEADER: A2A_TOOL_CALL_EXTENSION_URI})
        context = ClientCallContext(service_parameters=headers, timeout=self._api.timeout)
        accumulator = CaptureAccumulator()
        async with self._translate_errors():
            await asyncio.wait_for(
                self._receive(request, context, accumulator), timeout=self._api.timeout
            )
        if accumulator.context_id:
            self._context_id = accumulator.context_id
        self._pending_task_id = (
            accumulator.task_id if accumulator.task_state in _WAITING_STATES else ""
        )
        if accumulator.task_state in _FAILED_STATES:
            detail = accumulator.status_text or "no message"
            raise ConnectorError(
                f"A2A agent at {self._api.endpoint} ended the task in state "
                f"{accumulator.task_state}: {detail}"
            )
        return accumulator.response()

    async def _receive(
        self,
        request: SendMessageRequest,
        context: ClientCallContext,
        accumulator: CaptureAccumulator,
    ) -> None:
        assert self._client is not None
        async for event in self._client.send_message(request, context=context):
            apply_event(accumulator, event)

    @asynccontextmanager
    async def _translate_errors(self) -> AsyncIterator[None]:
        """The one place where a2a-sdk and httpx exceptions become ConnectorError."""
        endpoint = self._api.endpoint
        try:
            yield
        except (asyncio.TimeoutError, A2AClientTimeoutError, httpx.TimeoutException):
            raise ConnectorError(
                f"agent did not answer within {self._api.timeout:g} s at {endpoint} "
                "(raise agent_config.api_config.timeout, or check that the agent is not stuck)"
            ) from None
        except ResponseTooLarge as exc:
            raise ConnectorError(f"{exc} (the answer is refused, not truncated)") from None
        except AgentCardResolutionError as exc:
            too_large = _too_large(exc)
            if too_large is not None:
                raise ConnectorError(f"{too_large} (the answer is refused)") from None
            raise ConnectorError(
                f"could not read the A2A agent card from {endpoint}: {exc.message} "
                "(is the agent running, and is the endpoint its base URL?)"
            ) from None
        except A2AError as exc:
            too_large = _too_large(exc)
            if too_large is not None:
                raise ConnectorError(f"{too_large} (the answer is refused)") from None
            raise ConnectorError(f"A2A agent at {endpoint} answered an error: {exc}") from None
        except ValueError as exc:  # ClientFactory.create: no transport in common; malformed answers
            raise ConnectorError(f"cannot talk to the A2A agent at {endpoint}: {exc}") from None
        except httpx.HTTPError as exc:
            raise ConnectorError(
                f"HTTP error talking to the A2A agent at {endpoint}: {exc!r}"
            ) from None


def _too_large(exc: BaseException) -> ResponseTooLarge | None:
    """The size-cap error an sdk exception wraps, if any."""
    seen = 0
    current: BaseException | None = exc
    while current is not None and seen < 10:
        if isinstance(current, ResponseTooLarge):
            return current
        current = current.__cause__ or current.__context__
        seen += 1
    return None
