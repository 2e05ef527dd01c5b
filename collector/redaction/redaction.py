"""Redaction rules applied at ingest, so personal data in attributes never reaches DuckDB.

Tool-call arguments and results, prompts and log bodies can hold personal data
(SPEC §9). A `RedactionRule` names attributes by glob and either replaces the
whole value (no pattern) or every match of a regex or built-in preset inside
string values: inside lists and maps too, and inside JSON documents held in a
string (tool arguments), which are parsed, redacted and re-serialised compactly.

Rules run at ingest, on the protobuf request before it is spooled
(`collector.redaction.redaction_request`, which also covers names, status messages,
severity text and bytes values), so raw values never reach disk. Identifiers
(operation, tool and model names, tokens, turn numbers, service.name) are attributes no
rule touches (`PROTECTED_ATTRIBUTES`); model replies tracesim reads are redacted after
what it derives from them is kept; a conversation id a rule would change becomes a
stable pseudonym (`PSEUDONYMISED_ATTRIBUTES`).
The log record body is matched as the attribute name `body`.

Order for one attribute: a whole-value rule wins; otherwise presets run in
`PRESETS` order (cards before phones), then custom patterns in the order given.
"""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import orjson
from tracesim.collector.redaction.linear_regex import (
    LinearRegexError,
    Part,
    compile_linear,
    costly_pattern,
    substitute,
)
from tracesim.collector.redaction.pseudonym import Pseudonyms
from tracesim.collector.redaction.redaction_presets import PRESETS
from tracesim.collector.redaction.redaction_rule import (
    DEFAULT_REPLACEMENT,
    SCOPES,
    InvalidRedactionRule,
    RedactionRule,
)
from tracesim.collector.routing.hot_fields import CONTENT_ATTRIBUTES, HOT_ATTRIBUTES
from tracesim.collector.routing.routing_keys import ROUTING_ATTRIBUTES
from tracesim.schemas.conventions import OTEL, TRACESIM
from tracesim.schemas.conversation_keys import CONVERSATION_ID_KEYS

__all__ = [
    "DEFAULT_REPLACEMENT",
    "InvalidRedactionRule",
    "LOG_BODY",
    "PROTECTED_ATTRIBUTES",
    "PSEUDONYMISED_ATTRIBUTES",
    "RedactionRule",
    "Redactor",
    "SCOPES",
]

LOG_BODY = "body"
"""The name a log record's body is matched under."""
PSEUDONYMISED_ATTRIBUTES: frozenset[str] = frozenset(CONVERSATION_ID_KEYS)
"""Conversation ids of the conventions: a rule that would change one replaces it whole by a
stable pseudonym (`pseudonym`), so the spans of a conversation still key together."""
PROTECTED_ATTRIBUTES: frozenset[str] = (
    (HOT_ATTRIBUTES - CONTENT_ATTRIBUTES)
    | (ROUTING_ATTRIBUTES - PSEUDONYMISED_ATTRIBUTES)
    | {OTEL.SERVICE_NAME, TRACESIM.RUN_ID, TRACESIM.SCENARIO_ID}
)
"""Attributes no rule touches: identifiers, not personal data (operation and span kinds,
tool and model names, token counts, turn numbers, the ids tracesim's simulator makes).
Content tracesim reads (model replies) is redacted after reading; conversation ids of the
conventions are pseudonymised."""

_CACHE_LIMIT = 8192
_CACHE_BYTES = 8 << 20
"""Most bytes of attribute names the plan cache keeps (names are client-chosen, up to MBs)."""
_CUSTOM_RANK = 100  # presets rank 1..len(PRESETS), custom patterns after them
_UNCHANGED = object()


@dataclass(frozen=True)
class _Compiled:
    """One rule ready to run."""

    names: re.Pattern[str]
    parts: tuple[Part, ...] | None
    """Linear-time patterns replaced inside values; None replaces the whole value."""
    replacement: str
    scopes: frozenset[str]
    rank: int
    hint: str | None
    exact: frozenset[str]
    """The rule's globs without wildcards: the names it names exactly."""


