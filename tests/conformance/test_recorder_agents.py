"""Every recording can be re-created: its agent (its own or the one named by `agent_from`)
has a script and pinned dependencies, and every recording has a recorder agent."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

AGENTS = Path(__file__).resolve().parent / "record" / "agents"
RECORDINGS = Path(__file__).resolve().parent / "recordings"
VARIANTS = sorted(p.name for p in AGENTS.iterdir() if (p / "expected.json").is_file())


@pytest.mark.parametrize("variant", VARIANTS)
def test_the_agent_of_each_variant_is_complete(variant: str) -> None:
    expected = json.loads((AGENTS / variant / "expected.json").read_text())
    source = AGENTS / (expected.get("agent_from") or variant)
    assert (source / "expected.json").is_file(), f"{variant}: agent_from names no agent"
    if expected.get("language", "python") == "python":
        script = (expected.get("command") or ["agent.py"])[0]
        assert (source / script).is_file() and (source / "requirements.txt").is_file()
    else:
        assert (source / "package.json").is_file()
        assert (source / (expected.get("command") or ["node", "agent.mjs"])[-1]).is_file()


def test_every_recording_has_a_recorder_agent() -> None:
    recorded = {p.name for p in RECORDINGS.iterdir() if (p / "truth.json").is_file()}
    assert recorded <= set(VARIANTS), sorted(recorded - set(VARIANTS))
