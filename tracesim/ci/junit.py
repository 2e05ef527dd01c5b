"""JUnit XML for CI test reports: one testcase per conversation.

The shape GitHub (test-reporter actions), GitLab (`artifacts:reports:junit`)
and Jenkins (`junit` step) read, valid against Jenkins' `junit-10.xsd`: `<testsuites>` holding one `<testsuite>`
per scenario, each conversation a `<testcase classname="tracesim.<scenario>"
name="<scenario> #<repetition>" time=...>`, with a `<failure>` naming the
failed checks and why (its text: expected vs actual calls), an `<error>`
when the conversation could not be graded (an errored or timed-out turn, a
failing simulated user, an interrupted run; its message names the source),
`<skipped>` when nothing was graded. A suite `tracesim gates` holds one
testcase per gate and, when the evaluation cannot pass without a failed gate
(exit code 3: nothing graded, interrupted), a testcase `verdict` with an
`<error>` carrying the terminal's verdict line: a CI test report never shows
green where the terminal does not. A scenario run several times carries its
trials as suite properties (`trials`, `passed`, `pass_rate`, `flaky`), and a
flaky scenario's testcases say so (output or failure text): a failure there may be
chance, not the change.
Compared with a baseline, each scenario in both gets a testcase `<scenario> vs
baseline`, failed when the scenario regressed.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections import defaultdict
from collections.abc import Sequence
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from tracesim.ci.outcomes import ConversationOutcome, describe_details

__all__ = ["GATES_SUITE", "junit_xml", "write_junit"]


def _clean(text: str) -> str:
    """Text XML 1.0 can hold (control characters dropped)."""
    return "".join(ch for ch in text if ch in "\t\n\r" or ord(ch) >= 0x20)


def _body(outcome: ConversationOutcome) -> str:
    lines = [f"chat_id: {outcome.chat_id}", f"final status: {outcome.status or 'Not graded'}"]
    if outcome.final_score is not None:
        lines[-1] += f" (score {outcome.final_score:.2f})"
    if outcome.error:
        lines.append(f"error ({outcome.error_source or 'agent'}): {outcome.error}")
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


GATES_SUITE = "tracesim gates"


def _gate_cases(parent: ET.Element, report: Any) -> dict[str, int]:
    """One testcase per gate, and `verdict` when the evaluation cannot pass (exit 3)."""
    counts: dict[str, int] = defaultdict(int)
    for gate in report.gates:
        word = ">=" if gate.bound == "min" else "<="
        case = ET.SubElement(
            parent,
            "testcase",
            classname="tracesim.gates",
            name=_clean(f"{gate.metric} {word} {gate.threshold:g} ({gate.scope})"),
            time="0.000",
        )
        if gate.passed is False:
            node = ET.SubElement(case, "failure", message=_clean(gate.reason[:1000]))
            node.set("type", "GateFailed")
            counts["failure"] += 1
        elif gate.passed is None:
            ET.SubElement(case, "skipped").text = _clean(gate.reason)
            counts["skipped"] += 1
        counts["tests"] += 1
    verdict = getattr(report, "verdict", "") or ""
    if report.exit_code not in (0, 1) and verdict:
        case = ET.SubElement(
            parent, "testcase", classname="tracesim.gates", name="verdict", time="0.000"
        )
        node = ET.SubElement(case, "error", message=_clean(verdict[:1000]))
        node.set("type", "NotGraded")
        node.text = _clean(f"{verdict}\nexit code {report.exit_code}")
        counts["error"] += 1
        counts["tests"] += 1
    return counts


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


def _baseline_case(parent: ET.Element, row: dict[str, Any], suite: str, alpha: Any) -> str:
    """One testcase `<scenario> vs baseline`: a failure when the scenario regressed."""
    case = ET.SubElement(
        parent,
        "testcase",
        classname=_clean(f"tracesim.{suite}"),
        name=_clean(f"{suite} vs baseline"),
        time="0.000",
    )
    b, c = row["baseline"], row["candidate"]
    p = row.get("p_value")
    text = _clean(
        f"{row['verdict']}: {b['passed']}/{b['trials']} -> {c['passed']}/{c['trials']} trials "
        f"passed (Fisher's exact test, two-sided, p = {'-' if p is None else f'{p:.3g}'}, "
        f"alpha {alpha})"
    )
    if row["verdict"] == "regressed":
        node = ET.SubElement(case, "failure", message=text)
        node.set("type", "Regression")
        node.text = text
        return "failure"
    ET.SubElement(case, "system-out").text = text
    return "passed"


def junit_xml(
    outcomes: list[ConversationOutcome],
    *,
    eval_id: str,
    run_id: str | None = None,
    scenarios: Sequence[Any] = (),
    report: Any = None,
    comparison: dict[str, Any] | None = None,
) -> bytes:
    """The JUnit XML document of `outcomes` (UTF-8 bytes with an XML declaration);
    `scenarios`: the evaluation's `ScenarioTrials` (trials and flakiness per suite);
    `report`: the evaluator's EvaluationReport, for the gates and the verdict;
    `comparison`: the comparison with a baseline (default: the report's), a `<scenario>
    vs baseline` testcase per scenario compared, failed when it regressed."""
    if comparison is None and report is not None:
        comparison = getattr(report, "comparison", None)
    trials_of = {t.scenario_id: t for t in scenarios}
    compared = {row["scenario_id"]: row for row in (comparison or {}).get("scenarios", [])}
    alpha = (comparison or {}).get("alpha", 0.05)
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
        tests = len(items)
        if suite_name in compared:
            counts[_baseline_case(suite, compared[suite_name], suite_name, alpha)] += 1
            tests += 1
        seconds = sum(o.seconds for o in items)
        suite.set("tests", str(tests))
        suite.set("failures", str(counts["failure"]))
        suite.set("errors", str(counts["error"]))
        suite.set("skipped", str(counts["skipped"]))
        suite.set("time", f"{seconds:.3f}")
        for key in ("failure", "error", "skipped"):
            totals[key] += counts[key]
        totals["tests"] += tests
        totals["time"] += seconds
    if report is not None and (report.gates or report.exit_code not in (0, 1)):
        suite = ET.SubElement(root, "testsuite", name=GATES_SUITE, timestamp=stamp)
        counts = _gate_cases(suite, report)
        suite.set("tests", str(counts["tests"]))
        for key, attr in (("failure", "failures"), ("error", "errors"), ("skipped", "skipped")):
            suite.set(attr, str(counts[key]))
            if key != "skipped":
                totals[key] += counts[key]
        suite.set("time", "0.000")
        totals["tests"] += counts["tests"]
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
    report: Any = None,
    comparison: dict[str, Any] | None = None,
) -> Path:
    """Write the JUnit XML file (its folder is created) and return its path."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(
        junit_xml(
            outcomes,
            eval_id=eval_id,
            run_id=run_id,
            scenarios=scenarios,
            report=report,
            comparison=comparison,
        )
    )
    return path
