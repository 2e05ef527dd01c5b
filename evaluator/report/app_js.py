"""The report page's script: charts, the conversation list, and lazy conversation views.

Everything user-provided reaches the DOM through `textContent` or text
nodes (never `innerHTML`), and strings drawn by plotly are entity-escaped,
so agent text holding HTML shows as text. A conversation's block (gzip +
base64, see `embed.py`) is decompressed with the browser's own
`DecompressionStream('gzip')`, parsed, and its transcript and span
waterfalls drawn only when it is opened (`#conv=<chat_id>`); the latest
opened wins when several are in flight. This keeps a 10,000-conversation
report small and fast to load, offline, with no library.
"""

from __future__ import annotations

__all__ = ["APP_JS"]

APP_JS = r"""
(function () {
"use strict";
const PAGE = 50;
const json = (id) => JSON.parse(document.getElementById(id).textContent);
const TAGS = json("report-tags");  // html._compact_index: rows name tags and tools by position
const INDEX = json("report-index").map((row, i) => ({ ...row, pos: i,
  tags: row.tags.map((t) => TAGS[t]), tools: (row.tools || []).map((t) => TAGS[t]) }));
const BY_ID = new Map(INDEX.map((row, i) => [row.chat_id, i]));
// worst first: Failed, then not graded, then Partial Failure, then Done, then no final score
const RANK = { "Failed": 0, "Evaluation Failed": 1, "Not graded": 1, "Partial Failure": 2, "Done": 4 };
const severity = (r) => r.label ? (RANK[r.label] ?? 3) : 5;
const state = { page: 0, rows: INDEX, sort: "severity", dir: 1 };

function el(tag, cls, ...children) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  for (const c of children) {
    if (c === null || c === undefined) continue;
    e.append(c instanceof Node ? c : String(c));
  }
  return e;
}
function plotText(s) {  // plotly renders a subset of HTML in labels: escape it
  return String(s ?? "").replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}
function badge(text, cls) { return el("span", "badge " + String(cls ?? text).replace(/ /g, "-"), text); }
function fmt(v, digits) { return v === null || v === undefined ? "–" : Number(v).toFixed(digits); }
function convLink(chatId) {
  const a = el("a", null, chatId);
  a.href = "#conv=" + encodeURIComponent(chatId);
  return a;
}

function drawCharts() {
  for (const chart of json("report-charts")) {
    const fig = JSON.parse(chart.figure);
    Plotly.newPlot(chart.id, fig.data, fig.layout, { displaylogo: false, responsive: true });
  }
}

function fillSelect(id, values) {
  const sel = document.getElementById(id);
  const counts = new Map();
  for (const v of values) if (v !== null && v !== undefined) counts.set(v, (counts.get(v) || 0) + 1);
  for (const v of [...counts.keys()].sort()) {
    const o = el("option", null, `${v} (${counts.get(v)})`);
    o.value = v;
    sel.append(o);
  }
  sel.addEventListener("change", () => { state.page = 0; applyFilters(); });
}

function hasError(r, kind) {
  const tool = r.tool_errors > 0, turn = r.turn_errors > 0 || !!r.err;
  return kind === "tool" ? tool : kind === "turn" ? turn : kind === "none" ? !tool && !turn
    : tool || turn;
}

function applyFilters() {
  const v = (id) => document.getElementById(id).value;
  const q = v("f-search").trim().toLowerCase();
  const sc = v("f-scenario"), lab = v("f-label"), tag = v("f-tag"), tool = v("f-tool");
  const err = v("f-error");
  state.rows = INDEX.filter((r) =>
    (!q || r.chat_id.toLowerCase().includes(q) || String(r.scenario ?? "").toLowerCase().includes(q)
      || String(r.err ?? "").toLowerCase().includes(q)) &&
    (!sc || r.scenario === sc) && (!tag || r.tags.includes(tag)) &&
    (!lab || (lab === "__failing" ? r.tags.length > 0 : r.label === lab)) &&
    (!tool || r.tools.includes(tool)) && (!err || hasError(r, err)));
  sortRows();
  renderList();
}

function sortValue(r, key) {
  if (key === "severity") return [severity(r), r.final ?? -1, r.pos];
  const v = r[key];
  return [v === null || v === undefined ? null : v, r.pos];
}
function compare(a, b) {  // nulls last whichever the direction
  for (let i = 0; i < a.length; i++) {
    if (a[i] === b[i]) continue;
    if (a[i] === null) return 1;
    if (b[i] === null) return -1;
    const d = typeof a[i] === "string" ? a[i].localeCompare(b[i]) : a[i] - b[i];
    return i === a.length - 1 ? d : d * state.dir;
  }
  return 0;
}
function sortRows() {
  const keyed = state.rows.map((r) => [sortValue(r, state.sort), r]);
  keyed.sort((x, y) => compare(x[0], y[0]));
  state.rows = keyed.map((x) => x[1]);
  for (const th of document.querySelectorAll("#conv-table th[data-sort]")) {
    const on = th.dataset.sort === state.sort;
    th.classList.toggle("sorted", on);
    th.dataset.dir = on ? (state.dir > 0 ? "asc" : "desc") : "";
  }
}

function renderList() {
  const body = document.getElementById("conv-rows");
  const pages = Math.max(1, Math.ceil(state.rows.length / PAGE));
  state.page = Math.min(state.page, pages - 1);
  const rows = state.rows.slice(state.page * PAGE, (state.page + 1) * PAGE);
  body.replaceChildren(...rows.map((r) => {
    const tr = el("tr", null,
      el("td", "nowrap", convLink(r.chat_id)),
      el("td", null, r.scenario ?? "–"),
      el("td", null, r.label ? badge(r.label) : el("span", "muted", "–")),
      el("td", "num", fmt(r.final, 2)),
      el("td", "num", r.turns),
      el("td", "num", r.calls),
      el("td", "num", r.tool_errors),
      el("td", null, r.status ?? "–"),
      el("td", "muted", shortTags(r.tags), r.err ? el("div", "err-text", r.err) : null));
    tr.dataset.chatId = r.chat_id;
    return tr;
  }));
  document.getElementById("conv-count").textContent =
    `${state.rows.length} of ${INDEX.length} conversations · page ${state.page + 1} of ${pages}`;
  document.getElementById("prev").disabled = state.page === 0;
  document.getElementById("next").disabled = state.page >= pages - 1;
}

function shortTags(tags) {  // the status has its own column; metric names say enough
  const short = tags.filter((t) => !t.startsWith("Final status: "))
    .map((t) => t.replace(/^Failed metric: /, "").replace(/^Agent behaviour failure: /, "behaviour: "));
  return short.length > 4 ? short.slice(0, 4).join(", ") + ` +${short.length - 4} more` : short.join(", ");
}

function sevBadge(details) {
  const sev = details && details.severity;
  return sev ? el("span", "sev " + String(sev).replace(/[^a-z]/g, ""), sev) : null;
}

function scoreChips(scores) {  // not-run results (e.g. judges with no model) share one line
  const box = el("div", "chips");
  const notRun = scores.filter(([, value, , label]) => value === null && label === "not_run");
  for (const [metric, value, passed, label, reason, details] of scores) {
    if (value === null && label === "not_run") continue;
    const cls = value === null ? "notgraded" : passed === false ? "fail" : passed ? "pass" : "";
    const text = value === null ? `${metric}: not graded` : `${metric}: ${fmt(value, 2)}`;
    const chip = el("span", "chip " + cls, text, label ? ` (${label})` : null, sevBadge(details));
    chip.title = reason ?? "";
    box.append(chip);
  }
  if (!notRun.length) return box;
  const wrap = el("div", null, box);
  wrap.append(el("div", "notrun-line", `${notRun.length} not run (not graded): ` +
    notRun.map((s) => s[0]).join(", ") + (notRun[0][4] ? ` — ${notRun[0][4]}` : "")));
  return wrap;
}

function show(v) {
  if (v === null || v === undefined) return "(none)";
  if (Array.isArray(v)) return v.length ? v.map(show).join(", ") : "(none)";
  return typeof v === "string" ? v : JSON.stringify(v);
}

function expectRows(d) {  // [expected, actual, note] rows from a failed check's details
  const rows = [];
  for (const c of d.calls || []) {
    if (c && c.matched !== true) rows.push([c.expected ?? c.name, c.actual, c.explanation ?? ""]);
  }
  if (!rows.length) {
    for (const m of d.missing || []) rows.push([m, null, "expected, not called"]);
    for (const x of d.extra || []) rows.push([null, x, "called, not expected"]);
  }
  for (const f of d.forbidden || []) rows.push([null, f, "forbidden tool called"]);
  if (d.expected_order) rows.push([d.expected_order, d.actual_order, "order"]);
  for (const [tool, t] of Object.entries(d.tools || {})) {
    if (t && t.passed === false) rows.push([`${tool}: ${t.expected}`, `${tool}: ${t.actual}`, "count"]);
  }
  return rows;
}

// scores computed from the others: they say that a turn failed, the checks say why
const DERIVED = new Set(["turn_success", "turn_success_ratio", "final_score"]);
function failedChecks(scores) {  // why it failed, visible without hovering
  // checks an agent's error kept from being graded say so too (issue 23 item 2)
  const UNGRADED = new Set(["not_reached", "not_graded"]);
  const failed = scores.filter(([metric, , passed, label]) => !DERIVED.has(metric)
    && (passed === false || (passed === null && UNGRADED.has(label))));
  if (!failed.length) return null;
  const ungraded = failed.some(([, , passed]) => passed !== false);
  const title = ungraded ? "Why it failed or was not graded" : "Why it failed";
  const box = el("div", "checks", el("h4", null, `${title} (${failed.length})`));
  for (const [metric, value, , label, reason, details] of failed) {
    const item = el("div", "check", el("strong", null, metric), ` ${fmt(value, 2)}`,
      label ? ` (${label})` : null, sevBadge(details), el("span", "why", reason || ""));
    const rows = details ? expectRows(details) : [];
    if (rows.length) {
      const table = el("table", "expect", el("thead", null, el("tr", null,
        el("th", null, "expected"), el("th", null, "actual"), el("th", null, ""))));
      const body = el("tbody");
      for (const [e, a, note] of rows) {
        body.append(el("tr", null, el("td", "exp", e === null ? "–" : show(e)),
          el("td", "act", a === null ? "–" : show(a)), el("td", "muted", note)));
      }
      table.append(body);
      item.append(table);
    }
    box.append(item);
  }
  return box;
}

function callsTable(calls) {
  const table = el("table", "calls");
  table.append(el("thead", null, el("tr", null, el("th", null, "#"), el("th", null, "tool"),
    el("th", null, "arguments"), el("th", null, "result"), el("th", null, "error"),
    el("th", null, "observed"), el("th", "num", "ms"))));
  const body = el("tbody");
  for (const c of calls) {
    const tr = el("tr", "tool-call",
      el("td", "num", c.seq),
      el("td", null, el("strong", null, c.name), c.id ? el("div", "muted", c.id) : null),
      el("td", null, el("pre", null, c.arguments ?? "")),
      el("td", null, el("pre", null, c.result ?? "")),
      el("td", "err", c.error ? el("pre", null, c.error) : ""),
      el("td", null, badge(c.observed), el("div", "muted", c.source ?? "")),
      el("td", "num", fmt(c.ms, 0)));
    body.append(tr);
  }
  table.append(body);
  return table;
}

// a span (shape.span_tree): [name, offset ms, duration ms, depth, flags, service, model,
// input tokens, output tokens, error message]; flags: 1 error, 2 tool
const S_ERROR = 1, S_TOOL = 2;
function waterfall(div, spans) {
  const color = (s) => s[4] & S_ERROR ? "#d9534f" : s[4] & S_TOOL ? "#3f6fb0" : s[6] ? "#9b7ad1"
    : s[0] === "tracesim.turn" ? "#9aa3b2" : "#7fb3d5";
  const ys = spans.map((_, i) => i);
  const labels = spans.map((s) => "\u00a0\u00a0".repeat(Math.min(s[3], 8)) + String(s[0] ?? "").slice(0, 40));
  const width = Math.max(...labels.map((l) => l.length));
  const hover = spans.map((s) => [
    `<b>${plotText(s[0])}</b>`, `${fmt(s[2], 1)} ms at +${fmt(s[1], 1)} ms`,
    s[5] ? `service: ${plotText(s[5])}` : "", s[6] ? `model: ${plotText(s[6])}` : "",
    s[7] !== undefined && s[7] !== null ? `tokens: ${s[7]} in / ${s[8] ?? "–"} out` : "",
    s[4] & S_ERROR ? `ERROR ${plotText(s[9] ?? "")}` : "",
  ].filter(Boolean).join("<br>"));
  Plotly.newPlot(div, [{
    type: "bar", orientation: "h", y: ys, base: spans.map((s) => s[1]),
    x: spans.map((s) => Math.max(s[2], 0.3)), marker: { color: spans.map(color) },
    hovertext: hover, hoverinfo: "text",
  }], {
    height: 46 + 22 * spans.length, margin: { l: Math.min(40 + 7 * width, 380), r: 20, t: 6, b: 34 },
    template: "plotly_white", bargap: 0.25,
    xaxis: { title: { text: "ms since the turn started" }, zeroline: false },
    // equal-length monospace labels: right-aligned ticks then show the tree's indentation
    yaxis: { tickvals: ys, autorange: "reversed", tickfont: { size: 11, family: "monospace" },
      ticktext: labels.map((l) => plotText(l.padEnd(width, "\u00a0"))) },
    font: { family: "system-ui, sans-serif", size: 11 },
  }, { displayModeBar: false, responsive: true }).then(() => {
    div.on("plotly_click", (ev) => {
      const p = ev && ev.points && ev.points[0];
      if (p) inspectSpan(div.inspector, div.turn, p.pointIndex);
    });
  });
}

function parsed(text) {  // span_detail.py embeds JSON columns as clipped text
  if (text === null || text === undefined || text === "") return null;
  try { return JSON.parse(text); } catch (e) { return text; }
}
function kvTable(obj, cls) {
  if (obj === null || obj === undefined) return el("p", "muted", "(none)");
  if (typeof obj !== "object") return el("pre", "raw", String(obj));
  const entries = Array.isArray(obj) ? obj.map((v, i) => [String(i), v]) : Object.entries(obj);
  if (!entries.length) return el("p", "muted", "(none)");
  const body = el("tbody");
  for (const [k, v] of entries) {
    body.append(el("tr", null, el("th", null, k),
      el("td", null, el("pre", null, typeof v === "string" ? v : JSON.stringify(v, null, 1)))));
  }
  return el("table", "kv " + (cls || ""), body);
}
function eventList(events, what) {
  if (!Array.isArray(events) || !events.length) return kvTable(events);
  const box = el("div");
  for (const ev of events) {
    const head = what === "link" ? `trace ${ev.trace_id ?? "?"} span ${ev.span_id ?? "?"}`
      : `${ev.name ?? "(event)"}${ev.time ? " at " + ev.time : ""}`;
    box.append(el("div", "ev", el("strong", null, head), kvTable(ev.attributes ?? {})));
  }
  return box;
}

function inspectSpan(panel, t, i) {  // the inspector: everything stored about one span
  const s = t.spans[i], d = t.inspect && t.inspect[i];
  if (!s || !d || !panel) return;
  const [spanId, traceId, parent, kind, status, message, scope, attrs, events, links, res] = d;
  const close = el("button", "close", "close");
  close.type = "button";
  close.addEventListener("click", () => { panel.hidden = true; });
  const facts = {
    "span id": spanId, "trace id": traceId, "parent span id": parent ?? "(root)",
    "kind": kind ?? "–", "status": (status ?? "UNSET") + (message ? `: ${message}` : ""),
    "service": s[5] ?? "–", "scope": scope ?? "–",
    "start": `+${fmt(s[1], 1)} ms`, "duration": `${fmt(s[2], 1)} ms`,
  };
  if (s[6]) facts.model = s[6];
  const evs = parsed(events), lks = parsed(links);
  panel.replaceChildren(
    el("div", "insp-head", el("strong", null, s[0] ?? "(unnamed span)"),
      status === "ERROR" ? badge("ERROR", "error") : null, close),
    kvTable(facts, "facts"),
    el("h4", null, "Attributes"), kvTable(parsed(attrs)),
    el("h4", null, `Events (${Array.isArray(evs) ? evs.length : 0})`), eventList(evs, "event"),
    el("h4", null, `Links (${Array.isArray(lks) ? lks.length : 0})`), eventList(lks, "link"),
    el("h4", null, "Resource"), kvTable(res === null || res === undefined ? null
      : parsed(t.resources[res])));
  panel.hidden = false;
  panel.dataset.spanId = spanId;
  panel.scrollIntoView({ block: "nearest" });
}

function renderTurn(t) {
  const box = el("div", "turn");
  box.dataset.turn = t.turn_id;
  const toolSpans = t.spans.filter((s) => s[4] & S_TOOL).length;
  box.append(el("div", "turn-head", el("strong", null, `Turn ${t.turn_id}`),
    t.status ? badge(t.status) : null, t.source ? badge(t.source, "traced") : null, t.ms !== null ? el("span", null, `${fmt(t.ms, 0)} ms`) : null,
    el("span", null, !t.calls.length && toolSpans ? `${toolSpans} tool span(s)`
      : `${t.calls.length} tool call(s)`), el("span", null, `${t.spans_total} span(s)`)));
  if (t.user !== null) box.append(el("div", "msg user", el("span", "who", "user"), t.user));
  else if (t.spans.length && t.agent === null) box.append(el("div", "muted nomsg",
    "No user or agent text stored for this turn: its spans carry no messages tracesim reads."));
  if (t.calls.length) box.append(callsTable(t.calls));
  else if (toolSpans) box.append(el("div", "muted", `${toolSpans} tool span(s), not evaluated ` +
    "yet: `tracesim evaluate` derives and checks their tool calls."));
  else box.append(el("div", "muted", "No tool calls in this turn."));
  const why = failedChecks(t.scores);
  if (why) box.append(why);
  if (t.agent !== null) box.append(el("div", "msg agent", el("span", "who", "agent"), t.agent));
  if (t.error) box.append(el("div", "msg error", el("span", "who", "error"), t.error));
  if (t.stack) box.append(el("div", "stack-head muted", "stack trace"), el("pre", "stack", t.stack));
  if (t.scores.length) box.append(scoreChips(t.scores));
  if (t.spans.length) {
    const more = t.spans_total > t.spans.length ? ` (first ${t.spans.length} of ${t.spans_total})` : "";
    box.append(el("h3", null, "Span waterfall" + more,
      el("span", "muted hint", " · click a bar to inspect its span")));
    const div = el("div", "waterfall");
    const inspector = el("div", "inspector");
    inspector.hidden = true;
    div.inspector = inspector;
    div.turn = t;
    box.append(div, inspector);
    requestAnimationFrame(() => waterfall(div, t.spans));
  }
  return box;
}

async function inflate(id) {  // a gzip+base64 block (embed.py) -> its JSON value
  const text = atob(document.getElementById(id).textContent);
  const bytes = new Uint8Array(text.length);
  for (let i = 0; i < text.length; i++) bytes[i] = text.charCodeAt(i);
  const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
  return JSON.parse(await new Response(stream).text());
}

let opening = 0;  // the latest requested conversation wins
async function openConversation(chatId) {
  const token = ++opening;
  const i = BY_ID.get(chatId);
  const panel = document.getElementById("conversation");
  if (i === undefined) {
    panel.replaceChildren(el("p", "muted", `No conversation ${chatId} in this report.`));
    return;
  }
  if (typeof DecompressionStream === "undefined") {
    panel.replaceChildren(el("p", "muted", "This browser cannot decompress the report's " +
      "conversations (DecompressionStream: Chrome 80+, Firefox 113+, Safari 16.4+)."));
    return;
  }
  const row = INDEX[i];
  let conv;
  try {
    conv = await inflate("conv-" + i);
  } catch (err) {
    if (token === opening) panel.replaceChildren(el("p", "muted", `Could not read conversation ${chatId}: ${err}`));
    return;
  }
  if (token !== opening) return;
  const head = el("div", "conv-head", el("h2", null, `Conversation ${row.chat_id}`),
    row.scenario ? badge(row.scenario, "scenario") : null, row.label ? badge(row.label) : null,
    row.final !== null ? `final score ${fmt(row.final, 2)}` : null,
    row.status ? el("span", "muted", `simulator status: ${row.status}`) : null);
  const parts = [head];
  if (conv.error) parts.push(el("div", "msg error", el("span", "who", "error"), conv.error));
  if (conv.scores.length) {
    parts.push(el("h3", null, "Conversation scores"), scoreChips(conv.scores));
    const why = failedChecks(conv.scores);
    if (why) parts.push(why);
  }
  for (const t of conv.turns) parts.push(renderTurn(t));
  if (!conv.turns.length) parts.push(el("p", "muted", "No turns recorded."));
  panel.replaceChildren(...parts);
  panel.dataset.chatId = row.chat_id;
  panel.scrollIntoView();
}

function route() {
  const m = location.hash.match(/^#conv=(.*)$/);
  if (m) openConversation(decodeURIComponent(m[1]));
}

function init() {
  drawCharts();
  fillSelect("f-scenario", INDEX.map((r) => r.scenario));
  fillSelect("f-label", INDEX.map((r) => r.label));
  fillSelect("f-tag", INDEX.flatMap((r) => r.tags));
  fillSelect("f-tool", INDEX.flatMap((r) => r.tools));
  document.getElementById("f-error").addEventListener("change", () => { state.page = 0; applyFilters(); });
  document.getElementById("f-search").addEventListener("input", () => { state.page = 0; applyFilters(); });
  document.getElementById("f-reset").addEventListener("click", () => {
    for (const s of document.querySelectorAll(".filters select, .filters input")) s.value = "";
    state.sort = "severity"; state.dir = 1; state.page = 0; applyFilters();
  });
  for (const th of document.querySelectorAll("#conv-table th[data-sort]")) {
    th.addEventListener("click", () => {
      const key = th.dataset.sort;
      state.dir = state.sort === key ? -state.dir : 1;
      state.sort = key;
      state.page = 0;
      sortRows();
      renderList();
    });
  }
  for (const a of document.querySelectorAll("a[data-only-failing]")) {
    a.addEventListener("click", (ev) => {
      ev.preventDefault();
      document.getElementById("f-label").value = "__failing";
      state.page = 0;
      applyFilters();
      document.getElementById("conversations").scrollIntoView();
    });
  }
  document.getElementById("prev").addEventListener("click", () => { state.page--; renderList(); });
  document.getElementById("next").addEventListener("click", () => { state.page++; renderList(); });
  for (const a of document.querySelectorAll("a[data-tag]")) {
    a.addEventListener("click", (ev) => {
      ev.preventDefault();
      document.getElementById("f-tag").value = a.dataset.tag;
      state.page = 0;
      applyFilters();
      document.getElementById("conversations").scrollIntoView();
    });
  }
  sortRows();
  renderList();
  window.addEventListener("hashchange", route);
  route();
  document.body.dataset.readyAt = performance.now().toFixed(0);
  document.body.dataset.ready = "1";
}

init();
})();
"""
