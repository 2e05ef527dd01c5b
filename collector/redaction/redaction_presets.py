"""Built-in redaction presets: regexes for common personal data, selectable by name.

Each preset is one or more linear-time patterns (`linear_regex.Part`: RE2, with the
edges a look-behind or look-ahead would check done on the bytes around a match) plus
an optional check of every match (the credit-card preset keeps only Luhn-valid
numbers, so order ids and timestamps survive). Presets over-redact rather than leak: a
phone pattern also hides a long grouped number that is not a phone. Pure; compiled
once at import.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from tracesim.collector.redaction.linear_regex import Part, char_at

__all__ = ["PRESETS", "Preset", "luhn_valid"]


def luhn_valid(text: str) -> bool:
    """True when the digits of `text` (separators ignored) pass the Luhn checksum."""
    digits = [ord(char) - 48 for char in text if "0" <= char <= "9"]
    if not 13 <= len(digits) <= 19:
        return False
    total = 0
    for index, digit in enumerate(reversed(digits)):
        if index % 2:
            digit *= 2
            if digit > 9:
                digit -= 9
        total += digit
    return total % 10 == 0


@dataclass(frozen=True)
class Preset:
    """A named set of linear patterns applied in order; `hint`, a character class every
    match contains (a cheap first screen of the text)."""

    name: str
    parts: tuple[Part, ...]
    description: str = ""
    hint: str = r"\d"


def _digit(char: str) -> bool:
    """\\d: a decimal digit (any script, as Python's `re`)."""
    return char.isdecimal()


def _word(char: str) -> bool:
    """\\w: a letter or digit of any script, or _."""
    return char.isalnum() or char == "_"


def _digit_or(extra: str) -> Callable[[str], bool]:
    """(?<![\\d<extra>]): the character before may be neither a digit nor one of `extra`."""
    return lambda char: char.isdecimal() or (char != "" and char in extra)


def _word_or_plus(char: str) -> bool:
    """(?<![\\w+])"""
    return _word(char) or char == "+"


def _digit_after(data: bytes, end: int) -> bool:
    """(?!\\d) fails"""
    return _digit(char_at(data, end))


def _word_after(data: bytes, end: int) -> bool:
    """(?!\\w) fails"""
    return _word(char_at(data, end))


def _digit_maybe_after(separator: str) -> Callable[[bytes, int], bool]:
    """(?![\\d<separator>]?\\d) fails: a digit next, or the separator and a digit."""

    def after(data: bytes, end: int) -> bool:
        char = char_at(data, end)
        return _digit(char) or (char == separator and _digit(char_at(data, end + 1)))

    return after


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
                    before=_digit_or("."),
                    after=_digit_maybe_after("."),
                    check=luhn_valid,
                    before_run=r"[\d.]",
                ),
            ),
            "13-19 digit card numbers (spaces or dashes allowed) passing the Luhn check",
        ),
        Preset(
            "ssn",
            (
                Part.of(
                    r"\d{3}-\d{2}-\d{4}",
                    before=_digit_or("-"),
                    after=_digit_maybe_after("-"),
                    before_run=r"[\d-]",
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
                    before=_word_or_plus,
                    after=_digit_after,
                    before_run=r"[\w+]",
                ),
                Part.of(
                    r"(?:\+\d{1,3}[ .-]?)?(?:\(\d{1,4}\)[ .-]?|\d{2,4}[ .-])\d{2,4}[ .-]?\d{3,4}",
                    before=_word_or_plus,
                    after=_word_after,
                    before_run=r"[\w+]",
                ),
            ),
            "phone numbers: +E.164, or grouped digits like (555) 123-4567 / 020 7946 0958",
        ),
        Preset(
            "ipv4",
            (
                Part.of(
                    rf"{_OCTET}(?:\.{_OCTET}){{3}}",
                    before=_digit_or("."),
                    after=_digit_maybe_after("."),
                    before_run=r"[\d.]",
                ),
            ),
            "IPv4 addresses",
        ),
    )
}
"""Presets by name, in the order they are applied."""
