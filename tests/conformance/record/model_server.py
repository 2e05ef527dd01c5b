"""A scripted OpenAI-compatible model for conformance recordings (stdlib only).

Every framework under test talks to it with its own real client over HTTP. The reply
depends only on the request: the number of tool results already in it is the step
(0 -> get_weather Paris, 1 -> get_weather Paris again, 2 -> lookup_order A1, 3+ -> the
final answer, or a `final_answer` tool call when the agent offers that tool), so any
framework's agent loop walks the same script. Chat completions
(plain and server-sent events) and the Responses API (plain and streamed) are served, the
provider APIs of `provider_apis`, and DSPy's text-field requests (`text_fields`: there the
step is the number of observations).
Usage per reply: prompt 100 + 10*step, completion 20; `served` counts what was served.
"""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from provider_apis import (
    anthropic_events,
    anthropic_message,
    bedrock_converse,
    cohere_chat,
    gemini_chunks,
    gemini_response,
    ollama_chat,
    provider_tool_results,
)
from script_steps import (
    FINAL_ANSWER,
    SCRIPT,
    final_answer_key,
    offered_name,
    script_for,
    tool_results,
)
from text_fields import dspy_fields, dspy_reply, dspy_step

__all__ = ["FINAL_ANSWER", "SCRIPT", "ModelServer"]


