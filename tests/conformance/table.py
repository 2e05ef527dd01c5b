"""Print the conformance tables: the frameworks and versions verified (README), and what
tracesim found of each recording (replayed over gRPC).

    .venv/bin/python -m tests.conformance.table [--results]
"""

from __future__ import annotations

import argparse
import logging
import tempfile
from pathlib import Path

from tests.conformance.replay import discover, load, replay

__all__ = ["main"]

_MAIN_PACKAGES = 3


def _versions(truth: dict) -> str:
    items = [f"{name} {version}" for name, version in truth.get("versions", {}).items()]
    return ", ".join(items[:_MAIN_PACKAGES])


def _fields_right(truth: dict, found: list[dict]) -> str:
    gaps = set(truth.get("expected_gaps") or ())
    right = total = 0
    for want, got in zip(truth["tool_calls"], found, strict=False):
        for field in ("arguments", "result", "error", "id"):
            if field in gaps or (field == "id" and want.get("id") is None):
                continue
            if field == "result" and "error" in gaps and want["error"] is not None:
                continue
            total += 1
            right += want[field] == got[field]
    missing = len(truth["tool_calls"]) - min(len(found), len(truth["tool_calls"]))
    return f"{right}/{total + 4 * missing}" + (
        f" (gaps: {', '.join(sorted(gaps))})" if gaps else ""
    )


def main() -> None:
    """Print the tables as Markdown."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--results", action="store_true", help="replay and print results too")
    args = parser.parse_args()
    logging.disable(logging.WARNING)
    recordings = [load(path) for path in discover()]
    print("| framework | variant | language | versions |")
    print("|---|---|---|---|")
    for rec in recordings:
        t = rec.truth
        print(f"| {t['framework']} | `{rec.variant}` | {t['language']} | {_versions(t)} |")
    if not args.results:
        return
    print()
    print("| variant | tool calls expected / found | fields right | tokens right | keyed |")
    print("|---|---|---|---|---|")
    workdir = Path(tempfile.mkdtemp())
    for rec in recordings:
        t = rec.truth
        out = replay(rec, transport="grpc", workdir=workdir)
        tokens = (
            "n/a (no usage emitted)"
            if t.get("input_tokens") is None
            else str(
                (out.model_calls, out.input_tokens, out.output_tokens)
                == (t["model_calls"], t["input_tokens"], t["output_tokens"])
            )
        )
        conversation = t.get("conversation_id")
        chats = {c["chat_id"] for c in out.tool_calls}
        keyed = (
            chats <= {conversation} and not out.inspection.unkeyed
            if conversation is not None
            else all(chats)
        )
        print(
            f"| `{rec.variant}` | {len(t['tool_calls'])} / {len(out.tool_calls)} | "
            f"{_fields_right(t, out.tool_calls)} | {tokens} | "
            f"{'yes' if keyed else 'NO'}{'' if conversation else ' (per trace)'} |"
        )


if __name__ == "__main__":
    main()
