"""Trials of a scenario and the run's roll-up, and the seeded bootstrap."""

from __future__ import annotations

import pytest
from tracesim.evaluator.stats import (
    bootstrap_mean_ci,
    paired_change_ci,
    roll_up,
    scenario_trials,
)


def test_scenario_of_five_trials_two_passed_one_ungraded() -> None:
    s = scenario_trials(
        "refund",
        [True, False, None, True, False],
        [{"final_score": 1.0}, {"final_score": 0.5}, {}, {"final_score": 1.0}, {"x": 2.0}],
    )
    assert (s.trials, s.passed, s.ungraded, s.flaky) == (5, 2, 1, True)
    assert s.pass_rate == pytest.approx(0.4)
    assert s.pass_at_k[2] == pytest.approx(0.7)
    assert s.pass_hat_k[2] == pytest.approx(0.1)
    assert sorted(s.pass_at_k) == [1, 2, 3, 4, 5]
    assert s.metric_means == {"final_score": pytest.approx(2.5 / 3), "x": 2.0}
    assert s.metric_graded == {"final_score": 3, "x": 1}
    low, high = s.pass_rate_ci
    assert low < 0.4 < high


def test_deterministic_scenarios_are_not_flaky() -> None:
    assert not scenario_trials("a", [True, True]).flaky
    assert not scenario_trials("b", [False, False]).flaky
    assert not scenario_trials("c", [None, None]).flaky
    assert not scenario_trials("d", [True, None]).flaky  # not graded is not a failure
    assert scenario_trials("e", [True, None, False]).flaky


def test_roll_up_means_per_scenario_and_k_up_to_the_fewest_trials() -> None:
    a = scenario_trials("a", [True, True, False], [{"m": 1.0}, {"m": 1.0}, {"m": 0.0}])
    b = scenario_trials("b", [False, False], [{"m": 0.0}, {"m": 0.0}])
    run = roll_up([a, b])
    assert (run.scenarios, run.trials, run.passed, run.flaky) == (2, 5, 2, 1)
    assert run.flaky_scenarios == ["a"]
    assert run.pass_rate == pytest.approx(0.4)
    assert sorted(run.pass_hat_k) == [1, 2]
    # pass^2: a = C(2,2)/C(3,2) = 1/3, b = 0: mean 1/6.
    assert run.pass_hat_k[2] == pytest.approx(1 / 6)
    assert run.metric_means["m"] == pytest.approx((2 / 3 + 0) / 2)
    low, high = run.metric_ci["m"]
    assert low <= run.metric_means["m"] <= high


def test_roll_up_of_nothing_is_empty() -> None:
    run = roll_up([])
    assert run.trials == 0 and run.pass_rate is None and run.pass_hat_k == {}


def test_bootstrap_is_seeded_and_brackets_the_mean() -> None:
    values = [0.0, 0.2, 0.4, 0.9, 1.0, 0.7]
    first = bootstrap_mean_ci(values, seed=3)
    assert first == bootstrap_mean_ci(values, seed=3)
    low, high = first
    assert low < sum(values) / len(values) < high
    assert 0.0 <= low and high <= 1.0
    assert bootstrap_mean_ci([0.5]) == (0.5, 0.5)
    assert bootstrap_mean_ci([]) is None


def test_paired_change() -> None:
    mean, (low, high) = paired_change_ci([1.0, 1.0, 0.5, 0.5], [0.0, 0.5, 0.5, 0.0])
    assert mean == pytest.approx(-0.5)
    # four scenarios: Student's t (1 - 2^-3 = 87.5% is all a percentile interval of four
    # values can cover), wide enough to hold no change at all
    assert low <= -0.5 <= high and high > 0.0
    assert paired_change_ci([1.0, 0.5], [1.0, 0.5]) == (0.0, (0.0, 0.0))


def test_the_bootstrap_seed_comes_from_the_evaluation_config(tmp_path) -> None:  # noqa: ANN001
    """`evaluation.seed` seeds the roll-up's intervals and is written with them; the default
    stays the fixed one, so results are reproducible run to run."""
    import json

    from tracesim.evaluator import evaluate_db
    from tracesim.evaluator.stats.bootstrap import DEFAULT_SEED
    from tracesim.schemas.eval_config import EvalConfig

    from tests.evaluator.test_pipeline import build_db

    db = build_db(tmp_path / "t.duckdb")
    seeds = {}
    for name, config in (("default", EvalConfig(metrics=[])),
                         ("seven", EvalConfig.model_validate({"metrics": [], "seed": 7}))):  # fmt: skip
        evaluate_db(db, config=config, output_dir=tmp_path / name, progress=False)
        seeds[name] = json.loads((tmp_path / name / "results.json").read_text())["trials"]["seed"]
    assert seeds == {"default": DEFAULT_SEED, "seven": 7}
    many = [scenario_trials(f"s{i}", [i % 3 == 0], [{"m": (i * 37 % 11) / 10}]) for i in range(12)]
    assert roll_up(many, seed=7).metric_ci != roll_up(many, seed=8).metric_ci
    assert roll_up(many).metric_ci == roll_up(many, seed=DEFAULT_SEED).metric_ci
