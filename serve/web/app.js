// The polyvol calculator page: it calls the JSON API of the server that
// serves it (docs/api.md) and renders the answers as tables and SVG charts.
"use strict";

const $ = (id) => document.getElementById(id);
const SVG = "http://www.w3.org/2000/svg";
const COLORS = ["#1f5fbf", "#d9822b", "#2e8b57", "#a23b72", "#6b5ca5", "#b8a12a", "#3c9dbd", "#8c564b"];
const examples = new Map(); // example name -> spec text
// The API token the server wrote into the page; POST requests carry it.
const TOKEN = document.querySelector('meta[name="polyvol-token"]').content;

// el creates an HTML (or, with ns, SVG) element with attributes and children.
function el(tag, attrs = {}, children = [], ns = null) {
  const e = ns ? document.createElementNS(ns, tag) : document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  for (const c of [].concat(children)) e.append(c);
  return e;
}
const svgEl = (tag, attrs, children) => el(tag, attrs, children, SVG);
const fixed = (v, digits = 2) => (v === undefined || v === null ? "–" : Number(v).toFixed(digits));
const triple = (t) => t.join(",");

// APIError carries the JSON error of an answer: error, file, line, column, field.
class APIError extends Error {
  constructor(body, status) {
    super(body.error || "HTTP status " + status);
    Object.assign(this, body, { status });
  }
}

// call sends a request to the API and returns the response, throwing an
// APIError for an error answer.
async function call(path, body) {
  const init = body === undefined ? {} : {
    method: "POST",
    headers: { "Content-Type": "application/json", "X-Polyvol-Token": TOKEN },
    body: JSON.stringify(body),
  };
  const resp = await fetch(path, init);
  if (!resp.ok) {
    let err = { error: "HTTP status " + resp.status };
    try { err = await resp.json(); } catch (_) { /* not JSON: keep the status */ }
    throw new APIError(err, resp.status);
  }
  return resp;
}

// request collects the form into an API request with the given keys: the
// CLI's flag names with the CLI's string forms; empty fields are left out.
function request(keys) {
  const name = $("example").value;
  const text = $("spec").value;
  const req = name && examples.get(name) === text ? { example: name } : { spec: text };
  for (const k of keys) {
    const v = $(k).value.trim();
    if (v !== "") req[k] = v;
  }
  return req;
}

// The spec editor's line numbers, with the line of an error marked.
let errorLine = 0;
function drawGutter() {
  const lines = $("spec").value.split("\n").length;
  const g = $("gutter");
  g.replaceChildren();
  for (let i = 1; i <= lines; i++) {
    g.append(i === errorLine ? el("span", { class: "bad", title: "error on this line" }, [String(i)]) : String(i), "\n");
  }
  g.scrollTop = $("spec").scrollTop;
}

function clearErrors() {
  errorLine = 0;
  document.querySelectorAll(".grid .bad").forEach((e) => e.classList.remove("bad"));
  for (const id of ["spec-error", "input-error"]) {
    $(id).hidden = true;
    $(id).textContent = "";
  }
  drawGutter();
}

// showError shows an error at its place: errors of the spec under the
// editor, with their line marked and the cursor put at the line and column;
// the others under the launch fields, with the field at fault marked.
function showError(err) {
  if (err.line) {
    errorLine = err.line;
    const where = "line " + err.line + (err.column ? ", column " + err.column : "");
    $("spec-error").textContent = where + ": " + err.message;
    $("spec-error").hidden = false;
    const lines = $("spec").value.split("\n");
    let pos = 0;
    for (let i = 0; i < err.line - 1 && i < lines.length; i++) pos += lines[i].length + 1;
    pos += Math.max(0, (err.column || 1) - 1);
    $("spec").focus();
    $("spec").setSelectionRange(pos, pos + 1);
    drawGutter();
  } else {
    $("input-error").textContent = err.message;
    $("input-error").hidden = false;
    const input = err.field && document.querySelector(`.grid [id="${err.field}"]`);
    if (input) {
      input.classList.add("bad");
      input.focus();
    }
  }
}

