"""CPU seconds per MB of redaction on hostile text (dense candidates for every preset).

Run: `python benchmarks/redaction.py`. Each line is one text of ~1 MB redacted by all the
presets at once (the worst case for ingest: every rule on every value), in CPU seconds
(`time.process_time`, so load on the machine matters less than wall time).
"""

from __future__ import annotations

import time

from tracesim.collector.redaction import PRESETS, RedactionRule, Redactor

TEXTS = {
    "1 ": "1 " * 500_000,
    "11 ": "11 " * 333_333,
    "1-": "1-" * 500_000,
    "12 34 567 ": "12 34 567 " * 100_000,
    "4111111111111111 ": "4111111111111111 " * 58_000,
    "1.2.3.4 ": "1.2.3.4 " * 125_000,
    "123-45-6789 ": "123-45-6789 " * 83_000,
    "a@b.cc ": "a@b.cc " * 140_000,
    "+1234567 ": "+1234567 " * 110_000,
    "(1)11 111 ": "(1)11 111 " * 100_000,
    "plain words ": "plain words " * 83_000,
}


def main() -> None:
    """Print CPU s/MB for each text, and the worst."""
    redactor = Redactor([RedactionRule(preset=name) for name in PRESETS])
    worst = 0.0
    for label, text in TEXTS.items():
        started = time.process_time()
        redactor.span({"x": text})
        per_mb = (time.process_time() - started) / len(text) * 1e6
        worst = max(worst, per_mb)
        print(f"redaction {label!r:22} {per_mb:.3f} CPU s/MB")
    print(f"redaction worst: {worst:.3f} CPU s/MB")


if __name__ == "__main__":
    main()
