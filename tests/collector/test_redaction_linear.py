"""Redaction in linear time whatever the rule set (SPEC §9): every preset and pattern rule
runs on RE2, a linear-time engine; a pattern RE2 cannot run linearly is refused at start;
the inputs that froze the collector (the e-mail preset over text without a top-level
domain: 36 s for 100 KB) complete; and the presets still redact what the look-around
regexes they replace did (checked against them on generated text)."""

from __future__ import annotations

import re
import subprocess
import sys
import textwrap

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tracesim.collector.redaction import PRESETS, InvalidRedactionRule, RedactionRule, Redactor
from tracesim.collector.redaction.redaction_presets import luhn_valid

_OCTET = r"(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)"
REFERENCE = {
    "credit_card": (re.compile(r"(?<![\d.])\d(?:[ -]?\d){12,18}(?![\d.]?\d)"), luhn_valid),
    "ssn": (
        re.compile(r"(?<![\d-])(?!000|666|9\d\d)\d{3}-(?!00)\d{2}-(?!0000)\d{4}(?![\d-]?\d)"),
        None,
    ),
    "email": (
        re.compile(r"[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}"),
        None,
    ),
    "phone": (
        re.compile(
            r"(?<![\w+])(?:\+\d{7,15}(?!\d)"
            r"|(?:\+\d{1,3}[ .-]?)?(?:\(\d{1,4}\)[ .-]?|\d{2,4}[ .-])\d{2,4}[ .-]?\d{3,4}(?!\w))"
        ),
        None,
    ),
    "ipv4": (re.compile(rf"(?<![\d.]){_OCTET}(?:\.{_OCTET}){{3}}(?!\.?\d)"), None),
}
"""The backtracking regexes the presets replaced (ASCII text: same answers expected)."""


def _reference(name: str, text: str) -> str:
    regex, check = REFERENCE[name]
    return regex.sub(
        lambda m: "[REDACTED]" if check is None or check(m.group()) else m.group(), text
    )


def test_every_preset_and_pattern_rule_runs_on_a_linear_time_engine() -> None:
    redactor = Redactor(
        [
            *(RedactionRule(preset=name) for name in PRESETS),
            RedactionRule(pattern=r"sk-[A-Za-z0-9]{16,}"),
        ]
    )
    engines = {
        type(part.regex).__module__
        for scope in redactor.scopes.values()
        for rule in scope._rules
        for part in rule.parts or ()
    }
    assert engines == {"re2"}


@pytest.mark.parametrize(
    "pattern",
    [r"(?<!\d)\d{4}", r"\d{4}(?!\d)", r"(a)\1", r"(?=x)x"],
)
def test_patterns_that_cannot_run_in_linear_time_are_refused_at_start(pattern: str) -> None:
    with pytest.raises(InvalidRedactionRule, match="RE2 .linear time") as raised:
        Redactor([RedactionRule(pattern=pattern)])
    assert "redaction rule 1" in str(raised.value)


def test_adversarial_text_completes_on_every_preset_and_a_catastrophic_pattern() -> None:
    """Run in a child with a generous timeout: a guard against a hang, not a speed check."""
    script = textwrap.dedent(
        """
        from tracesim.collector.redaction import PRESETS, RedactionRule, Redactor
        redactor = Redactor([*(RedactionRule(preset=n) for n in PRESETS),
                             RedactionRule(pattern=r"(a+)+$")])
        texts = ["a" * 100_000 + "@" + "b" * 100_000,            # e-mail, no top-level domain
                 "a@" + "b." * 100_000,
                 "1" * 200_000, "1 " * 100_000, "+" + "1" * 200_000,
                 "1." * 100_000, "a" * 200_000 + "!"]
        for text in texts:
            out = redactor.span({"x": text})["x"]
            assert isinstance(out, str)
        print("done")
        """
    )
    proc = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=300
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.strip() == "done"


ALPHABET = "0123456789" * 3 + " -.+()@_ax:/é\u00a0١"


@settings(max_examples=400, deadline=None)
@given(
    name=st.sampled_from(sorted(PRESETS)),
    pieces=st.lists(
        st.one_of(
            st.text(alphabet=ALPHABET, max_size=30),
            st.sampled_from(
                [
                    "4111 1111 1111 1111",
                    "4111-1111-1111-1111",
                    "4111111111111111",
                    "123-45-6789",
                    "000-12-3456",
                    "alice.b@example.co.uk",
                    "a@b.c",
                    "+14155550123",
                    "(555) 123-4567",
                    "020 7946 0958",
                    "+44 20 7946 0958",
                    "192.168.1.10",
                    "+0000000(0)00000",
                    "256.1.1.1",
                    "10.0.0.1.5",
                ]
            ),
        ),
        max_size=4,
    ),
)
def test_the_presets_redact_what_the_look_around_regexes_did(name: str, pieces: list[str]) -> None:
    text = "".join(pieces)
    redactor = Redactor([RedactionRule(preset=name, attributes=("x",))])
    assert redactor.span({"x": text})["x"] == _reference(name, text)


def test_the_name_cache_is_bounded_in_bytes_of_attribute_names() -> None:
    """Attribute names are client-chosen (up to the request size): 20 distinct 1 MB names
    are not all kept (before, up to 8,192 names of any length were)."""
    redactor = Redactor([RedactionRule(preset="email")])
    scope = redactor.scopes["spans"]
    for index in range(20):
        redactor.span({f"{index:02d}" + "n" * 1_000_000: "x@example.com"})
    assert sum(len(name) for name in scope._plans) <= (8 << 20) + 1_000_002


class _CountingRegexp:
    """An RE2 program whose searches are counted (the steps of a scan)."""

    def __init__(self, regexp: object) -> None:
        self.regexp = regexp
        self.searches = 0

    def Match(self, *args: object) -> object:  # noqa: N802 - RE2's own name
        self.searches += 1
        return self.regexp.Match(*args)  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("name", "text", "matches"),
    [
        ("credit_card", "1" * 200_000, 0),
        ("ipv4", "1." * 100_000, 0),
        ("ssn", "1-" * 100_000, 0),
        ("phone", "+1" * 100_000, 0),
        ("credit_card", "١" * 100_000, 0),
        ("credit_card", "1 " * 100_000, 200_000 // 37),
        ("credit_card", "4111111111111111 " * 1000, 1000),
        ("phone", "12 34 567 " * 1000, 1000),
        ("ipv4", "1.2.3.4 " * 1000, 1000),
    ],
)
def test_a_scan_costs_one_search_per_match_found_whatever_the_edges_rule_out(
    name: str, text: str, matches: int
) -> None:
    """The edges a look-around checked are matched by RE2 with the pattern, so a match
    whose start or end they rule out costs no search of its own (before: one search per
    rejected start and per shortening, ~0.5 s/MB of "1 1 1 ..."; a run no match may follow
    cost one search per character before that)."""
    from dataclasses import replace
    from types import SimpleNamespace

    from tracesim.collector.redaction.linear_regex import substitute

    counted = []
    for part in PRESETS[name].parts:
        copy = replace(part)
        copy.__dict__["regex"] = SimpleNamespace(_regexp=_CountingRegexp(part.regex._regexp))
        counted.append(copy)
    expected = _reference(name, text)
    assert substitute(tuple(counted), text, "[REDACTED]") == expected
    searches = sum(part.regex._regexp.searches for part in counted)
    assert searches <= matches + 2 * len(counted)
