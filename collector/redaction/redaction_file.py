"""Redaction rules from a YAML (or JSON) file, validated before the collector starts.

The file holds a list of rules, or a mapping with that list under `redaction`:

    redaction:
      - preset: email                      # inside every attribute and log body
      - preset: credit_card
        attributes: [gen_ai.tool.call.arguments, gen_ai.tool.call.result]
      - attributes: [input.value]          # no pattern: the whole value goes
      - attributes: ["*.api_key"]
        pattern: "sk-[A-Za-z0-9]{16,}"
        replacement: "[KEY]"
        apply_to: [spans, logs]

A bare string in the list is a preset name. Errors name the file and the rule.
"""

from __future__ import annotations

from pathlib import Path

import yaml
from tracesim.collector.redaction.redaction import InvalidRedactionRule, RedactionRule, Redactor
from tracesim.schemas.text_file import TextFileError, read_text_file
from tracesim.schemas.yaml_limits import YamlTooLarge, load_yaml

__all__ = ["load_redaction_file"]


def load_redaction_file(path: str | Path) -> list[RedactionRule]:
    """Read and validate (compile) the rules of one file."""
    path = Path(path)
    try:
        document = load_yaml(read_text_file(path))
    except (YamlTooLarge, TextFileError) as error:
        raise InvalidRedactionRule(f"{path}: {error}") from None
    except OSError as error:
        raise InvalidRedactionRule(f"{path}: cannot read: {error.strerror}") from None
    except yaml.YAMLError as error:
        raise InvalidRedactionRule(f"{path}: not valid YAML: {error}") from None
    if isinstance(document, dict):
        unknown = sorted(set(document) - {"redaction"})
        if unknown:
            raise InvalidRedactionRule(
                f"{path}: unknown top-level key(s) {', '.join(map(repr, unknown))}; "
                "put the list of rules under 'redaction'"
            )
        document = document.get("redaction")
    if document is None:
        return []
    if not isinstance(document, list):
        raise InvalidRedactionRule(
            f"{path}: expected a list of rules (or 'redaction: [...]'), got {type(document).__name__}"
        )
    try:
        rules = [
            RedactionRule.coerce(item, where=f"redaction rule {index}")
            for index, item in enumerate(document, 1)
        ]
        Redactor(rules)
    except InvalidRedactionRule as error:
        raise InvalidRedactionRule(f"{path}: {error}") from None
    return rules
