"""Production conversations become scenarios (`tracesim scenarios from-db`, SPEC §14)."""

from tracesim.evaluator.promote.collect import PromotionResult, promote_store
from tracesim.evaluator.promote.scenario import (
    Promotion,
    Summary,
    conversation_scenario,
    scenario_id_for,
)
from tracesim.evaluator.promote.summary import summarise

__all__ = [
    "Promotion",
    "PromotionResult",
    "Summary",
    "conversation_scenario",
    "promote_store",
    "scenario_id_for",
    "summarise",
]
