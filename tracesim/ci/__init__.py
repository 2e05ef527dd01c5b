"""CI outputs of an evaluation: JUnit XML (`--junit-xml`) and the GitHub step summary.

`write_ci_outputs` is called by `tracesim run` and `tracesim evaluate` after
the evaluation; a failure here is reported and never changes the exit code
(the scores are stored).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tracesim.ci.failures import failure_lines, first_reason, worst_first
from tracesim.ci.junit import junit_xml, write_junit
from tracesim.ci.outcomes import ConversationOutcome, FailedCheck, load_outcomes
from tracesim.ci.step_summary import step_summary_markdown, write_step_summary
from tracesim.shown import shown

__all__ = [
    "ConversationOutcome",
    "FailedCheck",
    "failure_lines",
    "first_reason",
    "junit_xml",
    "load_outcomes",
    "step_summary_markdown",
    "write_ci_outputs",
    "write_junit",
    "worst_first",
    "write_step_summary",
]


def write_ci_outputs(
    store: Any,
    report: Any,
    *,
    report_path: Path | None,
    junit_path: Path | None,
    console: Any,
    outcomes: list[ConversationOutcome] | None = None,
) -> None:
    """Write the JUnit file (when asked) and the step summary (when in GitHub Actions), from
    `store` (an open `EvalStore` or a `--db` value); `outcomes`: already loaded, else read."""
    import os

    from tracesim.ci.step_summary import STEP_SUMMARY_ENV

    if junit_path is None and not os.environ.get(STEP_SUMMARY_ENV):
        return
    try:
        if outcomes is None:
            outcomes = load_outcomes(store, report.eval_id)
        if junit_path is not None:
            path = write_junit(
                junit_path,
                outcomes,
                eval_id=report.eval_id,
                run_id=report.run_id,
                report=report,
                scenarios=getattr(report, "scenarios", ()),
                comparison=getattr(report, "comparison", None),
            )
            console.print(f"junit:   {shown(path)}", highlight=False, markup=False)
        write_step_summary(report, outcomes, report_path=report_path)
    except Exception as exc:  # noqa: BLE001 - the scores are stored; say what failed
        console.print(
            f"CI output not written: {type(exc).__name__}: {exc}", style="yellow", markup=False
        )
