"""The report's span waterfall keeps spans whose parents form a cycle (SPEC §5)."""

from __future__ import annotations

from tracesim.evaluator.report.shape import span_tree


def test_self_parented_and_cyclic_spans_are_drawn_as_roots() -> None:
    rows = [
        ("r", None, "root", 0, 5),
        ("c", "r", "child", 1, 1),
        ("s", "s", "self", 2, 1),
        ("a", "b", "a", 3, 1),
        ("b", "a", "b", 4, 1),
    ]
    tree = span_tree(rows)
    assert [(entry[0], entry[3]) for entry in tree] == [
        ("root", 0),
        ("child", 1),
        ("self", 0),
        ("a", 0),
        ("b", 1),
    ]
