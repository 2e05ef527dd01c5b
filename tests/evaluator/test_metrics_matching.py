"""The matching primitives: maximum bipartite matching and LCS."""

from __future__ import annotations

import itertools
import random

from tracesim.evaluator.calls.matching import lcs_length, lcs_pairs, max_matching


def _brute_force_max(n_left: int, n_right: int, edges: set[tuple[int, int]]) -> int:
    best = 0
    for right_order in itertools.permutations(range(n_right), min(n_left, n_right)):
        best = max(best, sum((i, j) in edges for i, j in enumerate(right_order)))
    if n_left > n_right:
        for left_order in itertools.permutations(range(n_left), n_right):
            best = max(best, sum((i, j) in edges for j, i in enumerate(left_order)))
    return best


def test_max_matching_reroutes_where_greedy_fails() -> None:
    edges = {(0, 0), (0, 1), (1, 0)}
    pairs = max_matching(2, 2, lambda i, j: (i, j) in edges)
    assert sorted(pairs) == [(0, 1), (1, 0)]


def test_max_matching_equals_brute_force_on_random_graphs() -> None:
    rng = random.Random(7)
    for _ in range(200):
        n_left, n_right = rng.randint(0, 5), rng.randint(0, 5)
        edges = {(i, j) for i in range(n_left) for j in range(n_right) if rng.random() < 0.4}
        pairs = max_matching(n_left, n_right, lambda i, j, e=edges: (i, j) in e)
        assert len({i for i, _ in pairs}) == len(pairs) == len({j for _, j in pairs})
        assert all(p in edges for p in pairs)
        assert len(pairs) == _brute_force_max(n_left, n_right, edges)


def test_lcs() -> None:
    assert lcs_length("abcbdab", "bdcaba") == 4
    assert lcs_length("", "abc") == 0
    pairs = lcs_pairs(3, 4, lambda i, j: "abc"[i] == "xaxc"[j])
    assert pairs == [(0, 1), (2, 3)]
    assert all(a[0] < b[0] and a[1] < b[1] for a, b in zip(pairs, pairs[1:], strict=False))
