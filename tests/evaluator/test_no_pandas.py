"""An evaluating process never imports pandas (0.3-0.8 s of CPU each): pyarrow's one-time
pandas detection is answered 'none' (`evaluator.load.arrow_setup.skip_pandas`)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from benchmarks.synthetic_turns import build_database

CHILD = """
import sys
from tracesim.evaluator.pipeline.pipeline import evaluate_db
from tracesim.schemas.eval_config import EvalConfig
result = evaluate_db(sys.argv[1], config=EvalConfig(), output_dir=sys.argv[2], progress=False)
assert result.summary.num_turns == 40, result.summary.num_turns
print("pandas" in sys.modules)
import pyarrow as pa
print(type(pa.table({"a": [1]}).to_pandas()).__name__)  # pandas still there when asked for
"""


def test_evaluate_db_builds_its_arrow_tables_without_pandas(tmp_path: Path) -> None:
    db = tmp_path / "t.duckdb"
    build_database(str(db), 40, scenarios=True)
    done = subprocess.run(
        [sys.executable, "-c", CHILD, str(db), str(tmp_path / "out")],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["False", "DataFrame"]
