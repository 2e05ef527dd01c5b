"""Which model request each tool span answers (SPEC §5), for `pairing`.

A tool span that lacks its id (or whose input is a bare value, or whose id no request
names) takes them from the model request it answers (`recover` reads the requests): a
span with an id takes the request of that id; then spans whose canonical arguments equal
an unused request's; then bare inputs found among a request's argument values; then the
rest, each the earliest unused request of its name. Each requested id is used once.
"""

from __future__ import annotations

from tracesim.evaluator.extract.pieces import CallPiece
from tracesim.schemas.conventions import LANGCHAIN

__all__ = ["assign_requests"]


def _named(request: CallPiece, name: str) -> bool:
    """Whether a request may be a call of `name`: the same name, or any name when the tool
    span is named after a generic LangChain tool class (the request names the tool)."""
    return request.name == name or name in LANGCHAIN.GENERIC_TOOL_CLASSES


def _pick(candidates: list[CallPiece], order: tuple, *, latest: bool) -> CallPiece | None:
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
    pending: list[CallPiece],
    requested: list[CallPiece],
    *,
    taken: set[str],
    latest: bool = False,
    agreed: set[int] | None = None,
) -> list[CallPiece | None]:
    """The request each span piece of `pending` answers (None where none fits), each used
    once.

    A span with an id takes the request of that id; then spans whose arguments equal an
    unused request's; then bare inputs found among a request's argument values; then the
    rest, each the earliest unused request of its name (`latest`: the latest one made
    before the call, for requests gathered over a whole conversation). A span under an id
    no request names that has arguments takes only a request of the same arguments or of
    none. `agreed` receives the indexes paired on equal arguments (no conflict to look
    for).
    """
    used = set(taken)  # request ids handed out (an id names one call)
    gone: set[int] = set()  # requests handed out, by identity (id-less requests too)
    found: list[CallPiece | None] = [None] * len(pending)

    def free(request: CallPiece) -> bool:
        return id(request) not in gone and (not request.id or request.id not in used)

    def take(index: int, choice: CallPiece | None) -> None:
        if choice is not None:
            gone.add(id(choice))
            if choice.id:
                used.add(choice.id)
            found[index] = choice

    for index, call in enumerate(pending):
        if call.id:
            take(index, next((r for r in requested if r.id == call.id), None))
    # Calls whose id names no request (missing, a placeholder, or the framework's own id:
    # ADK's `adk-...`, rewritten ids) pair by arguments, bare input, then name and position;
    # id-less requests (OpenInference JS, Gemini) pair the same way.
    for index, call in enumerate(pending):
        if found[index] is None and call.bare is None:
            arguments = call.arguments
            fits = [r for r in requested if _named(r, call.name) and free(r)]
            same = [r for r in fits if r.same_arguments(arguments)]
            take(index, _pick(same, call.order, latest=latest))
            if agreed is not None and found[index] is not None:
                agreed.add(index)
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
            if call.id and call.arguments and call.bare is None:
                # a span with its own id and arguments: only a request that has none
                # (equal ones were taken above)
                fits = [r for r in fits if not r.arguments]
            take(index, _pick(fits, call.order, latest=latest))
    return found
