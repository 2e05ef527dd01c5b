"""The persistent LLM cache: table `llm_cache`, keyed by sha256 of the full request.

A judge request is hashed over everything that can change the answer (model,
messages, response schema, temperature) and nothing that cannot (base_url,
API key, timeouts), so re-evaluating a stored run costs nothing and gives the
same answer, wherever the model is served from.

Reads are batched (`get_many`: one query for every request of an evaluation);
writes are buffered and flushed as one Arrow insert (`flush`), so the cache
scales with the run. Only well-formed answers are stored: a malformed answer
or an error is retried by the next evaluation.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any

import orjson
import pyarrow as pa

__all__ = ["CachedAnswer", "LLMCache", "request_hash"]

_FLUSH_EVERY = 256


def request_hash(request: Mapping[str, Any]) -> str:
    """sha256 (hex) of the canonical JSON of `request` (keys sorted, no whitespace)."""
    return hashlib.sha256(orjson.dumps(request, option=orjson.OPT_SORT_KEYS)).hexdigest()


@dataclass(frozen=True)
class CachedAnswer:
    """A stored answer: the response body and what it cost when it was first asked."""

    response: dict[str, Any]
    input_tokens: int
    output_tokens: int
    cost_usd: float


class LLMCache:
    """Reads and writes `llm_cache` on an open DuckDB connection (single-threaded use).

    `con` may be None: an in-memory-only cache (nothing persists).
    """

    def __init__(self, con: Any | None) -> None:
        self._con = con
        self._memory: dict[str, CachedAnswer] = {}
        self._pending: list[dict[str, Any]] = []

    def get_many(self, hashes: Iterable[str]) -> int:
        """Load the stored answers of `hashes` into memory in one query; return how many hit."""
        wanted = sorted({h for h in hashes if h not in self._memory})
        if not wanted or self._con is None:
            return 0
        keys = pa.table({"request_hash": pa.array(wanted, pa.string())})
        self._con.register("_tracesim_cache_keys", keys)
        try:
            rows = self._con.execute(
                "SELECT c.request_hash, c.response, c.input_tokens, c.output_tokens, c.cost_usd "
                "FROM llm_cache c JOIN _tracesim_cache_keys k USING (request_hash)"
            ).fetchall()
        finally:
            self._con.unregister("_tracesim_cache_keys")
        for key, response, in_tok, out_tok, cost in rows:
            body = orjson.loads(response) if isinstance(response, (str, bytes)) else response
            self._memory[key] = CachedAnswer(
                body, int(in_tok or 0), int(out_tok or 0), float(cost or 0.0)
            )
        return len(rows)

    def get(self, key: str) -> CachedAnswer | None:
        """The answer stored under `key` (after `get_many`), or None."""
        return self._memory.get(key)

    def put(
        self,
        key: str,
        *,
        model: str,
        request: Mapping[str, Any],
        response: dict[str, Any],
        input_tokens: int,
        output_tokens: int,
        cost_usd: float,
    ) -> None:
        """Remember an answer; it is written at the next `flush` (every 256 answers or at the end)."""
        answer = CachedAnswer(response, input_tokens, output_tokens, cost_usd)
        if key in self._memory:
            return
        self._memory[key] = answer
        self._pending.append(
            {
                "request_hash": key,
                "model": model,
                "request": orjson.dumps(request).decode(),
                "response": orjson.dumps(response).decode(),
                "input_tokens": input_tokens,
                "output_tokens": output_tokens,
                "cost_usd": cost_usd,
                "created_at": datetime.now(timezone.utc).replace(tzinfo=None),
            }
        )
        if len(self._pending) >= _FLUSH_EVERY:
            self.flush()

    def flush(self) -> None:
        """Write buffered answers with one Arrow insert (existing keys are kept)."""
        if not self._pending or self._con is None:
            self._pending.clear()
            return
        rows, self._pending = self._pending, []
        table = pa.Table.from_pylist(rows)
        self._con.register("_tracesim_cache_new", table)
        try:
            self._con.execute(
                "INSERT INTO llm_cache (request_hash, model, request, response, input_tokens, "
                "output_tokens, cost_usd, created_at) "
                "SELECT request_hash, model, request, response, input_tokens, output_tokens, "
                "cost_usd, created_at FROM _tracesim_cache_new ON CONFLICT DO NOTHING"
            )
        finally:
            self._con.unregister("_tracesim_cache_new")
