"""Benchmark: LLM judges over a captured run, then a cached re-evaluation (SPEC §10).

Captures N copies of the offline example's scenarios, evaluates them with
every judge against a local OpenAI-compatible stand-in (the real `openai`
client over HTTP), then evaluates again: the second pass must make zero LLM
requests and give the same scores.

    python benchmarks/judge_cache.py [--copies 20]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tracesim.evaluator.pipeline.pipeline import evaluate_db  # noqa: E402
from tracesim.schemas.eval_config import JUDGE_NAMES, EvalConfig  # noqa: E402
from tracesim.schemas.llm_config import LLMConfig  # noqa: E402

from tests.fakes.openai_server import fake_openai, judge_reply  # noqa: E402
from tracesim.config_loader import load_run_config  # noqa: E402
from tracesim.run import run  # noqa: E402

JUDGES = list(JUDGE_NAMES)  # every built-in judge, tool_use included


def _answer(body: dict[str, Any]) -> dict[str, Any]:
    """A valid structured answer for whichever judge asks."""
    return judge_reply(body, prompt_tokens=400, completion_tokens=40)


def _scores(db: Path, eval_id: str) -> list[tuple[Any, ...]]:
    import duckdb

    with duckdb.connect(str(db), read_only=True) as con:
        return con.execute(
            "SELECT chat_id, turn_id, metric, value, label FROM scores WHERE eval_id = ? "
            "ORDER BY ALL",
            [eval_id],
        ).fetchall()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--copies", type=int, default=20, help="conversations per scenario")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="tracesim-judges-"))
    config = ROOT / "examples" / "customer_service" / "config.yaml"
    overrides = {
        "output_dir": str(work / "results"),
        "num_conversations_per_scenario": str(args.copies),
    }
    outcome = run(load_run_config(config, overrides), show_progress=False, evaluate=False)
    assert outcome.exit_code == 0 and outcome.db_path is not None, outcome.error
    eval_config = EvalConfig(metrics=JUDGES)
    with fake_openai(_answer) as fake:
        llm = LLMConfig(
            base_url=fake.base_url,
            model="judge",
            api_key_env="NO_KEY_NEEDED",
            max_concurrency=8,
            input_cost_per_mtok=0.15,
            output_cost_per_mtok=0.6,
        )
        timings = []
        results = []
        for _ in range(2):
            before = len(fake.requests)
            started = time.perf_counter()
            result = evaluate_db(
                outcome.db_path,
                config=eval_config,
                llm=llm,
                output_dir=work / "eval",
                progress=False,
            )
            timings.append((time.perf_counter() - started, len(fake.requests) - before))
            results.append(result)
    first, second = results
    same = _scores(outcome.db_path, first.eval_id) == _scores(outcome.db_path, second.eval_id)
    print(f"conversations: {first.summary.num_conversations}, turns: {first.summary.num_turns}")
    print(f"first evaluation:  {timings[0][1]} LLM requests in {timings[0][0]:.2f} s")
    print(
        f"cached evaluation: {timings[1][1]} LLM requests in {timings[1][0]:.2f} s "
        f"(same scores: {same})"
    )
    if timings[1][1] != 0 or not same:
        sys.exit("FAIL: the cached re-evaluation called the LLM or changed a score")


if __name__ == "__main__":
    main()