def _compile(rule: RedactionRule, index: int) -> _Compiled:
    """Validate and compile one rule (`index` counts from 1, for messages)."""
    where = f"redaction rule {index} ({rule.describe()})"
    if not rule.attributes or not all(isinstance(g, str) and g for g in rule.attributes):
        raise InvalidRedactionRule(
            f"{where}: 'attributes' needs at least one non-empty attribute name or glob "
            "(e.g. 'gen_ai.tool.call.arguments', '*.email', '*')"
        )
    bad_scopes = [scope for scope in rule.apply_to if scope not in SCOPES]
    if bad_scopes or not rule.apply_to:
        raise InvalidRedactionRule(
            f"{where}: apply_to {list(rule.apply_to)!r} is not a non-empty list of "
            f"{', '.join(SCOPES)}"
        )
    if not isinstance(rule.replacement, str):
        raise InvalidRedactionRule(f"{where}: 'replacement' must be a string")
    if rule.preset is not None and rule.pattern is not None:
        raise InvalidRedactionRule(f"{where}: give 'pattern' or 'preset', not both")
    parts: tuple[Part, ...] | None = None
    rank = 0
    hint = None
    if rule.preset is not None:
        preset = PRESETS.get(rule.preset)
        if preset is None:
            raise InvalidRedactionRule(
                f"{where}: unknown preset {rule.preset!r}; presets are {', '.join(PRESETS)}"
            )
        parts, hint = preset.parts, preset.hint
        try:
            for part in parts:
                part.regex  # noqa: B018 - compiled now, so a missing engine fails at start-up
        except LinearRegexError as error:
            raise InvalidRedactionRule(f"{where}: {error}") from None
        rank = 1 + list(PRESETS).index(rule.preset)
    elif rule.pattern is not None:
        try:
            regex = compile_linear(rule.pattern)
        except LinearRegexError as error:
            raise InvalidRedactionRule(
                f"{where}: invalid regular expression: {error}; or use a preset "
                f"({', '.join(PRESETS)})"
            ) from None
        parts = (Part(rule.pattern),)
        too_costly = costly_pattern(rule.pattern, regex)
        if too_costly:
            raise InvalidRedactionRule(f"{where}: {too_costly}")
        if regex.search("") is not None:
            raise InvalidRedactionRule(
                f"{where}: the pattern matches the empty string, so it would redact between "
                "every character; make it match at least one character"
            )
        rank = _CUSTOM_RANK + index
    names = re.compile("|".join(fnmatch.translate(glob) for glob in rule.attributes))
    return _Compiled(
        names=names,
        parts=parts,
        replacement=rule.replacement,
        scopes=frozenset(rule.apply_to),
        rank=rank,
        hint=hint,
        exact=frozenset(glob for glob in rule.attributes if not set(glob) & set("*?[")),
    )


class _Plan:
    """The rules for one attribute name: a whole-value replacement, or pattern rules in order.
    Text is screened first by one character class (every preset match holds a digit or an @),
    then by the rules' regexes, so plain text costs one fast scan."""

    __slots__ = ("hint", "pseudonym", "renamed", "rules", "whole")

    def __init__(self, rules: tuple[_Compiled, ...], pseudonym: Pseudonyms | None = None) -> None:
        self.renamed: str | None = None
        """The attribute's name redacted by the pattern rules, when they change it (a secret
        in a key: `{"alice@example.com": 3}`); set by `_ScopeRedactor._plan`."""
        self.pseudonym = pseudonym
        """Set for a conversation id: a changed value becomes its pseudonym, whole."""
        self.whole = rules[0].replacement if rules[0].parts is None else None
        self.rules = tuple(rule for rule in rules if rule.parts is not None)
        hints = {rule.hint for rule in self.rules}
        self.hint = None
        if hints and None not in hints:
            self.hint = re.compile(f"[{''.join(sorted(hints))}]")  # type: ignore[arg-type]

    def hits(self, text: str) -> bool:
        """True when some rule may change `text`."""
        if self.hint is not None and self.hint.search(text) is None:
            return False
        return any(
            part.regex.search(text)
            for rule in self.rules
            for part in rule.parts  # type: ignore[union-attr]
        )


_MISSING = object()


