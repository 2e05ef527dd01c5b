"""A wrapper's error message over its cause (SPEC §5: each field from the best source):
a failed tool span whose status message is a framework's generic text ('Tool execution
failed') while its `error.type` holds another text, and the answer the next model input
carried for the same call says that other text. Two sources (the span's own attribute and
what the model was told) agree against the status: the cause is the error, from the model
input. One source alone never overrides the status (a framework may tell the model a
generic text while the status holds the cause)."""

from __future__ import annotations

from tracesim.evaluator.extract.pieces import CallPiece
from tracesim.evaluator.extract.provenance import INPUT
from tracesim.evaluator.extract.readers.answers import AnswerHistory
from tracesim.evaluator.extract.readers.envelopes import is_placeholder
from tracesim.schemas import OTEL

__all__ = ["wrapped_candidates", "unwrap_errors"]


def _other_text(piece: CallPiece) -> str | None:
    """The span's `error.type` when it is a text other than the error kept from the
    status message, else None."""
    view = piece.view
    call = piece.call
    if view is None or call.error is None or view.status_code != "ERROR":
        return None
    if not view.status_message:
        return None
    other = view.attributes.get(OTEL.ERROR_TYPE)
    if not isinstance(other, str) or is_placeholder(other):
        return None
    other = other.strip()
    if other == call.error.strip() or other == str(view.status_message).strip():
        return None
    return other


def wrapped_candidates(pieces: list[CallPiece]) -> list[tuple[CallPiece, str]]:
    """The span pieces whose error may be a wrapper's, with the other text."""
    found = []
    for piece in pieces:
        other = _other_text(piece)
        if other is not None and piece.call.id:
            found.append((piece, other))
    return found


def unwrap_errors(candidates: list[tuple[CallPiece, str]], history: AnswerHistory) -> None:
    """Take the other text as the error where the model input's answer for the call (by
    id or alias) says it too, in place."""
    for piece, other in candidates:
        call = piece.call
        answer = history.first.get(call.id)
        if answer is None and piece.alias:
            answer = history.first.get(piece.alias)
        text = answer.text.strip() if answer is not None and answer.text else ""
        if text and (text == other or other in text):
            call.error = other
            provenance = call.provenance if call.provenance is not None else {}
            provenance["error"] = INPUT
            call.provenance = provenance
