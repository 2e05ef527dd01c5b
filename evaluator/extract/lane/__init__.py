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
of unambiguous evidence. Most of it calls the general functions themselves (`is_tool_span`,
the field readers, `tool_error`, `request_keys`, `tool_responses`, `split_answer_tool`);
what it mirrors is listed here, and `tests/evaluator/test_lane_equivalence.py` is the guard
(every claimed turn of the conformance corpus, the synthetic turns and a fuzz compared with
`extract_tool_calls`, field by field, with an empty audit). A new reader or pairing rule
must either fall outside the predicate or be mirrored in the lane:
- attribute keys: a claimed tool span carries only `tool_row.SIMPLE_KEYS` (and
  `HARMLESS_PREFIXES`); a rule reading a new key is outside the lane until the key is
  added there (the test checks no extraction module names the context keys);
- `tool_row._plain_arguments` / `_plain_result`: the envelope rules' "no envelope" case;
- `tool_row._converted`: the conventions `SpanView.attributes` rewrites;
- `turn`: nested tool spans (`pairing.nested`), ids no request names (`pairing.turn`),
  id-less spans taking their request's id (`pairing.assign`), the audit (`audit`).
"""

from tracesim.evaluator.extract.lane.turn import lane_calls

__all__ = ["lane_calls"]
