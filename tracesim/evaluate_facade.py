"""`tracesim.evaluate_db`: the evaluator's `evaluate_db` with the CLI's in-progress check.

A script or notebook calling the facade on a file a `tracesim run` is still writing would
grade half-finished conversations as failures; like `tracesim evaluate`, it raises
`InProgressRefused` (one line) unless `allow_in_progress=True`, which grades the finished
conversations only and logs how many were left out.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

from tracesim.evaluate_in_progress import InProgressRefused, in_progress_selection
from tracesim.run_marker import run_in_progress

__all__ = ["InProgressRefused", "evaluate_db"]

log = logging.getLogger("tracesim")


def evaluate_db(db_path: Any, *, allow_in_progress: bool = False, **options: Any) -> Any:
    """`tracesim.evaluator.evaluate_db(db_path, **options)` (same arguments and result),
    refused with InProgressRefused while a run is still writing `db_path` unless
    `allow_in_progress`."""
    from tracesim.evaluator import evaluate_db as evaluate
    from tracesim.evaluator.checks.arksim_llm import configure_arksim_llm
    from tracesim.evaluator.scoring.gates import EvalConfigError

    judge = getattr(options.get("config"), "llm", None) or options.get("llm")
    labels = getattr(options.get("config"), "failure_labels", None)
    configure_arksim_llm(judge, labels)  # arksim metric classes' self.llm, as the CLI does
    from tracesim.evaluator.store import EvalStore, StoreError, open_store

    path = getattr(db_path, "path", None) if isinstance(db_path, EvalStore) else db_path
    if not isinstance(path, (str, Path)) or run_in_progress(path) is None:
        return evaluate(db_path, **options)  # nothing in progress: no store opened twice
    owned = not isinstance(db_path, EvalStore)
    try:
        store = open_store(db_path) if owned else db_path
    except StoreError as exc:
        raise EvalConfigError(str(exc)) from exc
    try:
        select, notes = in_progress_selection(
            store, options.get("run_id"), options.pop("select", None), allow=allow_in_progress
        )
        for note in notes:
            log.warning("%s", note)
        return evaluate(store, select=select, **options)
    finally:
        if owned:
            store.close()
