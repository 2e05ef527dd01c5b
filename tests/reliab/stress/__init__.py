"""Stress runs of attack round 6 that take minutes (not collected by pytest): the native
OTLP reader under ASan/UBSan with random mutations, its RSS over 200k hostile decodes,
and kill -9 of `tracesim collect` while it checkpoints. See README "Reliability"."""
