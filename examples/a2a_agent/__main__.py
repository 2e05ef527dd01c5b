"""`python -m examples.a2a_agent [--port 8001]`."""

from examples.a2a_agent.server import main

main()
