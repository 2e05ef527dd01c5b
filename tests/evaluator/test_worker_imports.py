"""What a worker process imports: the forkserver preloads `evaluator.pipeline.chunk` before
the first chunk can start, so every module it pulls in is on the critical path of a
parallel evaluation. The LLM SDKs (openai: ~0.35 s) are the judges', never a worker's."""

from __future__ import annotations

import subprocess
import sys

from tracesim.evaluator.llm import LLMUsage
from tracesim.evaluator.llm.llm_client import LLMUsage as ClientUsage


def test_the_worker_preload_imports_no_llm_sdk() -> None:
    code = (
        "import sys, tracesim.evaluator.pipeline.chunk, tracesim.evaluator.output.results_model\n"
        "print(sorted(m for m in ('openai', 'anthropic', 'httpx') if m in sys.modules))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True
    )
    assert done.stdout.strip() == "[]", done.stdout + done.stderr


def test_llm_usage_is_one_class_wherever_it_is_imported_from() -> None:
    assert LLMUsage is ClientUsage
    assert LLMUsage(failed=1, first_error="boom").first_error == "boom"