// busy disables the buttons while a request runs. When it fails, the
// results on screen are marked stale: they answer the previous request.
async function busy(work) {
  clearErrors();
  const buttons = document.querySelectorAll("button");
  buttons.forEach((b) => { b.disabled = true; });
  try {
    await work();
  } catch (err) {
    markStale(true);
    showError(err);
  } finally {
    buttons.forEach((b) => { b.disabled = false; });
  }
}

// markStale marks the result sections as answering an earlier request, or
// clears the mark.
function markStale(stale) {
  for (const id of ["prediction", "ranking", "layers"]) $(id).classList.toggle("stale", stale);
  $("stale").hidden = !stale || ["prediction", "ranking", "layers"].every((id) => $(id).hidden);
}

function show(sectionID) {
  markStale(false);
  for (const id of ["prediction", "ranking", "layers"]) $(id).hidden = id !== sectionID;
}

// ---- predict

async function predict() {
  const req = request(["device", "block", "fold", "tile", "registers", "domain", "method", "model"]);
  if ($("staging").value === "off") req.unstaged = true; // a prediction is of one launch: "both" predicts the staged one
  const resp = await call("/api/predict", req);
  renderPrediction(await resp.json());
}

function renderPrediction(r) {
  const d = r.derived, l = r.launch, p = r.prediction;
  $("summary").replaceChildren(
    el("strong", { id: "glups" }, [fixed(p.GLups)]), " GLup/s, limited by ", el("strong", { id: "limiter" }, [p.limiter]),
    el("br"),
    `${r.kernel} on ${r.device}, method ${r.method}, model ${p.model}; block ${triple(l.block)}, fold ${triple(l.fold)}${l.tiling ? " " + l.tiling : ""}${l.unstaged ? " unstaged" : ""}, ` +
    `domain ${triple(l.domain)}, ${l.blocksPerSM} blocks per SM, ${fixed(l.wavesInGrid)} waves`);
  // Every bound the model combines (the overlap model's flops, issue, L1,
  // L2, DRAM, latency and block launch), or the roofline's four limiters.
  const traffic = {
    L1: `${fixed(d.L1Load)} B/Lup loaded, ${fixed(d.L1Cycles, 3)} cycles/Lup`,
    L2: `${fixed(d.L2LoadV2)} load + ${fixed(d.L2Store)} store = ${fixed(d.L2totalV2)} B/Lup`,
    DRAM: `${fixed(d.memLoadV3)} load + ${fixed(d.memStoreV2)} store = ${fixed(d.memLoadV3 + d.memStoreV2)} B/Lup`,
    latency: p.neededWarpsPerSM ? `${fixed(p.neededWarpsPerSM)} warps per SM needed to hide it` : "–",
  };
  const levels = p.bounds && p.bounds.length
    ? p.bounds.map((b) => [b.name, traffic[b.name] || "–", b.GLups])
    : [["flops", "–", d.perfFlops], ["issue", "–", d.perfIssue], ["L1", traffic.L1, d.perfL1], ["L2", traffic.L2, d.perfL2V2], ["DRAM", traffic.DRAM, d.perfMemV3]];
  const t = $("levels");
  t.replaceChildren(el("thead", {}, [el("tr", {}, [el("th", {}, ["bound"]), el("th", {}, ["traffic"]), el("th", {}, ["GLup/s of this bound alone"])])]));
  const body = el("tbody");
  for (const [name, what, bound] of levels) {
    body.append(el("tr", { class: name === p.limiter ? "limiter" : "", "data-level": name },
      [el("td", {}, [name + (name === p.limiter ? " (limiter)" : "")]), el("td", {}, [what]), el("td", {}, [bound === undefined ? "none" : fixed(bound)])]));
  }
  t.append(body);
  $("notes").replaceChildren(...(r.notes || []).map((n) => el("li", { "data-code": n.code }, [n.text])));
  $("notes").hidden = !(r.notes && r.notes.length);
  $("bars").replaceChildren(volumeBars(d));
  show("prediction");
}

