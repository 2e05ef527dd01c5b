"""Built-in redaction presets: regexes for common personal data, selectable by name.

Each preset is a compiled regex plus an optional check of every match (the
credit-card preset keeps only Luhn-valid numbers, so order ids and timestamps
survive). Presets over-redact rather than leak: a phone pattern also hides a
long grouped number that is not a phone. Pure; compiled once at import.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

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
    """A named regex; `check`, when set, must accept a match for it to be replaced; `hint`,
    a character class every match contains (a cheap first screen of the text)."""

    name: str
    regex: re.Pattern[str]
    check: Callable[[str], bool] | None = None
    description: str = ""
    hint: str = r"\d"


_OCTET = r"(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)"

PRESETS: dict[str, Preset] = {
    preset.name: preset
    for preset in (
        # Order matters when several presets are on: longer digit runs first, so a card
        # number is hidden whole before the phone pattern could take a piece of it.
        Preset(
            "credit_card",
            re.compile(r"(?<![\d.])\d(?:[ -]?\d){12,18}(?![\d.]?\d)"),
            luhn_valid,
            "13-19 digit card numbers (spaces or dashes allowed) passing the Luhn check",
        ),
        Preset(
            "ssn",
            re.compile(r"(?<![\d-])(?!000|666|9\d\d)\d{3}-(?!00)\d{2}-(?!0000)\d{4}(?![\d-]?\d)"),
            None,
            "US social security numbers written AAA-GG-SSSS",
        ),
        Preset(
            "email",
            re.compile(r"[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}"),
            None,
            "e-mail addresses",
            "@",
        ),
        Preset(
            "phone",
            re.compile(
                r"(?<![\w+])(?:\+\d{7,15}(?!\d)"
                r"|(?:\+\d{1,3}[ .-]?)?(?:\(\d{1,4}\)[ .-]?|\d{2,4}[ .-])\d{2,4}[ .-]?\d{3,4}(?!\w))"
            ),
            None,
            "phone numbers: +E.164, or grouped digits like (555) 123-4567 / 020 7946 0958",
        ),
        Preset(
            "ipv4",
            re.compile(rf"(?<![\d.]){_OCTET}(?:\.{_OCTET}){{3}}(?!\.?\d)"),
            None,
            "IPv4 addresses",
        ),
    )
}
"""Presets by name, in the order they are applied."""
