"""JUnit XML for CI test reports: one testcase per conversation.

The shape GitHub (test-reporter actions), GitLab (`artifacts:reports:junit`)
and Jenkins (`junit` step) read, valid against Jenkins' `junit-10.xsd`: `<testsuites>` holding one `<testsuite>`
per scenario, each conversation a `<testcase classname="tracesim.<scenario>"
name="<scenario> #<repetition>" time=...>`, with a `<failure>` naming the
failed checks and why (its text: expected vs actual calls), an `<error>`
when the agent raised or timed out, `<skipped>` when nothing was graded.
A scenario run several times carries its trials as suite properties
(`trials`, `passed`, `pass_rate`, `flaky`), and a flaky scenario's testcases
say so (output or failure text): a failure there may be chance, not the change.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections import defaultdict
from collections.abc import Sequence
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from tracesim.ci.outcomes import ConversationOutcome, describe_details

__all__ = ["junit_xml", "write_junit"]


def _clean(text: str) -> str:
    """Text XML 1.0 can hold (control characters dropped)."""
    return "".join(ch for ch in text if ch in "\t\n\r" or ord(ch) >= 0x20)


def _body(outcome: ConversationOutcome) -> str:
    lines = [f"chat_id: {outcome.chat_id}", f"final status: {outcome.status or 'Not graded'}"]
    if outcome.final_score is not None:
        lines[-1] += f" (score {outcome.final_score:.2f})"
    if outcome.error:
        lines.append(f"error: {outcome.error}")
    for check in outcome.failed:
        lines.append(f"{check.where}: {check.reason}")
        lines.extend(f"    {line}" for line in describe_details(check.details))
    return _clean("\n".join(lines))


def _testcase(parent: ET.Element, outcome: ConversationOutcome, suite: str, note: str = "") -> str:
    case = ET.SubElement(
        parent,
        "testcase",
        classname=_clean(f"tracesim.{suite}"),
        name=_clean(outcome.name),
        time=f"{outcome.seconds:.3f}",
    )
    verdict = outcome.verdict
    if verdict in ("failure", "error"):
        node = ET.SubElement(case, verdict, message=_clean(outcome.message()[:1000]))
        node.set("type", "AgentError" if verdict == "error" else "CheckFailed")
        node.text = _body(outcome) + (f"\n{note}" if note else "")
        return verdict
    if verdict == "skipped":  # text, not a `message` attribute: Jenkins' schema has none
        ET.SubElement(case, "skipped").text = "not graded: no check or judge decided it"
    ET.SubElement(case, "system-out").text = _body(outcome) + (f"\n{note}" if note else "")
    return verdict


def _trial_properties(props: ET.Element, trials: Any) -> str:
    """The scenario's trials as suite properties; the note for its testcases ('' if not flaky)."""
    rate = trials.pass_rate
    for key, value in (
        ("trials", trials.trials),
        ("passed", trials.passed),
        ("pass_rate", "" if rate is None else f"{rate:.4f}"),
        ("flaky", "true" if trials.flaky else "false"),
    ):
        ET.SubElement(props, "property", name=key, value=str(value))
    if not trials.flaky:
        return ""
    return (
        f"flaky scenario: {trials.passed} of {trials.trials} trials passed "
        "(the same scenario both passed and failed)"
    )


def junit_xml(
    outcomes: list[ConversationOutcome],
    *,
    eval_id: str,
    run_id: str | None = None,
    scenarios: Sequence[Any] = (),
) -> bytes:
    """The JUnit XML document of `outcomes` (UTF-8 bytes with an XML declaration);
    `scenarios`: the evaluation's `ScenarioTrials` (trials and flakiness per suite)."""
    trials_of = {t.scenario_id: t for t in scenarios}
    by_suite: dict[str, list[ConversationOutcome]] = defaultdict(list)
    for outcome in outcomes:
        by_suite[outcome.scenario_id or "traces"].append(outcome)
    root = ET.Element("testsuites", name="tracesim")
    totals: dict[str, Any] = defaultdict(int)
    # ISO 8601 without an offset (UTC), the form Jenkins' and Ant's schemas accept
    stamp = datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S")
    for suite_name, items in by_suite.items():
        suite = ET.SubElement(root, "testsuite", name=_clean(suite_name), timestamp=stamp)
        props = ET.SubElement(suite, "properties")
        for key, value in (("eval_id", eval_id), ("run_id", run_id)):
            if value:
                ET.SubElement(props, "property", name=key, value=_clean(value))
        trials = trials_of.get(suite_name)
        note = _trial_properties(props, trials) if trials is not None else ""
        counts: dict[str, int] = defaultdict(int)
        for outcome in items:
            counts[_testcase(suite, outcome, suite_name, note)] += 1
        seconds = sum(o.seconds for o in items)
        suite.set("tests", str(len(items)))
        suite.set("failures", str(counts["failure"]))
        suite.set("errors", str(counts["error"]))
        suite.set("skipped", str(counts["skipped"]))
        suite.set("time", f"{seconds:.3f}")
        for key in ("failure", "error", "skipped"):
            totals[key] += counts[key]
        totals["tests"] += len(items)
        totals["time"] += seconds
    root.set("tests", str(totals["tests"]))
    root.set("failures", str(totals["failure"]))
    root.set("errors", str(totals["error"]))
    root.set("time", f"{totals['time']:.3f}")  # no `skipped` here: the suites carry it
    ET.indent(root)
    return ET.tostring(root, encoding="utf-8", xml_declaration=True) + b"\n"


def write_junit(
    path: str | Path,
    outcomes: list[ConversationOutcome],
    *,
    eval_id: str,
    run_id: str | None = None,
    scenarios: Sequence[Any] = (),
) -> Path:
    """Write the JUnit XML file (its folder is created) and return its path."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(junit_xml(outcomes, eval_id=eval_id, run_id=run_id, scenarios=scenarios))
    return path
