"""`python -m examples.chat_completions_agent [--port 8000]`."""

from examples.chat_completions_agent.server import main

main()
