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

__all__ = ["lcs_length", "lcs_pairs", "max_matching", "max_weight_matching", "weighted_lcs_pairs"]

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


def max_weight_matching(
    n_left: int, n_right: int, weight: Callable[[int, int], float]
) -> list[tuple[int, int]]:
    """Pairs (left, right) maximising the summed `weight` (Hungarian algorithm).

    Pairs of weight 0 are dropped. Used where a pair can fit partly
    (per-argument partial credit), so the best total, not the most pairs,
    decides. O(n^2 m) for the few calls a turn holds.
    """
    if not n_left or not n_right:
        return []
    transpose = n_left > n_right
    rows, cols = (n_right, n_left) if transpose else (n_left, n_right)
    cost = [
        [-(weight(j, i) if transpose else weight(i, j)) for j in range(cols)] for i in range(rows)
    ]
    inf = float("inf")
    u, v = [0.0] * (rows + 1), [0.0] * (cols + 1)
    row_of_col, way = [0] * (cols + 1), [0] * (cols + 1)
    for i in range(1, rows + 1):
        row_of_col[0] = i
        j0 = 0
        minv, used = [inf] * (cols + 1), [False] * (cols + 1)
        while True:
            used[j0] = True
            i0, delta, j1 = row_of_col[j0], inf, 0
            for j in range(1, cols + 1):
                if not used[j]:
                    cur = cost[i0 - 1][j - 1] - u[i0] - v[j]
                    if cur < minv[j]:
                        minv[j], way[j] = cur, j0
                    if minv[j] < delta:
                        delta, j1 = minv[j], j
            for j in range(cols + 1):
                if used[j]:
                    u[row_of_col[j]] += delta
                    v[j] -= delta
                else:
                    minv[j] -= delta
            j0 = j1
            if row_of_col[j0] == 0:
                break
        while j0:
            j1 = way[j0]
            row_of_col[j0] = row_of_col[j1]
            j0 = j1
    pairs = []
    for j in range(1, cols + 1):
        i = row_of_col[j]
        if i:
            pair = (j - 1, i - 1) if transpose else (i - 1, j - 1)
            if weight(*pair) > 0:
                pairs.append(pair)
    pairs.sort()
    return pairs


def weighted_lcs_pairs(
    n_a: int, n_b: int, weight: Callable[[int, int], float]
) -> list[tuple[int, int]]:
    """Index pairs, increasing in both indices, maximising the summed `weight` (> 0 only)."""
    table = [[0.0] * (n_b + 1) for _ in range(n_a + 1)]
    for i in range(n_a - 1, -1, -1):
        row, below = table[i], table[i + 1]
        for j in range(n_b - 1, -1, -1):
            w = weight(i, j)
            take = below[j + 1] + w if w > 0 else 0.0
            row[j] = max(take, below[j], row[j + 1])
    pairs: list[tuple[int, int]] = []
    i = j = 0
    while i < n_a and j < n_b:
        w = weight(i, j)
        if w > 0 and table[i][j] == table[i + 1][j + 1] + w:
            pairs.append((i, j))
            i += 1
            j += 1
        elif table[i + 1][j] >= table[i][j + 1]:
            i += 1
        else:
            j += 1
    return pairs
