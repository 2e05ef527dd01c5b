"""Collector ingest benchmark: spans/s STORED end to end over loopback OTLP gRPC.

Runs the collector in its own process (`tracesim collect`), drives it from
separate client processes with pre-serialized ExportTraceServiceRequests
(~1 KB agent spans, ~15 attributes, 512 per request, one request in flight per
client), then stops the collector (SIGTERM: drain + commit) and counts the
spans in DuckDB. Throughput = stored spans / (first send -> collector exited).
Also: the official OTLPSpanExporter from a separate process, and an overload
run (many clients, small queue) showing UNAVAILABLE answers and bounded RSS.

    .venv/bin/python benchmarks/ingest.py                 # full run
    .venv/bin/python benchmarks/ingest.py --spans 100000 --quick
    .venv/bin/python benchmarks/ingest.py --repo /path/to/other/checkout   # side by side

CPU is every CPU second of the collector and the processes it started (its decoder
process), start-up included (`cpu_us_per_span_after_start`: without the imports, the
DuckDB open and the decoder's start, a fixed ~1-2 s); peak RSS is the sum of their peaks
(`peak_rss_main_mb`: the collector's own; `peak_pss_mb`: the highest sum of their
proportional set sizes seen every 0.1 s, shared libraries counted once).
`decoder_cpu_us_per_span` is the decoder process's CPU after start (as last seen by the
0.1 s poll), `collector_only_cpu_us_per_span` the rest: which process to make cheaper.
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import os
import re
import resource
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
TRACE_METHOD = "/opentelemetry.proto.collector.trace.v1.TraceService/Export"


# collector process ------------------------------------------------------------------------
class CollectorProcess:
    """A collector subprocess plus a VmHWM poller."""

    def __init__(
        self,
        db: Path,
        *,
        max_pending_mb: int | None = None,
        repo: Path = ROOT,
        extra: tuple[str, ...] = (),
    ) -> None:
        env = {**os.environ, "PYTHONPATH": str(repo)}
        venv_python = repo / ".venv" / "bin" / "python"
        python = str(venv_python) if repo != ROOT and venv_python.exists() else sys.executable
        if max_pending_mb is None:
            cmd = [
                python,
                "-c",
                "from tracesim.cli import main; main()",
                "collect",
                "--db",
                str(db),
                "--grpc-port",
                "0",
                "--http-port",
                "-1",
                *extra,
            ]
        else:
            cmd = [python, "-c", _OVERLOAD_SERVER, str(db), str(max_pending_mb)]
        self.process = subprocess.Popen(
            cmd, cwd=repo, env=env, text=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE
        )
        banner = self.process.stdout.readline()
        match = re.search(r"OTLP gRPC on (\S+?),? ", banner + " ")
        if not match:
            raise RuntimeError(f"collector did not start: {banner}{self.process.stderr.read()}")
        self.endpoint = match.group(1).rstrip(",")
        self.start_cpu = _tree_cpu(self.process.pid)  # imports, DuckDB open, decoder start
        self.start_cpu_by_pid = {pid: _cpu(pid) for pid in _process_tree(self.process.pid)}
        self.cpu_by_pid: dict[int, float] = {}  # last seen, for the children's share
        self.peak_kb = 0
        self.main_peak_kb = 0
        self.peak_pss_kb = 0
        self.cpu_seconds = 0.0
        self._stop = threading.Event()
        self._poller = threading.Thread(target=self._poll, daemon=True)
        self._poller.start()

    def _poll(self) -> None:
        """Peak RSS of the collector and of every process it started (a decoder process):
        the sum of their VmHWM, and the collector's own."""
        peaks: dict[int, int] = {}
        while not self._stop.is_set():
            tree = _process_tree(self.process.pid)
            if not tree:
                return
            for pid in tree:
                try:
                    text = Path(f"/proc/{pid}/status").read_text()
                except OSError:
                    continue
                found = re.search(r"VmHWM:\s+(\d+) kB", text)
                if found:
                    peaks[pid] = max(peaks.get(pid, 0), int(found.group(1)))
                self.cpu_by_pid[pid] = _cpu(pid)
            self.peak_kb = sum(peaks.values())
            self.main_peak_kb = peaks.get(self.process.pid, 0)
            self.peak_pss_kb = max(self.peak_pss_kb, sum(_pss_kb(pid) for pid in tree))
            self._stop.wait(0.1)

    def stop(self) -> str:
        """SIGTERM, wait for drain + commit + exit; returns stdout tail."""
        before = _children_cpu()  # call after the clients are joined: only the collector's
        self.process.send_signal(signal.SIGTERM)
        out, err = self.process.communicate(timeout=300)
        self._stop.set()
        # every CPU second of the collector and its children, start-up included (reaped now)
        self.cpu_seconds = _children_cpu() - before
        if self.process.returncode != 0:
            raise RuntimeError(f"collector failed: {err}")
        return out


