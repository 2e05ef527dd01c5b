"""Simulator overhead: N conversations x T turns against an instant agent, capture on.

    .venv/bin/python benchmarks/simulate.py [--conversations 1000] [--turns 5] [--workers 8]
        [--decoder-process]

Runs the real pipeline pieces: scripted users, the python connector (its
agents called inline on the runner's lanes, under the watchdog), one
`tracesim.turn` span per turn with routing baggage, the simulator's batched
OTLP/gRPC exporter, and an embedded Collector writing DuckDB in the same
process (`--decoder-process`: decoding in a child process instead). Framework overhead per turn = (wall time of the
conversations - time the agent itself spent) / turns; target <= 0.15 ms
(SPEC §10). The exporter and the collector share the process (and the GIL)
with the runner, so this is a pessimistic figure; on a shared machine
numbers vary run to run. CPU seconds per turn (whole process, and split into
simulator, exporter and collector threads) depend far less on the load.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import resource
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tracesim.collector.collector import Collector  # noqa: E402
from tracesim.schemas import Scenario, UserConfig  # noqa: E402
from tracesim.schemas.llm_config import LLMConfig  # noqa: E402
from tracesim.simulator.agent import BaseAgent  # noqa: E402
from tracesim.simulator.connectors.python import PythonConnector  # noqa: E402
from tracesim.simulator.runner import Runner  # noqa: E402
from tracesim.simulator.tracing import make_simulator_provider  # noqa: E402
from tracesim.simulator.users import UserFactory  # noqa: E402

AGENT_SECONDS = [0.0]


class InstantAgent(BaseAgent):
    """Answers at once; measures its own (tiny) time so it can be subtracted."""

    async def execute(self, user_query: str, **kwargs: Any) -> str:
        began = time.perf_counter()
        reply = f"ok {kwargs['metadata']['turn_id']}"
        AGENT_SECONDS[0] += time.perf_counter() - began
        return reply


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--conversations", type=int, default=1000)
    parser.add_argument("--turns", type=int, default=5)
    parser.add_argument("--workers", type=int, default=8)
    parser.add_argument(
        "--decoder-process",
        action="store_true",
        help="the collector decodes in a child process (as `tracesim collect`), out of the "
        "simulator's GIL; by default it decodes in-process, as `tracesim run`'s embedded one",
    )
    args = parser.parse_args()
    options = {"decoder_process": True} if args.decoder_process else {}
    children_before = _children_cpu()
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "bench.duckdb"
        with Collector(db, grpc_port=0, http_port=0, **options) as collector:
            provider = make_simulator_provider(collector.grpc_endpoint)
            scenario = Scenario(
                scenario_id="bench", turns=[f"message {i}" for i in range(args.turns)]
            )
            runner = Runner(
                tracer=provider.get_tracer("bench"),
                connector_factory=lambda: PythonConnector(InstantAgent),
                user_factory=UserFactory(UserConfig(type="scripted"), LLMConfig()),
                scenarios=[scenario],
                max_turns=args.turns,
                num_conversations_per_scenario=args.conversations,
                num_workers=args.workers,
                turn_timeout=60.0,
            )
            cpu_before, threads_before = _process_cpu(), _thread_cpu()
            lanes_before, main_before = _lanes_cpu(), time.thread_time()
            result = asyncio.run(runner.run())
            runner_cpu = time.thread_time() - main_before + _lanes_cpu() - lanes_before
            run_cpu = _process_cpu() - cpu_before
            began = time.perf_counter()
            provider.force_flush()
            collector.wait_settled(0.5, 60.0)
            drain = time.perf_counter() - began
            total_cpu = _process_cpu() - cpu_before
            threads = _thread_cpu()
            provider.shutdown()
            _, rows = collector.query(
                "SELECT count(*), count(*) FILTER (WHERE name = 'tracesim.turn') FROM spans"
            )
    children = _children_cpu() - children_before  # the decoder process, once it has ended
    turns = result.num_turns
    agent_seconds = AGENT_SECONDS[0]
    overhead_ms = (result.wall_seconds - agent_seconds) / turns * 1000
    print(f"conversations        {len(result.conversations)}")
    print(f"turns                {turns}")
    print(f"workers              {args.workers}")
    print(f"collector decodes    {'in a child process' if options else 'in this process'}")
    print(f"wall (conversations) {result.wall_seconds:.3f} s")
    print(f"agent time           {agent_seconds:.4f} s")
    print(f"overhead per turn    {overhead_ms:.3f} ms  (target <= 0.15 ms, SPEC §10)")
    print(f"turns per second     {turns / result.wall_seconds:,.0f}")
    print(f"export drain+settle  {drain:.3f} s (includes the 0.5 s settle window)")
    per_turn = 1e6 / turns
    print(f"CPU while running    {run_cpu * per_turn:.1f} µs/turn (every thread)")
    print(f"CPU in total         {total_cpu * per_turn:.1f} µs/turn (run, export drain and store)")
    spent = {g: threads.get(g, 0.0) - threads_before.get(g, 0.0) for g in ("exporter", "collector")}
    rest = total_cpu - sum(spent.values())
    print(f"  exporter           {spent['exporter'] * per_turn:.1f} µs/turn (OTLP encoding)")
    print(f"  collector          {spent['collector'] * per_turn:.1f} µs/turn (decode, spool, DuckDB)")
    print(f"  every other thread {rest * per_turn:.1f} µs/turn (simulator, agent, gRPC core)")
    print(f"  of which runner    {runner_cpu * per_turn:.1f} µs/turn (the run's loop and its lanes)")
    if options:
        print(f"decoder process CPU  {children * per_turn:.1f} µs/turn (its start-up included; not in the totals above)")
    print(f"spans stored         {rows[0][0]} (turn spans {rows[0][1]})")


_COLLECTOR_THREADS = ("tracesim-writer", "tracesim-db", "tracesim-grpc", "tracesim-http")


def _lanes_cpu() -> float:
    """CPU seconds of the simulator's lanes that have ended (0 before lanes existed)."""
    try:
        from tracesim.simulator.lanes import lanes_cpu_seconds
    except ImportError:  # a checkout from before lanes: its agent threads are not counted
        return 0.0
    return lanes_cpu_seconds()


def _thread_cpu() -> dict[str, float]:
    """CPU seconds so far of the exporter's and the collector's threads (Linux /proc)."""
    names = {t.native_id: t.name for t in threading.enumerate()}
    groups: dict[str, float] = {}
    tick = os.sysconf("SC_CLK_TCK")
    for tid in os.listdir("/proc/self/task") if os.path.isdir("/proc/self/task") else ():
        name = names.get(int(tid), "")
        group = "exporter" if name.startswith("OtelBatchSpan") else (
            "collector" if name.startswith(_COLLECTOR_THREADS) else None
        )
        if group is None:
            continue
        try:
            with open(f"/proc/self/task/{tid}/stat") as stat:
                fields = stat.read().rsplit(")", 1)[1].split()
        except OSError:  # the thread ended
            continue
        groups[group] = groups.get(group, 0.0) + (int(fields[11]) + int(fields[12])) / tick
    return groups


def _children_cpu() -> float:
    """User + system CPU seconds of this process's ended children."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _process_cpu() -> float:
    """User + system CPU seconds of this process so far (every thread)."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


if __name__ == "__main__":
    main()
