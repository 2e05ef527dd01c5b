"""The LLM arksim injects into its metric classes (`self.llm.call(messages, schema=...)`),
backed by the evaluation's judge model (`evaluation.llm`, else `llm`).

`configure_arksim_llm` is called once per evaluation, before custom metrics load; a metric
whose `__init__` takes `llm` gets an `ArksimLLM` (as arksim's loader does). Each call is one
request at temperature 0 through tracesim's provider clients (any `llm.provider`); with a
pydantic `schema` the answer is asked for as that JSON schema and returned validated. The
requests and tokens a metric spent are kept in its score's `details["llm"]`.
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel

__all__ = [
    "ArksimLLM",
    "arksim_llm",
    "configure_arksim_llm",
    "failure_labels_of",
    "instantiate",
]

_CONFIGURED: list[Any] = [None, {}]
"""The judge model's LLMConfig for this evaluation (None: no LLM to inject), and the
evaluation's `failure_labels` (what a qualitative metric's label fails on)."""


class ArksimLLM:
    """arksim's `BaseLLM` surface (`call`, `call_async`) over a tracesim provider client."""

    def __init__(self, llm: Any) -> None:
        self.llm = llm
        self.requests = 0
        self.input_tokens = 0
        self.output_tokens = 0

    def _request(self, messages: Sequence[Any], schema: Any) -> dict[str, Any]:
        request: dict[str, Any] = {
            "model": self.llm.model,
            "messages": [dict(m) for m in messages],
            "temperature": 0,
        }
        if inspect.isclass(schema) and issubclass(schema, BaseModel):
            request["response_format"] = {
                "type": "json_schema",
                "json_schema": {"name": schema.__name__, "schema": schema.model_json_schema()},
            }
        return request

    async def call_async(self, messages: Sequence[Any], schema: Any = None, **_: Any) -> Any:
        """One request; the validated `schema` instance, else the answer's text."""
        from tracesim.providers import make_chat_client

        client = make_chat_client(self.llm)
        try:
            answer = await client.complete(self._request(messages, schema))
        finally:
            await client.aclose()
        self.requests += 1
        self.input_tokens += answer.input_tokens
        self.output_tokens += answer.output_tokens
        if inspect.isclass(schema) and issubclass(schema, BaseModel):
            return schema.model_validate_json(answer.content)
        return answer.content

    def call(self, messages: Sequence[Any], schema: Any = None, **kwargs: Any) -> Any:
        """`call_async`, from synchronous code (a metric's `score`)."""
        return asyncio.run(self.call_async(messages, schema, **kwargs))

    def spent(self) -> dict[str, int]:
        """Requests and tokens so far."""
        return {
            "requests": self.requests,
            "input_tokens": self.input_tokens,
            "output_tokens": self.output_tokens,
        }


def configure_arksim_llm(llm: Any, failure_labels: Any = None) -> None:
    """The judge model arksim metrics get from now on (None, or a model that cannot run
    for want of a key: none, and a metric using `self.llm` is not graded, saying why), and
    the evaluation's `failure_labels` (arksim's `qualitative_failure_labels`)."""
    from tracesim.evaluator.llm.llm_client import judge_unavailable_reason

    _CONFIGURED[0] = llm if llm is not None and judge_unavailable_reason(llm) is None else None
    _CONFIGURED[1] = dict(failure_labels or {})


def failure_labels_of(name: str) -> list[str] | None:
    """The labels that fail qualitative metric `name` (None: the config lists none)."""
    labels = _CONFIGURED[1].get(name)
    return [str(label) for label in labels] if labels else None


def arksim_llm() -> ArksimLLM | None:
    """A fresh LLM for one metric instance, or None."""
    return None if _CONFIGURED[0] is None else ArksimLLM(_CONFIGURED[0])


def instantiate(cls: type) -> Any:
    """`cls()`, given `llm=` when its own `__init__` takes it (as arksim's loader does)."""
    try:
        params = inspect.signature(cls.__init__).parameters
    except (TypeError, ValueError):
        return cls()
    if "llm" in params:
        return cls(llm=arksim_llm())
    return cls()
