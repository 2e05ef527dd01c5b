"""The HTML report: one self-contained file per evaluation of a tracesim DuckDB file.

`write_report(db_path, out_path)` reads the newest evaluation (or
`eval_id`), and writes a page that opens offline: summary and quality
gates, per-metric and per-tool charts, failures grouped by label with links
to their conversations, and per conversation the transcript with each
turn's tool calls (explicit / traced / both) and span waterfall, drawn
lazily when the conversation is opened.

Modules: `data.py` (queries), `aggregate.py` and `shape.py` (pure
shaping), `charts.py` (plotly figures), `html.py` (assembly), `assets.py`
and `app_js.py` (inline CSS and script).
"""

from __future__ import annotations

from pathlib import Path

import duckdb
from plotly.offline import get_plotlyjs

from evaluator.report.charts import build_charts
from evaluator.report.data import ReportData, load_report_data
from evaluator.report.html import render_html

__all__ = ["ReportData", "build_report_html", "load_report_data", "write_report"]


def build_report_html(
    con: duckdb.DuckDBPyConnection, *, db_path: str, eval_id: str | None = None
) -> str:
    """The report page of `eval_id` (default: the newest evaluation) as a string."""
    data = load_report_data(con, db_path=db_path, eval_id=eval_id)
    return render_html(data, build_charts(data), plotly_js=get_plotlyjs())


def write_report(db_path: str | Path, out_path: str | Path, *, eval_id: str | None = None) -> Path:
    """Write the HTML report of `db_path` to `out_path` and return `out_path`.

    The DuckDB file is opened read-only. Raises FileNotFoundError when it is
    missing and ValueError when `eval_id` is not in it (naming the ones that are).
    """
    db_path, out_path = Path(db_path), Path(out_path)
    if not db_path.exists():
        raise FileNotFoundError(
            f"{db_path}: no such DuckDB file; create one with `tracesim run config.yaml` "
            "or `tracesim collect --db PATH`"
        )
    con = duckdb.connect(str(db_path), read_only=True)
    try:
        page = build_report_html(con, db_path=str(db_path), eval_id=eval_id)
    finally:
        con.close()
    out_path.parent.mkdir(parents=True, exist_ok=True)
    tmp = out_path.with_name(out_path.name + ".tmp")
    tmp.write_text(page, encoding="utf-8")
    tmp.replace(out_path)
    return out_path
