"""Built-in redaction presets: regexes for common personal data, selectable by name.

Each preset is one or more linear-time patterns (`linear_regex.Part`: RE2, with the
edges a look-behind or look-ahead would check matched around the match) plus
an optional check of every match (the credit-card preset keeps only Luhn-valid
numbers, so order ids and timestamps survive). Presets over-redact rather than leak: a
phone pattern also hides a long grouped number that is not a phone. Pure; compiled
once at import.
"""

from __future__ import annotations

from dataclasses import dataclass

from tracesim.collector.redaction.linear_regex import Part

__all__ = ["PRESETS", "Preset", "luhn_valid"]


def luhn_valid(text: str) -> bool:
    """True when the digits of `text` (separators ignored) pass the Luhn checksum."""
    digits = text.encode("ascii", "ignore").translate(None, _NOT_DIGITS)
    if not 13 <= len(digits) <= 19:
        return False
    total = sum(digits[-1::-2]) - 48 * len(digits[-1::-2])
    total += sum(map(_DOUBLED.__getitem__, digits[-2::-2]))
    return total % 10 == 0


_NOT_DIGITS = bytes(byte for byte in range(256) if not 48 <= byte <= 57)
_DOUBLED = {48 + digit: (2 * digit) % 9 if digit != 9 else 9 for digit in range(10)}
"""A digit's byte -> its Luhn contribution when doubled (digits of 2d summed)."""


@dataclass(frozen=True)
class Preset:
    """A named set of linear patterns applied in order; `hint`, a character class every
    match contains (a cheap first screen of the text)."""

    name: str
    parts: tuple[Part, ...]
    description: str = ""
    hint: str = r"\d"


_NO_DIGIT_NEXT = r"$|\D"
r"""(?!\d): what may follow a match that must not run on into a digit."""
_NO_WORD_NEXT = r"$|\W"
r"""(?!\w)"""


def _no_digit_next_even_after(separator: str) -> str:
    r"""(?![\d<separator>]?\d): neither a digit next, nor the separator and a digit."""
    return rf"$|[^\d{separator}]|{separator}(?:$|\D)"


def _ssn_valid(text: str) -> bool:
    """Area not 000, 666 or 9xx; group not 00; serial not 0000 (never issued)."""
    area, group, serial = text.split("-")
    return area not in ("000", "666") and area[0] != "9" and group != "00" and serial != "0000"


_OCTET = r"(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)"

PRESETS: dict[str, Preset] = {
    preset.name: preset
    for preset in (
        # Order matters when several presets are on: longer digit runs first, so a card
        # number is hidden whole before the phone pattern could take a piece of it.
        Preset(
            "credit_card",
            (
                Part.of(
                    r"\d(?:[ -]?\d){12,18}",
                    before=r"\d.",
                    after=_no_digit_next_even_after(r"\."),
                    check=luhn_valid,
                ),
            ),
            "13-19 digit card numbers (spaces or dashes allowed) passing the Luhn check",
        ),
        Preset(
            "ssn",
            (
                Part.of(
                    r"\d{3}-\d{2}-\d{4}",
                    before=r"\d\-",
                    after=_no_digit_next_even_after(r"\-"),
                    check=_ssn_valid,
                ),
            ),
            "US social security numbers written AAA-GG-SSSS",
        ),
        Preset(
            "email",
            (Part.of(r"[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}"),),
            "e-mail addresses",
            "@",
        ),
        Preset(
            "phone",
            (
                Part.of(
                    r"\+\d{7,15}",
                    before=r"\w+",
                    after=_NO_DIGIT_NEXT,
                ),
                Part.of(
                    r"(?:\+\d{1,3}[ .-]?)?(?:\(\d{1,4}\)[ .-]?|\d{2,4}[ .-])\d{2,4}[ .-]?\d{3,4}",
                    before=r"\w+",
                    after=_NO_WORD_NEXT,
                ),
            ),
            "phone numbers: +E.164, or grouped digits like (555) 123-4567 / 020 7946 0958",
        ),
        Preset(
            "ipv4",
            (
                Part.of(
                    rf"{_OCTET}(?:\.{_OCTET}){{3}}",
                    before=r"\d.",
                    after=_no_digit_next_even_after(r"\."),
                ),
            ),
            "IPv4 addresses",
        ),
    )
}
"""Presets by name, in the order they are applied."""