class _ScopeRedactor:
    """The rules of one scope, with a cache of which rules apply to which attribute name."""

    def __init__(self, rules: list[_Compiled], pseudonyms: Pseudonyms | None = None) -> None:
        self._rules = sorted(rules, key=lambda rule: rule.rank)
        self._pseudonyms = pseudonyms or Pseudonyms()
        self._plans: dict[str, _Plan | None] = {}
        self._plan_bytes = 0

    def _plan(self, name: str) -> _Plan | None:
        """What to do with attribute `name` (None: leave it alone)."""
        plan = self._plans.get(name, _MISSING)
        if plan is not _MISSING:
            return plan  # type: ignore[return-value]
        matching = ()
        if name not in PROTECTED_ATTRIBUTES:
            matching = tuple(rule for rule in self._rules if rule.names.match(name))
        pseudonym = self._pseudonyms if name in PSEUDONYMISED_ATTRIBUTES else None
        plan = _Plan(matching, pseudonym) if matching else None
        if plan is not None and plan.rules and pseudonym is None:
            renamed = _text(plan, name)
            plan.renamed = None if renamed is name else renamed
        if len(self._plans) >= _CACHE_LIMIT or self._plan_bytes > _CACHE_BYTES:
            self._plans.clear()
            self._plan_bytes = 0
        self._plans[name] = plan
        self._plan_bytes += len(name) + (len(plan.renamed or "") if plan is not None else 0)
        return plan

    def text_plan(self, name: str) -> _Plan | None:
        """What to do with a text that is not an attribute value (a span name under
        `span.name`, ...): pattern rules whose globs match, whole-value rules only when they
        name it exactly (a name like `tracesim.turn` identifies a span; "*" means values)."""
        key = "\0" + name
        plan = self._plans.get(key, _MISSING)
        if plan is not _MISSING:
            return plan  # type: ignore[return-value]
        matching = tuple(
            rule
            for rule in self._rules
            if rule.names.match(name) and (rule.parts is not None or name in rule.exact)
        )
        plan = _Plan(matching) if matching else None
        self._plans[key] = plan
        return plan

    def attributes(self, attrs: dict[str, Any]) -> dict[str, Any]:
        """`attrs` with rules applied, names included: the same dict when nothing changed,
        else a copy (in the same order)."""
        out: dict[str, Any] | None = None
        renamed = False
        plan_for = self._plan
        for name, value in attrs.items():
            plan = plan_for(name)
            if plan is None:
                continue
            new = _apply(plan, value)
            renamed = renamed or plan.renamed is not None
            if new is not _UNCHANGED:
                if out is None:
                    out = dict(attrs)
                out[name] = new
        if renamed:
            items = (out or attrs).items()
            names = unique_names([self._renamed(name) for name, _value in items])
            out = dict(zip(names, (value for _name, value in items), strict=True))
        return attrs if out is None else out

    def _renamed(self, name: str) -> str:
        """`name` redacted (its plan is cached: this is a dict lookup)."""
        plan = self._plan(name)
        return name if plan is None or plan.renamed is None else plan.renamed

    def value(self, name: str, value: Any) -> Any:
        """One value under attribute name `name`, redacted."""
        plan = self._plan(name)
        if plan is None:
            return value
        new = _apply(plan, value)
        return value if new is _UNCHANGED else new


def unique_names(names: list[str]) -> list[str]:
    """`names` with repeats made distinct (`[REDACTED]`, `[REDACTED]#2`, ...): two keys
    redacted to the same text keep both values."""
    seen: set[str] = set()
    out = []
    for name in names:
        unique, count = name, 1
        while unique in seen:
            count += 1
            unique = f"{name}#{count}"
        seen.add(unique)
        out.append(unique)
    return out


def _apply(plan: _Plan, value: Any) -> Any:
    """Redacted value, or _UNCHANGED (a conversation id: its pseudonym when a rule hits)."""
    if plan.pseudonym is not None:
        if value is None:
            return _UNCHANGED
        changed = plan.whole is not None or _walk(plan, value) is not _UNCHANGED
        token = plan.pseudonym.token(value) if changed else None
        return _UNCHANGED if token is None or token == value else token
    if plan.whole is not None:
        return plan.whole
    return _walk(plan, value)


