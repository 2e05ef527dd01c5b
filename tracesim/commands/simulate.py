"""`tracesim simulate CONFIG`: arksim's command name for `tracesim run --capture-only`.

Drives the scenarios and captures the traces without scoring them (score
later with `tracesim evaluate`). Same overrides and exit codes as `run`.
"""

from __future__ import annotations

from tracesim.commands.run_alias import run_alias

__all__ = ["command"]

command = run_alias(
    "simulate",
    help_text="Drive CONFIG's scenarios and capture, without evaluating (arksim's `simulate`).",
    capture_only=True,
)
