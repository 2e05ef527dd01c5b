"""Where today's extraction misses the truth of a recording added by the issue-24 corpus:
(variant, check) -> what is wrong, for the evidence model to fix. `test_replay` expects these
checks to FAIL (strictly: one that starts passing fails, so the list only shrinks).

Checks: tool_calls, model_calls (count and tokens), keyed (conversation), screening (the
per-turn span extraction of `test_extraction_text_screening_changes_no_answer`), explained
(`test_every_piece_of_evidence_is_explained`).
"""

from __future__ import annotations

__all__ = ["CORPUS_GAPS", "HELD_OUT_2_GAPS", "HELD_OUT_3_GAPS", "HELD_OUT_GAPS"]

CORPUS_GAPS: dict[tuple[str, str], str] = {}

HELD_OUT_GAPS: dict[tuple[str, str], str] = {}

HELD_OUT_2_GAPS: dict[tuple[str, str], str] = {}

HELD_OUT_3_GAPS: dict[tuple[str, str], str] = {}

CORPUS_GAPS.update(HELD_OUT_GAPS)
CORPUS_GAPS.update(HELD_OUT_2_GAPS)
CORPUS_GAPS.update(HELD_OUT_3_GAPS)
