"""The pairing step of a turn's evidence (SPEC §5) and its rules: requests to spans, ids,
answers, doubles, nesting, outcomes."""
