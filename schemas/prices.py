"""Model prices for the agent's own cost: a small built-in table, overridable in the config.

USD per million tokens, list prices of common hosted models (snapshot of the
providers' public price pages, 2025; prices change: override them in
`evaluation.prices`). A model is matched by its name after any `provider/`
prefix, exactly or by the longest known prefix (`gpt-4o-2024-08-06` is priced
as `gpt-4o`, `gpt-4o-mini-...` as `gpt-4o-mini`). A model that matches nothing
is never guessed: its cost is not graded until the config gives its price.
"""

from __future__ import annotations

from collections.abc import Mapping

from pydantic import BaseModel, ConfigDict, Field

__all__ = ["BUILTIN_PRICES", "ModelPrice", "price_for"]


class ModelPrice(BaseModel):
    """One model's price."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    input_per_mtok: float = Field(ge=0)
    """USD per million input (prompt) tokens."""
    output_per_mtok: float = Field(ge=0)
    """USD per million output (completion) tokens."""

    def cost(self, input_tokens: int, output_tokens: int) -> float:
        """USD for these token counts."""
        return (input_tokens * self.input_per_mtok + output_tokens * self.output_per_mtok) / 1e6


def _p(inp: float, out: float) -> ModelPrice:
    return ModelPrice(input_per_mtok=inp, output_per_mtok=out)


BUILTIN_PRICES: Mapping[str, ModelPrice] = {
    "gpt-4o": _p(2.50, 10.00),
    "gpt-4o-mini": _p(0.15, 0.60),
    "gpt-4.1": _p(2.00, 8.00),
    "gpt-4.1-mini": _p(0.40, 1.60),
    "gpt-4.1-nano": _p(0.10, 0.40),
    "gpt-4-turbo": _p(10.00, 30.00),
    "gpt-3.5-turbo": _p(0.50, 1.50),
    "o1": _p(15.00, 60.00),
    "o3": _p(2.00, 8.00),
    "o3-mini": _p(1.10, 4.40),
    "o4-mini": _p(1.10, 4.40),
    "claude-3-5-haiku": _p(0.80, 4.00),
    "claude-3-haiku": _p(0.25, 1.25),
    "claude-3-5-sonnet": _p(3.00, 15.00),
    "claude-3-7-sonnet": _p(3.00, 15.00),
    "claude-sonnet-4": _p(3.00, 15.00),
    "claude-opus-4": _p(15.00, 75.00),
    "gemini-1.5-flash": _p(0.075, 0.30),
    "gemini-1.5-pro": _p(1.25, 5.00),
    "gemini-2.0-flash": _p(0.10, 0.40),
    "gemini-2.5-flash": _p(0.30, 2.50),
    "gemini-2.5-pro": _p(1.25, 10.00),
}
"""Built-in list prices (USD per million tokens)."""


def price_for(
    model: str | None, overrides: Mapping[str, ModelPrice] | None = None
) -> ModelPrice | None:
    """The price of `model`: the config's `overrides` first (exact name, then the same
    matching), then the built-in table; None when nothing matches."""
    if not model:
        return None
    name = model.strip().lower()
    bare = name.rsplit("/", 1)[-1]
    for table in (overrides or {}, BUILTIN_PRICES):
        lowered = {key.lower(): price for key, price in table.items()}
        for candidate in (name, bare):
            if candidate in lowered:
                return lowered[candidate]
        best = max(
            (
                key
                for key in lowered
                if bare.startswith(key) and bare[len(key) : len(key) + 1] in "-@:."
            ),
            key=len,
            default=None,
        )
        if best is not None:
            return lowered[best]
    return None
