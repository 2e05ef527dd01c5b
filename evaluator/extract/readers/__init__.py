"""Readers of one kind of tool evidence each (SPEC §5): tool span fields, envelopes,
errors, answers in model inputs, replayed history, and framework-specific shapes."""
