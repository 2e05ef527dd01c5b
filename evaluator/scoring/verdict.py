"""The verdict of an evaluation: one exit code and one line, the same in every output.

The terminal, `results.json`, the JUnit file and the GitHub step summary all
print `Verdict.headline` and exit with `Verdict.exit_code`, decided here in
this order (the first rule that applies wins):

1. a conversation was interrupted (the run was stopped): exit 3, it cannot pass;
2. every conversation ended by an error (nothing ran), or gates are defined but
   nothing was graded, or every gate was skipped: exit 3 (a gate never passes
   on nothing);
3. a gate failed: exit 1;
4. gates are defined and a conversation ended by an error (ungradeable): exit 3;
4b. a judge request failed for good (an unreachable or refusing judge LLM): exit 3, gates
   or not: what the judge should have graded was not, so the evaluation is incomplete;
5. no gates, conversations, and none graded (production data with no judge, no policy
   and no scenario): exit 3, an evaluation that graded nothing never passes (a store or
   selection with no conversation at all, e.g. no new traffic since the last evaluation,
   is not a failure: exit 0);
6. otherwise exit 0: `gates passed`, or `no gates defined` (then nothing sets
   the exit code, and the line says what did not pass or could not be graded).

Exit 2 (bad input) never reaches an evaluation: it is raised before.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from tracesim.evaluator.scoring.gates import ExitCode, GateResult

__all__ = ["Verdict", "decide"]


@dataclass(frozen=True)
class Verdict:
    """An evaluation's exit code and the one line every output says it with."""

    exit_code: ExitCode
    headline: str
    """`gates passed`, `a gate failed: ...`, `nothing graded: ...`, `incomplete: ...`."""
    tone: str
    """ok | warn | fail: how outputs colour it (green, yellow, red)."""

    @property
    def passed(self) -> bool:
        """True only for exit 0."""
        return self.exit_code == ExitCode.OK


def _plural(count: int, word: str) -> str:
    return f"{count} {word}" if count == 1 else f"{count} {word}s"


def decide(
    gates: Sequence[GateResult],
    *,
    conversations: int,
    graded: int,
    errored: int = 0,
    interrupted: int = 0,
    not_passed: int = 0,
    judge_errors: int = 0,
) -> Verdict:
    """The verdict of an evaluation of `conversations` conversations, `graded` of which have
    a final score, `errored` ended by an error, `interrupted` stopped by Ctrl-C,
    `not_passed` graded but below Done; `judge_errors`: judge requests that failed for
    good (named when nothing could be graded: the judge's error, not the agent's)."""
    if interrupted:
        return Verdict(
            ExitCode.INCOMPLETE,
            f"incomplete: {_plural(interrupted, 'conversation')} interrupted (the run was "
            "stopped before they ended); an interrupted run cannot pass, run it again",
            "fail",
        )
    if conversations and errored == conversations:
        return Verdict(
            ExitCode.INCOMPLETE,
            f"nothing graded: every conversation ({conversations}) ended by an error, so "
            "nothing was tested",
            "fail",
        )
    if gates and (not graded or all(g.passed is None for g in gates)):
        what = (
            "no conversation to grade"
            if not conversations
            else f"none of {_plural(conversations, 'conversation')} could be graded"
            if not graded
            else "every gate was skipped (its metric was never graded)"
        )
        causes = []
        if errored:
            causes.append(f"{_plural(errored, 'conversation')} ended by an error")
        if judge_errors:
            causes.append(f"judge: {_plural(judge_errors, 'request')} failed")
        return Verdict(
            ExitCode.INCOMPLETE,
            f"nothing graded: {what}, so the gates cannot pass"
            + (f" ({'; '.join(causes)})" if causes else ""),
            "fail",
        )
    failed = [g for g in gates if g.passed is False]
    if failed:
        first = failed[0]
        more = f" (and {len(failed) - 1} more)" if len(failed) > 1 else ""
        reason = first.reason
        for prefix in ("FAILED: ", "failed: "):  # the gate's own verdict word, said once
            reason = reason.removeprefix(prefix)
        return Verdict(ExitCode.GATE_FAILED, f"a gate failed: {reason}{more}", "fail")
    if judge_errors and graded:
        return Verdict(
            ExitCode.INCOMPLETE,
            f"incomplete: judge: {_plural(judge_errors, 'request')} failed, so what it "
            "should have graded was not (results.json llm_usage.first_error says why; fix "
            "llm.base_url or the API key, then `tracesim evaluate`: answers already cached "
            "cost nothing)",
            "fail",
        )
    if gates and errored:
        return Verdict(
            ExitCode.INCOMPLETE,
            f"incomplete: gates passed on {_plural(graded, 'graded conversation')}, but "
            f"{_plural(errored, 'conversation')} ended by an error could not be graded",
            "fail",
        )
    if gates:
        return Verdict(ExitCode.OK, "gates passed", "ok")
    if conversations and not graded:  # SPEC §13: graded nothing never passes, gates or not
        return Verdict(
            ExitCode.INCOMPLETE,
            f"nothing graded: none of {_plural(conversations, 'conversation')} could be graded "
            "(no judge ran, and no policy, scenario assertion or tool check gave a verdict); "
            "run a judge (evaluation.metrics, with its API key), add evaluation.policies or "
            "evaluation.tool_validity, or evaluate scenarios with assertions",
            "fail",
        )
    if not conversations:  # the maintainers' rule 5: nothing to fail, but never a plain pass
        return Verdict(
            ExitCode.OK,
            "nothing to grade: no conversation in the store or selection (no span keyed to "
            "one, no run); `tracesim inspect` shows what the store holds",
            "warn",
        )
    problems = []
    if not_passed:
        problems.append(f"{_plural(not_passed, 'conversation')} did not pass")
    if errored:
        problems.append(f"{_plural(errored, 'conversation')} ended by an error")
    ungraded = conversations - graded - errored - interrupted
    if ungraded > 0:
        problems.append(f"{_plural(ungraded, 'conversation')} could not be graded")
    if not problems:
        return Verdict(ExitCode.OK, "no gates defined", "ok")
    return Verdict(
        ExitCode.OK,
        "no gates defined: " + " and ".join(problems) + ", and nothing sets the exit code "
        "(add evaluation.thresholds, e.g. final_score: 0.8)",
        "warn",
    )
