"""A scenario's tool stubs: recorded or hand-written answers to the agent's tool calls.

`tool_stubs: [{"name", "args", "result" | "error", "repeat"}]`: during a
simulated run a call of tool `name` whose arguments match `args` gets `result`
(or fails with `error`) instead of reaching a real back end. First match in
file order wins; `repeat` limits how many calls one stub answers (omitted:
any number). `args` is a deep-subset matcher: every key given must be in the
call's arguments with an equal value (nested objects compared the same way);
omitted or `{}` matches any arguments.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, model_validator

__all__ = ["ToolStub"]


class ToolStub(BaseModel):
    """One stubbed answer of a tool."""

    model_config = ConfigDict(extra="forbid")

    name: str = Field(min_length=1)
    """The tool it answers."""
    args: dict[str, Any] | None = None
    """Deep-subset matcher of the call's arguments; None or {} matches any call."""
    result: Any = None
    """What the tool returns (any JSON value)."""
    error: str | None = None
    """The tool fails with this message instead of returning."""
    repeat: int | None = Field(default=None, ge=1)
    """How many calls this stub answers; None: every matching call."""

    @model_validator(mode="after")
    def _result_or_error(self) -> ToolStub:
        if self.error is not None and self.result is not None:
            raise ValueError(f"tool stub {self.name!r}: give 'result' or 'error', not both")
        if self.error is None and "result" not in self.model_fields_set:
            raise ValueError(f"tool stub {self.name!r}: needs a 'result' or an 'error'")
        return self
