"""Example agent behind an OpenAI-compatible `POST /v1/chat/completions` (no LLM).

`build_app()` gives the Starlette app (tests serve it on a free port);
`python -m examples.chat_completions_agent --port 8000` runs it.
"""

from examples.chat_completions_agent.app import SeenRequest, build_app

__all__ = ["SeenRequest", "build_app"]
