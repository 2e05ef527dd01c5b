"""The lane: a turn whose tool evidence is unambiguous, read without pairing (SPEC §5, §10).

Most turns are simple: each tool span names its tool, its arguments and its outcome in a
common convention, under an id the model's requests name (or none, the turn's one model
reply requesting the same tools in the same order), no span nested in another, nothing
the audit would list. For those the general evidence model (`extract_tool_calls`: views,
pieces, pairing, audit) gives calls that are the tool spans' own reading, and the lane
builds them directly; every other turn goes through `extract_tool_calls` unchanged.

- `tool_row`: one span row -> its call, read by the general field readers (`readers.fields`,
  `readers.errors`), or why the lane must not claim the turn;
- `turn`: `lane_calls`, the turn predicate ("the general model would produce exactly these
  calls, with an empty audit") and the calls.

The predicate is conservative (in doubt, not claimed) and names no framework: it is a model
of unambiguous evidence. It mirrors the general model's rules; `tests/evaluator/
test_lane_equivalence.py` is the guard (every claimed turn of the conformance corpus, the
synthetic turns and a fuzz compared with `extract_tool_calls`, field by field). A new
reader or pairing rule must either fall outside the predicate (a new attribute key is
outside it: `tool_row.SIMPLE_KEYS` lists the only keys a claimed tool span may carry) or
be mirrored here.
"""

from tracesim.evaluator.extract.lane.turn import lane_calls

__all__ = ["lane_calls"]