// volumeBars draws one horizontal bar per memory level, split by field; the
// part of a volume the model does not split by field is grey.
function volumeBars(d) {
  const rows = [
    ["L1 load", d.L1Load, "load", "L1Load"],
    ["L2 load", d.L2LoadV2, "load", "L2LoadV2"],
    ["L2 store", d.L2Store, "store", "L2Store"],
    ["DRAM load", d.memLoadV3, "load", "memLoadV3"],
    ["DRAM store", d.memStoreV2, "store", "memStoreV2"],
  ];
  const fields = [...(d.loadFields || []).map((f) => ({ f, kind: "load" })), ...(d.storeFields || []).map((f) => ({ f, kind: "store" }))];
  const names = [...new Set(fields.map((x) => x.f.name))];
  const W = 640, left = 90, right = 70, barH = 20, gap = 8, top = 8;
  const H = top + rows.length * (barH + gap) + 30;
  const maxV = Math.max(...rows.map((r) => r[1]), 1e-9);
  const scale = (W - left - right) / maxV;
  const svg = svgEl("svg", { viewBox: `0 0 ${W} ${H}`, width: W, height: H, role: "img", "aria-label": "volumes per level and field" });
  rows.forEach(([label, total, kind, key], i) => {
    const y = top + i * (barH + gap);
    svg.append(svgEl("text", { x: left - 6, y: y + barH * 0.7, "text-anchor": "end", "font-size": 12 }, [label]));
    let x = left, sum = 0;
    for (const { f, kind: k } of fields) {
      if (k !== kind || !f[key]) continue;
      const w = f[key] * scale;
      svg.append(svgEl("rect", { x, y, width: w, height: barH, fill: COLORS[names.indexOf(f.name) % COLORS.length] },
        [svgEl("title", {}, [`${f.name}: ${fixed(f[key])} B/Lup`])]));
      x += w;
      sum += f[key];
    }
    if (total - sum > 1e-9 * Math.max(1, total)) {
      svg.append(svgEl("rect", { x, y, width: (total - sum) * scale, height: barH, fill: "#b8bec9" },
        [svgEl("title", {}, [`not split by field: ${fixed(total - sum)} B/Lup`])]));
    }
    svg.append(svgEl("text", { x: left + total * scale + 6, y: y + barH * 0.7, "font-size": 12 }, [fixed(total)]));
  });
  let lx = left;
  const ly = H - 12;
  for (const [i, n] of names.entries()) {
    svg.append(svgEl("rect", { x: lx, y: ly - 10, width: 12, height: 12, fill: COLORS[i % COLORS.length] }));
    svg.append(svgEl("text", { x: lx + 16, y: ly, "font-size": 12 }, ["field " + n]));
    lx += 30 + 8 * n.length + 40;
  }
  svg.append(svgEl("rect", { x: lx, y: ly - 10, width: 12, height: 12, fill: "#b8bec9" }));
  svg.append(svgEl("text", { x: lx + 16, y: ly, "font-size": 12 }, ["not split by field"]));
  return svg;
}

// ---- explore

async function explore() {
  show("ranking");
  $("ranks").replaceChildren();
  $("progress").value = 0;
  $("progress-text").textContent = "starting…";
  const resp = await call("/api/explore", request(["device", "threads", "folds", "staging", "registers", "domain", "method", "model"]));
  const reader = resp.body.getReader();
  const decoder = new TextDecoder();
  let buf = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (value) buf += decoder.decode(value, { stream: true });
    let nl;
    while ((nl = buf.indexOf("\n")) >= 0) {
      const msg = JSON.parse(buf.slice(0, nl));
      buf = buf.slice(nl + 1);
      if (msg.progress) {
        $("progress").max = Math.max(1, msg.progress.total);
        $("progress").value = msg.progress.done;
        $("progress-text").textContent = `${msg.progress.done} of ${msg.progress.total} configurations`;
      } else if (msg.exploration) {
        renderRanking(msg.exploration);
      } else if (msg.error) {
        throw new APIError(msg.error, 200);
      }
    }
    if (done) return;
  }
}

