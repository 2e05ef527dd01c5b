"""`tracesim compare` end to end on real runs of the offline example agent.

One version of the agent is made worse on purpose (`variant: skip_verification`
cancels and refunds without checking identity): the scenarios that need the check
must be found regressed. Two runs of the same version with a seeded flaky model
must not be called regressed. Also: the baseline in the config gates the run.
"""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from click.testing import CliRunner

from tracesim.cli import cli
from tracesim.config_loader import load_run_config
from tracesim.run import RunOutcome, run

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "customer_service" / "config.yaml"
NEEDS_IDENTITY = {"cancel-processing-order", "cancel-wrong-email", "refund-damaged-item"}


def _run(out: Path, junit: Path | None = None, **overrides: str) -> RunOutcome:
    loaded = load_run_config(EXAMPLE, {"output_dir": str(out), "num_workers": "auto", **overrides})
    return run(loaded, show_progress=False, junit_path=junit)


def _compare(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(cli, ["compare", *args])
    return result.exit_code, result.output


@pytest.fixture(scope="module")
def worse(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, RunOutcome, RunOutcome]:
    """Four trials per scenario of v1, then of the worse version, in one DuckDB file."""
    out = tmp_path_factory.mktemp("worse")
    trials = {"num_conversations_per_scenario": "4"}
    base = _run(out, **trials)
    cand = _run(out, **trials, **{"agent_config.init_kwargs.variant": "skip_verification"})
    assert base.exit_code == cand.exit_code == 0, (base.error, cand.error)
    return out / "tracesim.duckdb", base, cand


def test_the_worse_version_is_found_regressed(worse: tuple[Path, RunOutcome, RunOutcome]) -> None:
    db, base, cand = worse
    code, output = _compare(
        "--db", str(db), "--baseline", base.run_id, "--candidate", "latest", "--format", "json"
    )
    assert code == 0, output
    comparison = json.loads(output)
    assert set(comparison) >= {"baseline", "candidate", "scenarios", "metrics", "summary"}
    assert comparison["baseline"]["run_id"] == base.run_id
    assert comparison["candidate"]["run_id"] == cand.run_id
    verdicts = {s["scenario_id"]: s["verdict"] for s in comparison["scenarios"]}
    assert {s for s, v in verdicts.items() if v == "regressed"} == NEEDS_IDENTITY
    # The others behave identically (money-back-phrasing fails on both sides).
    assert {s for s, v in verdicts.items() if v != "regressed"} == {
        "order-status",
        "return-policy",
        "money-back-phrasing",
    }
    assert all(verdicts[s] == "unchanged" for s in verdicts if s not in NEEDS_IDENTITY)
    row = next(s for s in comparison["scenarios"] if s["scenario_id"] == "cancel-wrong-email")
    assert row["baseline"] == {
        "trials": 4,
        "passed": 4,
        "pass_rate": 1.0,
        "flaky": False,
        "ungraded": 0,
    }
    assert row["candidate"]["passed"] == 0
    assert row["p_value"] == pytest.approx(2 / 70)  # Fisher: 4/4 vs 0/4
    assert comparison["summary"] == {
        "regressed": 3,
        "improved": 0,
        "unchanged": 3,
        "inconclusive": 0,
        "only_in_baseline": 0,
        "only_in_candidate": 0,
    }
    final = next(m for m in comparison["metrics"] if m["metric"] == "final_score")
    # six scenarios, three unchanged: the interval reaches no change (expanded bootstrap)
    assert final["change"] < 0 and final["change_ci"][0] < final["change"] <= final["change_ci"][1]
    assert final["change_ci"][1] <= 0


def test_fail_on_regression_exits_one_and_text_names_the_scenarios(
    worse: tuple[Path, RunOutcome, RunOutcome],
) -> None:
    db, base, _ = worse
    code, output = _compare(
        "--db", str(db), "--baseline", base.run_id, "--candidate", "latest", "--fail-on-regression"
    )
    assert code == 1
    assert "REGRESSED" in output and "3 regressed" in output
    code, output = _compare("--db", str(db), "--baseline", "latest", "--candidate", base.run_id)
    assert code == 0 and "3 improved" in output  # the other way round
    code, markdown = _compare(
        "--db", str(db), "--baseline", base.run_id, "--candidate", "latest", "--format", "markdown"
    )
    assert "| cancel-wrong-email | 4/4 (100%) | 0/4 (0%) | -100% |" in markdown
    # Holm over the 6 scenarios tested: the three p = 2/70 become 6 x 2/70 (monotone), 0.17:
    # four trials are too few then.
    code, output = _compare(
        "--db",
        str(db),
        "--baseline",
        base.run_id,
        "--candidate",
        "latest",
        "--correction",
        "holm",
        "--fail-on-regression",
        "--format",
        "json",
    )
    holm = json.loads(output)
    assert code == 0 and holm["correction"] == "holm" and holm["summary"]["inconclusive"] == 3
    row = next(s for s in holm["scenarios"] if s["scenario_id"] == "cancel-wrong-email")
    assert row["p_adjusted"] == pytest.approx(6 * 2 / 70)


def test_bad_references_exit_two_with_one_line(
    worse: tuple[Path, RunOutcome, RunOutcome], tmp_path: Path
) -> None:
    db, base, _ = worse
    code, output = _compare("--db", str(db), "--baseline", "nope", "--candidate", "latest")
    assert code == 2
    assert "no evaluation or run 'nope'" in output and "Traceback" not in output
    code, output = _compare("--db", str(db), "--baseline", "x' OR 1=1 --", "--candidate", "latest")
    assert code == 2 and "not an evaluation reference" in output
    code, output = _compare("--db", str(db), "--baseline", base.run_id, "--candidate", base.run_id)
    assert code == 2 and "same evaluation" in output
    missing = tmp_path / "missing.duckdb"
    code, output = _compare("--db", str(missing), "--baseline", "latest", "--candidate", "latest")
    assert code == 2 and "Traceback" not in output


def test_the_short_run_id_the_run_prints_is_a_reference(
    worse: tuple[Path, RunOutcome, RunOutcome],
) -> None:
    """`tracesim run` heads its output with the run id's first 12 characters, and the
    README says `--baseline <first run id>`: that short id works, as git's do."""
    db, base, cand = worse
    code, output = _compare(
        "--db",
        str(db),
        "--baseline",
        base.run_id[:12],
        "--candidate",
        cand.run_id[:8],
        "--format",
        "json",
    )
    assert code == 0, output
    comparison = json.loads(output)
    assert comparison["baseline"]["run_id"] == base.run_id
    assert comparison["candidate"]["run_id"] == cand.run_id
    # a short id that starts no id is not found, as before
    code, output = _compare("--db", str(db), "--baseline", "ffff0000ffff", "--candidate", "latest")
    assert code == 2 and "no evaluation or run 'ffff0000ffff'" in output


def test_a_baseline_comparison_reads_in_words_and_ends_on_the_verdict(
    worse: tuple[Path, RunOutcome, RunOutcome], tmp_path: Path
) -> None:
    """In a CI log the last line is the verdict; verdicts are words (no `=` / `?`); an
    evaluation of every run is said so, never `run None`."""
    import shutil

    db, base, _ = worse
    copy = tmp_path / "copy.duckdb"
    shutil.copy(db, copy)
    config = tmp_path / "config.yaml"
    config.write_text(f"evaluation:\n  baseline: {{db: {copy}, ref: {base.run_id}}}\n")
    junit = tmp_path / "junit.xml"
    result = CliRunner().invoke(
        cli,
        ["evaluate", "--db", str(copy), "--all-runs", "--config", str(config), "--no-progress",
         "--junit-xml", str(junit)],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    # two runs of 4 trials each: one testcase name per conversation (readers merge repeats)
    names = [c.get("name") for c in ET.parse(junit).iter("testcase") if c.get("name").count("#")]
    assert len(names) == 48 and len(set(names)) == 48
    assert "order-status #7" in names
    lines = result.output.splitlines()
    verdict = next(i for i, line in enumerate(lines) if "(exit code 0)" in line)
    table = next(i for i, line in enumerate(lines) if line.startswith("scenario "))
    assert table < verdict  # the comparison comes before the verdict line
    assert "run None" not in result.output
    code, output = _compare("--db", str(copy), "--baseline", base.run_id, "--candidate", "latest")
    assert code == 0, output
    assert "(every conversation of the file, no single run)" in output
    rows = [line.split()[-1] for line in output.splitlines()[4:10]]
    assert set(rows) <= {"REGRESSED", "improved", "unchanged", "inconclusive"}, output
    assert "inconclusive" in rows  # 4/4 against 4/8: more trials would tell
    assert "too few trials to tell a change from chance" in output
    # the report's before / after says the same of a baseline evaluated over every run
    from tracesim.evaluator.report.trials import _comparison

    comparison = json.loads(
        _compare("--db", str(copy), "--baseline", "latest", "--candidate", base.run_id,
                 "--format", "json")[1]
    )  # fmt: skip
    html = _comparison(comparison)
    assert "run None" not in html and "(every conversation of its file, no single run)" in html


def test_an_ambiguous_short_id_names_the_ids(tmp_path: Path) -> None:
    import duckdb
    from tracesim.schemas.ddl import create_all

    from tracesim.evaluations import EvaluationRefError, load_digest

    db = tmp_path / "t.duckdb"
    with duckdb.connect(str(db)) as con:
        create_all(con)
        for eval_id, run_id in (("abcd11", "r1"), ("abcd22", "r2")):
            con.execute(
                "INSERT INTO runs (eval_id, run_id, kind, summary) VALUES (?, ?, 'run', ?)",
                [eval_id, run_id, json.dumps({"scenarios": [], "trials": {}})],
            )
    with pytest.raises(
        EvaluationRefError, match=r"'abcd' is the start of 2 ids \(abcd11, abcd22\)"
    ):
        load_digest(str(db), "abcd")
    assert load_digest(str(db), "abcd2").eval_id == "abcd22"


def test_the_baseline_in_the_config_gates_the_run(
    worse: tuple[Path, RunOutcome, RunOutcome], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    db, base, _ = worse
    summary = tmp_path / "summary.md"
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    outcome = _run(
        tmp_path / "gated",
        tmp_path / "junit.xml",
        num_conversations_per_scenario="4",
        **{
            "agent_config.init_kwargs.variant": "skip_verification",
            "evaluation.baseline.db": str(db),
            "evaluation.baseline.ref": base.run_id,
            "evaluation.fail_on_regression": "true",
        },
    )
    assert outcome.exit_code == 1, outcome.error
    results = json.loads((tmp_path / "gated" / "results.json").read_text())
    gate = next(g for g in results["gates"] if g["metric"] == "baseline_regressions")
    assert gate["passed"] is False and gate["failing"] == 3
    assert results["comparison"]["summary"]["regressed"] == 3
    assert results["comparison"]["baseline"]["run_id"] == base.run_id
    page = (tmp_path / "gated" / "report.html").read_text()
    assert "Before / after: compared with the baseline" in page
    assert "<td>cancel-wrong-email</td><td>4/4 (100%)</td><td>0/4 (0%)</td>" in page
    markdown = summary.read_text()
    assert "| cancel-wrong-email | 4/4 (100%) | 0/4 (0%) | -100% | 0.0286 | **regressed** |" in (
        markdown
    )
    assert "| baseline_regressions | <= 0 (each) | 3.00 | **FAIL** |" in markdown
    suites = {s.get("name"): s for s in ET.parse(tmp_path / "junit.xml").iter("testsuite")}
    vs = {c.get("name"): c for s in suites.values() for c in s.iter("testcase")}
    failed = vs["cancel-wrong-email vs baseline"].find("failure")
    assert failed is not None and failed.get("type") == "Regression"
    assert "4/4 -> 0/4 trials passed" in failed.get("message")
    assert vs["order-status vs baseline"].find("failure") is None


def test_a_baseline_that_is_not_there_is_a_config_error(tmp_path: Path) -> None:
    outcome = _run(
        tmp_path / "nobase",
        **{"evaluation.baseline.db": str(tmp_path / "absent.duckdb")},
    )
    assert outcome.exit_code == 2
    assert "evaluation.baseline.db" in (outcome.error or "")


def test_a_flaky_agent_compared_with_itself_is_not_called_regressed(tmp_path: Path) -> None:
    """Same version, flaky model (30% of conversations misread their first message), two
    seeds standing for two days: differences are chance, never `regressed`."""
    flaky = {"num_conversations_per_scenario": "6", "agent_config.init_kwargs.flaky": "0.3"}
    first = _run(tmp_path, **flaky, **{"agent_config.init_kwargs.seed": "1"})
    second = _run(tmp_path, **flaky, **{"agent_config.init_kwargs.seed": "2"})
    assert first.exit_code == second.exit_code == 0
    results = json.loads((tmp_path / "results.json").read_text())
    assert results["trials"]["flaky"] >= 1  # the agent really is flaky
    flaky_one = next(s for s in results["scenarios"] if s["flaky"])
    assert 0 < flaky_one["passed"] < flaky_one["trials"] == 6
    page = (tmp_path / "report.html").read_text()
    assert "Trials per scenario" in page and "badge warn'>flaky" in page
    code, output = _compare(
        "--db",
        str(tmp_path / "tracesim.duckdb"),
        "--baseline",
        first.run_id,
        "--candidate",
        second.run_id,
        "--format",
        "json",
        "--fail-on-regression",
    )
    assert code == 0, output
    summary = json.loads(output)["summary"]
    assert summary["regressed"] == 0 and summary["improved"] == 0
    assert summary["unchanged"] + summary["inconclusive"] == 6


def test_one_evaluation_is_not_enough_and_says_so(tmp_path: Path) -> None:
    """`--baseline latest --candidate latest` on a store with one evaluation: one line that
    says a comparison needs two, not that nothing is stored."""
    from tracesim.evaluator import evaluate_db
    from tracesim.schemas.eval_config import EvalConfig

    from tests.evaluator.test_pipeline import build_db

    db = build_db(tmp_path / "one.duckdb")
    only = evaluate_db(db, config=EvalConfig(metrics=[]), output_dir=tmp_path / "o",
                       progress=False).eval_id  # fmt: skip
    code, output = _compare("--baseline", "latest", "--candidate", "latest", "--db", str(db))
    assert code == 2
    assert f"only one evaluation stored ({only}, the candidate)" in " ".join(output.split())


def test_latest_skips_an_empty_evaluation(tmp_path: Path) -> None:
    """An evaluation that selected no conversation (an hourly `--since` job with no new
    traffic) never becomes `latest`: comparing against it would compare nothing."""
    from tracesim.evaluator import evaluate_db
    from tracesim.evaluator.load.load import ChunkPlan
    from tracesim.schemas.eval_config import EvalConfig

    from tests.evaluator.test_pipeline import build_db
    from tracesim.evaluations import load_digest

    db = build_db(tmp_path / "two.duckdb")
    graded = evaluate_db(db, config=EvalConfig(metrics=[]), output_dir=tmp_path / "a",
                         progress=False).eval_id  # fmt: skip
    empty = evaluate_db(db, config=EvalConfig(metrics=[]), output_dir=tmp_path / "b",
                        progress=False, select=lambda store, plan: ChunkPlan([], 0)).eval_id  # fmt: skip
    assert empty != graded
    assert load_digest(db, empty).scenarios == []
    assert load_digest(db, "latest").eval_id == graded


def test_an_incomplete_side_is_said_before_the_verdicts(tmp_path: Path) -> None:
    """A candidate whose judge could not be reached (exit 3) has pass counts that leave out
    what it could not grade: `compare` says so instead of reading `unchanged` as a pass."""
    import socket

    from tracesim.evaluator import evaluate_db
    from tracesim.schemas.eval_config import EvalConfig
    from tracesim.schemas.llm_config import LLMConfig

    from tests.evaluator.test_pipeline import build_db

    db = build_db(tmp_path / "two.duckdb")
    evaluate_db(db, config=EvalConfig(metrics=[]), output_dir=tmp_path / "a", progress=False)
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    judge = LLMConfig(model="judge", base_url=f"http://127.0.0.1:{port}/v1", max_retries=0)
    broken = evaluate_db(db, config=EvalConfig(metrics=["helpfulness"], llm=judge),
                         output_dir=tmp_path / "b", progress=False)  # fmt: skip
    assert int(broken.exit_code) == 3
    code, output = _compare("--baseline", "latest", "--candidate", broken.eval_id, "--db", db)
    assert code == 0, output
    assert (
        f"warning: the candidate evaluation {broken.eval_id} was incomplete (exit code 3) "
        "(judge: " in " ".join(output.split())
    )
