"""A deterministic, offline `agents.models.interface.Model` for the example.

Rule-based on the last user message and the tool outputs since it: it
emits real `ResponseFunctionToolCall` items (with call ids) and
`ResponseOutputMessage`s, so the SDK's own tool-calling loop, tool
execution and tracing run exactly as with a hosted model. Like the SDK's
models, it records each call in a generation span. Swap it for a real model
with one config line (`agent_config.init_kwargs.model: gpt-4o-mini`).

Its limits are deliberate and realistic: it only understands the word
"refund" for refunds ("money back" is missed), which one scenario exposes.

Two knobs make it worse on purpose, to try `tracesim compare`:
`skip_verification=True` is a regressed version (it cancels and refunds
without verifying the customer's identity first), and `slip=True` makes one
conversation misread the customer's first message (answers without looking
anything up), which the agent turns on for a seeded share of conversations
(`flaky`) to play a non-deterministic model.
"""

from __future__ import annotations

import json
import re
import uuid
from collections.abc import AsyncIterator
from typing import Any

from agents.items import ModelResponse
from agents.models.interface import Model, ModelTracing
from agents.tracing import generation_span
from agents.usage import Usage
from openai.types.responses import (
    ResponseFunctionToolCall,
    ResponseOutputMessage,
    ResponseOutputText,
)

__all__ = ["LocalModel"]

MODEL_NAME = "local-rules-v1"
_ORDER_ID = re.compile(r"\b([A-Z]\d{4})\b", re.IGNORECASE)
_EMAIL = re.compile(r"[\w.+-]+@[\w-]+\.[\w.]+")


class LocalModel(Model):
    """Decides the next step from the conversation like a (very literal) LLM would."""

    def __init__(self, *, skip_verification: bool = False) -> None:
        self._prefix = uuid.uuid4().hex[:8]
        self._calls = 0
        self.skip_verification = skip_verification
        self.slip = False
        """When True, the first user message is misread (set per conversation by the agent)."""

    async def get_response(
        self,
        system_instructions: str | None,
        input: str | list[Any],
        model_settings: Any,
        tools: list[Any],
        output_schema: Any,
        handoffs: list[Any],
        tracing: ModelTracing,
        *,
        previous_response_id: str | None = None,
        conversation_id: str | None = None,
        prompt: Any = None,
    ) -> ModelResponse:
        items = [{"role": "user", "content": input}] if isinstance(input, str) else list(input)
        with generation_span(model=MODEL_NAME, disabled=tracing.is_disabled()) as span:
            output = self._decide(items)
            usage = Usage(
                requests=1,
                input_tokens=_tokens(items),
                output_tokens=_tokens(output),
                total_tokens=_tokens(items) + _tokens(output),
            )
            if tracing.include_data():
                span.span_data.input = [_plain(i) for i in items[-6:]]
                span.span_data.output = [_chat_message(output)]
            span.span_data.usage = {
                "input_tokens": usage.input_tokens,
                "output_tokens": usage.output_tokens,
            }
        return ModelResponse(output=output, usage=usage, response_id=None)

    def stream_response(self, *args: Any, **kwargs: Any) -> AsyncIterator[Any]:
        raise NotImplementedError("LocalModel does not stream; use Runner.run")

    # -- the rules --------------------------------------------------------
    def _decide(self, items: list[Any]) -> list[Any]:
        user_text, tool_results = _since_last_user(items)
        text = user_text.lower()
        if self.slip and not tool_results and _user_messages(items) == 1:
            return [_say("Happy to help! Could you tell me a little more about what you need?")]
        if tool_results:
            return self._after_tool(items, text, *tool_results[-1])
        current = _ORDER_ID.search(user_text)
        order_id = current.group(1).upper() if current else _remembered_order(items)
        email = _EMAIL.search(user_text)
        asks = "cancel" in text or "refund" in text
        intent = _intent(items)
        if "policy" in text:
            topic = (
                "returns"
                if "return" in text
                else "cancellation"
                if "cancel" in text
                else "shipping"
            )
            return [self._call("get_policy", topic=topic)]
        if asks or (email and intent):
            if not order_id:
                return [_say("Sure. What is the order number (it looks like A1234)?")]
            if self.skip_verification and intent:  # the regressed version: no identity check
                if intent == "cancel":
                    return [self._call("cancel_order", order_id=order_id)]
                return [
                    self._call(
                        "request_refund", order_id=order_id, reason=_reason(_all_user_text(items))
                    )
                ]
            if not email:
                return [
                    _say(
                        f"To change order {order_id} I first need to verify your identity. What is the email on the account?"
                    )
                ]
            return [self._call("verify_identity", order_id=order_id, email=email.group(0))]
        if current:
            return [self._call("lookup_order", order_id=order_id)]
        if any(w in text for w in ("thank", "bye", "that's all")):
            return [_say("You're welcome! Have a great day.")]
        return [_say("Happy to help! Could you give me your order number (it looks like A1234)?")]

    def _after_tool(
        self, items: list[Any], text: str, name: str, result: dict[str, Any]
    ) -> list[Any]:
        if name == "verify_identity":
            if not result.get("verified"):
                return [
                    _say("I'm sorry, that email does not match the order, so I can't change it.")
                ]
            order_id = str(result.get("order_id"))
            if _intent(items) == "cancel":
                return [self._call("cancel_order", order_id=order_id)]
            return [
                self._call(
                    "request_refund", order_id=order_id, reason=_reason(_all_user_text(items))
                )
            ]
        return [_say(_summarise(name, result))]

    def _call(self, name: str, **arguments: str) -> ResponseFunctionToolCall:
        self._calls += 1
        return ResponseFunctionToolCall(
            type="function_call",
            call_id=f"call_{self._prefix}_{self._calls}",
            name=name,
            arguments=json.dumps(arguments),
        )