def _walk(plan: _Plan, value: Any) -> Any:
    """Apply pattern rules to strings (and integers) anywhere in `value`; _UNCHANGED if none hit."""
    if isinstance(value, str):
        text = _text(plan, value)
        return _UNCHANGED if text is value else text
    if isinstance(value, bool) or value is None or isinstance(value, float):
        return _UNCHANGED
    if isinstance(value, int):
        digits = str(value)
        text = _text(plan, digits)
        return _UNCHANGED if text is digits else text
    if isinstance(value, list):
        items = [_walk(plan, item) for item in value]
        if all(item is _UNCHANGED for item in items):
            return _UNCHANGED
        return [old if new is _UNCHANGED else new for old, new in zip(value, items, strict=True)]
    if isinstance(value, dict):
        changed = False
        out: dict[Any, Any] = {}
        for key, item in value.items():
            new_key = _text(plan, key) if isinstance(key, str) else key
            new = _walk(plan, item)
            changed = changed or new is not _UNCHANGED or new_key is not key
            out[new_key] = item if new is _UNCHANGED else new
        return out if changed else _UNCHANGED
    return _UNCHANGED


def _text(plan: _Plan, text: str) -> str:
    """`text` redacted (the same object when nothing matched). A JSON document is parsed and
    its strings redacted one by one, so the result stays valid JSON."""
    if not plan.hits(text):
        return text
    head = text.lstrip()[:1]
    if head == "{" or head == "[":
        try:
            document = orjson.loads(text)
        except orjson.JSONDecodeError:
            pass
        else:
            new = _walk(plan, document)
            return text if new is _UNCHANGED else orjson.dumps(new).decode()
    out = text
    for rule in plan.rules:
        out = substitute(rule.parts, out, rule.replacement)  # type: ignore[arg-type]
    return text if out == text else out


class Redactor:
    """Compiled redaction rules. Pure and thread-safe for the single writer thread that uses
    it (its name cache is a plain dict). Falsy when it has no rules.

    `span`, `event`, `log` and `resource` are `attributes -> attributes` functions, or None
    when no rule applies to that scope (so decoding skips redaction at zero cost).
    """

    def __init__(self, rules: Iterable[RedactionRule] = ()) -> None:
        self.rules: tuple[RedactionRule, ...] = tuple(rules)
        compiled = [_compile(rule, index) for index, rule in enumerate(self.rules, 1)]
        self.pseudonyms = Pseudonyms()
        """Tokens of redacted conversation ids (the collector gives it its persisted key)."""
        scopes = {
            scope: _ScopeRedactor(
                [rule for rule in compiled if scope in rule.scopes], self.pseudonyms
            )
            for scope in SCOPES
        }
        has = {scope: bool(scopes[scope]._rules) for scope in SCOPES}
        self.span = scopes["spans"].attributes if has["spans"] else None
        self.event = scopes["events"].attributes if has["events"] else None
        self.log = scopes["logs"].attributes if has["logs"] else None
        self.resource = scopes["resources"].attributes if has["resources"] else None
        self.log_body = (lambda body: scopes["logs"].value(LOG_BODY, body)) if has["logs"] else None
        self.scopes: dict[str, _ScopeRedactor] = {s: r for s, r in scopes.items() if has[s]}
        """The rules of each scope that has any (used on protobuf requests at ingest)."""

    def __bool__(self) -> bool:
        return bool(self.rules)

    @classmethod
    def from_config(
        cls, config: Redactor | Sequence[RedactionRule | Mapping[str, Any] | str] | None
    ) -> Redactor:
        """Compile rules given as RedactionRule, config mappings or bare preset names.

        Raises InvalidRedactionRule naming the rule and what is allowed.
        """
        if isinstance(config, Redactor):
            return config
        if config is None:
            return cls()
        if isinstance(config, (str, bytes, Mapping)):
            raise InvalidRedactionRule(
                "redaction: expected a list of rules (mappings or preset names), "
                f"got {type(config).__name__}"
            )
        return cls(
            RedactionRule.coerce(item, where=f"redaction rule {index}")
            for index, item in enumerate(config, 1)
        )
