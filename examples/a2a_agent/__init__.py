"""Example A2A agent (a2a-sdk server) with arksim's tool-call-capture extension (no LLM).

`build_app()` gives the Starlette app (tests serve it on a free port);
`python -m examples.a2a_agent --port 8001` runs it.
"""

from examples.a2a_agent.app import build_app, build_card
from examples.a2a_agent.executor import CaptureQuirks, CustomerServiceExecutor, SeenA2ARequest

__all__ = ["CaptureQuirks", "CustomerServiceExecutor", "SeenA2ARequest", "build_app", "build_card"]
