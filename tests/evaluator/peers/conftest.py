"""Ported peer cases: registers the `spec_override(reason)` marker.

A case whose peer answer SPEC (or issue 13's decisions) overrides is marked
`spec_override` (or its parametrize id starts `spec:`) with the reason, and
asserts tracesim's answer.
"""

from __future__ import annotations


def pytest_configure(config) -> None:
    config.addinivalue_line(
        "markers", "spec_override(reason): a peer case whose answer SPEC overrides"
    )


def pytest_sessionfinish(session, exitstatus) -> None:
    from tests.evaluator.peers._common import stop_server

    stop_server()
