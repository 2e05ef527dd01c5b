"""Deterministic tool-call metrics."""

__all__: list[str] = []
