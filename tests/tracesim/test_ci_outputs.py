"""JUnit XML and the GitHub step summary of `tracesim evaluate`, read as CI tools read them."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from click.testing import CliRunner
from tracesim.evaluator.llm.llm_client import LLMUsage

from tests.evaluator.test_pipeline import build_db
from tests.tracesim.test_console_output import _report
from tracesim.ci import ConversationOutcome, FailedCheck, junit_xml
from tracesim.ci.step_summary import step_summary_markdown
from tracesim.cli import cli

_COUNTS = ("tests", "failures", "errors", "skipped")

# Jenkins' junit-10.xsd, as data: allowed / required attributes and child order per element
_ATTRIBUTES = {
    "testsuites": ({"name", "time", "tests", "failures", "disabled", "errors"}, set()),
    "testsuite": (
        {
            "name",
            "tests",
            "failures",
            "errors",
            "time",
            "disabled",
            "skipped",
            "timestamp",
            "hostname",
            "id",
            "package",
        },
        {"name", "tests"},
    ),
    "properties": (set(), set()),
    "property": ({"name", "value"}, {"name", "value"}),
    "testcase": ({"name", "assertions", "time", "classname", "status"}, {"name"}),
    "failure": ({"type", "message"}, set()),
    "error": ({"type", "message"}, set()),
    "skipped": (set(), set()),
    "system-out": (set(), set()),
    "system-err": (set(), set()),
}
_CHILD_ORDER = {
    "testsuites": ["testsuite"],
    "testsuite": ["properties", "testcase", "system-out", "system-err"],
    "properties": ["property"],
    "testcase": ["skipped", "error", "failure", "system-out", "system-err"],
}
_AT_MOST_ONE = {"testsuite": {"properties", "system-out", "system-err"}, "testcase": {"skipped"}}


def _check_schema(element: ET.Element) -> None:
    """`element` and its children follow junit-10.xsd (attributes, required ones, order)."""
    allowed, required = _ATTRIBUTES[element.tag]
    assert set(element.attrib) <= allowed, (element.tag, set(element.attrib) - allowed)
    assert required <= set(element.attrib), (element.tag, required - set(element.attrib))
    order = _CHILD_ORDER.get(element.tag, [])
    positions = [order.index(child.tag) for child in element]  # ValueError: not allowed here
    assert positions == sorted(positions), (element.tag, [c.tag for c in element])
    for tag in _AT_MOST_ONE.get(element.tag, ()):
        assert len(element.findall(tag)) <= 1, (element.tag, tag)
    for child in element:
        _check_schema(child)
    if element.tag in ("skipped", "system-out", "system-err"):
        assert len(element) == 0  # text only


def _check_junit_shape(root: ET.Element) -> None:
    """The structure GitHub, GitLab and Jenkins accept: junit-10.xsd, plus integer counts
    that add up, numeric times, and a message on every failure and error."""
    _check_schema(root)
    assert root.tag == "testsuites"
    totals = dict.fromkeys(_COUNTS, 0)
    for suite in root:
        cases = suite.findall("testcase")
        found = {
            "tests": len(cases),
            "failures": len(suite.findall("testcase/failure")),
            "errors": len(suite.findall("testcase/error")),
            "skipped": len(suite.findall("testcase/skipped")),
        }
        for key in _COUNTS:
            assert int(suite.get(key)) == found[key], key
            totals[key] += found[key]
        float(suite.get("time"))
        assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d", suite.get("timestamp"))
        for case in cases:
            assert case.get("classname")
            float(case.get("time"))
            outcomes = [c for c in case if c.tag in ("failure", "error", "skipped")]
            assert len(outcomes) <= 1
            for child in outcomes:
                assert child.get("message") or child.tag == "skipped"
    for key in ("tests", "failures", "errors"):
        assert int(root.get(key)) == totals[key]


@pytest.mark.parametrize("status", [None, "error"])
def test_evaluate_writes_a_junit_file_ci_tools_accept(tmp_path: Path, status: str | None) -> None:
    db = build_db(tmp_path / "t.duckdb", extra_turn_status=status)
    junit = tmp_path / "ci" / "junit.xml"
    result = CliRunner().invoke(
        cli, ["evaluate", "--db", str(db), "--junit-xml", str(junit), "--no-progress"]
    )
    assert result.exit_code == 0, result.output
    root = ET.parse(junit).getroot()
    _check_junit_shape(root)
    cases = {case.get("name"): case for case in root.iter("testcase")}
    assert set(cases) == {"refund #0", "cancel #0"}
    assert cases["refund #0"].find("failure") is None
    bad = cases["cancel #0"]
    if status == "error":  # the agent's error is an <error>, naming its source and the turn
        (error,) = bad.findall("error")
        assert error.get("message").startswith("agent: turn 0 error")
    else:
        (failure,) = bad.findall("failure")
        assert "check(s) failed" in failure.get("message")
        assert "cancel_order" in failure.text  # the expected call that is missing


def test_junit_xml_escapes_and_drops_what_xml_cannot_hold() -> None:
    outcome = ConversationOutcome(
        chat_id="c",
        scenario_id='a<b>&"c"',
        repetition=2,
        final_score=0.0,
        status="Failed",
        seconds=1.5,
        error=None,
        failed=[FailedCheck("trajectory", 0, "bad \x00\x1b]0; thing", {"missing": ["x()"]})],
    )
    root = ET.fromstring(junit_xml([outcome], eval_id="e"))
    _check_junit_shape(root)
    (case,) = root.iter("testcase")
    assert case.get("name") == 'a<b>&"c" #2'
    assert "bad ]0; thing" in case.find("failure").get("message")


def test_the_step_summary_keeps_table_cells_intact() -> None:
    outcome = ConversationOutcome(
        chat_id="c",
        scenario_id="pipe|s",
        repetition=0,
        final_score=0.0,
        status="Failed",
        seconds=0,
        error=None,
        failed=[FailedCheck("trajectory", 1, "line1\nline2 <b>", {"missing": ["x()"]})],
    )
    report = _report("s")
    report.llm_usage = LLMUsage(enabled=True)
    text = step_summary_markdown(report, [outcome])
    (row,) = [line for line in text.splitlines() if line.startswith("| pipe")]
    assert row.startswith("| pipe\\|s #0 | Failed | ")
    assert "line1 line2 &lt;b&gt;" in row and "expected, not found: x()" in row
    assert "no gates defined: 1 conversation did not pass" in text


def test_a_not_graded_conversation_is_skipped_with_a_reason() -> None:
    outcome = ConversationOutcome(
        chat_id="c",
        scenario_id="s",
        repetition=0,
        final_score=None,
        status="Not graded",
        seconds=0.0,
        error=None,
    )
    root = ET.fromstring(junit_xml([outcome], eval_id="e"))
    _check_junit_shape(root)
    (skipped,) = root.iter("skipped")
    assert skipped.text.startswith("not graded") and root.find("testsuite").get("skipped") == "1"


def test_a_flaky_scenarios_trials_are_suite_properties_and_its_cases_say_so() -> None:
    from tracesim.evaluator.stats import scenario_trials

    outcomes = [
        ConversationOutcome(
            chat_id=f"c{i}",
            scenario_id="refund",
            repetition=i,
            final_score=score,
            status="Done" if score == 1.0 else "Failed",
            seconds=0.1,
            error=None,
        )
        for i, score in enumerate([1.0, 0.0, 1.0])
    ]
    steady = ConversationOutcome(
        chat_id="s0",
        scenario_id="status",
        repetition=0,
        final_score=1.0,
        status="Done",
        seconds=0.1,
        error=None,
    )
    trials = [
        scenario_trials("refund", [True, False, True]),
        scenario_trials("status", [True]),
    ]
    root = ET.fromstring(junit_xml([*outcomes, steady], eval_id="e1", scenarios=trials))
    _check_junit_shape(root)
    suites = {s.get("name"): s for s in root.iter("testsuite")}
    props = {p.get("name"): p.get("value") for p in suites["refund"].iter("property")}
    assert props["trials"] == "3" and props["passed"] == "2" and props["flaky"] == "true"
    assert props["pass_rate"] == "0.6667"
    outs = [  # a passed case says so in its output, a failed one in its failure text
        c.findtext("system-out") or c.findtext("failure") for c in suites["refund"].iter("testcase")
    ]
    assert all("flaky scenario: 2 of 3 trials passed" in text for text in outs)
    steady_props = {p.get("name"): p.get("value") for p in suites["status"].iter("property")}
    assert steady_props["flaky"] == "false"
    assert "flaky" not in suites["status"].find("testcase").findtext("system-out")
