"""The call side of a turn's evidence (SPEC §5): every reader of tool calls yields one piece
type, `CallPiece`, whatever the source.

- a tool span (`tool_spans`: every tool convention), kind `tool_span`;
- an MCP client or server span of a `tools/call`, kind `mcp_span`;
- a model's request for a call (`recover`: output messages of every convention, events,
  log records), kind `model_request`;
- a call a later model input replays in its history (`history`), kind `model_history`.

A piece says what its source knows of the call: id, tool name, arguments, order (the
source span's sort key); a span piece also carries the call it reads (`call`: result,
error, times, span id, provenance) and what it lacks (`needs`: no id, a bare input, empty
arguments or an id no request names). `pairing` turns a turn's pieces and answers into
calls in one step; `audit` lists the pieces that did not become a call.
"""

from __future__ import annotations

from typing import Any

from tracesim.evaluator.calls.canonical import args_equal, canonical_args
from tracesim.evaluator.extract.provenance import MCP_SPAN, REPLAY, REQUEST, TOOL_SPAN
from tracesim.schemas import ToolCall

__all__ = ["MCP_SPAN", "REPLAY", "REQUEST", "TOOL_SPAN", "CallPiece"]


class CallPiece:
    """One piece of evidence of a tool call: its source's id, tool name and arguments.

    Requests and replays compare and hash by (id, name, args_key); `args_key`
    (`canonical_args` of `arguments`) is computed on first use when not given: most
    pieces pair by id or name alone.
    """

    __slots__ = (
        "id",
        "name",
        "_args_key",
        "arguments",
        "order",
        "kind",
        "call",
        "view",
        "bare",
        "needs",
        "alias",
    )

    def __init__(
        self,
        id: str,  # noqa: A002 - the field's name
        name: str,
        args_key: tuple | None = None,
        arguments: dict[str, Any] | None = None,
        order: tuple = (),
        *,
        kind: str = REQUEST,
        call: ToolCall | None = None,
        view: Any = None,
        bare: Any = None,
        needs: bool = False,
    ) -> None:
        self.id = id
        self.name = name
        self._args_key = args_key
        self.arguments: dict[str, Any] = {} if arguments is None else arguments
        self.order = order
        """The source span's sort key (start time, span id): a call answers a request
        made before it."""
        self.kind = kind
        self.call = call
        """A span piece's call as its span reads it (completed by pairing)."""
        self.view = view
        """A span piece's span (`span.SpanView`)."""
        self.bare = bare
        """A span's bare input when it was not an object of arguments, else None."""
        self.needs = needs
        """Whether a span piece lacks what the request it answers holds (id, arguments)."""
        self.alias = ""
        """Another id naming the call: the request's when the span keeps its own, or the
        span's own when it took the request's (tool messages may name either)."""

    @property
    def args_key(self) -> tuple:
        """The arguments' canonical form (`evaluator.calls.canonical`)."""
        key = self._args_key
        if key is None:
            key = self._args_key = canonical_args(self.arguments)
        return key

    def same_arguments(self, arguments: dict[str, Any]) -> bool:
        """Whether `arguments` are canonically equal to the piece's (compared without
        building canonical forms when the key would be derived from `arguments` anyway)."""
        key = self._args_key
        if key is None:
            return args_equal(self.arguments, arguments)
        return key == canonical_args(arguments)

    def _identity(self) -> tuple:
        return (self.id, self.name, self.args_key)

    def __eq__(self, other: object) -> bool:
        if type(other) is not CallPiece:
            return NotImplemented
        return self._identity() == other._identity()

    def __hash__(self) -> int:
        return hash(self._identity())

    def __repr__(self) -> str:
        return (
            f"CallPiece(kind={self.kind!r}, id={self.id!r}, name={self.name!r}, "
            f"arguments={self.arguments!r}, order={self.order!r})"
        )
