"""`python -m tests.clickhouse.chdb_http DIR [--port N] [--user U --password P]`: serve a chdb
data directory over ClickHouse's HTTP interface until Ctrl-C, to try `--db clickhouse://...`
by hand (e.g. on a directory `tracesim run` wrote with `store: chdb://DIR`)."""

from __future__ import annotations

import argparse
import signal
import time
from pathlib import Path

from tests.clickhouse.chdb_http.server import ChdbHttpServer


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m tests.clickhouse.chdb_http")
    parser.add_argument("directory", type=Path)
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--user", default="default")
    parser.add_argument("--password", default="")
    args = parser.parse_args()
    server = ChdbHttpServer(args.directory, user=args.user, password=args.password)
    server.start(port=args.port)
    signal.signal(signal.SIGINT, signal.default_int_handler)  # the engine installs its own
    print(f"serving {args.directory} as {server.url()} (Ctrl-C stops)", flush=True)
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        pass
    finally:
        server.shutdown()


if __name__ == "__main__":
    main()
