"""`tracesim simulate-evaluate CONFIG`: arksim's command name for `tracesim run`."""

from __future__ import annotations

from tracesim.commands.run_alias import run_alias

__all__ = ["command"]

command = run_alias(
    "simulate-evaluate",
    help_text="Simulate, capture and evaluate CONFIG (arksim's `simulate-evaluate` = `tracesim run`).",
)
