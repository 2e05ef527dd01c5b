"""Bridge from the OpenAI Agents SDK's tracing to OpenTelemetry GenAI spans.

Needs `openai-agents` (`pip install openai-agents`); importing this package
without it raises ImportError with that hint.
"""

try:
    from tracesim.simulator.agents_bridge.processor import OTelBridgeProcessor
except ImportError as exc:  # pragma: no cover - openai-agents is a dependency
    raise ImportError("the OpenAI Agents SDK bridge needs `pip install openai-agents`") from exc

__all__ = ["OTelBridgeProcessor"]
