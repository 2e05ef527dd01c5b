"""Replay recordings and print each one's per-check result, for the held-out tables
(`README.md`, "Held-out results"): tool_calls, model_calls, keyed and explained as
`test_replay` checks them, and what `inspect` warned about.

    .venv/bin/python -m tests.conformance.heldout VARIANT [VARIANT ...]

To replay this corpus on other code (a checkout from before a round's fixes), run this file
by its path from that checkout, with its venv: `PYTHONPATH=. .venv/bin/python
/path/to/tests/conformance/heldout.py VARIANT`; the recordings are read from beside this
file (`TRACESIM_RECORDINGS` names another folder).
"""

from __future__ import annotations

import argparse
import logging
import os
import tempfile
from pathlib import Path

from tests.conformance import test_replay
from tests.conformance.replay import load, replay

__all__ = ["main"]

_CHECKS = (
    ("tool_calls", test_replay._check_tool_calls),  # noqa: SLF001 - the replay test's checks
    ("model_calls", test_replay._check_model_calls),  # noqa: SLF001
    ("keyed", test_replay._check_keyed),  # noqa: SLF001
)


def main() -> None:
    """Print one line per variant: each check ok / FAIL, and the warned counts."""
    from tracesim.evaluator.extract.audit import WARNED_KINDS

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("variants", nargs="+")
    args = parser.parse_args()
    logging.disable(logging.WARNING)
    default = Path(__file__).resolve().parent / "recordings"
    root = Path(os.environ.get("TRACESIM_RECORDINGS") or default)
    for variant in args.variants:
        recording = load(root / variant)
        with tempfile.TemporaryDirectory() as tmp:
            outcome = replay(recording, transport="grpc", workdir=Path(tmp))
        results = {}
        for name, check in _CHECKS:
            try:
                check(recording, outcome)
                results[name] = "ok"
            except AssertionError:
                results[name] = "FAIL"
        warned: dict[str, int] = {}
        for item in outcome.inspection.unexplained:
            if item.kind in WARNED_KINDS:
                warned[item.kind] = warned.get(item.kind, 0) + 1
        expected = recording.truth.get("expected_unexplained") or {}
        results["explained"] = "ok" if warned == expected else "FAIL"
        checks = " ".join(f"{k}={v}" for k, v in results.items())
        print(f"{variant}: {checks} warned={warned or '-'}", flush=True)


if __name__ == "__main__":
    main()
