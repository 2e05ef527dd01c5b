"""What waiting gRPC calls cost the receiver in memory: RSS with N large exports held.

Runs a GrpcReceiver in its own process with one handler thread held busy, sends N
exports of SIZE MiB at once (one connection, or one each), and prints the receiver's
RSS once all calls are admitted or refused and the clients have sent what the
transport takes. `--bdp` turns HTTP/2 BDP probing back on (gRPC's default) to show
what the bound saves; `--max-waiting` sets how many calls may wait.

    .venv/bin/python benchmarks/grpc_buffering.py --calls 24 --size 15
    .venv/bin/python benchmarks/grpc_buffering.py --calls 24 --size 15 --bdp
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import threading
from pathlib import Path

import grpc

ROOT = Path(__file__).resolve().parents[1]
TRACE_METHOD = "/opentelemetry.proto.collector.trace.v1.TraceService/Export"

_SERVER = """
import sys, threading
from tracesim.collector.receivers import grpc_admission
from tracesim.collector.receivers.receiver_grpc import GrpcReceiver
if sys.argv[1] == "bdp":
    grpc_admission.TRANSPORT_OPTIONS[:] = []
held = threading.Event()
class HeldIngest:
    def export_traces(self, payload):
        held.wait(300)
        return 0, ""
    export_logs = export_traces
receiver = GrpcReceiver(HeldIngest(), port=0, workers=1, max_waiting=int(sys.argv[2]))
receiver.start()
print(receiver.port, flush=True)
for line in sys.stdin:
    if line.strip() == "release":
        held.set()
        continue
    rss = next(l.split()[1] for l in open("/proc/self/status") if l.startswith("VmRSS"))
    a = receiver.admission
    print(int(rss) // 1024, a.admitted, a.refused, flush=True)
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--calls", type=int, default=24)
    parser.add_argument("--size", type=int, default=15, help="MiB per export (< 16)")
    parser.add_argument("--max-waiting", type=int, default=64)
    parser.add_argument("--connections", choices=["one", "each"], default="one")
    parser.add_argument("--bdp", action="store_true", help="gRPC's default BDP probing")
    args = parser.parse_args()
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    mode = "bdp" if args.bdp else "bounded"
    server = subprocess.Popen(
        [sys.executable, "-c", _SERVER, mode, str(args.max_waiting)],
        cwd=ROOT,
        env=env,
        text=True,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
    )
    assert server.stdin is not None and server.stdout is not None
    endpoint = f"127.0.0.1:{int(server.stdout.readline())}"

    def ask(command: str = "rss") -> list[int]:
        server.stdin.write(command + "\n")  # type: ignore[union-attr]
        server.stdin.flush()  # type: ignore[union-attr]
        return [int(field) for field in server.stdout.readline().split()]  # type: ignore[union-attr]

    idle = ask()[0]
    payload = os.urandom(args.size << 20)
    options = [("grpc.max_send_message_length", 64 << 20)]
    shared = grpc.insecure_channel(endpoint, options=options)
    codes: list[str] = []

    def export() -> None:
        channel = (
            shared
            if args.connections == "one"
            else grpc.insecure_channel(endpoint, options=options)
        )
        try:
            channel.unary_unary(TRACE_METHOD)(payload, timeout=300)
            codes.append("OK")
        except grpc.RpcError as error:
            codes.append(error.code().name)

    threads = [threading.Thread(target=export) for _ in range(args.calls)]
    for thread in threads:
        thread.start()
    peak = idle
    for _ in range(20):  # the transport takes what it will in well under a second
        threading.Event().wait(0.25)
        rss, admitted, refused = ask()
        peak = max(peak, rss)
    server.stdin.write("release\n")
    server.stdin.flush()
    for thread in threads:
        thread.join()
    server.stdin.close()
    server.wait(30)
    print(
        {
            "mode": mode,
            "calls": args.calls,
            "size_mib": args.size,
            "connections": args.connections,
            "idle_rss_mb": idle,
            "held_rss_mb": peak,
            "growth_mb": peak - idle,
            "admitted": admitted,
            "refused": refused,
            "answers": {code: codes.count(code) for code in sorted(set(codes))},
        }
    )


if __name__ == "__main__":
    main()
