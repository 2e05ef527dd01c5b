"""User checks: scenario assertions, custom metrics, and the MetricContext they (and judges) see."""

from tracesim.evaluator.checks.assertions import (
    ARKSIM_ARG_MODES,
    ASSERTION_TYPES,
    MATCH_MODES,
    Assertion,
    AssertionConfigError,
    check_assertions,
    parse_assertions,
)
from tracesim.evaluator.checks.context import MetricContext
from tracesim.evaluator.checks.custom import (
    CustomMetric,
    CustomMetricError,
    MetricScore,
    load_custom_metrics,
    metric,
    run_custom_metric,
)

__all__ = [
    "ARKSIM_ARG_MODES",
    "ASSERTION_TYPES",
    "Assertion",
    "AssertionConfigError",
    "CustomMetric",
    "CustomMetricError",
    "MATCH_MODES",
    "MetricContext",
    "MetricScore",
    "check_assertions",
    "load_custom_metrics",
    "metric",
    "parse_assertions",
    "run_custom_metric",
]