class ModelServer:
    """The scripted model on 127.0.0.1, started in a daemon thread.

    `scripts` (from a variant's expected.json) replaces the default script for requests
    that offer a given tool: `[{"when_offered": name, "steps": [[id, name, args], ...],
    "final": text}]`.
    """

    def __init__(self, *, port: int = 0, scripts: list[dict[str, Any]] | None = None) -> None:
        self.scripts = scripts or []
        self.served: list[dict[str, Any]] = []
        self.requests: list[dict[str, Any]] = []
        self._lock = threading.Lock()
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:  # quiet
                return

            def do_GET(self) -> None:  # noqa: N802 - model listing for clients that probe
                self._send(200, {"object": "list", "data": [{"id": "scripted", "object": "model"}]})

            def do_POST(self) -> None:  # noqa: N802
                length = int(self.headers.get("content-length") or 0)
                body = json.loads(self.rfile.read(length) or b"{}")
                with server._lock:
                    server.requests.append({"path": self.path, "body": body})
                step = tool_results(body) or provider_tool_results(body) or dspy_step(body)
                usage = {"prompt": 100 + 10 * min(step, 3), "completion": 20}
                with server._lock:
                    server.served.append({"step": step, "path": self.path, **usage})
                path = self.path.split("?")[0].rstrip("/")
                if path.endswith("/responses"):
                    self._responses(body, step, usage)
                elif (
                    path.endswith(("/messages", "/converse", "/invoke", "/v2/chat", "/api/chat"))
                    or ":" in path.rsplit("/", 1)[-1]
                ):
                    self._provider(path, body, step, usage)
                else:
                    self._chat(body, step, usage)

            def _provider(
                self, path: str, body: dict[str, Any], step: int, usage: dict[str, int]
            ) -> None:
                """Anthropic Messages, Gemini generateContent, Bedrock Converse and InvokeModel
                (Anthropic bodies), Cohere v2 chat, Ollama chat."""
                steps, final = script_for(body, server.scripts)
                call = None
                if step < len(steps):
                    call_id, name, args = steps[step]
                    call = (call_id, offered_name(body, name), args)
                model = body.get("model") or path.rsplit("/", 1)[-1].split(":")[0]
                if path.endswith("/invoke"):
                    # Bedrock InvokeModel with an Anthropic Messages body: the model is in
                    # the path, the reply is a Messages API response
                    model = path.rsplit("/", 2)[-2]
                    self._send(200, anthropic_message(model, call, final, usage))
                elif path.endswith("/messages"):
                    if body.get("stream"):
                        self._sse(anthropic_events(model, call, final, usage), done=False)
                    else:
                        self._send(200, anthropic_message(model, call, final, usage))
                elif path.endswith("/converse"):
                    self._send(200, bedrock_converse(call, final, usage))
                elif path.endswith("/v2/chat"):
                    self._send(200, cohere_chat(model, call, final, usage))
                elif path.endswith("/api/chat"):
                    # the Ollama API streams unless asked not to
                    lines = ollama_chat(model, call, final, usage, stream=body.get("stream", True))
                    if len(lines) == 1:
                        self._send(200, lines[0])
                    else:
                        self._ndjson(lines)
                elif path.endswith(":streamGenerateContent"):
                    self._sse(gemini_chunks(model, call, final, usage), done=False)
                else:
                    self._send(200, gemini_response(model, call, final, usage))

            def _send(self, status: int, payload: dict[str, Any]) -> None:
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def _ndjson(self, lines: list[dict[str, Any]]) -> None:
                data = b"".join(json.dumps(line).encode() + b"\n" for line in lines)
                self.send_response(200)
                self.send_header("content-type", "application/x-ndjson")
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def _sse(self, events: list[tuple[str | None, dict[str, Any]]], done: bool) -> None:
                self.send_response(200)
                self.send_header("content-type", "text/event-stream")
                self.send_header("cache-control", "no-cache")
                self.end_headers()
                for event, payload in events:
                    head = f"event: {event}\n" if event else ""
                    self.wfile.write(f"{head}data: {json.dumps(payload)}\n\n".encode())
                if done:
                    self.wfile.write(b"data: [DONE]\n\n")
                self.wfile.flush()

            def _chat(self, body: dict[str, Any], step: int, usage: dict[str, int]) -> None:
                model = body.get("model") or "scripted"
                created = int(time.time())
                cid = f"chatcmpl-{step}-{time.monotonic_ns()}"
                u = {
                    "prompt_tokens": usage["prompt"],
                    "completion_tokens": usage["completion"],
                    "total_tokens": usage["prompt"] + usage["completion"],
                }
                script, final = script_for(body, server.scripts)
                final_key = final_answer_key(body)
                if final_key is not None:
                    script = [*script, ("call_final", "final_answer", {final_key: final})]
                fields = dspy_fields(body)
                if fields is not None:  # DSPy's text fields, not tool calls
                    message = {
                        "role": "assistant",
                        "content": dspy_reply(fields, step, script, final),
                    }
                    finish = "stop"
                elif step < len(script):
                    call_id, name, args = script[step]
                    name = offered_name(body, name)
                    calls = [
                        {
                            "id": call_id,
                            "type": "function",
                            "function": {"name": name, "arguments": json.dumps(args)},
                        }
                    ]
                    message: dict[str, Any] = {
                        "role": "assistant",
                        "content": None,
                        "tool_calls": calls,
                    }
                    finish = "tool_calls"
                else:
                    message = {"role": "assistant", "content": final}
                    finish = "stop"
                if not body.get("stream"):
                    self._send(
                        200,
                        {
                            "id": cid,
                            "object": "chat.completion",
                            "created": created,
                            "model": model,
                            "choices": [
                                {
                                    "index": 0,
                                    "message": message,
                                    "finish_reason": finish,
                                    "logprobs": None,
                                }
                            ],
                            "usage": u,
                        },
                    )
                    return
                base = {
                    "id": cid,
                    "object": "chat.completion.chunk",
                    "created": created,
                    "model": model,
                }
                delta: dict[str, Any] = {"role": "assistant", "content": message["content"]}
                if "tool_calls" in message:
                    delta["content"] = None
                    delta["tool_calls"] = [{"index": 0, **c} for c in message["tool_calls"]]
                chunks: list[tuple[str | None, dict[str, Any]]] = [
                    (
                        None,
                        {**base, "choices": [{"index": 0, "delta": delta, "finish_reason": None}]},
                    ),
                    (
                        None,
                        {**base, "choices": [{"index": 0, "delta": {}, "finish_reason": finish}]},
                    ),
                ]
                if (body.get("stream_options") or {}).get("include_usage"):
                    chunks.append((None, {**base, "choices": [], "usage": u}))
                elif "mistral" in (self.headers.get("user-agent") or "").lower():
                    # the Mistral API always puts the usage on the chunk that finishes
                    chunks[-1][1]["usage"] = u
                elif "groq" in (self.headers.get("user-agent") or "").lower():
                    # the Groq API: on the finishing chunk, under x_groq
                    chunks[-1][1]["x_groq"] = {"id": f"req_{cid}", "usage": u}
                self._sse(chunks, done=True)

            def _responses(self, body: dict[str, Any], step: int, usage: dict[str, int]) -> None:
                rid = f"resp_{step}_{time.monotonic_ns()}"
                script, final = script_for(body, server.scripts)
                if step < len(script):
                    call_id, name, args = script[step]
                    name = offered_name(body, name)
                    item: dict[str, Any] = {
                        "type": "function_call",
                        "id": f"fc_{call_id}",
                        "call_id": call_id,
                        "name": name,
                        "arguments": json.dumps(args),
                        "status": "completed",
                    }
                else:
                    item = {
                        "type": "message",
                        "id": f"msg_{step}",
                        "role": "assistant",
                        "status": "completed",
                        "content": [{"type": "output_text", "text": final, "annotations": []}],
                    }
                response = {
                    "id": rid,
                    "object": "response",
                    "created_at": int(time.time()),
                    "status": "completed",
                    "model": body.get("model") or "scripted",
                    "output": [item],
                    "parallel_tool_calls": True,
                    "tool_choice": body.get("tool_choice") or "auto",
                    "tools": body.get("tools") or [],
                    "temperature": 1.0,
                    "top_p": 1.0,
                    "error": None,
                    "incomplete_details": None,
                    "instructions": body.get("instructions"),
                    "metadata": {},
                    "text": {"format": {"type": "text"}},
                    "usage": {
                        "input_tokens": usage["prompt"],
                        "output_tokens": usage["completion"],
                        "total_tokens": usage["prompt"] + usage["completion"],
                        "input_tokens_details": {"cached_tokens": 0},
                        "output_tokens_details": {"reasoning_tokens": 0},
                    },
                }
                if not body.get("stream"):
                    self._send(200, response)
                    return
                pending = {**response, "status": "in_progress", "output": []}
                events: list[tuple[str | None, dict[str, Any]]] = [
                    (
                        "response.created",
                        {"type": "response.created", "sequence_number": 0, "response": pending},
                    ),
                    (
                        "response.output_item.added",
                        {
                            "type": "response.output_item.added",
                            "sequence_number": 1,
                            "output_index": 0,
                            "item": item,
                        },
                    ),
                    (
                        "response.output_item.done",
                        {
                            "type": "response.output_item.done",
                            "sequence_number": 2,
                            "output_index": 0,
                            "item": item,
                        },
                    ),
                    (
                        "response.completed",
                        {"type": "response.completed", "sequence_number": 3, "response": response},
                    ),
                ]
                self._sse(events, done=False)

        self._server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
        self.port = self._server.server_address[1]
        self.root_url = f"http://127.0.0.1:{self.port}"
        self.base_url = f"{self.root_url}/v1"
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    def start(self) -> ModelServer:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()

    def totals(self) -> dict[str, int]:
        """Model calls served and the usage sums: the token ground truth."""
        with self._lock:
            return {
                "model_calls": len(self.served),
                "input_tokens": sum(s["prompt"] for s in self.served),
                "output_tokens": sum(s["completion"] for s in self.served),
            }
