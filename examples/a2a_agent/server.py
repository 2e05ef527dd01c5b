"""Run the A2A example agent: `python examples/a2a_agent/server.py --port 8001`.

Environment: `OTEL_EXPORTER_OTLP_ENDPOINT` (where spans go, e.g. the
collector at http://127.0.0.1:4317); `EXAMPLE_AGENT_ROUTING=traceparent`
to leave tracesim attributes off the spans (default `baggage`).
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

if __package__ in (None, ""):  # run as a script: make the repository importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import uvicorn  # noqa: E402

from examples.a2a_agent.app import build_app  # noqa: E402
from examples.shared_tools import tracer_provider  # noqa: E402
from examples.shared_tools.telemetry import flush_on_shutdown  # noqa: E402

__all__ = ["main"]


def main(argv: list[str] | None = None) -> None:
    """Parse `--host`/`--port`/`--routing`/`--no-streaming` and serve until interrupted."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8001)
    parser.add_argument(
        "--no-streaming", action="store_true", help="card says capabilities.streaming=false"
    )
    parser.add_argument(
        "--routing",
        choices=["baggage", "traceparent"],
        default=os.environ.get("EXAMPLE_AGENT_ROUTING", "baggage"),
        help="copy tracesim baggage onto spans, or only continue traceparent",
    )
    args = parser.parse_args(argv)
    provider = tracer_provider("example-a2a-agent", routing=args.routing)
    try:
        app = build_app(
            provider=provider,
            streaming=not args.no_streaming,
            lifespan=flush_on_shutdown(provider),
        )
        uvicorn.run(app, host=args.host, port=args.port, log_level="info")
    finally:
        provider.shutdown()  # when the lifespan did not run (startup failed); else a no-op


if __name__ == "__main__":
    main()
