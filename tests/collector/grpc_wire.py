"""A raw gRPC call over HTTP/2 (h2 on a plain socket): sends a message frame exactly as
given (compressed flag, grpc-encoding), which gRPC's own clients cannot be made to do."""

from __future__ import annotations

import socket
import struct
from dataclasses import dataclass
from urllib.parse import unquote

import h2.config
import h2.connection
import h2.events

__all__ = ["WireStatus", "raw_call"]


@dataclass(frozen=True)
class WireStatus:
    """The gRPC status a call ended with."""

    code: int
    message: str


def raw_call(
    endpoint: str,
    method: str,
    message: bytes | list[bytes] | None,
    *,
    compressed: bool,
    encoding: str | None,
    end_stream: bool = True,
) -> WireStatus:
    """One call whose message frame carries `message` as it is, flagged compressed or not,
    with `grpc-encoding: encoding` when given; None sends no message, a list one message
    frame per item (more than a unary method takes); `end_stream=False` never ends the
    request (a client that stalls)."""
    host, port = endpoint.removeprefix("http://").rsplit(":", 1)
    conn = h2.connection.H2Connection(
        h2.config.H2Configuration(client_side=True, header_encoding="utf-8")
    )
    headers = [
        (":method", "POST"),
        (":scheme", "http"),
        (":path", method),
        (":authority", f"{host}:{port}"),
        ("content-type", "application/grpc"),
        ("te", "trailers"),
    ]
    if encoding is not None:
        headers.append(("grpc-encoding", encoding))
    messages = [] if message is None else [message] if isinstance(message, bytes) else message
    rest = b"".join(struct.pack(">BI", int(compressed), len(item)) + item for item in messages)
    answer: dict[str, str] = {}
    with socket.create_connection((host, int(port)), timeout=30) as sock:
        conn.initiate_connection()
        stream = conn.get_next_available_stream_id()
        conn.send_headers(stream, headers, end_stream=end_stream and not messages)
        while "grpc-status" not in answer:
            while rest and conn.local_flow_control_window(stream) > 0:
                size = min(
                    len(rest), conn.local_flow_control_window(stream), conn.max_outbound_frame_size
                )
                conn.send_data(stream, rest[:size], end_stream=end_stream and size == len(rest))
                rest = rest[size:]
            sock.sendall(conn.data_to_send())
            data = sock.recv(65536)
            if not data:
                raise ConnectionError(f"the server closed the connection; got {answer}")
            for event in conn.receive_data(data):
                if isinstance(event, (h2.events.ResponseReceived, h2.events.TrailersReceived)):
                    answer.update(dict(event.headers))  # type: ignore[arg-type]
                elif isinstance(event, h2.events.StreamReset) and "grpc-status" not in answer:
                    raise ConnectionError(f"stream reset with HTTP/2 error {event.error_code}")
                elif isinstance(event, h2.events.DataReceived):
                    conn.acknowledge_received_data(event.flow_controlled_length, stream)
    return WireStatus(int(answer["grpc-status"]), unquote(answer.get("grpc-message", "")))
