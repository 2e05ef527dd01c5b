"""Agent connectors: how the simulator talks to each kind of agent."""

from simulator.connectors.base import AgentConnector, ConnectorError, TurnContext

__all__ = ["AgentConnector", "ConnectorError", "TurnContext"]
