"""The HTML report: one self-contained file per evaluation of a tracesim DuckDB file.

`write_report(db, out_path)` reads the newest evaluation (or `eval_id`) of a
store (`evaluator.store.open_store`: a DuckDB file, a running collector's,
ClickHouse) through the DuckDB connection it hands readers, and writes a page that opens offline: summary and quality
gates, per-metric and per-tool charts, failures grouped by label with links
to their conversations, and per conversation the transcript with each
turn's tool calls (explicit / traced / both) and span waterfall, drawn
lazily when the conversation is opened.

Memory stays bounded by a chunk of conversations, not by the file: the
summary, charts and conversation index are SQL aggregates (`data.py`,
`aggregate.py`), and each conversation's details are streamed from DuckDB
in chat_id chunks (`details.py`), gzip-compressed and written to the page
as they come (`embed.py`, `html.py`); the browser decompresses one when it
is opened.

Modules: `data.py` and `aggregate.py` (summary queries), `details.py` and
`shape.py` (per-conversation details), `charts.py` (plotly figures),
`embed.py` and `html.py` (assembly), `assets.py` and `app_js.py` (inline
CSS and script).
"""

from __future__ import annotations

import io
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from plotly.offline import get_plotlyjs
from tracesim.evaluator.report.charts import build_charts
from tracesim.evaluator.report.data import ReportData, load_report_data
from tracesim.evaluator.report.details import iter_details
from tracesim.evaluator.report.html import write_page

if TYPE_CHECKING:
    from tracesim.evaluator.store import EvalStore

__all__ = ["ReportData", "build_report_html", "iter_details", "load_report_data", "write_report"]


def _write(con: Any, out: TextIO, *, db_path: str, eval_id: str | None) -> None:
    data = load_report_data(con, db_path=db_path, eval_id=eval_id)
    write_page(
        out, data, build_charts(data), plotly_js=get_plotlyjs(), details=iter_details(con, data)
    )


def build_report_html(con: Any, *, db_path: str, eval_id: str | None = None) -> str:
    """The report page of `eval_id` (default: the newest evaluation) as a string.

    Holds the whole page in memory; `write_report` streams it to a file instead.
    """
    out = io.StringIO()
    _write(con, out, db_path=db_path, eval_id=eval_id)
    return out.getvalue()


def write_report(
    db: str | Path | EvalStore, out_path: str | Path, *, eval_id: str | None = None
) -> Path:
    """Write the HTML report of store `db` (a `--db` value or an open `EvalStore`, left
    open) to `out_path` and return `out_path`.

    The page is written to `out_path`.tmp as it is built and renamed into place when
    complete. Raises FileNotFoundError when the DuckDB file is missing, ValueError when
    `eval_id` is not in the store (naming the ones that are), StoreError when the store
    cannot be read.
    """
    from tracesim.evaluator.store import EvalStore, open_store

    if isinstance(db, EvalStore):
        return _write_store(db, Path(out_path), eval_id=eval_id)
    with open_store(db, read_only=True) as store:
        return _write_store(store, Path(out_path), eval_id=eval_id)


def _write_store(store: EvalStore, out_path: Path, *, eval_id: str | None) -> Path:
    out_path.parent.mkdir(parents=True, exist_ok=True)
    tmp = out_path.with_name(out_path.name + ".tmp")
    with store.report_connection(eval_id) as con:
        try:
            with tmp.open("w", encoding="utf-8", buffering=1 << 20) as out:
                _write(con, out, db_path=store.label, eval_id=eval_id)
        except BaseException:
            tmp.unlink(missing_ok=True)
            raise
    tmp.replace(out_path)
    return out_path
