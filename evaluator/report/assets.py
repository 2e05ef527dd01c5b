"""The page's stylesheet, inlined so the report is one file that opens offline.

The script lives in `app_js.py`. Badge colours match `charts.STATUS_COLORS`.
"""

from __future__ import annotations

__all__ = ["CSS"]

CSS = """
:root { --fg:#1d2330; --muted:#5d6677; --line:#e3e6ec; --bg:#f6f7f9; --card:#fff;
  --ok:#2e9d5b; --warn:#e8a33d; --bad:#d9534f; --accent:#3f6fb0; }
* { box-sizing: border-box; }
body { margin:0; font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif; color:var(--fg);
  background:var(--bg); }
header.top { background:#1d2330; color:#fff; padding:14px 28px; display:flex; gap:24px;
  align-items:baseline; flex-wrap:wrap; }
header.top h1 { font-size:18px; margin:0; }
header.top .meta { color:#c5cad6; font-size:12px; }
nav.sections { display:flex; gap:16px; padding:8px 28px; background:#fff;
  border-bottom:1px solid var(--line); position:sticky; top:0; z-index:5; }
nav.sections a { color:var(--accent); text-decoration:none; font-weight:600; }
main { padding:18px 28px 60px; max-width:1500px; margin:0 auto; }
section { margin-bottom:28px; }
h2 { font-size:17px; margin:0 0 10px; }
h3 { font-size:14px; margin:14px 0 6px; }
.cards { display:flex; gap:12px; flex-wrap:wrap; }
.card { background:var(--card); border:1px solid var(--line); border-radius:8px;
  padding:10px 14px; min-width:130px; }
.card .v { font-size:22px; font-weight:700; }
.card .k { color:var(--muted); font-size:12px; }
.card.pass { border-left:5px solid var(--ok); } .card.fail { border-left:5px solid var(--bad); }
.grid { display:grid; grid-template-columns:repeat(auto-fit,minmax(560px,1fr)); gap:14px;
  align-items:start; }
.groupgrid { display:grid; grid-template-columns:repeat(auto-fill,minmax(300px,1fr));
  gap:8px; align-items:start; }
td.nowrap { white-space:nowrap; }
.panel { background:var(--card); border:1px solid var(--line); border-radius:8px; padding:10px; }
.caption { color:var(--muted); font-size:12px; margin:2px 4px 0; }
table { border-collapse:collapse; width:100%; background:var(--card); }
th, td { text-align:left; padding:5px 8px; border-bottom:1px solid var(--line);
  vertical-align:top; }
th { background:#eef1f5; font-size:12px; color:var(--muted); font-weight:600; }
td.num, th.num { text-align:right; font-variant-numeric:tabular-nums; }
.badge { display:inline-block; padding:1px 8px; border-radius:10px; font-size:12px;
  font-weight:600; background:#e6e8ee; color:#333; white-space:nowrap; }
.badge.Done, .badge.ok, .badge.pass { background:#dff3e7; color:#1e6b3e; }
.badge.Partial-Failure, .badge.warn { background:#fbecd2; color:#8a5a0c; }
.badge.Failed, .badge.error, .badge.fail, .badge.timeout { background:#f8dcdb; color:#8d2421; }
.badge.explicit { background:#e3eaf8; color:#2f4f8f; }
.badge.traced { background:#ece4f7; color:#5b3c8c; }
.badge.both { background:#d6e4f5; color:#1d4577; }
.badge.notgraded { background:#eee; color:#777; }
details.group { background:var(--card); border:1px solid var(--line); border-radius:8px;
  padding:6px 12px; }
details.group summary { cursor:pointer; font-weight:600; }
ul.items { margin:6px 0; padding-left:18px; }
ul.items li { margin:2px 0; overflow-wrap:anywhere; }
ul.items .reason { color:var(--muted); }
a { color:var(--accent); }
.filters { display:flex; gap:8px; flex-wrap:wrap; margin-bottom:8px; align-items:center; }
.filters input, .filters select { padding:4px 6px; border:1px solid #c9ced8; border-radius:5px;
  max-width:240px; }
.filters input { width:260px; max-width:none; }
.pager { display:flex; gap:8px; align-items:center; margin:8px 0; color:var(--muted); }
.pager button { padding:3px 10px; }
#conversation { margin-top:16px; scroll-margin-top:48px; }
section { scroll-margin-top:48px; }
.conv-head { display:flex; gap:12px; align-items:center; flex-wrap:wrap; }
.turn { background:var(--card); border:1px solid var(--line); border-radius:8px;
  padding:10px 14px; margin:12px 0; }
.turn-head { display:flex; gap:10px; align-items:center; color:var(--muted); }
.turn-head strong { color:var(--fg); }
.msg { border-radius:8px; padding:8px 12px; margin:8px 0; white-space:pre-wrap;
  overflow-wrap:anywhere; }
.msg.user { background:#eef3fb; } .msg.agent { background:#f1f6ef; }
.msg .who { font-size:11px; font-weight:700; color:var(--muted); display:block; }
.msg.error { background:#fbe9e8; color:#8d2421; }
table.calls pre { margin:0; white-space:pre-wrap; overflow-wrap:anywhere; max-height:160px;
  overflow:auto; font-size:12px; }
table.calls td.err { color:#8d2421; }
.chips { display:flex; flex-wrap:wrap; gap:6px; margin:6px 0; }
.chip { border:1px solid var(--line); border-radius:12px; padding:1px 8px; font-size:12px; }
.chip.pass { border-color:#9fd3b3; } .chip.fail { border-color:#e9a8a6; background:#fdf1f0; }
.chip.notgraded { color:#888; }
.waterfall { width:100%; }
.card.nogates { border-left:5px solid #c9ced8; } .card.nogates .v { color:var(--muted); }
p.nogates { background:#fff8e6; border:1px solid #f0dca8; border-radius:6px; padding:6px 10px; }
.sev { display:inline-block; padding:0 6px; border-radius:8px; font-size:11px; font-weight:700;
  text-transform:uppercase; background:#eee; color:#555; margin-left:4px; }
.sev.critical { background:#7a1512; color:#fff; } .sev.high { background:#d9534f; color:#fff; }
.sev.medium { background:#e8a33d; color:#fff; } .sev.low { background:#d7dbe3; color:#333; }
.badge.Evaluation-Failed, .badge.Not-graded { background:#eee; color:#555; }
.checks { margin:8px 0; border:1px solid #e9a8a6; border-radius:8px; background:#fdf6f5;
  padding:6px 12px; }
.checks h4 { margin:2px 0 6px; font-size:13px; color:#8d2421; }
.check { margin:6px 0; }
.check .why { display:block; margin:2px 0 4px; }
table.expect { width:auto; min-width:50%; background:transparent; }
table.expect td, table.expect th { padding:2px 8px; font-size:12px; }
table.expect td.exp { color:#1e6b3e; } table.expect td.act { color:#8d2421; }
pre.stack { background:#2b2f38; color:#f3f3f3; padding:8px 12px; border-radius:6px;
  max-height:320px; overflow:auto; font-size:12px; white-space:pre; margin:6px 0; }
.notrun-line { color:#777; font-size:12px; margin:4px 0; }
.method { background:var(--card); border:1px solid var(--line); border-radius:8px;
  padding:6px 16px 12px; }
.method table.statuses { width:auto; }
.muted { color:var(--muted); }
#conv-table th[data-sort] { cursor:pointer; user-select:none; }
#conv-table th[data-sort]:hover { color:var(--fg); }
#conv-table th.sorted[data-dir="asc"]::after { content:" \\25B2"; }
#conv-table th.sorted[data-dir="desc"]::after { content:" \\25BC"; }
.err-text { color:#8d2421; font-size:12px; overflow-wrap:anywhere; }
table.worst td .reason { color:var(--muted); }
.hint { font-weight:400; font-size:12px; }
.inspector { border:1px solid #c9d3e6; background:#f8faff; border-radius:8px; padding:8px 12px;
  margin:8px 0; }
.inspector .insp-head { display:flex; gap:10px; align-items:center; }
.inspector .insp-head .close { margin-left:auto; }
.inspector h4 { margin:10px 0 4px; font-size:12px; color:var(--muted); text-transform:uppercase; }
table.kv { width:auto; min-width:40%; background:transparent; }
table.kv th { background:transparent; white-space:nowrap; font-family:monospace; }
table.kv td pre, .inspector pre.raw { margin:0; white-space:pre-wrap; overflow-wrap:anywhere;
  max-height:200px; overflow:auto; font-size:12px; }
.inspector .ev { margin:4px 0 8px; }
"""
