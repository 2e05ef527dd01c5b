"""One vocabulary for every tool-call metric: argument modes, orders, names.

Every metric that compares calls speaks the same words (README, "Metrics"):

- ``arg_mode``: ``exact`` (canonically equal), ``subset`` (the expected
  arguments are a deep subset of the actual ones: extra actual arguments
  allowed), ``superset`` (the actual arguments are within the expected
  ones: every actual argument is expected, some expected may be missing),
  ``ignore`` (names only), ``partial_credit`` (each call scores the share
  of its expected arguments matched; passes only when all are).
- ``order``: ``strict`` (same sequence; calls one model message made in
  parallel form an unordered group), ``unordered`` (same multiset),
  ``in_order`` (expected a subsequence of actual), ``contains`` (expected
  within actual, any order), ``within`` (actual within expected).
- ``all_or_nothing``: value 1.0 when everything matched, else 0.0.

Case, spaces and hyphens do not matter ("IN ORDER" is ``in_order``). Old
spellings keep working as deprecated aliases (`ORDER_ALIASES`,
`ARG_MODE_ALIASES`, and `strict=` / `subset=` flags in the metrics that had
them). Beware the peers' words: agentevals' `tool_args_match_mode="subset"`
means "actual within reference", our ``superset``; its `"superset"` is our
``subset``. Our word always describes the EXPECTED arguments.

Tool names compare after `normalize_name` ("Web Search" == "Web_Search").
"""

from __future__ import annotations

import re
from functools import lru_cache

__all__ = [
    "ARG_MODES",
    "ARG_MODE_ALIASES",
    "ORDERS",
    "ORDER_ALIASES",
    "VocabularyError",
    "names_match",
    "normalize_name",
    "resolve_arg_mode",
    "resolve_order",
]

ARG_MODES: tuple[str, ...] = ("exact", "subset", "superset", "ignore", "partial_credit")
"""How arguments are compared (see module doc)."""

ARG_MODE_ALIASES: dict[str, str] = {
    "partial": "subset",  # arksim's arg_match_mode word (its docs: expected within actual)
    "equal": "exact",
    "expected_in_actual": "subset",
    "actual_in_expected": "superset",
    "none": "ignore",
}
"""Deprecated or peer spellings of `ARG_MODES`."""

ORDERS: tuple[str, ...] = ("strict", "unordered", "in_order", "contains", "within")
"""How the sequence of calls is compared (see module doc)."""

ORDER_ALIASES: dict[str, str] = {
    "exact": "strict",
    # Google ADK's ToolTrajectoryCriterion ANY_ORDER ("any order", "any-order"): every
    # expected call present, in any order, extra calls allowed. That is `contains`, not
    # `unordered` (same multiset): agentevals' and ADK's own evaluators agree.
    "any_order": "contains",
    "superset": "contains",
    "subset": "within",
    "ordered": "in_order",
    "subsequence": "in_order",
}
"""Deprecated or peer spellings of `ORDERS` (agentevals' trajectory modes among them)."""


class VocabularyError(ValueError):
    """A mode or order name outside the vocabulary; the message lists the accepted ones."""


def _resolve(value: object, names: tuple[str, ...], aliases: dict[str, str], what: str) -> str:
    if isinstance(value, str):
        if value in names:
            return value
        if value in aliases:
            return aliases[value]
        spelled = "_".join(value.strip().lower().replace("-", " ").split())  # "IN ORDER"
        if spelled in names:
            return spelled
        if spelled in aliases:
            return aliases[spelled]
    accepted = ", ".join(names)
    raise VocabularyError(
        f"unknown {what} {value!r}: one of {accepted} (aliases: {', '.join(aliases)})"
    )


def resolve_arg_mode(value: object) -> str:
    """The canonical `arg_mode` for `value` (a name or an alias); VocabularyError if neither."""
    return _resolve(value, ARG_MODES, ARG_MODE_ALIASES, "arg_mode")


def resolve_order(value: object) -> str:
    """The canonical `order` for `value` (a name or an alias); VocabularyError if neither."""
    return _resolve(value, ORDERS, ORDER_ALIASES, "order")


_SPACES = re.compile(r"\s+")
_DROPPED = re.compile(r"[!-,./:-@\[-^`{-~]")  # ASCII punctuation except "-" and "_"


@lru_cache(maxsize=8192)
def normalize_name(name: str | None) -> str:
    """A tool name as runtimes sanitise it: whitespace runs -> "_", ASCII punctuation
    dropped, at most 64 characters (the function-name limit of chat APIs).

    "Web Search" and "Web_Search" (UiPath, LangChain) compare equal; case
    and non-ASCII letters are kept, so distinct tools stay distinct.
    """
    if not name:
        return ""
    return _DROPPED.sub("", _SPACES.sub("_", name.strip()))[:64]


def names_match(expected: str, actual: str) -> bool:
    """True when two tool names are equal after `normalize_name`."""
    return expected == actual or normalize_name(expected) == normalize_name(actual)