const rankColumns = [
  ["rank", (r, i) => i + 1],
  ["block", (r) => r.launch.block],
  ["fold", (r) => r.launch.fold],
  ["tiling", (r) => (r.launch.tiling || "consecutive") + (r.launch.unstaged ? " unstaged" : "")],
  ["GLup/s", (r) => r.prediction.GLups, 2],
  ["limiter", (r) => r.prediction.limiter],
  ["blocks/SM", (r) => r.launch.blocksPerSM],
  ["L1 cycles/Lup", (r) => r.derived.L1Cycles, 3],
  ["L2 B/Lup", (r) => r.derived.L2totalV2, 2],
  ["DRAM B/Lup", (r) => r.derived.memLoadV3 + r.derived.memStoreV2, 2],
];

function renderRanking(e) {
  $("progress-text").textContent = `${e.rows.length} configurations of ${e.threads} threads ranked, ${e.skipped.length} skipped (${e.kernel} on ${e.device}, model ${e.model})`;
  const rows = e.rows.map((r, i) => rankColumns.map(([, get]) => get(r, i)));
  const t = $("ranks");
  const head = el("tr", {}, rankColumns.map(([name], c) => {
    const th = el("th", { scope: "col", "data-column": c }, [name]);
    th.addEventListener("click", () => sortRanking(c));
    return th;
  }));
  t.replaceChildren(el("thead", {}, [head]), el("tbody"));
  t.rows_ = rows;
  sortRanking(0, "ascending");
}

// compare orders two cells: numbers and triples numerically, text by letters.
function compare(a, b) {
  if (Array.isArray(a)) {
    for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return a[i] - b[i];
    return 0;
  }
  return typeof a === "number" ? a - b : String(a).localeCompare(String(b));
}

// sortRanking sorts the ranking by column c: ascending on the first click,
// descending on the second.
function sortRanking(c, order) {
  const t = $("ranks");
  const th = t.tHead.rows[0].cells[c];
  const dir = order || (th.getAttribute("aria-sort") === "ascending" ? "descending" : "ascending");
  for (const h of t.tHead.rows[0].cells) h.removeAttribute("aria-sort");
  th.setAttribute("aria-sort", dir);
  const rows = [...t.rows_].sort((a, b) => (dir === "ascending" ? 1 : -1) * compare(a[c], b[c]));
  const body = el("tbody");
  for (const row of rows) {
    body.append(el("tr", {}, row.map((v, i) => el("td", {}, [Array.isArray(v) ? triple(v) : rankColumns[i][2] ? fixed(v, rankColumns[i][2]) : String(v)]))));
  }
  t.tBodies[0].replaceWith(body);
}

// ---- layer conditions

async function layercond() {
  const resp = await call("/api/layercond", request(["device", "block", "fold", "method"]));
  const { report, svg } = await resp.json();
  $("layer-svg").href = "data:image/svg+xml;charset=utf-8," + encodeURIComponent(svg);
  $("layer-plot").replaceChildren(layerPlot(report));
  const items = [];
  for (const sw of report.sweeps) {
    for (const t of sw.transitions) {
      const what = t.kind === "transition" ? `reuse fits up to s = ${t.s}` : t.kind === "fits throughout" ? `fits throughout the sweep (s ≤ ${t.s})` : "fits at no size of the sweep";
      items.push(el("li", {}, [`block ${triple(sw.block)}: ${t.layer} layer ${what}`]));
    }
  }
  if (report.sequential) {
    for (const c of report.sequential.conditions) items.push(el("li", {}, [`sequential ${c.layer}-layer condition (Kerncraft form): ${c.text}, square planes s ≤ ${c.maxSquare}`]));
  }
  $("transitions").replaceChildren(...items);
  show("layers");
}