def _process_tree(pid: int) -> list[int]:
    """`pid` and its descendants still running ([] when `pid` is gone)."""
    if not Path(f"/proc/{pid}").exists():
        return []
    found, todo = [], [pid]
    while todo:
        current = todo.pop()
        found.append(current)
        for task in Path(f"/proc/{current}/task").glob("*"):
            try:
                todo.extend(int(child) for child in (task / "children").read_text().split())
            except (OSError, ValueError):
                continue
    return found


def _pss_kb(pid: int) -> int:
    """Proportional set size of `pid` (shared pages split between their processes)."""
    try:
        text = Path(f"/proc/{pid}/smaps_rollup").read_text()
    except OSError:
        return 0
    found = re.search(r"^Pss:\s+(\d+) kB", text, re.MULTILINE)
    return int(found.group(1)) if found else 0


def _cpu(pid: int) -> float:
    """CPU seconds used so far by the running process `pid` (0 when gone)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return sum(int(value) for value in fields[11:13]) / os.sysconf("SC_CLK_TCK")


def _tree_cpu(pid: int) -> float:
    """CPU seconds used so far by `pid` and its running descendants (and reaped ones)."""
    total = 0.0
    for member in _process_tree(pid):
        try:
            fields = Path(f"/proc/{member}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += sum(int(value) for value in fields[11:15])
    return total / os.sysconf("SC_CLK_TCK")


def _children_cpu() -> float:
    """User + system CPU seconds of this process's reaped children (and theirs)."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


_OVERLOAD_SERVER = """
import signal, sys, threading
from tracesim.collector import Collector
stop = threading.Event()
signal.signal(signal.SIGTERM, lambda *_: stop.set())
try:
    c = Collector(sys.argv[1], grpc_port=0, http_port=None, decoder_process=True,
                  max_pending_bytes=int(sys.argv[2]) << 20).start()
except TypeError:  # a checkout from before the decoder process
    c = Collector(sys.argv[1], grpc_port=0, http_port=None,
                  max_pending_bytes=int(sys.argv[2]) << 20).start()
print(f"OTLP gRPC on {c.grpc_endpoint}, ", flush=True)
stop.wait()
c.shutdown()
print(f"stored {c.stats().spans_stored} busy {c.stats().busy_answers}", flush=True)
"""