def _say(text: str) -> ResponseOutputMessage:
    return ResponseOutputMessage(
        id=f"msg_{uuid.uuid4().hex[:12]}",
        type="message",
        role="assistant",
        status="completed",
        content=[ResponseOutputText(type="output_text", text=text, annotations=[])],
    )


def _since_last_user(items: list[Any]) -> tuple[str, list[tuple[str, dict[str, Any]]]]:
    """The last user message and the (tool name, parsed output) results after it."""
    names: dict[str, str] = {}
    user_text, results = "", []
    for item in map(_plain, items):
        if item.get("role") == "user":
            user_text, results = _content_text(item.get("content")), []
        elif item.get("type") == "function_call":
            names[item.get("call_id", "")] = item.get("name", "")
        elif item.get("type") == "function_call_output":
            try:
                parsed = json.loads(item.get("output") or "{}")
            except ValueError:
                parsed = {"text": item.get("output")}
            results.append(
                (
                    names.get(item.get("call_id", ""), ""),
                    parsed if isinstance(parsed, dict) else {"text": parsed},
                )
            )
    return user_text, results


def _intent(items: list[Any]) -> str | None:
    """`cancel` or `refund`, from the latest user message that asks for one."""
    for item in reversed([_plain(i) for i in items]):
        if item.get("role") == "user":
            text = _content_text(item.get("content")).lower()
            if "cancel" in text:
                return "cancel"
            if "refund" in text:
                return "refund"
    return None


def _remembered_order(items: list[Any]) -> str | None:
    for item in reversed([_plain(i) for i in items]):
        if item.get("role") == "user":
            match = _ORDER_ID.search(_content_text(item.get("content")))
            if match:
                return match.group(1).upper()
    return None


def _summarise(name: str, result: dict[str, Any]) -> str:
    if name == "lookup_order":
        if not result.get("found"):
            return f"I couldn't find order {result.get('order_id')}. Could you double-check the number?"
        return f"Order {result['order_id']} ({result['item']}) is {result['status']}."
    if name == "cancel_order":
        if result.get("cancelled"):
            return f"Done: order {result['order_id']} is cancelled."
        return f"I couldn't cancel it: {result.get('reason')}."
    if name == "request_refund":
        if result.get("refunded"):
            return f"Your refund of ${result['amount']:.2f} for order {result['order_id']} is on its way."
        return f"I can't refund that order: {result.get('reason')}."
    if name == "get_policy":
        return str(result.get("text", result))
    return "Done."


def _all_user_text(items: list[Any]) -> str:
    plain = [_plain(i) for i in items]
    return " ".join(
        _content_text(i.get("content")) for i in plain if i.get("role") == "user"
    ).lower()


def _reason(text: str) -> str:
    for word in ("damaged", "broken", "wrong size", "late"):
        if word in text:
            return word
    return "customer request"


def _content_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return " ".join(str(p.get("text", "")) for p in content if isinstance(p, dict))
    return ""


def _plain(item: Any) -> dict[str, Any]:
    if hasattr(item, "model_dump"):
        return item.model_dump(exclude_none=True)
    return dict(item) if isinstance(item, dict) else {}


def _chat_message(output: list[Any]) -> dict[str, Any]:
    """The output as a chat-completions assistant message (what the SDK's chat model traces)."""
    text = " ".join(
        p.text
        for o in output
        if isinstance(o, ResponseOutputMessage)
        for p in o.content
        if hasattr(p, "text")
    )
    calls = [
        {
            "id": o.call_id,
            "type": "function",
            "function": {"name": o.name, "arguments": o.arguments},
        }
        for o in output
        if isinstance(o, ResponseFunctionToolCall)
    ]
    message: dict[str, Any] = {"role": "assistant", "content": text or None}
    if calls:
        message["tool_calls"] = calls
    return message


def _user_messages(items: list[Any]) -> int:
    return sum(1 for i in items if _plain(i).get("role") == "user")


def _tokens(items: list[Any]) -> int:
    return max(1, len(json.dumps([_plain(i) for i in items], default=str)) // 4)
