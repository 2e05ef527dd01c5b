"""Canonical argument comparison shared by merge and metrics."""

from __future__ import annotations

import pytest
from tracesim.evaluator.calls.canonical import args_equal, canonical, is_deep_subset, values_equal


@pytest.mark.parametrize(
    ("a", "b", "equal"),
    [
        (1, 1.0, True),
        ("1", 1, False),
        (True, 1, False),
        (False, 0, False),
        (None, None, True),
        (None, "", False),
        ({"a": 1, "b": 2}, {"b": 2, "a": 1}, True),
        ({"a": [1, 2]}, {"a": [2, 1]}, False),
        ({"a": {"b": [1.0, {"c": True}]}}, {"a": {"b": [1, {"c": True}]}}, True),
        ({"a": {"b": [1.0, {"c": True}]}}, {"a": {"b": [1, {"c": 1}]}}, False),
        ((1, 2), [1, 2], True),
        (float("nan"), float("nan"), True),
        (10**20, 1e20, True),
    ],
)
def test_values_equal(a, b, equal) -> None:
    assert values_equal(a, b) is equal
    assert (canonical(a) == canonical(b)) is equal
    if equal:
        assert hash(canonical(a)) == hash(canonical(b))


def test_args_equal_treats_none_as_empty() -> None:
    assert args_equal(None, {})
    assert not args_equal({}, {"x": 1})


def test_canonical_survives_odd_keys_and_objects() -> None:
    assert canonical({1: "a", "1": "b"})  # no TypeError from sorting mixed values
    assert canonical({"o": object()})[0] == "d"


@pytest.mark.parametrize(
    ("expected", "actual", "subset"),
    [
        ({}, {"x": 1}, True),
        ({"x": 1}, {"x": 1.0, "y": 2}, True),
        ({"x": {"a": 1}}, {"x": {"a": 1, "b": 2}}, True),
        ({"x": [{"a": 1}]}, {"x": [{"a": 1, "b": 2}]}, True),
        ({"x": [1]}, {"x": [1, 2]}, False),
        ({"x": 1}, {"y": 1}, False),
        ({"x": "1"}, {"x": 1}, False),
        ({"x": {"a": 1}}, {"x": "a"}, False),
    ],
)
def test_is_deep_subset(expected, actual, subset) -> None:
    assert is_deep_subset(expected, actual) is subset


def _random_value(rng, depth: int = 0):
    choices = [None, True, False, 0, 1, 1.0, 2.5, "1", "a", "", float("nan")]
    roll = rng.random()
    if depth < 3 and roll < 0.2:
        return {rng.choice("abc"): _random_value(rng, depth + 1) for _ in range(rng.randint(0, 3))}
    if depth < 3 and roll < 0.35:
        items = [_random_value(rng, depth + 1) for _ in range(rng.randint(0, 3))]
        return tuple(items) if rng.random() < 0.3 else items
    return rng.choice(choices)


def test_fast_equality_agrees_with_canonical_forms() -> None:
    import random

    rng = random.Random(11)
    for _ in range(3000):
        a, b = _random_value(rng), _random_value(rng)
        assert values_equal(a, b) is (canonical(a) == canonical(b)), (a, b)
        assert values_equal(a, a)


def test_fast_equality_reads_other_keys_as_canonical_does() -> None:
    """canonical() keys a mapping by str(key): {1: x} is {"1": x}, whichever side holds the
    non-text key (the fast path used to miss it when only the second side did)."""
    assert values_equal({"1": "x"}, {1: "x"}) is (canonical({"1": "x"}) == canonical({1: "x"}))
    assert values_equal({"1": "x"}, {1: "x"}) and values_equal({1: "x"}, {"1": "x"})
    assert not values_equal({"1": "x"}, {2: "x"})
    assert not values_equal({"a": {"1": 1}}, {"a": {1: 2}})


def _random_keyed(rng, depth: int = 0):
    if depth < 3 and rng.random() < 0.4:
        keys = [rng.choice(["a", "1", 1, "b", 2, "2"]) for _ in range(rng.randint(0, 3))]
        return {key: _random_keyed(rng, depth + 1) for key in keys}
    return _random_value(rng, depth + 1)


def test_fast_equality_agrees_with_canonical_forms_on_mixed_keys() -> None:
    import random

    rng = random.Random(23)
    for _ in range(3000):
        a, b = _random_keyed(rng), _random_keyed(rng)
        assert values_equal(a, b) is (canonical(a) == canonical(b)), (a, b)
        assert values_equal(b, a) is (canonical(a) == canonical(b)), (b, a)
