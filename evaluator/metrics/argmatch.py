"""Comparing one call's arguments: modes, per-tool matchers, partial credit.

`ArgComparer` answers "how well do these actual arguments fit those
expected ones?" as a score in [0, 1] (1.0 = fits). Every mode but
``partial_credit`` answers 0.0 or 1.0.

Per-tool matchers (`arg_matchers={"tool": spec}`; agentevals' overrides,
generalised) replace the comparison for one tool. A spec is:

- an arg mode name (``"ignore"``, ``"subset"``, ...);
- a callable ``f(actual_args, expected_args) -> bool | float``;
- a list of argument paths to compare, the rest ignored (``["a", "b.c"]``,
  dotted paths reach nested keys);
- a mapping with any of ``mode``, ``keys`` (paths to compare), ``ignore_keys``
  (paths dropped from both sides), ``args`` (argument name -> value matcher).

A value matcher is a callable ``f(actual, expected) -> bool``, or one of
`regex`, `tolerance`, `fuzzy`, `normalized`, `IGNORE` (also written as
mappings in config: ``{"regex": "^Par"}``, ``{"tolerance": 0.01}``,
``{"rel_tolerance": 0.05}``, ``{"fuzzy": 0.8}``, ``"normalized"``, ``"ignore"``).
"""

from __future__ import annotations

import difflib
import math
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from tracesim.evaluator.calls.canonical import is_deep_subset, values_equal
from tracesim.evaluator.metrics.vocabulary import normalize_name, resolve_arg_mode

__all__ = [
    "IGNORE",
    "ArgComparer",
    "ArgMatcherError",
    "ToolArgSpec",
    "compile_matchers",
    "fuzzy",
    "normalized",
    "regex",
    "tolerance",
]

ValueMatcher = Callable[[Any, Any], bool]
_MISSING: Any = object()


class ArgMatcherError(ValueError):
    """A per-tool or per-argument matcher spec is malformed; the message names it."""


def regex(pattern: str) -> ValueMatcher:
    """Actual value (as text) fully matches `pattern`; the expected value is not used."""
    compiled = re.compile(pattern)
    return lambda actual, expected: (
        actual is not _MISSING
        and bool(compiled.fullmatch(actual if isinstance(actual, str) else str(actual)))
    )


def tolerance(absolute: float = 0.0, *, relative: float = 0.0) -> ValueMatcher:
    """Numbers equal within `absolute` or `relative` (share of the expected value)."""

    def fits(actual: Any, expected: Any) -> bool:
        try:
            a, e = float(actual), float(expected)
        except (TypeError, ValueError):
            return False
        return math.isclose(a, e, abs_tol=absolute, rel_tol=relative)

    return fits


def _norm_text(value: Any) -> str:
    return " ".join(re.sub(r"[^\w\s]", " ", str(value).casefold()).split())


def normalized() -> ValueMatcher:
    """Texts equal after case folding, punctuation removed and whitespace collapsed."""
    return lambda actual, expected: _norm_text(actual) == _norm_text(expected)


def fuzzy(threshold: float = 0.8) -> ValueMatcher:
    """Normalised texts at least `threshold` similar (difflib ratio, 0..1)."""
    return lambda actual, expected: (
        difflib.SequenceMatcher(None, _norm_text(actual), _norm_text(expected)).ratio() >= threshold
    )


def IGNORE(actual: Any, expected: Any) -> bool:  # noqa: N802 - a constant-like matcher
    """Any value (even a missing one) fits."""
    return True


def _value_matcher(spec: Any, where: str) -> ValueMatcher:
    if callable(spec):
        return spec
    if spec == "ignore":
        return IGNORE
    if spec == "normalized":
        return normalized()
    if spec == "exact":
        return values_equal
    if isinstance(spec, Mapping) and len(spec) == 1:
        ((kind, arg),) = spec.items()
        if kind == "regex" and isinstance(arg, str):
            return regex(arg)
        if kind == "tolerance" and isinstance(arg, (int, float)):
            return tolerance(float(arg))
        if kind == "rel_tolerance" and isinstance(arg, (int, float)):
            return tolerance(relative=float(arg))
        if kind == "fuzzy" and isinstance(arg, (int, float)) and 0 <= arg <= 1:
            return fuzzy(float(arg))
    raise ArgMatcherError(
        f"{where}: a value matcher is a callable, 'ignore', 'normalized', 'exact', or one of "
        "{'regex': str}, {'tolerance': n}, {'rel_tolerance': n}, {'fuzzy': 0..1}; "
        f"got {spec!r}"
    )


def _get_path(args: Mapping[str, Any], path: str) -> Any:
    current: Any = args
    for part in path.split("."):
        if not isinstance(current, Mapping) or part not in current:
            return _MISSING
        current = current[part]
    return current


def _drop_paths(args: Mapping[str, Any], paths: Sequence[str]) -> dict[str, Any]:
    out = dict(args)
    for path in paths:
        head, _, rest = path.partition(".")
        if not rest:
            out.pop(head, None)
        elif isinstance(out.get(head), Mapping):
            out[head] = _drop_paths(out[head], [rest])
    return out


@dataclass(frozen=True)
class ToolArgSpec:
    """How one tool's arguments are compared (see module doc)."""

    mode: str | None = None
    """Argument mode for this tool (overrides the metric's, not an expected call's own)."""
    keys: tuple[str, ...] = ()
    """Only these (dotted) argument paths are compared, by equality."""
    ignore_keys: tuple[str, ...] = ()
    """(Dotted) argument paths dropped from both sides before comparing."""
    args: Mapping[str, ValueMatcher] = field(default_factory=dict)
    """Per-argument value matchers `f(actual, expected) -> bool`."""
    call: Callable[[Mapping[str, Any], Mapping[str, Any]], bool | float] | None = None
    """A whole-arguments matcher `f(actual_args, expected_args) -> bool | 0..1`."""


