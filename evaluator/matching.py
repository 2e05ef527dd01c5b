"""Optimal pairing of expected and actual tool calls (SPEC §7: never greedy).

Two small algorithms, both exact:

- `max_matching`: maximum bipartite matching (Kuhn's augmenting paths).
  Left items are expected calls, right items actual calls, an edge says
  "this actual call satisfies this expected call". Greedy pairing in input
  order loses pairs: with expected ``[t{}, t{x:1}]`` and actual
  ``[t{x:1}, t{x:2}]`` (subset mode), greedy gives ``t{}`` the first actual
  ``t{x:1}`` and leaves ``t{x:1}`` nothing that fits; augmenting paths
  re-route ``t{}`` to ``t{x:2}`` and find both pairs. O(V * E), fine for
  the tens of calls a turn holds.
- `lcs_pairs`: longest common subsequence under a predicate, by dynamic
  programming, returning the matched index pairs. Used for
  `tool_call_order` (names) and trajectory ``in_order`` (names + args).

Both take a predicate `fits(i, j)` rather than values, so callers decide
what "matches" means (same name; same name and equal args; deep subset).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

__all__ = ["lcs_length", "lcs_pairs", "max_matching"]

Fits = Callable[[int, int], bool]


def max_matching(n_left: int, n_right: int, fits: Fits) -> list[tuple[int, int]]:
    """Return a maximum set of (left, right) pairs with `fits(left, right)`.

    Each left and each right index appears at most once. Candidates are
    tried in index order, so the result is deterministic and, where nothing
    forces otherwise, pairs items in input order. Pairs are sorted by left
    index.
    """
    adjacency = [[j for j in range(n_right) if fits(i, j)] for i in range(n_left)]
    match_of_right: list[int] = [-1] * n_right
    for i in range(n_left):
        if adjacency[i]:
            _augment(i, [False] * n_right, adjacency, match_of_right)
    pairs = [(i, j) for j, i in enumerate(match_of_right) if i >= 0]
    pairs.sort()
    return pairs


def _augment(
    i: int, seen: list[bool], adjacency: list[list[int]], match_of_right: list[int]
) -> bool:
    """Kuhn's augmenting path from left item `i`; updates `match_of_right` in place.

    A module-level function, not a recursive closure: a closure that calls
    itself is a reference cycle, and one per matching left every call's
    lists (and the caller's calls, through `fits`) to the cyclic GC, which
    the evaluator pauses while it scores a chunk.
    """
    for j in adjacency[i]:
        if seen[j]:
            continue
        seen[j] = True
        if match_of_right[j] < 0 or _augment(match_of_right[j], seen, adjacency, match_of_right):
            match_of_right[j] = i
            return True
    return False


def _lcs_table(n_a: int, n_b: int, fits: Fits) -> list[list[int]]:
    table = [[0] * (n_b + 1) for _ in range(n_a + 1)]
    for i in range(n_a - 1, -1, -1):
        row, below = table[i], table[i + 1]
        for j in range(n_b - 1, -1, -1):
            if fits(i, j):
                row[j] = below[j + 1] + 1
            else:
                row[j] = max(below[j], row[j + 1])
    return table


def lcs_pairs(n_a: int, n_b: int, fits: Fits) -> list[tuple[int, int]]:
    """Index pairs of a longest common subsequence of `a` and `b` under `fits`.

    Pairs are increasing in both indices. When several subsequences are
    longest, the one using the earliest items of `a` and `b` is returned.
    """
    table = _lcs_table(n_a, n_b, fits)
    pairs: list[tuple[int, int]] = []
    i = j = 0
    while i < n_a and j < n_b:
        if fits(i, j) and table[i][j] == table[i + 1][j + 1] + 1:
            pairs.append((i, j))
            i += 1
            j += 1
        elif table[i + 1][j] >= table[i][j + 1]:
            i += 1
        else:
            j += 1
    return pairs


def lcs_length(a: Sequence[object], b: Sequence[object]) -> int:
    """Length of the longest common subsequence of two sequences under `==`."""
    return len(lcs_pairs(len(a), len(b), lambda i, j: a[i] == b[j]))
