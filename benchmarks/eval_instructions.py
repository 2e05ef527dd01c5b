"""Instructions per turn of `evaluate_db`, counted by callgrind: steady under any load.

    PYTHONHASHSEED=0 valgrind --tool=callgrind --collect-atstart=no \\
        --toggle-collect=sys_call_tracing --callgrind-out-file=/tmp/cg.out \\
        .venv/bin/python benchmarks/eval_instructions.py WARM.duckdb MEASURED.duckdb

(build both with `benchmarks/evaluate.py --turns N --db PATH --scenarios`, e.g. 200 and
2,000 turns). A first evaluation of WARM imports everything; the second, of a copy of
MEASURED, runs inside `sys.call_tracing`, the one C function callgrind is told to collect
in, so "Collected" is that evaluation's instructions: divide by the turns printed.
Compare two checkouts with the same files; ~15 minutes each at 2,000 turns on a busy host.
"""

from __future__ import annotations

import shutil
import sys
import tempfile
from typing import Any


def _evaluate(source: str, name: str) -> Any:
    from tracesim.evaluator.pipeline.pipeline import evaluate_db
    from tracesim.schemas.eval_config import EvalConfig

    workdir = tempfile.mkdtemp(prefix="tracesim-icount-")
    copy = f"{workdir}/{name}.duckdb"
    shutil.copyfile(source, copy)
    try:
        return evaluate_db(
            copy, config=EvalConfig(), output_dir=f"{workdir}/out", progress=False, workers=1
        )
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print(__doc__)
        return 2
    warm, measured = argv
    _evaluate(warm, "warm")
    result = sys.call_tracing(_evaluate, (measured, "measured"))
    print(f"measured evaluation: {result.summary.num_turns} turns (divide Collected by them)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
