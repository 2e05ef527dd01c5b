"""kill -9 `tracesim collect` at random moments while it ingests and checkpoints (a 1 MB
checkpoint threshold: many checkpoints), restart it, and check every acknowledged span is
stored. Usage: python -m tests.reliab.stress.kill_collect ROUNDS [SEED]"""

import http.client
import os
import random
import re
import signal
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

import duckdb

from tests.collector.otlp import span, trace_request

TS = str(Path(sys.executable).with_name("tracesim"))
db = f"{tempfile.mkdtemp()}/k.duckdb"
rng = random.Random(int(sys.argv[2]) if len(sys.argv) > 2 else 1)
acked: set[str] = set()


def start() -> tuple[subprocess.Popen[str], int]:
    p = subprocess.Popen(
        [TS, "collect", "--db", db, "--grpc-port", "-1", "--http-port", "0",
         "--duckdb-checkpoint-threshold", "1MB"],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
    )  # fmt: skip
    line = p.stdout.readline()
    m = re.search(r"http://127.0.0.1:(\d+)", line)
    if not m:
        raise SystemExit(f"collector did not start: {line!r}")
    return p, int(m.group(1))


for _round in range(int(sys.argv[1])):
    p, port = start()
    deadline = time.monotonic() + rng.uniform(0.3, 2.5)
    con = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    while time.monotonic() < deadline:
        names = [uuid.uuid4().hex for _ in range(200)]
        spans = [span(n, attrs={"pad": "p" * 300}) for n in names]
        body = trace_request(spans).SerializeToString()
        try:
            con.request(
                "POST", "/v1/traces", body=body, headers={"Content-Type": "application/x-protobuf"}
            )
            answer = con.getresponse()
            answer.read()
            if answer.status == 200:
                acked.update(names)
        except (OSError, http.client.HTTPException):
            con = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    os.kill(p.pid, signal.SIGKILL)
    p.wait()
p, port = start()  # a last start replays the spool; a clean stop commits it
p.send_signal(signal.SIGTERM)
p.wait(timeout=300)
con_db = duckdb.connect(db, read_only=True)
stored = {row[0] for row in con_db.execute("SELECT name FROM spans").fetchall()}
lost = len(acked - stored)
print(f"rounds {sys.argv[1]}: acknowledged {len(acked)}, stored {len(stored)}, lost {lost}")
