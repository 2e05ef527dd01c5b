"""Which actual call answers which expected call, and how well: shared by the metrics.

`CallScorer` decides whether an actual call can answer an expected one
(same tool name after `normalize_name`, or the same call id when the
expected call gives one) and scores its arguments (`ArgComparer`).
`pair_calls` pairs expected and actual calls under an `order`, optimally:
cardinality matching when scores are 0/1, maximum total score under
``partial_credit``; a strict order honours parallel groups.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from tracesim.evaluator.calls.canonical import is_deep_subset, values_equal
from tracesim.evaluator.calls.matching import (
    lcs_pairs,
    max_matching,
    max_weight_matching,
    weighted_lcs_pairs,
)
from tracesim.evaluator.metrics.argmatch import ArgComparer, compile_matchers
from tracesim.evaluator.metrics.expected import ExpectedCall
from tracesim.evaluator.metrics.vocabulary import names_match, normalize_name
from tracesim.schemas import ToolCall

__all__ = ["CallScorer", "pair_calls", "plain_fits"]

_SHARED: dict[str, CallScorer] = {}
_EMPTY: dict[str, Any] = {}


class CallScorer:
    """Scores one actual call against one expected call (0.0 = cannot answer it)."""

    __slots__ = ("comparer", "partial", "plain")

    def __init__(self, *, arg_mode: str, arg_matchers: Mapping[str, Any] | None = None) -> None:
        self.comparer = ArgComparer(arg_mode, compile_matchers(arg_matchers))
        matchers = self.comparer.matchers.values()
        self.plain = not self.comparer.matchers
        self.partial = arg_mode == "partial_credit" or any(
            spec.call is not None or spec.mode == "partial_credit" for spec in matchers
        )

    @classmethod
    def for_mode(cls, arg_mode: str, arg_matchers: Mapping[str, Any] | None = None) -> CallScorer:
        """A scorer; the matcher-less ones are shared (metrics run per turn, hot)."""
        if arg_matchers:
            return cls(arg_mode=arg_mode, arg_matchers=arg_matchers)
        scorer = _SHARED.get(arg_mode)
        if scorer is None:
            scorer = _SHARED[arg_mode] = cls(arg_mode=arg_mode)
        return scorer

    def uses_weights(self, wanted: Sequence[ExpectedCall]) -> bool:
        """True when some pair may fit partly (partial credit or a scoring callable)."""
        if self.partial:
            return True
        for want in wanted:
            if want.arg_match_mode == "partial_credit":
                return True
        return False

    def fits(self, want: ExpectedCall, call: ToolCall, default_args: bool = False) -> bool:
        """True when `call` fully answers `want` (the 0/1 fast path of `score`)."""
        if want.id:
            if call.id != want.id:
                return False
        elif want.name != call.name and normalize_name(want.name) != normalize_name(call.name):
            return False
        args = want.args
        if args is None:
            if not default_args:
                return True
            args = {}
        if self.plain:
            mode = want.arg_match_mode or self.comparer.mode
            if mode == "exact":
                return values_equal(args, call.arguments)
            if mode == "ignore":
                return True
            if mode == "subset":
                return is_deep_subset(args, call.arguments)
        return self.comparer.score(call.name, args, call.arguments, mode=want.arg_match_mode) >= 1

    def fits_name(self, want: ExpectedCall, call: ToolCall) -> bool:
        """Same call id when the expected call has one (the id wins over the name: a renamed
        tool keeps its id), else the same normalised name."""
        if want.id:
            return call.id == want.id
        return names_match(want.name, call.name)

    def score(self, want: ExpectedCall, call: ToolCall, *, default_args: bool = False) -> float:
        """How well `call` answers `want`, 0..1; `default_args`: missing expected args mean {}."""
        if not self.fits_name(want, call):
            return 0.0
        args = want.args
        if args is None and default_args:
            args = {}
        return self.comparer.score(call.name, args, call.arguments, mode=want.arg_match_mode)


def _runs(groups: Sequence[str | None]) -> list[range]:
    runs: list[range] = []
    start = 0
    for k in range(1, len(groups) + 1):
        if k == len(groups) or groups[k] is None or groups[k] != groups[start]:
            runs.append(range(start, k))
            start = k
    return runs


def _strict_pairs(
    wanted: Sequence[ExpectedCall],
    actual: Sequence[ToolCall],
    score: Any,
    weighted: bool,
) -> tuple[list[tuple[int, int]], bool]:
    """Positional pairs; within a parallel group any order. Returns (pairs, same shape)."""
    n_e, n_a = len(wanted), len(actual)
    exp_groups = [w.group for w in wanted]
    act_groups = [c.group for c in actual]
    if not any(exp_groups) and not any(act_groups):
        pairs = [(i, i) for i in range(min(n_e, n_a)) if score(i, i) > 0]
        return pairs, n_e == n_a
    act_runs = _runs(act_groups)
    if any(exp_groups):
        exp_runs = _runs(exp_groups)
        same_shape = [len(r) for r in exp_runs] == [len(r) for r in act_runs]
    else:  # the actual message structure decides where order is free
        exp_runs = [range(min(r.start, n_e), min(r.stop, n_e)) for r in act_runs]
        same_shape = n_e == n_a
    pairs: list[tuple[int, int]] = []
    for e_run, a_run in zip(exp_runs, act_runs, strict=False):
        match = max_weight_matching if weighted else max_matching
        local = match(len(e_run), len(a_run), lambda i, j, e=e_run, a=a_run: score(e[i], a[j]))
        pairs.extend((e_run[i], a_run[j]) for i, j in local)
    pairs.sort()
    return pairs, same_shape


def plain_fits(
    wanted: Sequence[ExpectedCall],
    actual: Sequence[ToolCall],
    default_mode: str,
    default_args: bool,
) -> Any:
    """`CallScorer.fits` inlined for matcher-less scorers: the hot path of every metric."""

    def fits(i: int, j: int) -> bool:
        want, call = wanted[i], actual[j]
        if want.id:
            if call.id != want.id:
                return False
        elif want.name != call.name and normalize_name(want.name) != normalize_name(call.name):
            return False
        args = want.args
        if args is None:
            if not default_args:
                return True
            args = _EMPTY
        mode = want.arg_match_mode or default_mode
        if mode == "exact":
            return values_equal(args, call.arguments)
        if mode == "ignore":
            return True
        if mode == "subset":
            return is_deep_subset(args, call.arguments)
        return is_deep_subset(call.arguments, args)  # superset: actual within expected

    return fits


def pair_calls(
    wanted: Sequence[ExpectedCall],
    actual: Sequence[ToolCall],
    scorer: CallScorer,
    *,
    order: str,
    default_args: bool = False,
) -> tuple[list[tuple[int, int]], list[float], bool]:
    """(pairs, score of each pair, shape ok) for `order`; shape ok is strict's same-structure test."""
    weighted = scorer.uses_weights(wanted)
    n_e, n_a = len(wanted), len(actual)
    if weighted:
        cache: dict[tuple[int, int], float] = {}

        def score(i: int, j: int) -> float:
            key = (i, j)
            value = cache.get(key)
            if value is None:
                value = cache[key] = scorer.score(wanted[i], actual[j], default_args=default_args)
            return value
    elif scorer.plain:
        score = plain_fits(wanted, actual, scorer.comparer.mode, default_args)
    else:
        fits = scorer.fits

        def score(i: int, j: int) -> float:
            return 1.0 if fits(wanted[i], actual[j], default_args) else 0.0

    shape_ok = True
    if order == "strict":
        pairs, shape_ok = _strict_pairs(wanted, actual, score, weighted)
    elif weighted:
        pairs = (weighted_lcs_pairs if order == "in_order" else max_weight_matching)(
            n_e, n_a, score
        )
    else:
        match = lcs_pairs if order == "in_order" else max_matching
        pairs = match(n_e, n_a, score)  # a 0/1 score is its own truth value
    if not weighted:
        return pairs, [1.0] * len(pairs), shape_ok  # a 0/1 match is a full match
    return pairs, [score(i, j) for i, j in pairs], shape_ok
