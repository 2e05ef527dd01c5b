"""Which model request each tool call answers (SPEC §5): the requests and the pairing.

A tool span that lacks its id (or whose input is a bare value) takes them from the model
request it answers (`recover` reads the requests): a call with an id takes the request of
that id; then calls whose canonical arguments equal an unused request's; then bare inputs
found among a request's argument values; then the rest, each the earliest unused request
of its name. Each requested id is used once.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from tracesim.evaluator.calls.canonical import args_equal, canonical_args
from tracesim.schemas.conventions import LANGCHAIN

__all__ = ["PendingCall", "RequestedCall", "assign_recovered_ids", "assign_requests"]


class RequestedCall:
    """A tool call a model asked for: its id, tool name and canonical arguments.

    Compared and hashed by (id, name, args_key). `args_key` (`canonical_args` of
    `arguments`) is computed on first use when not given: most requests are matched by
    id or name alone. Read-only by convention.
    """

    __slots__ = ("id", "name", "_args_key", "arguments", "order")

    def __init__(
        self,
        id: str,  # noqa: A002 - the field's name
        name: str,
        args_key: tuple | None = None,
        arguments: dict[str, Any] | None = None,
        order: tuple = (),
    ) -> None:
        self.id = id
        self.name = name
        self._args_key = args_key
        self.arguments: dict[str, Any] = {} if arguments is None else arguments
        self.order = order
        """The requesting model span's sort key (start time, span id)."""

    @property
    def args_key(self) -> tuple:
        """The arguments' canonical form (`evaluator.calls.canonical`)."""
        key = self._args_key
        if key is None:
            key = self._args_key = canonical_args(self.arguments)
        return key

    def same_arguments(self, arguments: dict[str, Any]) -> bool:
        """Whether `arguments` are canonically equal to the request's (compared without
        building canonical forms when the key would be derived from `arguments` anyway)."""
        key = self._args_key
        if key is None:
            return args_equal(self.arguments, arguments)
        return key == canonical_args(arguments)

    def _identity(self) -> tuple:
        return (self.id, self.name, self.args_key)

    def __eq__(self, other: object) -> bool:
        if type(other) is not RequestedCall:
            return NotImplemented
        return self._identity() == other._identity()

    def __hash__(self) -> int:
        return hash(self._identity())

    def __repr__(self) -> str:
        return (
            f"RequestedCall(id={self.id!r}, name={self.name!r}, args_key={self.args_key!r}, "
            f"arguments={self.arguments!r}, order={self.order!r})"
        )


@dataclass
class PendingCall:
    """A tool call that lacks its id or its arguments (a bare input), in start order."""

    name: str
    arguments: dict[str, Any]
    call_id: str = ""
    bare: Any = None
    """The bare input when the span's input was not an object of arguments, else None."""
    order: tuple = ()
    """The tool span's sort key: a call answers a request made before it."""
    request_id: str = ""
    """The id of the request the call was paired with when it differs from `call_id` (ids
    rewritten between the model's request and the tool span): tool messages may name it."""


def _named(request: RequestedCall, name: str) -> bool:
    """Whether a request may be a call of `name`: the same name, or any name when the tool
    span is named after a generic LangChain tool class (the request names the tool)."""
    return request.name == name or name in LANGCHAIN.GENERIC_TOOL_CLASSES


def _pick(candidates: list[RequestedCall], order: tuple, *, latest: bool) -> RequestedCall | None:
    if not candidates:
        return None
    with_ids = [r for r in candidates if r.id]
    if with_ids and len(with_ids) < len(candidates):
        # a request with an id is the call's own; an id-less one of the same tool is often
        # a second reporter's copy (OpenLLMetry's agent spans around the provider's)
        candidates = with_ids
    if latest:
        before = [r for r in candidates if r.order and order and r.order <= order]
        if before:
            return max(before, key=lambda r: r.order)
    return candidates[0]


def assign_requests(
    pending: list[PendingCall],
    requested: list[RequestedCall],
    *,
    taken: set[str],
    latest: bool = False,
) -> list[RequestedCall | None]:
    """The request each pending call answers (None where none fits), each used once.

    A call with an id takes the request of that id; then calls whose arguments equal an
    unused request's; then bare inputs found among a request's argument values; then the
    rest, each the earliest unused request of its name (`latest`: the latest one made
    before the call, for requests gathered over a whole conversation).
    """
    used = set(taken)  # request ids handed out (an id names one call)
    gone: set[int] = set()  # requests handed out, by identity (id-less requests too)
    found: list[RequestedCall | None] = [None] * len(pending)

    def free(request: RequestedCall) -> bool:
        return id(request) not in gone and (not request.id or request.id not in used)

    def take(index: int, choice: RequestedCall | None) -> None:
        if choice is not None:
            gone.add(id(choice))
            if choice.id:
                used.add(choice.id)
            found[index] = choice

    for index, call in enumerate(pending):
        if call.call_id:
            take(index, next((r for r in requested if r.id == call.call_id), None))
    # Calls whose id names no request (missing, a placeholder, or the framework's own id:
    # ADK's `adk-...`, rewritten ids) pair by arguments, bare input, then name and position;
    # id-less requests (OpenInference JS, Gemini) pair the same way.
    for index, call in enumerate(pending):
        if found[index] is None and call.bare is None:
            arguments = call.arguments
            fits = [r for r in requested if _named(r, call.name) and free(r)]
            same = [r for r in fits if r.same_arguments(arguments)]
            take(index, _pick(same, call.order, latest=latest))
    for index, call in enumerate(pending):
        if found[index] is None and call.bare is not None:
            fits = [
                r
                for r in requested
                if _named(r, call.name) and free(r) and call.bare in r.arguments.values()
            ]
            take(index, _pick(fits, call.order, latest=latest))
    for index, call in enumerate(pending):
        if found[index] is None:
            fits = [r for r in requested if _named(r, call.name) and free(r)]
            if call.call_id and call.arguments and call.bare is None:
                # a span with its own id and arguments: only a request that has none
                # (equal ones were taken above)
                fits = [r for r in fits if not r.arguments]
            take(index, _pick(fits, call.order, latest=latest))
    return found


def assign_recovered_ids(
    missing: list[tuple[str, dict[str, Any]]],
    requested: list[RequestedCall],
    *,
    taken: set[str],
) -> list[str]:
    """Ids for tool calls lacking one, in order; "" where none fits.

    `missing` holds (name, arguments) of the id-less tool calls of one trace
    in start order, `requested` the trace's requested calls in order, and
    `taken` the ids tool spans already carry (never handed out twice).
    """
    used = set(taken)
    found = [""] * len(missing)
    # First every call whose arguments equal an unused request of its name, so an
    # earlier call that fits no request by arguments cannot take that one...
    for index, (name, arguments) in enumerate(missing):
        key = canonical_args(arguments)
        choice = next(
            (r for r in requested if r.name == name and r.id not in used and r.args_key == key),
            None,
        )
        if choice is not None:
            used.add(choice.id)
            found[index] = choice.id
    # ... then the rest, each the earliest unused request of its name.
    for index, (name, _) in enumerate(missing):
        if found[index]:
            continue
        choice = next((r for r in requested if r.name == name and r.id not in used), None)
        if choice is not None:
            used.add(choice.id)
            found[index] = choice.id
    return found