def _spec(tool: str, raw: Any) -> ToolArgSpec:
    where = f"arg_matchers[{tool!r}]"
    if isinstance(raw, ToolArgSpec):
        return raw
    if callable(raw):
        return ToolArgSpec(call=raw)
    if isinstance(raw, str):
        try:
            return ToolArgSpec(mode=resolve_arg_mode(raw))
        except ValueError as exc:
            raise ArgMatcherError(f"{where}: {exc}") from exc
    if isinstance(raw, Sequence) and all(isinstance(k, str) for k in raw):
        return ToolArgSpec(keys=tuple(raw))
    if isinstance(raw, Mapping):
        unknown = sorted(set(raw) - {"mode", "keys", "ignore_keys", "args"})
        if unknown:
            raise ArgMatcherError(
                f"{where}: unknown key {unknown[0]!r}; allowed: args, ignore_keys, keys, mode"
            )
        mode = raw.get("mode")
        args = raw.get("args") or {}
        if not isinstance(args, Mapping):
            raise ArgMatcherError(f"{where}.args: must map argument names to value matchers")
        try:
            return ToolArgSpec(
                mode=resolve_arg_mode(mode) if mode is not None else None,
                keys=tuple(raw.get("keys") or ()),
                ignore_keys=tuple(raw.get("ignore_keys") or ()),
                args={k: _value_matcher(v, f"{where}.args.{k}") for k, v in args.items()},
            )
        except ValueError as exc:
            if isinstance(exc, ArgMatcherError):
                raise
            raise ArgMatcherError(f"{where}: {exc}") from exc
    raise ArgMatcherError(
        f"{where}: a mode name, a callable, a list of argument paths or an object "
        f"{{mode, keys, ignore_keys, args}}; got {type(raw).__name__}"
    )


def compile_matchers(raw: Mapping[str, Any] | None) -> dict[str, ToolArgSpec]:
    """Validate `arg_matchers` once; ArgMatcherError names the tool and the problem."""
    if not raw:
        return {}
    if not isinstance(raw, Mapping):
        raise ArgMatcherError("arg_matchers: must map tool names to matcher specs")
    compiled = {str(tool): _spec(str(tool), spec) for tool, spec in raw.items()}
    for tool, spec in list(compiled.items()):
        compiled.setdefault(normalize_name(tool), spec)
    return compiled


def _value_fits(expected: Any, actual: Any, matcher: ValueMatcher | None, mode: str) -> bool:
    if matcher is not None:
        return bool(matcher(actual, expected))
    if actual is _MISSING or expected is _MISSING:
        return actual is expected
    if mode == "subset":
        return is_deep_subset(expected, actual)
    if mode == "superset":
        return is_deep_subset(actual, expected)
    return values_equal(expected, actual)


def _score(
    expected: Mapping[str, Any], actual: Mapping[str, Any], mode: str, spec: ToolArgSpec | None
) -> float:
    matchers = spec.args if spec is not None else {}
    if spec is not None and spec.keys:
        hits = sum(
            _value_fits(_get_path(expected, k), _get_path(actual, k), None, "exact")
            for k in spec.keys
        )
        return hits / len(spec.keys) if mode == "partial_credit" else float(hits == len(spec.keys))
    if spec is not None and spec.ignore_keys:
        expected = _drop_paths(expected, spec.ignore_keys)
        actual = _drop_paths(actual, spec.ignore_keys)
    if mode == "partial_credit":
        if not expected:
            return 1.0
        hits = sum(
            _value_fits(v, actual.get(k, _MISSING), matchers.get(k), "exact")
            for k, v in expected.items()
        )
        return hits / len(expected)
    if mode == "subset":
        keys: Any = expected
    elif mode == "superset":
        keys = actual
    else:  # exact
        if not matchers:
            return float(values_equal(expected, actual))
        keys = set(expected) | set(actual)
    return float(
        all(
            _value_fits(expected.get(k, _MISSING), actual.get(k, _MISSING), matchers.get(k), mode)
            for k in keys
        )
    )


class ArgComparer:
    """Scores actual against expected arguments under a mode and per-tool matchers."""

    __slots__ = ("matchers", "mode")

    def __init__(self, mode: str, matchers: Mapping[str, ToolArgSpec] | None = None) -> None:
        self.mode = mode
        self.matchers = matchers or {}

    def score(
        self,
        tool: str,
        expected: Mapping[str, Any] | None,
        actual: Mapping[str, Any],
        *,
        mode: str | None = None,
    ) -> float:
        """1.0 when `actual` fits `expected` for `tool`; a share under partial_credit."""
        spec = self.matchers.get(tool) if self.matchers else None
        if spec is None and self.matchers:
            spec = self.matchers.get(normalize_name(tool))
        mode = mode or (spec.mode if spec is not None else None) or self.mode
        if spec is not None and spec.call is not None:
            verdict = spec.call(actual, expected or {})
            return float(min(1.0, max(0.0, verdict)))
        if mode == "ignore" or expected is None:
            return 1.0
        if spec is None and mode == "exact":
            return float(values_equal(expected, actual))
        return _score(expected, actual, mode, spec)
