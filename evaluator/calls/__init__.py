"""Tool calls compared and paired: canonical arguments, optimal matching, explicit/traced merge."""

from tracesim.evaluator.calls.canonical import (
    args_equal,
    canonical_args,
    is_deep_subset,
    parse_json_text,
    values_equal,
)
from tracesim.evaluator.calls.matching import (
    lcs_length,
    lcs_pairs,
    max_matching,
    max_weight_matching,
    weighted_lcs_pairs,
)
from tracesim.evaluator.calls.merge import merge_tool_calls

# `canonical` (the function) is not re-exported: here it would shadow its submodule.
__all__ = [
    "args_equal",
    "canonical_args",
    "is_deep_subset",
    "lcs_length",
    "lcs_pairs",
    "max_matching",
    "max_weight_matching",
    "merge_tool_calls",
    "parse_json_text",
    "values_equal",
    "weighted_lcs_pairs",
]
