"""gzip bodies are decoded whole (every member) or refused: never stored in part (SPEC §9)."""

from __future__ import annotations

import gzip

import httpx
import pytest
from tracesim.collector import Collector
from tracesim.collector.errors import InvalidRequest, TooLarge
from tracesim.collector.receivers.inflate import inflate

from tests.collector.otlp import span, trace_request

PROTOBUF = {"content-type": "application/x-protobuf", "content-encoding": "gzip"}


def test_every_gzip_member_is_decoded() -> None:
    assert inflate(gzip.compress(b"first ") + gzip.compress(b"second"), 100) == b"first second"


def test_a_truncated_or_trailing_garbage_body_is_refused() -> None:
    whole = gzip.compress(b"x" * 1000)
    with pytest.raises(InvalidRequest, match="truncated"):
        inflate(whole[: len(whole) // 2], 10_000)
    with pytest.raises(InvalidRequest):
        inflate(whole + b"garbage!", 10_000)


def test_the_limit_counts_every_member() -> None:
    member = gzip.compress(b"y" * 600)
    with pytest.raises(TooLarge):
        inflate(member + member, 1000)


def test_http_receiver_stores_both_members_and_refuses_truncated(collector: Collector) -> None:
    url = f"{collector.http_endpoint}/v1/traces"
    first = trace_request([span("member-1")]).SerializeToString()
    second = trace_request([span("member-2")]).SerializeToString()
    # protobuf messages concatenate: two members inflate to one request with both spans
    answer = httpx.post(url, content=gzip.compress(first) + gzip.compress(second), headers=PROTOBUF)
    assert answer.status_code == 200, answer.text
    whole = gzip.compress(trace_request([span(f"t{i}") for i in range(50)]).SerializeToString())
    answer = httpx.post(url, content=whole[: len(whole) - 9], headers=PROTOBUF)
    assert answer.status_code == 400 and "truncated" in answer.json()["message"]
    assert collector.flush(10)
    names = {row[0] for row in collector.query("SELECT name FROM spans")[1]}
    assert names == {"member-1", "member-2"}
