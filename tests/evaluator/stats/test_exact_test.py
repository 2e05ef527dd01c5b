"""Fisher's exact test and the scenario verdicts on tables computed by hand."""

from __future__ import annotations

import pytest
from tracesim.evaluator.stats import fisher_exact, scenario_verdict


def test_lady_tasting_tea() -> None:
    # [[3, 1], [1, 3]]: margins 4/4, 4 passes. P(x) = C(4,x) C(4,4-x) / C(8,4):
    # 1, 16, 36, 16, 1 over 70. Observed x = 1 (16/70); two-sided sums the tables no more
    # likely: 1 + 16 + 16 + 1 = 34/70. One-sided `less` (candidate passes less): x <= 1.
    assert fisher_exact(3, 1, 1, 3) == pytest.approx(34 / 70)
    assert fisher_exact(3, 1, 1, 3, alternative="less") == pytest.approx(17 / 70)
    assert fisher_exact(3, 1, 1, 3, alternative="greater") == pytest.approx(69 / 70)


def test_eight_of_eight_against_three_of_eight() -> None:
    # Margins 8/8, 11 passes; C(16, 11) = 4368; P(x=3) = C(8,3) C(8,8) = 56 and the only
    # table as unlikely is x = 8 (56): p = 112 / 4368.
    assert fisher_exact(8, 0, 3, 5) == pytest.approx(112 / 4368)


def test_identical_tables_give_one() -> None:
    assert fisher_exact(5, 5, 5, 5) == pytest.approx(1.0)
    assert fisher_exact(4, 0, 4, 0) == 1.0
    assert fisher_exact(0, 0, 3, 1) == 1.0  # an empty side: nothing to test


def test_verdicts() -> None:
    regressed = scenario_verdict(8, 8, 8, 3)
    assert regressed.verdict == "regressed"
    assert regressed.p_value == pytest.approx(112 / 4368)
    assert scenario_verdict(8, 3, 8, 8).verdict == "improved"
    # Same pass rate: unchanged (deterministic on both sides, or flaky alike).
    assert scenario_verdict(5, 5, 5, 5).verdict == "unchanged"
    assert scenario_verdict(4, 0, 8, 0).verdict == "unchanged"
    assert scenario_verdict(4, 2, 8, 4).verdict == "unchanged"
    # A difference the trials cannot tell from chance.
    tea = scenario_verdict(4, 3, 4, 1)
    assert (tea.verdict, tea.p_value) == ("inconclusive", pytest.approx(34 / 70))
    # One trial each, pass then fail: p = 1, never a regression.
    assert scenario_verdict(1, 1, 1, 0).verdict == "inconclusive"
    assert scenario_verdict(0, 0, 3, 3).verdict == "inconclusive"
    # alpha is honoured: 0.0256 is not below 0.01.
    assert scenario_verdict(8, 8, 8, 3, alpha=0.01).verdict == "inconclusive"


def test_compare_leaves_ungraded_trials_out_of_the_test() -> None:
    from tracesim.evaluator.stats import EvaluationDigest, compare_evaluations, scenario_trials

    base = EvaluationDigest(eval_id="b", scenarios=[scenario_trials("s", [True] * 4)])
    # Four passes and four trials nobody could grade: no evidence of a regression.
    cand = EvaluationDigest(eval_id="c", scenarios=[scenario_trials("s", [True] * 4 + [None] * 4)])
    (row,) = compare_evaluations(base, cand).scenarios
    assert row.verdict == "unchanged" and row.change == 0.0
    assert (row.candidate.trials, row.candidate.ungraded, row.candidate.pass_rate) == (8, 4, 1.0)
    only_ungraded = EvaluationDigest(eval_id="u", scenarios=[scenario_trials("s", [None] * 3)])
    (row,) = compare_evaluations(base, only_ungraded).scenarios
    assert (row.verdict, row.p_value, row.change) == ("inconclusive", None, None)


def test_holm_adjusted_p_values_by_hand() -> None:
    from tracesim.evaluator.stats.verdict import holm_adjust

    # Sorted 0.01, 0.03, 0.04 of m = 3: 3 x 0.01 = 0.03, 2 x 0.03 = 0.06, max(0.06, 1 x 0.04).
    assert holm_adjust([0.01, 0.04, None, 0.03]) == pytest.approx([0.03, 0.06, None, 0.06])
    assert holm_adjust([0.5, 0.9]) == [1.0, 1.0]
    assert holm_adjust([]) == []


def test_holm_keeps_a_strong_regression_and_drops_a_marginal_one() -> None:
    from tracesim.evaluator.stats import EvaluationDigest, compare_evaluations, scenario_trials

    def digest(name: str, counts: dict[str, tuple[int, int]]) -> EvaluationDigest:
        return EvaluationDigest(
            eval_id=name,
            scenarios=[
                scenario_trials(sid, [True] * c + [False] * (n - c))
                for sid, (n, c) in counts.items()
            ],
        )

    base = digest("b", {"strong": (8, 8), "marginal": (8, 8), "same": (8, 4)})
    cand = digest("c", {"strong": (8, 0), "marginal": (8, 3), "same": (8, 4)})
    plain = {r.scenario_id: r for r in compare_evaluations(base, cand).scenarios}
    assert plain["marginal"].verdict == "regressed"  # p = 112/4368 = 0.026 < 0.05
    holm = compare_evaluations(base, cand, correction="holm")
    rows = {r.scenario_id: r for r in holm.scenarios}
    # p: strong 2/12870 x 3; marginal 0.026 x 2 = 0.051 >= 0.05; same 1.0 x 1.
    assert rows["strong"].verdict == "regressed"
    assert rows["strong"].p_adjusted == pytest.approx(3 * 2 / 12870)
    assert rows["marginal"].verdict == "inconclusive"
    assert rows["marginal"].p_adjusted == pytest.approx(2 * 112 / 4368)
    assert rows["same"].verdict == "unchanged"
    assert holm.correction == "holm" and holm.summary["regressed"] == 1
