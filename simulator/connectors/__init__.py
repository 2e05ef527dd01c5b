"""Agent connectors: how the simulator talks to each kind of agent."""

from tracesim.simulator.connectors.base import AgentConnector, ConnectorError, TurnContext

__all__ = ["AgentConnector", "ConnectorError", "TurnContext"]
