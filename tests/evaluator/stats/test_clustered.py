"""The run's pass-rate interval covers what it claims when scenarios differ (SPEC §13).

Trials of one scenario share its difficulty. A Wilson interval over all trials of runs whose
scenarios always pass or always fail covered the agent's true pass rate (the mean over the
population of scenarios the run samples) as little as 24% of the time (10 scenarios of 10
trials, half always passing). Seeded simulation, so the test is deterministic."""

from __future__ import annotations

import random
from collections.abc import Callable

import pytest
from tracesim.evaluator.stats import roll_up, scenario_trials
from tracesim.evaluator.stats.clustered import clustered_pass_rate_interval, design_effect
from tracesim.evaluator.stats.proportions import wilson_interval

Population = tuple[Callable[[random.Random], float], float]
"""How a scenario's own pass probability is drawn, and the population's mean."""

POPULATIONS: dict[str, Population] = {
    "identical scenarios": (lambda r: 0.6, 0.6),
    "always pass or always fail": (lambda r: float(r.random() < 0.7), 0.7),
    "mostly all or nothing": (lambda r: r.betavariate(0.3, 0.2), 0.6),
}
TRIALS = (1, 2, 3, 5, 10)
SIMS = 300


def _coverage(m: int, k: int, population: Population, seed: int) -> tuple[float, float]:
    """Share of simulated runs of m scenarios x k trials whose interval holds the true pass
    rate: (clustered, Wilson over all trials)."""
    draw, true = population
    rng = random.Random(seed)
    clustered = wilson = 0
    for _ in range(SIMS):
        counts = []
        for _ in range(m):
            p = draw(rng)
            counts.append((k, sum(rng.random() < p for _ in range(k))))
        low, high = clustered_pass_rate_interval(counts)
        clustered += low <= true <= high
        low, high = wilson_interval(m * k, sum(c for _, c in counts))
        wilson += low <= true <= high
    return clustered / SIMS, wilson / SIMS


@pytest.mark.parametrize("m", [3, 6, 10, 30])
def test_the_interval_covers_about_95_percent_with_few_or_many_scenarios(m: int) -> None:
    results = {
        (name, k): _coverage(m, k, population, seed=m * 100 + k + 10 * i)
        for i, (name, population) in enumerate(POPULATIONS.items())
        for k in TRIALS
    }
    clustered = [cov for cov, _ in results.values()]
    assert 0.94 <= sum(clustered) / len(clustered) <= 0.99, results  # measured 0.96-0.97
    repeated = min((cov, key) for key, (cov, _) in results.items() if key[1] > 1)
    assert repeated[0] >= 0.91, f"{m} scenarios: {repeated}"  # measured >= 0.94
    # one trial per scenario is Wilson's own interval (0.90 at worst, measured)
    single = min((cov, key) for key, (cov, _) in results.items() if key[1] == 1)
    assert single[0] >= 0.87, f"{m} scenarios: {single}"
    # the Wilson interval over all trials is the confident wrong answer this replaces
    naive = [w for (name, k), (_, w) in results.items() if k > 1 and name != "identical scenarios"]
    assert sum(naive) / len(naive) < 0.8, results  # measured 0.63-0.70


def test_one_trial_per_scenario_is_the_wilson_interval() -> None:
    for n, c in [(1, 0), (1, 1), (10, 7), (50, 0), (50, 50), (30, 13)]:
        counts = [(1, 1)] * c + [(1, 0)] * (n - c)
        assert clustered_pass_rate_interval(counts) == pytest.approx(wilson_interval(n, c))


def test_scenarios_that_always_pass_or_fail_widen_the_interval() -> None:
    """Ten scenarios of five trials, five always passing and five always failing: ten
    effective trials, not fifty."""
    counts = [(5, 5)] * 5 + [(5, 0)] * 5
    assert design_effect(counts) == pytest.approx(5.0 * 10 / 9)
    low, high = clustered_pass_rate_interval(counts)
    naive_low, naive_high = wilson_interval(50, 25)
    assert low < naive_low - 0.1 and high > naive_high + 0.1
    assert low < 0.5 < high


def test_identical_scenarios_keep_about_the_wilson_interval() -> None:
    counts = [(10, 9), (10, 10), (10, 9), (10, 8), (10, 9), (10, 9)]
    assert design_effect(counts) == 1.0
    assert clustered_pass_rate_interval(counts) == pytest.approx(wilson_interval(60, 54))


def test_all_passed_assumes_one_effective_trial_per_scenario() -> None:
    """30 of 30 over three scenarios cannot tell identical scenarios from three that always
    pass: the interval is Wilson's over the three."""
    assert clustered_pass_rate_interval([(10, 10)] * 3) == pytest.approx(wilson_interval(3, 3))
    assert clustered_pass_rate_interval([(4, 0)] * 5) == pytest.approx(wilson_interval(5, 0))
    assert clustered_pass_rate_interval([]) is None
    assert clustered_pass_rate_interval([(0, 0)]) is None


def test_the_run_roll_up_reports_the_clustered_interval() -> None:
    scenarios = [scenario_trials(f"s{i}", [i < 3] * 4) for i in range(6)]
    run = roll_up(scenarios)
    assert run.pass_rate == pytest.approx(0.5)
    assert run.pass_rate_ci == pytest.approx(
        list(clustered_pass_rate_interval([(4, 4)] * 3 + [(4, 0)] * 3))
    )
    assert run.pass_rate_ci[0] < wilson_interval(24, 12)[0]


def test_scenarios_of_different_trial_counts_weigh_by_their_trials() -> None:
    """Repeats differ per scenario: the pooled rate and its clustered variance weigh each
    scenario by its trials, and always-pass / always-fail scenarios still widen it."""
    counts = [(1, 1), (1, 0), (5, 5), (5, 0), (3, 2)]
    assert design_effect(counts) > 4
    low, high = clustered_pass_rate_interval(counts)
    naive_low, naive_high = wilson_interval(15, 8)
    assert low < naive_low and high > naive_high
    assert low < 8 / 15 < high


def test_one_scenario_says_little_about_the_agent() -> None:
    """A run of one scenario is one draw from the scenarios the agent meets: its trials are
    one effective trial (the scenario's own Wilson interval is in `scenarios[]`)."""
    assert design_effect([(10, 7)]) == 10.0
    low, high = clustered_pass_rate_interval([(10, 7)])
    assert low < 0.05 and high > 0.95
    assert clustered_pass_rate_interval([(10, 10)]) == pytest.approx(wilson_interval(1, 1))


def test_the_report_shows_the_clustered_interval() -> None:
    """The report's trials section reads the run's `pass_rate_ci` from `runs.summary`."""
    from tracesim.evaluator.report.trials import trials_html

    scenarios = [scenario_trials(f"s{i}", [i < 5] * 5) for i in range(10)]
    summary = {
        "trials": roll_up(scenarios).model_dump(mode="json"),
        "scenarios": [s.model_dump(mode="json") for s in scenarios],
    }
    html = trials_html({"summary": summary})
    low, high = clustered_pass_rate_interval([(5, 5)] * 5 + [(5, 0)] * 5)
    assert f"(95% CI over scenarios {low:.0%}–{high:.0%})" in html
    assert f"{low:.0%}" != f"{wilson_interval(50, 25)[0]:.0%}"
