"""`RedactionRule`: which attributes a rule names and how it redacts them, from config.

Validation of a rule's fields and types happens here (unknown fields refused, names in
the message); compiling its pattern into linear-time parts is `redaction._compile`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from tracesim.collector.redaction.redaction_presets import PRESETS

__all__ = ["DEFAULT_REPLACEMENT", "SCOPES", "InvalidRedactionRule", "RedactionRule"]

SCOPES: tuple[str, ...] = ("spans", "events", "logs", "resources")
"""Where a rule can apply: span attributes, span-event attributes, log records (attributes
and body), resource attributes."""
DEFAULT_REPLACEMENT = "[REDACTED]"
_FIELDS = ("attributes", "pattern", "preset", "replacement", "apply_to")


class InvalidRedactionRule(ValueError):
    """A redaction rule that cannot be compiled; the message names the rule and the fix."""


@dataclass(frozen=True)
class RedactionRule:
    """Which attributes to redact, and how.

    `attributes`: glob patterns of attribute names (`*` matches any run of characters).
    `pattern`: a regex replaced inside string values; `preset`: a built-in regex by name
    (see `collector.redaction.redaction_presets.PRESETS`); neither: the whole value is replaced.
    `replacement`: literal text put in place of what is redacted.
    `apply_to`: any of `SCOPES`.
    """

    attributes: tuple[str, ...] = ("*",)
    pattern: str | None = None
    preset: str | None = None
    replacement: str = DEFAULT_REPLACEMENT
    apply_to: tuple[str, ...] = SCOPES

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], *, where: str = "redaction rule") -> RedactionRule:
        """A rule from config (YAML/JSON/kwargs); unknown fields and bad types are refused."""
        if not isinstance(data, Mapping):
            raise InvalidRedactionRule(
                f"{where}: expected a mapping with fields {', '.join(_FIELDS)} or a preset name"
                f" ({', '.join(PRESETS)}), got {type(data).__name__}"
            )
        unknown = sorted(set(data) - set(_FIELDS))
        if unknown:
            raise InvalidRedactionRule(
                f"{where}: unknown field(s) {', '.join(map(repr, unknown))}; "
                f"allowed: {', '.join(_FIELDS)}"
            )
        kwargs: dict[str, Any] = {}
        for name in ("attributes", "apply_to"):
            if name in data:
                kwargs[name] = _string_tuple(data[name], f"{where}: {name!r}")
        for name in ("pattern", "preset", "replacement"):
            value = data.get(name)
            if value is not None and not isinstance(value, str):
                raise InvalidRedactionRule(
                    f"{where}: {name!r} must be a string, got {type(value).__name__}"
                )
            if value is not None:
                kwargs[name] = value
        return cls(**kwargs)

    @classmethod
    def coerce(cls, item: Any, *, where: str = "redaction rule") -> RedactionRule:
        """A rule from a RedactionRule, a config mapping or a bare preset name."""
        if isinstance(item, RedactionRule):
            return item
        if isinstance(item, str):
            return cls(preset=item)
        return cls.from_dict(item, where=where)

    def describe(self) -> str:
        """Short text naming the rule in error messages."""
        how = (
            f"preset {self.preset!r}"
            if self.preset
            else f"pattern {_shortened(self.pattern)!r}"
            if self.pattern is not None
            else "whole value"
        )
        return f"{how} on {', '.join(self.attributes)}"


def _shortened(text: str, limit: int = 80) -> str:
    """`text`, cut to `limit` characters with the length said (a message stays one line)."""
    return text if len(text) <= limit else f"{text[:limit]}... ({len(text):,} characters)"


def _string_tuple(value: Any, where: str) -> tuple[str, ...]:
    """A tuple of strings from a string or list of strings."""
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, (list, tuple)) or not all(isinstance(v, str) for v in value):
        raise InvalidRedactionRule(f"{where} must be a string or a list of strings")
    return tuple(value)