# payloads -----------------------------------------------------------------------------------
def build_requests(client: int, count: int, batch: int) -> list[bytes]:
    """Pre-serialized requests of realistic agent spans, unique ids per client."""
    from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
    from opentelemetry.proto.common.v1.common_pb2 import AnyValue, KeyValue
    from opentelemetry.proto.trace.v1.trace_pb2 import Span

    def kv(key: str, value: Any) -> KeyValue:
        if isinstance(value, int):
            return KeyValue(key=key, value=AnyValue(int_value=value))
        return KeyValue(key=key, value=AnyValue(string_value=str(value)))

    requests = []
    start = 1_700_000_000_000_000_000
    for first in range(0, count, batch):
        request = ExportTraceServiceRequest()
        resource_spans = request.resource_spans.add()
        resource_spans.resource.attributes.extend(
            [kv("service.name", "bench-agent"), kv("telemetry.sdk.language", "python")]
        )
        scope_spans = resource_spans.scope_spans.add()
        scope_spans.scope.name = "bench.instrumentation"
        for n in range(first, min(first + batch, count)):
            chat, turn = f"chat-{client}-{n // 40}", (n // 8) % 5
            trace_id = (client << 96 | (n // 8) + 1).to_bytes(16, "big")
            span = Span(
                trace_id=trace_id,
                span_id=(client << 40 | n + 1).to_bytes(8, "big"),
                parent_span_id=(client << 40 | (n // 8) * 8 + 1).to_bytes(8, "big"),
                name=f"execute_tool tool_{n % 7}",
                kind=Span.SPAN_KIND_INTERNAL,
                start_time_unix_nano=start + n * 1000,
                end_time_unix_nano=start + n * 1000 + 2_500_000,
            )
            span.attributes.extend(
                [
                    kv("gen_ai.operation.name", "execute_tool"),
                    kv("gen_ai.tool.name", f"tool_{n % 7}"),
                    kv("gen_ai.tool.call.id", f"call_{client}_{n:010d}"),
                    kv(
                        "gen_ai.tool.call.arguments",
                        '{"city": "Paris", "units": "metric", "days": 3, "query": "'
                        + "q" * 120
                        + '"}',
                    ),
                    kv("gen_ai.tool.call.result", '{"forecast": "' + "sunny, " * 40 + '"}'),
                    kv("gen_ai.request.model", "gpt-4o-mini"),
                    kv("gen_ai.response.model", "gpt-4o-mini"),
                    kv("gen_ai.provider.name", "openai"),
                    kv("gen_ai.usage.input_tokens", 812),
                    kv("gen_ai.usage.output_tokens", 64),
                    kv("tracesim.chat_id", chat),
                    kv("tracesim.turn_id", turn),
                    kv("tracesim.run_id", "bench-run"),
                    kv("gen_ai.conversation.id", chat),
                    kv("gen_ai.agent.name", "weather-agent"),
                ]
            )
            span.status.code = 1
            scope_spans.spans.append(span)
        requests.append(request.SerializeToString())
    return requests


# clients ------------------------------------------------------------------------------------
def raw_client(
    endpoint: str,
    client: int,
    count: int,
    batch: int,
    ready: Any,
    go: Any,
    results: Any,
    seconds: float | None,
) -> None:
    """Send pre-serialized requests one at a time; retry UNAVAILABLE; report latencies."""
    import grpc

    requests = build_requests(client, count, batch)
    channel = grpc.insecure_channel(endpoint, options=[("grpc.max_send_message_length", 64 << 20)])
    export = channel.unary_unary(TRACE_METHOD)
    latencies, busy = [], 0
    ready.put(client)
    go.wait()
    deadline = None if seconds is None else time.time() + seconds  # from the start signal
    index = 0
    while index < len(requests):
        if deadline is not None and time.time() > deadline:
            break
        begin = time.perf_counter()
        try:
            export(requests[index], timeout=60)
        except grpc.RpcError as error:
            if error.code() != grpc.StatusCode.UNAVAILABLE:
                raise
            busy += 1
            time.sleep(0.05)
            continue
        latencies.append(time.perf_counter() - begin)
        index += 1
        if deadline is not None and index == len(requests):
            index = 0  # overload: keep sending (duplicates are deduped by the store)
    results.put((client, latencies, busy, min(index, len(requests))))
    channel.close()


def sdk_client(endpoint: str, count: int, batch: int, ready: Any, go: Any, results: Any) -> None:
    """The official OTLPSpanExporter exporting pre-built SDK spans in batches."""
    from opentelemetry.exporter.otlp.proto.grpc.trace_exporter import OTLPSpanExporter
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor, SpanExporter, SpanExportResult

    class Keep(SpanExporter):
        def __init__(self) -> None:
            self.spans: list[Any] = []

        def export(self, spans: Any) -> SpanExportResult:
            self.spans.extend(spans)
            return SpanExportResult.SUCCESS

    keep = Keep()
    provider = TracerProvider(resource=Resource.create({"service.name": "sdk-bench"}))
    provider.add_span_processor(SimpleSpanProcessor(keep))
    tracer = provider.get_tracer("bench")
    for n in range(count):
        with tracer.start_as_current_span(
            f"execute_tool tool_{n % 7}",
            attributes={
                "gen_ai.operation.name": "execute_tool",
                "gen_ai.tool.name": f"tool_{n % 7}",
                "gen_ai.tool.call.arguments": '{"city": "Paris", "q": "' + "q" * 120 + '"}',
                "gen_ai.tool.call.result": '{"forecast": "' + "sunny, " * 40 + '"}',
                "gen_ai.request.model": "gpt-4o-mini",
                "gen_ai.usage.input_tokens": 812,
                "gen_ai.usage.output_tokens": 64,
                "tracesim.chat_id": f"chat-{n // 40}",
                "tracesim.turn_id": (n // 8) % 5,
                "tracesim.run_id": "bench-run",
            },
        ):
            pass
    exporter = OTLPSpanExporter(endpoint=endpoint, insecure=True)
    ready.put(0)
    go.wait()
    latencies = []
    for first in range(0, count, batch):
        begin = time.perf_counter()
        assert exporter.export(keep.spans[first : first + batch]) == SpanExportResult.SUCCESS
        latencies.append(time.perf_counter() - begin)
    exporter.shutdown()
    results.put((0, latencies, 0, count))


# runs ---------------------------------------------------------------------------------------
def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else float("nan")


def _stored(db: Path) -> int:
    import duckdb

    with duckdb.connect(str(db), read_only=True) as con:
        return con.execute("SELECT count(*) FROM spans").fetchone()[0]


def run(
    label: str,
    workdir: Path,
    targets: list[tuple[Any, tuple]],
    *,
    max_pending_mb: int | None = None,
    repo: Path = ROOT,
    extra: tuple[str, ...] = (),
) -> dict[str, Any]:
    """Start a collector, run client processes, stop it, measure."""
    db = workdir / f"{label}.duckdb"
    collector = CollectorProcess(db, max_pending_mb=max_pending_mb, repo=repo, extra=extra)
    context = mp.get_context("spawn")
    ready, results, go = context.Queue(), context.Queue(), context.Event()
    processes = []
    for fn, args in targets:
        if fn is sdk_client:
            call = (collector.endpoint, *args, ready, go, results)
        else:
            call = (collector.endpoint, *args[:3], ready, go, results, args[3])
        processes.append(context.Process(target=fn, args=call))
    for process in processes:
        process.start()
    for _ in processes:
        ready.get(timeout=600)
    start = time.perf_counter()
    go.set()
    outcomes = [results.get(timeout=900) for _ in processes]
    sent_done = time.perf_counter()
    for process in processes:
        process.join()
    out = collector.stop()
    elapsed = time.perf_counter() - start
    stored = _stored(db)
    latencies = [value for outcome in outcomes for value in outcome[1]]
    decoder_cpu = sum(
        seconds - collector.start_cpu_by_pid.get(pid, 0.0)
        for pid, seconds in collector.cpu_by_pid.items()
        if pid != collector.process.pid
    )
    return {
        "run": label,
        "stored": stored,
        "seconds": round(elapsed, 2),
        "spans_per_s_stored": round(stored / elapsed),
        "send_seconds": round(sent_done - start, 2),
        "p50_ms": round(_percentile(latencies, 0.5) * 1000, 1),
        "p99_ms": round(_percentile(latencies, 0.99) * 1000, 1),
        "unavailable": sum(outcome[2] for outcome in outcomes),
        "peak_rss_mb": round(collector.peak_kb / 1024, 1),
        "peak_rss_main_mb": round(collector.main_peak_kb / 1024, 1),
        "peak_pss_mb": round(collector.peak_pss_kb / 1024, 1),
        "collector_cpu_us_per_span": round(collector.cpu_seconds / max(stored, 1) * 1e6, 1),
        "cpu_us_per_span_after_start": round(
            (collector.cpu_seconds - collector.start_cpu) / max(stored, 1) * 1e6, 1
        ),
        # per process, after start: the decoder process as last seen (polled every 0.1 s),
        # the collector's own as the rest
        "decoder_cpu_us_per_span": round(decoder_cpu / max(stored, 1) * 1e6, 1),
        "collector_only_cpu_us_per_span": round(
            (collector.cpu_seconds - collector.start_cpu - decoder_cpu) / max(stored, 1) * 1e6, 1
        ),
        "collector_said": out.strip().splitlines()[-1] if out.strip() else "",
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--spans", type=int, default=400_000, help="spans in the main run")
    parser.add_argument("--clients", type=int, default=4, help="exporter processes (in flight)")
    parser.add_argument("--batch", type=int, default=512, help="spans per request")
    parser.add_argument(
        "--sdk-spans", type=int, default=50_000, help="spans of the SDK run (0: skip)"
    )
    parser.add_argument("--overload-seconds", type=float, default=15.0, help="0: skip")
    parser.add_argument("--quick", action="store_true", help="small sizes, < 1 min")
    parser.add_argument(
        "--repo",
        type=Path,
        default=ROOT,
        help="checkout whose collector is measured, with its own .venv (side-by-side runs)",
    )
    parser.add_argument(
        "--collect-args",
        default="",
        help="more `tracesim collect` options for the main run, e.g. '--duckdb-memory-limit 256MB'",
    )
    args = parser.parse_args()
    if args.quick:
        args.spans, args.sdk_spans, args.overload_seconds = 100_000, 20_000, 6.0
    print(f"cores: {os.cpu_count()} (shared machine: numbers are indicative)", flush=True)
    with tempfile.TemporaryDirectory(prefix="tracesim-bench-") as tmp:
        workdir = Path(tmp)
        per_client = args.spans // args.clients
        main_run = run(
            "raw-grpc",
            workdir,
            [(raw_client, (c, per_client, args.batch, None)) for c in range(args.clients)],
            repo=args.repo.resolve(),
            extra=tuple(args.collect_args.split()),
        )
        print(main_run, flush=True)
        if args.sdk_spans:
            print(
                run(
                    "otlp-sdk-exporter",
                    workdir,
                    [(sdk_client, (args.sdk_spans, args.batch))],
                    repo=args.repo.resolve(),
                ),
                flush=True,
            )
        if args.overload_seconds:
            clients = args.clients * 3
            print(
                run(
                    "overload",
                    workdir,
                    [
                        (raw_client, (c, 20_000, args.batch, args.overload_seconds))
                        for c in range(clients)
                    ],
                    max_pending_mb=8,
                    repo=args.repo.resolve(),
                ),
                flush=True,
            )


if __name__ == "__main__":
    main()