// layerPlot draws memLoadV3 against s on a log2 axis, one curve per block,
// with a dashed vertical line at every layer transition.
function layerPlot(rep) {
  const W = 680, H = 340, m = { l: 56, r: 16, t: 12, b: 42 };
  const pts = rep.sweeps.flatMap((s) => s.points);
  const sMin = Math.min(...pts.map((p) => p.s)), sMax = Math.max(...pts.map((p) => p.s));
  const vMax = Math.max(...pts.map((p) => p.memLoadV3)) * 1.1 || 1;
  const lx = (s) => m.l + (Math.log2(s / sMin) / Math.max(1e-9, Math.log2(sMax / sMin))) * (W - m.l - m.r);
  const ly = (v) => H - m.b - (v / vMax) * (H - m.t - m.b);
  const svg = svgEl("svg", { viewBox: `0 0 ${W} ${H}`, width: W, height: H, role: "img", "aria-label": "DRAM load volume against plane size" });
  svg.append(svgEl("line", { x1: m.l, y1: H - m.b, x2: W - m.r, y2: H - m.b, stroke: "#5b6475" }));
  svg.append(svgEl("line", { x1: m.l, y1: m.t, x2: m.l, y2: H - m.b, stroke: "#5b6475" }));
  for (let s = 2 ** Math.ceil(Math.log2(sMin)); s <= sMax; s *= 2) {
    svg.append(svgEl("text", { x: lx(s), y: H - m.b + 16, "text-anchor": "middle", "font-size": 11 }, [String(s)]));
  }
  for (let i = 0; i <= 4; i++) {
    const v = (vMax / 1.1) * i / 4;
    svg.append(svgEl("text", { x: m.l - 6, y: ly(v) + 4, "text-anchor": "end", "font-size": 11 }, [fixed(v, 1)]));
  }
  svg.append(svgEl("text", { x: (W + m.l) / 2, y: H - 6, "text-anchor": "middle", "font-size": 12 }, [`plane size s (domain s×s×${rep.total}/s²)`]));
  svg.append(svgEl("text", { x: 12, y: m.t + 4, "font-size": 12, transform: `rotate(-90 12 ${m.t + 4})`, "text-anchor": "end" }, ["DRAM load B/Lup"]));
  rep.sweeps.forEach((sw, i) => {
    const color = COLORS[i % COLORS.length];
    svg.append(svgEl("polyline", { points: sw.points.map((p) => `${lx(p.s)},${ly(p.memLoadV3)}`).join(" "), fill: "none", stroke: color, "stroke-width": 2 }));
    for (const t of sw.transitions.filter((t) => t.kind === "transition")) {
      svg.append(svgEl("line", { x1: lx(t.s), y1: m.t, x2: lx(t.s), y2: H - m.b, stroke: color, "stroke-dasharray": "5 4", class: "transition" },
        [svgEl("title", {}, [`${t.layer} layer: reuse fits up to s = ${t.s}`])]));
      svg.append(svgEl("text", { x: lx(t.s) + 4, y: m.t + 14, "font-size": 11, fill: color }, [`${t.layer} s=${t.s}`]));
    }
    svg.append(svgEl("text", { x: W - m.r - 4, y: m.t + 14 + 16 * i, "text-anchor": "end", "font-size": 12, fill: color }, [`block ${triple(sw.block)}`]));
  });
  return svg;
}

// ---- start

async function start() {
  try {
    const [ex, dev] = await Promise.all([call("/api/examples"), call("/api/devices")]);
    for (const e of await ex.json()) {
      examples.set(e.name, e.spec);
      $("example").append(el("option", { value: e.name }, [e.name]));
    }
    for (const d of await dev.json()) $("device").append(el("option", { value: d.name }, [`${d.name} (${d.display_name})`]));
  } catch (err) {
    showError(err);
    return;
  }
  $("device").value = "A100-40GB";
  $("example").value = "star3d-r4";
  $("spec").value = examples.get("star3d-r4");
  drawGutter();
  $("example").addEventListener("change", () => {
    if ($("example").value) $("spec").value = examples.get($("example").value);
    clearErrors();
  });
  $("spec").addEventListener("input", drawGutter);
  $("spec").addEventListener("scroll", () => { $("gutter").scrollTop = $("spec").scrollTop; });
  $("input").addEventListener("submit", (ev) => { ev.preventDefault(); busy(predict); });
  $("explore").addEventListener("click", () => busy(explore));
  $("layercond").addEventListener("click", () => busy(layercond));
  document.body.dataset.ready = "true";
}

start();
