"""A pattern rule that RE2 runs in linear time, but with a constant that would stall ingest,
is refused at start with one line naming the rule and the fix (SPEC §9: redaction runs in
linear time and never stalls other exports).

Measured before the fix (CPU s/MB on text repeating the pattern's own letters, the presets'
worst being 0.25 alone and 0.43 all together): `\\w{48}` 0.2, `\\w{100}` 1.2, `\\w{300}` 2.4,
`\\pL{1000}` 4.3, a 3,000-character literal 20.7. All were accepted."""

from __future__ import annotations

import pytest
from tracesim.collector.redaction import PRESETS, InvalidRedactionRule, RedactionRule, Redactor
from tracesim.collector.redaction.linear_regex import MAX_PROGRAM, compile_linear


@pytest.mark.parametrize(
    ("pattern", "said"),
    [
        (r"\pL{1000}", "RE2 instructions, more than 30,000"),
        (r"\w{100}", "RE2 instructions, more than 30,000"),
        (r"sk-\w{48}", "[A-Za-z0-9_]{48}"),
        ("a" * 3000, "every match spans at least 3,000 characters"),
        ("(?:ab){600}", "every match spans at least 1,200 characters"),
    ],
)
def test_a_costly_pattern_is_refused_in_one_line(pattern: str, said: str) -> None:
    with pytest.raises(InvalidRedactionRule) as raised:
        Redactor([RedactionRule(pattern=pattern)])
    message = str(raised.value)
    assert message.startswith("redaction rule 1 (pattern ") and said in message
    assert "\n" not in message and len(message) < 600


@pytest.mark.parametrize(
    ("pattern", "text"),
    [
        (r"\w{20,}", "id é" + "b" * 30),
        (r"sk-[A-Za-z0-9]{48}", "key sk-" + "Z" * 48),
        (r"\b\w+@\w+\.\w+\b", "mail ann@example.org"),
        ("a" * 1000, "x " + "a" * 1000),
        (r"(?i)bearer\s+\S+", "auth Bearer abc.def"),
    ],
)
def test_usual_patterns_are_accepted_and_redact(pattern: str, text: str) -> None:
    redactor = Redactor([RedactionRule(pattern=pattern, attributes=("x",))])
    assert redactor.span({"x": text})["x"].endswith("[REDACTED]")


def test_the_presets_stay_far_under_the_bound() -> None:
    sizes = [part.regex.programsize for preset in PRESETS.values() for part in preset.parts]
    assert max(sizes) * 5 < MAX_PROGRAM
    assert compile_linear(r"\w{20,}").programsize < MAX_PROGRAM
