"""Canonical comparison of tool-call arguments and results (SPEC §6, §7).

Two argument values are "the same" when they are equal as JSON data, with a
few rules plain ``==`` gets wrong for our purpose:

- numbers compare by value across int and float: ``1 == 1.0``;
- strings never equal numbers: ``"1" != 1``;
- booleans are not numbers: ``True != 1`` (Python says they are equal);
- dict key order never matters; list order does; tuples are lists.

`canonical(value)` turns a value into a hashable form that encodes these
rules, so equality of canonical forms is the comparison, and the form can key
a dict (merge uses it to find a traced call with the same arguments).
`is_deep_subset(expected, actual)` is the "expected args a deep subset of
actual" test of ``subset`` / ``arg_mode="subset"``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import orjson

__all__ = [
    "args_equal",
    "canonical",
    "canonical_args",
    "is_deep_subset",
    "parse_json_text",
    "values_equal",
]

# Type tags keep values of different kinds apart even when Python's `==`
# would call them equal (True == 1, 1 == 1.0 is what we want, "1" != 1 is
# already so). Numbers share one tag, so 1 and 1.0 meet.
_NONE = ("z",)
_TRUE = ("b", True)
_FALSE = ("b", False)
_NUM = "n"
_STR = "s"
_LIST = "l"
_DICT = "d"
_NAN = ("n", "nan")


def canonical(value: Any) -> tuple:
    """Return a hashable canonical form of a JSON-like value.

    Unknown objects are compared by their `str()`: arguments come from JSON,
    so they are rare, and comparing them at all beats raising.
    """
    if value is None:
        return _NONE
    kind = type(value)
    if kind is str:
        return (_STR, value)
    if kind is dict:
        items = sorted(((str(k), canonical(v)) for k, v in value.items()), key=_first)
        return (_DICT, tuple(items))
    if value is True:
        return _TRUE
    if value is False:
        return _FALSE
    if isinstance(value, str):
        return (_STR, value)
    if isinstance(value, int):
        return (_NUM, value)
    if isinstance(value, float):
        if math.isnan(value):
            return _NAN  # NaN equals NaN here: the same argument was passed
        return (_NUM, value)  # 1.0 and 1 hash and compare equal
    if isinstance(value, Mapping):
        items = sorted(((str(k), canonical(v)) for k, v in value.items()), key=_first)
        return (_DICT, tuple(items))
    if isinstance(value, (list, tuple)):
        return (_LIST, tuple(canonical(v) for v in value))
    return (_STR, str(value))


def _first(item: tuple) -> str:
    return item[0]


def canonical_args(arguments: Mapping[str, Any] | None) -> tuple:
    """Canonical form of an argument mapping (None counts as no arguments)."""
    return canonical(arguments or {})


_SCALARS = (str, int, float, bool, type(None))
_NUMBERS = (int, float)
_SEQUENCES = (list, tuple)


def values_equal(a: Any, b: Any) -> bool:
    """True when `a` and `b` are the same JSON data under the rules above.

    Same answer as comparing `canonical()` forms, without building them:
    this runs for every candidate pair a metric looks at.
    """
    ta, tb = type(a), type(b)
    if ta is dict and tb is dict:
        if len(a) != len(b):
            return False
        for key, value in a.items():
            if type(key) is not str:
                return canonical(a) == canonical(b)
            if key not in b:  # unless b's keys are not all text: canonical() reads str(key)
                return _has_other_keys(b) and canonical(a) == canonical(b)
            if not values_equal(value, b[key]):
                return False
        return True
    if ta in _SEQUENCES and tb in _SEQUENCES:
        return len(a) == len(b) and all(values_equal(x, y) for x, y in zip(a, b, strict=True))
    if ta is tb and ta in _SCALARS:
        return a == b or (ta is float and a != a and b != b)  # NaN equals NaN here
    if ta in _NUMBERS and tb in _NUMBERS:
        return a == b  # int vs float; bool is its own type and never gets here
    if ta in _SCALARS and tb in _SCALARS:
        return False  # "1" != 1, True != 1, None != anything else
    return canonical(a) == canonical(b)


def _has_other_keys(mapping: dict) -> bool:
    """Whether some key of `mapping` is not a str."""
    for key in mapping:
        if type(key) is not str:
            return True
    return False


def args_equal(expected: Mapping[str, Any] | None, actual: Mapping[str, Any] | None) -> bool:
    """True when two argument mappings are canonically equal."""
    return values_equal(expected or {}, actual or {})


def is_deep_subset(expected: Any, actual: Any) -> bool:
    """True when `expected` is contained in `actual`.

    Mappings: every key of `expected` is in `actual` with a value that is
    itself a deep subset (extra keys in `actual` are allowed, at any depth).
    Lists: same length, element by element a deep subset (a list's length
    and order are part of its meaning, so neither extra nor reordered items
    are allowed). Anything else: canonical equality.
    """
    if type(expected) is dict or isinstance(expected, Mapping):
        if not (type(actual) is dict or isinstance(actual, Mapping)):
            return False
        for key, value in expected.items():
            if key not in actual or not is_deep_subset(value, actual[key]):
                return False
        return True
    if type(expected) in _SEQUENCES:
        if type(actual) not in _SEQUENCES or len(expected) != len(actual):
            return False
        return all(is_deep_subset(e, a) for e, a in zip(expected, actual, strict=True))
    return values_equal(expected, actual)


def parse_json_text(text: str) -> tuple[bool, Any]:
    """Parse `text` as JSON; return (ok, value). Never raises."""
    try:
        return True, orjson.loads(text)
    except (orjson.JSONDecodeError, TypeError, ValueError):
        return False, None
