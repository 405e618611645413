// The polyvol calculator page: it calls the JSON API of the server that
// serves it (docs/api.md) and renders the answers as tables and SVG charts.
"use strict";

const $ = (id) => document.getElementById(id);
const SVG = "http://www.w3.org/2000/svg";
const COLORS = ["#1f5fbf", "#d9822b", "#2e8b57", "#a23b72", "#6b5ca5", "#b8a12a", "#3c9dbd", "#8c564b"];
const examples = new Map(); // example name -> spec text
const devices = new Map(); // device name -> device object of /api/devices
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
  for (const id of ["spec-error", "result-error"]) {
    $(id).hidden = true;
    $(id).textContent = "";
  }
  drawGutter();
}

// showError shows an error in the result pane, where the answer would have
// been, and at its place: an error of the spec under the editor too, with
// its line marked and the cursor put at the line and column; an error of a
// field with that field marked.
function showError(err) {
  if (err.line) {
    errorLine = err.line;
    const where = "line " + err.line + (err.column ? ", column " + err.column : "");
    $("spec-error").textContent = where + ": " + err.message;
    $("spec-error").hidden = false;
    $("result-error").textContent = "The spec, " + where + ": " + err.message;
    const lines = $("spec").value.split("\n");
    let pos = 0;
    for (let i = 0; i < err.line - 1 && i < lines.length; i++) pos += lines[i].length + 1;
    pos += Math.max(0, (err.column || 1) - 1);
    $("spec").focus();
    $("spec").setSelectionRange(pos, pos + 1);
    drawGutter();
  } else {
    $("result-error").textContent = err.message;
    const input = err.field && document.querySelector(`.grid [id="${err.field}"]`);
    if (input) {
      input.classList.add("bad");
      input.focus({ preventScroll: true });
    }
  }
  $("result-error").hidden = false;
  $("result-error").scrollIntoView({ block: "nearest" });
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
  const resources = launchResources(req);
  const resp = await call("/api/predict", req);
  renderPrediction(await resp.json(), resources);
}

// launchResources returns what the occupancy view and the roofline need
// and the predict report does not state: the registers per thread (the
// Registers field, else the spec's registers, else the spec default 32) and
// the spec's own shared_bytes per block, each with where it came from, and
// the bytes of the kernel's floating-point numbers (fp_type, else 8 where a
// field's element is wider than 4 bytes, else 4).
function launchResources(req) {
  const text = req.spec !== undefined ? req.spec : examples.get(req.example) || "";
  const specNumber = (key) => {
    const m = text.match(new RegExp(`^${key}[ \t]*:[ \t]*(\\d+)[ \t]*(#.*)?$`, "m")) || text.match(new RegExp(`"${key}"\\s*:\\s*(\\d+)`));
    return m ? Number(m[1]) : undefined;
  };
  let registers = { value: 32, from: "the spec format's default (the spec sets no registers)" };
  if (/^\d+$/.test(req.registers || "")) registers = { value: Number(req.registers), from: "the Registers per thread field" };
  else if (specNumber("registers") !== undefined) registers = { value: specNumber("registers"), from: "the spec's registers" };
  const shared = specNumber("shared_bytes");
  const elements = [...text.matchAll(/(?:^|[\s,{])"?element"?\s*:\s*(\d+)/g)].map((m) => Number(m[1]));
  const fpBytes = specNumber("fp_type") || (elements.some((e) => e > 4) ? 8 : 4);
  return { fpBytes, registers, sharedBytes: shared === undefined ? { value: 0, from: "the spec sets no shared_bytes" } : { value: shared, from: "the spec's shared_bytes" } };
}

function renderPrediction(r, resources) {
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
  const roof = roofline(r, (resources || launchResources({})).fpBytes);
  $("roofline").replaceChildren(roof.svg);
  $("roofline-notes").replaceChildren(...roof.notes.map((n) => el("li", {}, [n])));
  const occ = occupancy(r, resources || launchResources({}));
  $("occupancy").replaceChildren(occ.svg);
  $("occupancy-notes").replaceChildren(...occ.notes.map((n) => el("li", {}, [n])));
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
  $("heat").hidden = true;
  $("heatmap").replaceChildren();
  $("heat-legend").replaceChildren();
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
  renderHeat(e);
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

// ---- charts of a prediction

const LEVEL_COLORS = { L1: "#1f5fbf", L2: "#d9822b", DRAM: "#2e8b57" };
const MEMORY_LEVELS = ["L1", "L2", "DRAM"];
const SUPERSCRIPT = { "-": "⁻", 0: "⁰", 1: "¹", 2: "²", 3: "³", 4: "⁴", 5: "⁵", 6: "⁶", 7: "⁷", 8: "⁸", 9: "⁹" };

// sig writes a number with 3 significant digits, without exponent for the
// usual magnitudes.
function sig(v) {
  if (!Number.isFinite(v)) return String(v);
  const a = Math.abs(v);
  if (a >= 1000) return Math.round(v).toString();
  if (a === 0) return "0";
  if (a < 1e-3) return v.toExponential(2);
  return String(Number(v.toPrecision(3)));
}

// rate writes a rate given in G-units per second (GFlop/s, GB/s, GLup/s),
// switching to T above 1000 except for lattice updates.
const rate = (g, unit) => (g >= 1000 && unit !== "Lup" ? `${sig(g / 1000)} T${unit}/s` : `${sig(g)} G${unit}/s`);

// decadeLabel writes a power of ten as a tick label: 0.01, 1, 1000 or 10⁵.
function decadeLabel(v) {
  const e = Math.round(Math.log10(v));
  if (e >= -2 && e <= 3) return String(10 ** e >= 1 ? 10 ** e : Number((10 ** e).toFixed(-e)));
  return "10" + String(e).split("").map((c) => SUPERSCRIPT[c]).join("");
}

// rooflineModel collects the hierarchical roofline of a predict report: one
// point per memory level at (intensity, performance) and one ceiling per
// bound, with notes on what the report lacks. Intensities are work per byte
// moved at the level, performance work per second; the work is the flops
// (flopsPerLup per lattice update) or, for a kernel without flops, the
// lattice updates themselves.
function rooflineModel(r, fpBytes) {
  const d = r.derived, l = r.launch, p = r.prediction;
  const notes = [];
  const flops = l.flopsPerLup > 0;
  const w = flops ? l.flopsPerLup : 1;
  const unit = flops ? "flop" : "Lup";
  if (!flops) {
    notes.push("The kernel has no flops (flopsPerLup is 0): the chart counts lattice updates instead, intensity in Lup/B (the inverse of each level's B/Lup) and performance in GLup/s.");
  }
  let bounds = p.bounds && p.bounds.length ? p.bounds : null;
  if (!bounds) {
    bounds = [["flops", d.perfFlops], ["L1", d.perfL1], ["L2", d.perfL2V2], ["DRAM", d.perfMemV3]]
      .filter(([, v]) => v > 0).map(([name, GLups]) => ({ name, GLups }));
    notes.push(`The ${p.model} model reports no list of bounds: the ceilings are the roofline's four bounds of the report's derived section (perfFlops, perfL1, perfL2V2, perfMemV3).`);
  }
  const derivedBytes = {
    L1: d.L1Load,
    L2: d.L2totalV2 !== undefined ? d.L2totalV2 : d.L2LoadV2 !== undefined && d.L2Store !== undefined ? d.L2LoadV2 + d.L2Store : undefined,
    DRAM: d.memLoadV3 !== undefined && d.memStoreV2 !== undefined ? d.memLoadV3 + d.memStoreV2 : undefined,
  };
  const derivedName = { L1: "derived.L1Load", L2: "derived.L2totalV2", DRAM: "derived.memLoadV3 + memStoreV2" };
  const bytes = {};
  for (const lvl of MEMORY_LEVELS) {
    const b = bounds.find((x) => x.name === lvl);
    bytes[lvl] = b && b.bytesPerLup > 0 ? b.bytesPerLup : derivedBytes[lvl];
    if (b && b.bytesPerLup > 0 && derivedBytes[lvl] > 0 && Math.abs(b.bytesPerLup - derivedBytes[lvl]) > 1e-6 * b.bytesPerLup) {
      notes.push(`The ${lvl} point uses the ${p.model} model's own volume, ${sig(b.bytesPerLup)} B/Lup (its bound's bytesPerLup), not ${derivedName[lvl]} (${sig(derivedBytes[lvl])} B/Lup).`);
    }
  }
  const perf = p.GLups * w;
  const points = [];
  const dev = devices.get(r.device);
  const usedDevice = [];
  for (const lvl of MEMORY_LEVELS) {
    if (bytes[lvl] > 0 && perf > 0) points.push({ level: lvl, bytes: bytes[lvl], x: w / bytes[lvl], y: perf });
    else notes.push(`The report has no ${lvl} volume above zero, so the chart has no ${lvl} point.`);
  }
  const ceilings = [];
  // The device's peak: every lane's FMA (2 flops) in every cycle, apart
  // from the flops bound, the share of it the kernel's FP mix reaches.
  const lanes = dev && (fpBytes === 4 ? dev.fp32_per_cycle_sm : dev.fp64_per_cycle_sm);
  if (flops && lanes > 0) {
    ceilings.push({ name: PEAK, kind: "flat", y: 2 * lanes * dev.clock_ghz * dev.sms, GLups: (2 * lanes * dev.clock_ghz * dev.sms) / w, precision: fpBytes === 4 ? "FP32" : "FP64" });
  }
  for (const b of bounds) {
    if (!(b.GLups > 0)) continue;
    if (MEMORY_LEVELS.includes(b.name)) {
      if (!(bytes[b.name] > 0)) {
        notes.push(`The ${b.name} bound (${sig(b.GLups)} GLup/s) has no volume to turn into a bandwidth: no ${b.name} ceiling.`);
        continue;
      }
      // The bandwidth: the bound's own, else the device's of /api/devices
      // where it gives this bound at this volume, else the one the bound
      // implies at this volume.
      const own = b.GBs > 0 ? b.GBs : undefined;
      const devBW = dev && { L2: dev.l2_bandwidth_gbs, DRAM: dev.dram_bandwidth_gbs }[b.name];
      const fromDevice = own === undefined && devBW > 0 && Math.abs(devBW - b.GLups * bytes[b.name]) <= 1e-3 * devBW;
      const implied = own === undefined && !fromDevice;
      const GBs = own !== undefined ? own : fromDevice ? devBW : b.GLups * bytes[b.name];
      if (fromDevice) usedDevice.push(b.name);
      if (implied) {
        notes.push(`The report gives no ${b.name} bandwidth: the ${b.name} ceiling is the ${b.name} bound (${sig(b.GLups)} GLup/s${b.name === "L1" ? ", from the L1 cycles per update" : ""}) drawn as the bandwidth it implies at this kernel's ${b.name} volume, ${sig(bytes[b.name])} B/Lup × ${sig(b.GLups)} GLup/s = ${rate(GBs, "B")} (dashed).`);
      }
      ceilings.push({ name: b.name, kind: "bandwidth", GBs, implied, GLups: b.GLups });
    } else {
      ceilings.push({ name: b.name, kind: "flat", y: b.GLups * w, GLups: b.GLups });
    }
  }
  if (usedDevice.length) notes.push(`The report gives no bandwidth of ${usedDevice.join(" and ")}: ${usedDevice.length > 1 ? "their ceilings are" : "its ceiling is"} the device's (GET /api/devices: ${usedDevice.map((n) => n === "L2" ? "l2_bandwidth_gbs" : "dram_bandwidth_gbs").join(", ")}), which ${usedDevice.length > 1 ? "give" : "gives"} the report's bound at this volume.`);
  const limiting = ceilings.find((c) => c.name === p.limiter);
  if (limiting) limiting.limiter = true;
  else notes.push(`The limiter, ${p.limiter}, has no ceiling in this chart${p.limiter === "latency" ? ": it depends on the warps in flight, not on a data volume" : ""}.`);
  return { w, unit, perf, points, ceilings, notes, limiter: p.limiter };
}

// PEAK names the roofline's ceiling of the device's peak flops.
const PEAK = "device peak";

// ceilingName is a flat ceiling's name in the roofline: the flops bound is
// the kernel's, the peak the device's.
const ceilingName = (c) => (c.name === PEAK ? `${PEAK} ${c.precision}` : c.name === "flops" ? "flops of the kernel's FP mix" : c.name);

// roofline draws the hierarchical roofline of a predict report, for a kernel
// of fpBytes floating-point numbers, on log-log axes and returns the SVG and
// its notes.
function roofline(r, fpBytes) {
  const m = rooflineModel(r, fpBytes);
  const W = 600, H = 380, pad = { l: 62, r: 16, t: 14, b: 46 };
  const flat = m.ceilings.filter((c) => c.kind === "flat");
  const slopes = m.ceilings.filter((c) => c.kind === "bandwidth");
  const top = flat.length ? Math.max(...flat.map((c) => c.y)) : undefined;
  const xsIn = m.points.map((p) => p.x), ysIn = m.points.map((p) => p.y).concat(flat.map((c) => c.y));
  for (const c of slopes) {
    const lvl = m.points.find((p) => p.level === c.name);
    if (lvl) ysIn.push(c.GBs * lvl.x);
    if (top !== undefined) xsIn.push(top / c.GBs); // the ridge point
  }
  if (!xsIn.length) xsIn.push(1);
  if (!ysIn.length) ysIn.push(1);
  const x0 = 10 ** Math.floor(Math.log10(Math.min(...xsIn) / 2)), x1 = 10 ** Math.ceil(Math.log10(Math.max(...xsIn) * 2));
  const y0 = 10 ** Math.floor(Math.log10(Math.min(...ysIn) / 2)), y1 = 10 ** Math.ceil(Math.log10(Math.max(...ysIn) * 1.6));
  const px = (x) => pad.l + (Math.log10(x / x0) / Math.log10(x1 / x0)) * (W - pad.l - pad.r);
  const py = (y) => H - pad.b - (Math.log10(y / y0) / Math.log10(y1 / y0)) * (H - pad.t - pad.b);
  const perfUnit = m.unit === "flop" ? "GFlop/s" : "GLup/s";
  const xUnit = m.unit === "flop" ? "flop/B" : "Lup/B";
  const desc = [
    `${m.points.map((p) => `${p.level} at ${sig(p.x)} ${xUnit}`).join(", ")}, all at the predicted ${rate(m.perf, m.unit === "flop" ? "Flop" : "Lup")}.`,
    `Ceilings: ${m.ceilings.map((c) => c.kind === "flat" ? `${ceilingName(c)} ${sig(c.y)} ${perfUnit}` : `${c.name} ${rate(c.GBs, "B")}`).join(", ")}.`,
    `Limited by ${m.limiter}.`,
  ].join(" ");
  const svg = svgEl("svg", { viewBox: `0 0 ${W} ${H}`, width: W, height: H, role: "img", "aria-labelledby": "roofline-svg-title roofline-svg-desc", class: "roofline" }, [
    svgEl("title", { id: "roofline-svg-title" }, [`Hierarchical roofline of ${r.kernel} on ${r.device}`]),
    svgEl("desc", { id: "roofline-svg-desc" }, [desc]),
  ]);
  // Grid and axes.
  for (let x = x0; x <= x1 * 1.001; x *= 10) {
    svg.append(svgEl("line", { x1: px(x), y1: pad.t, x2: px(x), y2: H - pad.b, class: "grid-line" }));
    svg.append(svgEl("text", { x: px(x), y: H - pad.b + 15, "text-anchor": "middle", class: "tick" }, [decadeLabel(x)]));
  }
  for (let y = y0; y <= y1 * 1.001; y *= 10) {
    svg.append(svgEl("line", { x1: pad.l, y1: py(y), x2: W - pad.r, y2: py(y), class: "grid-line" }));
    svg.append(svgEl("text", { x: pad.l - 6, y: py(y) + 4, "text-anchor": "end", class: "tick" }, [decadeLabel(y)]));
  }
  svg.append(svgEl("rect", { x: pad.l, y: pad.t, width: W - pad.l - pad.r, height: H - pad.t - pad.b, class: "frame" }));
  svg.append(svgEl("text", { x: (W + pad.l - pad.r) / 2, y: H - 8, "text-anchor": "middle", class: "axis-title" },
    [m.unit === "flop" ? "arithmetic intensity at each level (flop/B)" : "lattice updates per byte at each level (Lup/B)"]));
  svg.append(svgEl("text", { x: 14, y: (H - pad.b + pad.t) / 2, "text-anchor": "middle", class: "axis-title", transform: `rotate(-90 14 ${(H - pad.b + pad.t) / 2})` },
    [`performance (${perfUnit})`]));
  // Ceilings: the limiter's under a highlight, implied bandwidths dashed.
  const ceilingGroup = svgEl("g", { class: "ceilings" });
  const labels = [];
  for (const c of m.ceilings) {
    let a, b;
    if (c.kind === "flat") {
      if (c.y < y0 || c.y > y1) continue;
      a = [x0, c.y];
      b = [x1, c.y];
    } else {
      const yTop = Math.min(y1, top !== undefined ? top : y1);
      a = [Math.max(x0, y0 / c.GBs), 0];
      b = [Math.min(x1, yTop / c.GBs), 0];
      if (a[0] >= b[0]) continue;
      a[1] = c.GBs * a[0];
      b[1] = c.GBs * b[0];
    }
    const color = LEVEL_COLORS[c.name] || (c.name === PEAK ? "#1d2330" : "#5b6475");
    const title = c.name === PEAK
      ? `${ceilingName(c)}: ${rate(c.y, "Flop")}, 2 flops per lane, cycle and SM (GET /api/devices); the flops bound is the share of it that this kernel's FP instruction mix reaches`
      : c.kind === "flat"
      ? `${ceilingName(c)} bound: ${sig(c.GLups)} GLup/s = ${rate(c.y, m.unit === "flop" ? "Flop" : "Lup")}${c.limiter ? " (the limiter)" : ""}`
      : `${c.name} ${c.implied ? "bandwidth implied by the " + c.name + " bound" : "bandwidth"}: ${rate(c.GBs, "B")}; bound ${sig(c.GLups)} GLup/s at this kernel's volume${c.limiter ? " (the limiter)" : ""}`;
    const g = svgEl("g", { class: "ceiling" + (c.limiter ? " limiter" : ""), "data-bound": c.name, "data-kind": c.kind }, [svgEl("title", {}, [title])]);
    if (c.limiter) g.append(svgEl("line", { x1: px(a[0]), y1: py(a[1]), x2: px(b[0]), y2: py(b[1]), class: "highlight" }));
    g.append(svgEl("line", { x1: px(a[0]), y1: py(a[1]), x2: px(b[0]), y2: py(b[1]), stroke: color, class: "roof" + (c.implied ? " implied" : "") }));
    ceilingGroup.append(g);
    const text = c.kind === "flat" ? `${ceilingName(c)} ${rate(c.y, m.unit === "flop" ? "Flop" : "Lup")}` : `${c.name} ${rate(c.GBs, "B")}`;
    labels.push({ c, a, b, color, text: c.limiter ? text + " (limiter)" : text });
  }
  svg.append(ceilingGroup);
  // Labels: flat ones at the right end, above their line and, from the
  // lowest up, 12 px apart; bandwidths along their line near its lower end.
  let lastY = Infinity;
  for (const lab of labels.filter((x) => x.c.kind === "flat").sort((p, q) => p.c.y - q.c.y)) {
    let y = py(lab.c.y) - 4;
    if (lastY - y < 12) y = lastY - 12;
    lastY = y;
    svg.append(svgEl("text", { x: W - pad.r - 4, y, "text-anchor": "end", fill: lab.color, class: "ceiling-label" + (lab.c.limiter ? " limiter" : "") }, [lab.text]));
  }
  for (const lab of labels.filter((x) => x.c.kind === "bandwidth")) {
    const ax = px(lab.a[0]), ay = py(lab.a[1]), bx = px(lab.b[0]), by = py(lab.b[1]);
    const angle = (Math.atan2(by - ay, bx - ax) * 180) / Math.PI;
    const len = Math.hypot(bx - ax, by - ay);
    const f = Math.min(0.5, 12 / Math.max(1, len));
    const lx = ax + (bx - ax) * f, ly = ay + (by - ay) * f;
    svg.append(svgEl("text", { x: lx, y: ly - 5, transform: `rotate(${angle} ${lx} ${ly})`, fill: lab.color, class: "ceiling-label" + (lab.c.limiter ? " limiter" : "") }, [lab.text]));
  }
  // Points, each with a dotted line up to its own level's ceiling.
  const placed = [];
  m.points.forEach((p) => {
    const color = LEVEL_COLORS[p.level];
    const c = slopes.find((s) => s.name === p.level);
    const g = svgEl("g", { class: "point", "data-level": p.level }, [
      svgEl("title", {}, [`${p.level}: ${sig(p.bytes)} B/Lup, ${sig(p.x)} ${xUnit}; predicted ${sig(m.perf)} ${perfUnit}` +
        (c ? `, ${Math.round((100 * m.perf) / (c.GBs * p.x))} % of the ${p.level} ceiling at this intensity` : "")]),
    ]);
    if (c) {
      const yc = Math.min(c.GBs * p.x, top !== undefined ? top : y1, y1); // up to the ceiling, as drawn
      g.append(svgEl("line", { x1: px(p.x), y1: py(p.y), x2: px(p.x), y2: py(yc), stroke: color, class: "drop" }));
    }
    g.append(svgEl("circle", { cx: px(p.x), cy: py(p.y), r: 5.5, fill: color, class: "dot" }));
    // The label right of the dot, moved down below the labels it would cover.
    const box = { x: px(p.x) + 8, y: py(p.y) + 4, w: 8 * p.level.length };
    while (placed.some((q) => box.x < q.x + q.w && q.x < box.x + box.w && Math.abs(q.y - box.y) < 13)) box.y += 13;
    placed.push(box);
    g.append(svgEl("text", { x: box.x, y: box.y, fill: color, class: "point-label" }, [p.level]));
    svg.append(g);
  });
  const notes = [
    `Each memory level is one point: the ${m.unit === "flop" ? "flops" : "lattice updates"} per byte that level moves (L1: the bytes loaded, since stores pass it on to L2; L2 and DRAM: loads and stores), at the predicted ${rate(m.perf, m.unit === "flop" ? "Flop" : "Lup")}. ` +
      "A point lies on its own level's ceiling when that level alone would limit; the dotted line up to it is the room left. Horizontal ceilings are the device's peak flops, where the kernel's precision and the device data give it, and the bounds that no data volume sets (flops: the share of that peak this kernel's FP instruction mix reaches; issue and latency of its instructions and occupancy). The highlighted ceiling is the model's limiter.",
    ...m.notes,
  ];
  return { svg, notes };
}

// occupancyModel computes, as the CUDA occupancy calculator does
// (device.Occupancy), the blocks per SM that each resource admits for the
// launch of a predict report on its device. The report gives the threads per
// block and the shared memory of staged tiles; registers per thread and the
// spec's shared_bytes come from the request (resources).
function occupancyModel(r, resources) {
  const l = r.launch, dev = devices.get(r.device);
  const notes = [];
  const T = l.threadsPerBlock;
  if (r.method === "reference") {
    const regs = 8 * Math.ceil(Math.max(resources.registers.value, 32) / 8);
    const bars = [
      { name: "blocks", blocks: 32, detail: "the reference rule's cap of 32" },
      { name: "registers", blocks: Math.floor(65536 / (T * regs)), detail: `65536 / (${T} threads × ${regs} registers)` },
    ];
    notes.push(`Method reference sizes the occupancy with the register-only rule of the paper's reference implementation, β = min(32, ⌊65536 / (B·8·⌈max(r,32)/8⌉)⌋), on every device; the report names no limiter. Registers per thread r = ${resources.registers.value}, from ${resources.registers.from}.`);
    return { bars, max: 32, notes, limiter: undefined };
  }
  if (!dev || !dev.limits || !dev.warp_size) {
    notes.push(`GET /api/devices gives no limits for ${r.device}: only the report's ${l.blocksPerSM} blocks per SM${l.occupancyLimiter ? `, limited by ${l.occupancyLimiter},` : ""} can be shown.`);
    return { bars: l.occupancyLimiter ? [{ name: l.occupancyLimiter, blocks: l.blocksPerSM, detail: "from the report" }] : [], max: Math.max(1, l.blocksPerSM), notes, limiter: l.occupancyLimiter };
  }
  const lim = dev.limits, ws = dev.warp_size;
  const wpb = Math.ceil(T / ws);
  const regs = resources.registers.value;
  const regsPerWarp = Math.ceil((regs * ws) / lim.register_alloc_unit) * lim.register_alloc_unit;
  const regWarps = Math.floor(Math.floor(lim.registers_per_sm / regsPerWarp) / lim.warp_alloc_granularity) * lim.warp_alloc_granularity;
  const staged = ((r.basic && r.basic.loadFields) || []).reduce((s, f) => s + (f.sharedTileBytes || 0), 0);
  const shared = resources.sharedBytes.value + staged;
  const sharedAlloc = Math.ceil((shared + lim.shared_reserved_per_block) / lim.shared_alloc_unit) * lim.shared_alloc_unit;
  const bars = [
    { name: "warps", blocks: Math.floor(lim.max_warps_per_sm / wpb), detail: `${lim.max_warps_per_sm} warps per SM / ${wpb} per block` },
    { name: "threads", blocks: Math.floor(lim.max_threads_per_sm / (wpb * ws)), detail: `${lim.max_threads_per_sm} threads per SM / ${wpb * ws} per block` },
    { name: "blocks", blocks: lim.max_blocks_per_sm, detail: `${lim.max_blocks_per_sm} block slots per SM` },
    { name: "registers", blocks: Math.floor(regWarps / wpb), detail: `${regs} regs/thread: ${regWarps} warps × ${regsPerWarp} fit in ${lim.registers_per_sm}` },
    { name: "shared memory", blocks: sharedAlloc > 0 ? Math.floor(lim.shared_per_sm / sharedAlloc) : Infinity,
      detail: sharedAlloc > 0 ? `${sharedAlloc} B per block of ${lim.shared_per_sm} B per SM` : "no shared memory used or reserved" },
  ];
  // As device.Occupancy: the first of the smallest limits is the limiter.
  const least = bars.reduce((a, b) => (b.blocks < a.blocks ? b : a));
  const sharedParts = [];
  if (resources.sharedBytes.value) sharedParts.push(`${resources.sharedBytes.value} B of ${resources.sharedBytes.from}`);
  if (staged) sharedParts.push(`${staged} B of staged tiles (basic.loadFields[].sharedTileBytes)`);
  notes.push(`Registers per thread: ${regs}, from ${resources.registers.from}; shared memory per block: ${shared} B (` +
    `${sharedParts.length ? sharedParts.join(" plus ") : "the spec sets no shared_bytes and stages no field"}${lim.shared_reserved_per_block ? `; the device reserves ${lim.shared_reserved_per_block} B more per block` : ""}). ` +
    "The predict report states neither, only launch.blocksPerSM and launch.occupancyLimiter: the page reads them from the request, and the limits from GET /api/devices.");
  if (least.blocks !== l.blocksPerSM || (l.occupancyLimiter && least.name !== l.occupancyLimiter)) {
    notes.push(`These resources admit ${least.blocks} blocks limited by ${least.name}, but the report has ${l.blocksPerSM}${l.occupancyLimiter ? ` limited by ${l.occupancyLimiter}` : ""}: the registers or shared memory read from the spec are not those the engine used (a staged field with a multiplicity, or a spec the page cannot read). The report's limiter is highlighted.`);
  }
  const warps = l.blocksPerSM * wpb;
  notes.push(`${l.blocksPerSM} blocks × ${wpb} warps = ${warps} of ${lim.max_warps_per_sm} warps per SM (${Math.round((100 * warps) / lim.max_warps_per_sm)} % occupancy) on ${r.device}.`);
  return { bars, max: lim.max_blocks_per_sm, notes, limiter: l.occupancyLimiter || least.name };
}

// occupancy draws one bar per resource, the blocks per SM it admits, the
// limiter highlighted, and returns the SVG and its notes.
function occupancy(r, resources) {
  const m = occupancyModel(r, resources);
  const W = 440, left = 122, right = 76, rowH = 36, top = 20;
  const H = top + m.bars.length * rowH + 24;
  const scale = (W - left - right) / m.max;
  const svg = svgEl("svg", { viewBox: `0 0 ${W} ${H}`, width: W, height: H, role: "img", "aria-labelledby": "occupancy-svg-title occupancy-svg-desc", class: "occupancy" }, [
    svgEl("title", { id: "occupancy-svg-title" }, [`Blocks per SM each resource admits for ${r.launch.threadsPerBlock} threads per block on ${r.device}`]),
    svgEl("desc", { id: "occupancy-svg-desc" }, [m.bars.map((b) => `${b.name}: ${b.blocks === Infinity ? "no limit" : b.blocks + " blocks"}`).join("; ") +
      `. The launch has ${r.launch.blocksPerSM} blocks per SM${m.limiter ? ", limited by " + m.limiter : ""}.`]),
  ]);
  svg.append(svgEl("text", { x: left, y: 12, class: "tick" }, ["0"]));
  svg.append(svgEl("text", { x: W - right, y: 12, "text-anchor": "middle", class: "tick" }, [String(m.max)]));
  svg.append(svgEl("text", { x: (left + W - right) / 2, y: 12, "text-anchor": "middle", class: "tick" }, ["blocks per SM"]));
  const xb = left + Math.min(r.launch.blocksPerSM, m.max) * scale;
  m.bars.forEach((b, i) => {
    const y = top + i * rowH;
    const lim = b.name === m.limiter;
    const shown = Math.min(b.blocks, m.max);
    const g = svgEl("g", { class: "resource" + (lim ? " limiter" : ""), "data-resource": b.name, "data-blocks": b.blocks === Infinity ? "unlimited" : String(b.blocks) }, [
      svgEl("title", {}, [`${b.name}: ${b.blocks === Infinity ? "no limit" : b.blocks + " blocks per SM"} (${b.detail})${lim ? "; the limiter" : ""}`]),
    ]);
    if (lim) g.append(svgEl("rect", { x: 2, y: y - 3, width: W - 4, height: rowH - 2, rx: 3, class: "highlight-row" }));
    g.append(svgEl("text", { x: left - 8, y: y + 13, "text-anchor": "end", class: "bar-label" }, [b.name]));
    g.append(svgEl("rect", { x: left, y, width: W - left - right, height: 16, class: "bar-track" }));
    g.append(svgEl("rect", { x: left, y, width: Math.max(1, shown * scale), height: 16, class: "bar" }));
    if (b.blocks > m.max) g.append(svgEl("text", { x: W - right - 3, y: y + 12, "text-anchor": "end", class: "bar-more" }, ["›"]));
    g.append(svgEl("text", { x: W - right + 6, y: y + 13, class: "bar-value" }, [b.blocks === Infinity ? "no limit" : `${b.blocks}${lim ? " (limiter)" : ""}`]));
    g.append(svgEl("text", { x: left, y: y + 28, class: "bar-detail" }, [b.detail]));
    // The launch's blocks per SM, marked across each bar.
    g.append(svgEl("line", { x1: xb, y1: y - 2, x2: xb, y2: y + 18, class: "launch-mark" }));
    svg.append(g);
  });
  svg.append(svgEl("text", { x: xb - 4, y: H - 8, class: "tick launch-text" }, [`▲ the launch: ${r.launch.blocksPerSM} blocks per SM`]));
  return { svg, notes: m.notes };
}

// ---- heat map of an exploration

// The viridis colour map, a perceptually even scale readable in grey too.
const VIRIDIS = ["#440154", "#472d7b", "#3b528b", "#2c728e", "#21918c", "#28ae80", "#5ec962", "#addc30", "#fde725"];

function viridis(t) {
  const u = Math.max(0, Math.min(1, t)) * (VIRIDIS.length - 1);
  const i = Math.min(VIRIDIS.length - 2, Math.floor(u)), f = u - i;
  const c = (h, k) => parseInt(h.slice(1 + 2 * k, 3 + 2 * k), 16);
  const mix = [0, 1, 2].map((k) => Math.round(c(VIRIDIS[i], k) * (1 - f) + c(VIRIDIS[i + 1], k) * f));
  return `rgb(${mix.join(",")})`;
}

// The tiling column of the ranking: consecutive or strided, and unstaged.
const tilingText = (l) => (l.tiling || "consecutive") + (l.unstaged ? " unstaged" : "");
// The heat map shows one fold and tiling (a variant) at a time, or the
// best-ranked configuration of each block x and y (BEST_VIEW).
const variantKey = (l) => `fold ${triple(l.fold)} ${tilingText(l)}`;
const BEST_VIEW = "best";

let exploration = null; // the exploration the heat map shows

// renderHeat fills the variant choice from an exploration (the best's
// first) and draws its heat map.
function renderHeat(e) {
  exploration = e;
  const entries = [...e.rows.map((r) => r.launch), ...e.skipped];
  const foldIndex = (l) => e.folds.findIndex((f) => triple(f) === triple(l.fold));
  const order = (l) => [foldIndex(l), l.tiling === "strided" ? 1 : 0, l.unstaged ? 1 : 0];
  const variants = new Map();
  for (const l of entries) {
    const k = variantKey(l);
    if (!variants.has(k)) variants.set(k, { order: order(l), rows: 0, skipped: 0 });
  }
  for (const r of e.rows) variants.get(variantKey(r.launch)).rows++;
  for (const s of e.skipped) variants.get(variantKey(s)).skipped++;
  const keys = [...variants.keys()].sort((a, b) => compare(variants.get(a).order, variants.get(b).order));
  $("heat-variant").replaceChildren(el("option", { value: BEST_VIEW }, ["the best-ranked z, fold and tiling of each block x and y"]), ...keys.map((k) => {
    const v = variants.get(k);
    return el("option", { value: k }, [`${k} (${v.rows} ranked${v.skipped ? `, ${v.skipped} skipped` : ""})`]);
  }));
  $("heat").hidden = keys.length === 0;
  drawHeat();
}

// drawHeat draws the panels of the variant chosen: one per block z, block x
// across and block y up, each cell a configuration coloured by its GLup/s on
// the scale of the whole exploration; skipped configurations hatched, the
// best ringed and starred. The best view is one panel, each cell the
// best-ranked configuration of its block x and y (any z, fold and tiling),
// labelled with its GLup/s, or hatched where all of them were skipped.
function drawHeat() {
  const e = exploration;
  if (!e) return;
  const key = $("heat-variant").value;
  const entries = [...e.rows.map((r, i) => ({ l: r.launch, r, rank: i + 1 })), ...e.skipped.map((s) => ({ l: s, skip: s.reason }))];
  const xs = [...new Set(entries.map((x) => x.l.block[0]))].sort((a, b) => a - b);
  const ys = [...new Set(entries.map((x) => x.l.block[1]))].sort((a, b) => a - b);
  const bestView = key === BEST_VIEW;
  let shown, zs;
  if (bestView) {
    // The ranked entries come best first, the skipped ones after them.
    const seen = new Set();
    shown = entries.filter((x) => {
      const xy = `${x.l.block[0]},${x.l.block[1]}`;
      return !seen.has(xy) && seen.add(xy);
    });
    zs = [BEST_VIEW];
  } else {
    shown = entries.filter((x) => variantKey(x.l) === key);
    zs = [...new Set(shown.map((x) => x.l.block[2]))].sort((a, b) => a - b);
  }
  const values = e.rows.map((r) => r.prediction.GLups);
  const lo = values.length ? Math.min(...values) : 0, hi = values.length ? Math.max(...values) : 1;
  const color = (v) => viridis(hi > lo ? (v - lo) / (hi - lo) : 1);
  const best = e.rows[0];
  const cell = bestView ? Math.max(14, Math.min(34, Math.floor(380 / Math.max(xs.length, ys.length))))
    : Math.max(10, Math.min(20, Math.floor(190 / Math.max(xs.length, ys.length))));
  const pad = { l: 48, r: 6, t: 20, b: 44 };
  const W = pad.l + xs.length * cell + pad.r, H = pad.t + ys.length * cell + pad.b;
  const panels = zs.map((z, pi) => {
    const here = bestView ? shown : shown.filter((x) => x.l.block[2] === z);
    const ranked = here.filter((x) => x.r);
    const top = ranked.reduce((a, b) => (!a || b.r.prediction.GLups > a.r.prediction.GLups ? b : a), null);
    const heading = bestView ? "the best-ranked z, fold and tiling of each block x and y" : `block z = ${z}`;
    const label = `${bestView ? heading : `block z = ${z}, ${key}`}: ${ranked.length} ranked configurations` + (here.length > ranked.length ? `, ${here.length - ranked.length} skipped` : "") +
      (top ? `; fastest block ${triple(top.l.block)} at ${fixed(top.r.prediction.GLups)} GLup/s` : "");
    const svg = svgEl("svg", { viewBox: `0 0 ${W} ${H}`, width: W, height: H, role: "img", "aria-label": label, class: "heat-panel", "data-z": z }, [
      svgEl("title", {}, [label]),
      svgEl("defs", {}, [svgEl("pattern", { id: `heat-hatch-${pi}`, width: 5, height: 5, patternUnits: "userSpaceOnUse", patternTransform: "rotate(45)" }, [
        svgEl("rect", { width: 5, height: 5, fill: "#fff" }), svgEl("line", { x1: 0, y1: 0, x2: 0, y2: 5, stroke: "#8a93a3", "stroke-width": 2 })])]),
    ]);
    svg.append(svgEl("text", { x: pad.l + (xs.length * cell) / 2, y: 13, "text-anchor": "middle", class: "panel-title" }, [heading]));
    // The grid of possible cells, light, so that the shapes swept stand out.
    svg.append(svgEl("rect", { x: pad.l, y: pad.t, width: xs.length * cell, height: ys.length * cell, class: "heat-bg" }));
    xs.forEach((x, i) => {
      const tx = pad.l + (i + 0.5) * cell, ty = pad.t + ys.length * cell + 4;
      svg.append(svgEl("text", { x: tx, y: ty, transform: `rotate(-90 ${tx} ${ty})`, "text-anchor": "end", "dominant-baseline": "middle", class: "heat-tick" }, [String(x)]));
    });
    ys.forEach((y, j) => {
      svg.append(svgEl("text", { x: pad.l - 3, y: pad.t + (ys.length - 1 - j + 0.5) * cell, "text-anchor": "end", "dominant-baseline": "middle", class: "heat-tick" }, [String(y)]));
    });
    svg.append(svgEl("text", { x: pad.l + (xs.length * cell) / 2, y: H - 3, "text-anchor": "middle", class: "heat-axis" }, ["block x"]));
    svg.append(svgEl("text", { x: 9, y: pad.t + (ys.length * cell) / 2, "text-anchor": "middle", class: "heat-axis", transform: `rotate(-90 9 ${pad.t + (ys.length * cell) / 2})` }, ["block y"]));
    let bestCell = null;
    for (const x of here) {
      const cx = pad.l + xs.indexOf(x.l.block[0]) * cell, cy = pad.t + (ys.length - 1 - ys.indexOf(x.l.block[1])) * cell;
      const attrs = { x: cx, y: cy, width: cell, height: cell, "data-block": triple(x.l.block), "data-fold": triple(x.l.fold), "data-tiling": tilingText(x.l) };
      if (x.r) {
        const isBest = x.r === best;
        const c = svgEl("rect", { ...attrs, class: "cell" + (isBest ? " best" : ""), fill: color(x.r.prediction.GLups), "data-glups": x.r.prediction.GLups, "data-rank": x.rank },
          [svgEl("title", {}, [`rank ${x.rank}${isBest ? " (best)" : ""}: block ${triple(x.l.block)}, ${variantKey(x.l)}: ${fixed(x.r.prediction.GLups)} GLup/s, limited by ${x.r.prediction.limiter}`])]);
        c.addEventListener("click", () => pick(x.l));
        svg.append(c);
        if (bestView && cell >= 24) {
          const light = hi > lo && (x.r.prediction.GLups - lo) / (hi - lo) > 0.6;
          svg.append(svgEl("text", { x: cx + cell / 2, y: cy + cell / 2, "text-anchor": "middle", "dominant-baseline": "middle", class: "cell-value" + (light ? " light" : "") }, [sig(x.r.prediction.GLups)]));
        }
        if (isBest) bestCell = [cx, cy];
      } else {
        svg.append(svgEl("rect", { ...attrs, class: "cell skipped", fill: `url(#heat-hatch-${pi})` }, [svgEl("title", {}, [`block ${triple(x.l.block)}, ${variantKey(x.l)}: skipped: ${x.skip}`])]));
      }
    }
    if (bestCell) {
      svg.append(svgEl("rect", { x: bestCell[0] - 1.5, y: bestCell[1] - 1.5, width: cell + 3, height: cell + 3, class: "best-ring" }));
      // The star in the cell's middle, or, over a value, in its corner.
      const [sx, sy] = bestView && cell >= 24 ? [bestCell[0] + cell - 6, bestCell[1] + 7] : [bestCell[0] + cell / 2, bestCell[1] + cell / 2 + 1];
      svg.append(svgEl("text", { x: sx, y: sy, "text-anchor": "middle", "dominant-baseline": "middle", class: "best-star" }, ["★"]));
    }
    return svg;
  });
  $("heatmap").replaceChildren(...panels);
  if (best && !bestView && variantKey(best.launch) !== key) {
    $("heatmap").append(el("p", { class: "chart-hint" }, [`The best configuration, block ${triple(best.launch.block)} ${variantKey(best.launch)}, is in another panel set: choose "${variantKey(best.launch)}".`]));
  }
  $("heat-legend").replaceChildren(heatLegend(lo, hi, color));
}

// heatLegend draws the colour scale from the slowest to the fastest
// configuration, and the marks of the best and of skipped cells.
function heatLegend(lo, hi, color) {
  const W = 470, H = 44, x0 = 10, w = 200;
  const svg = svgEl("svg", { viewBox: `0 0 ${W} ${H}`, width: W, height: H, role: "img", "aria-label": `colour scale: ${fixed(lo)} to ${fixed(hi)} GLup/s; a ringed star marks the best configuration, hatching a skipped one`, class: "heat-legend" }, [
    svgEl("defs", {}, [svgEl("pattern", { id: "heat-hatch-legend", width: 5, height: 5, patternUnits: "userSpaceOnUse", patternTransform: "rotate(45)" }, [
      svgEl("rect", { width: 5, height: 5, fill: "#fff" }), svgEl("line", { x1: 0, y1: 0, x2: 0, y2: 5, stroke: "#8a93a3", "stroke-width": 2 })])]),
  ]);
  const steps = 40;
  for (let i = 0; i < steps; i++) {
    svg.append(svgEl("rect", { x: x0 + (i * w) / steps, y: 6, width: w / steps + 0.5, height: 12, fill: color(lo + ((hi - lo) * (i + 0.5)) / steps) }));
  }
  svg.append(svgEl("rect", { x: x0, y: 6, width: w, height: 12, class: "frame" }));
  for (const [f, anchor] of [[0, "start"], [0.5, "middle"], [1, "end"]]) {
    svg.append(svgEl("text", { x: x0 + f * w, y: 32, "text-anchor": anchor, class: "tick" }, [fixed(lo + (hi - lo) * f)]));
  }
  svg.append(svgEl("text", { x: x0 + w / 2, y: 43, "text-anchor": "middle", class: "tick" }, ["GLup/s"]));
  const bx = x0 + w + 24;
  svg.append(svgEl("rect", { x: bx, y: 5, width: 14, height: 14, fill: color(hi), class: "best-ring" }));
  svg.append(svgEl("text", { x: bx + 7, y: 13, "text-anchor": "middle", "dominant-baseline": "middle", class: "best-star" }, ["★"]));
  svg.append(svgEl("text", { x: bx + 20, y: 16, class: "tick" }, ["best (rank 1)"]));
  const sx = bx + 110;
  svg.append(svgEl("rect", { x: sx, y: 5, width: 14, height: 14, fill: "url(#heat-hatch-legend)", stroke: "#8a93a3" }));
  svg.append(svgEl("text", { x: sx + 20, y: 16, class: "tick" }, ["skipped"]));
  svg.append(svgEl("rect", { x: bx, y: 26, width: 14, height: 14, class: "heat-bg" }));
  svg.append(svgEl("text", { x: bx + 20, y: 37, class: "tick" }, ["not a shape of the sweep"]));
  return svg;
}

// pick copies a configuration of the heat map into the launch fields.
function pick(l) {
  $("block").value = triple(l.block);
  $("fold").value = triple(l.fold);
  $("tile").value = l.tiling || "consecutive";
  $("staging").value = l.unstaged ? "off" : "on";
  $("heat-picked").textContent = `Block ${triple(l.block)}, fold ${triple(l.fold)}, ${tilingText(l)} copied into the launch fields: press Predict.`;
}

// ---- layer conditions

async function layercond() {
  const resp = await call("/api/layercond", request(["device", "block", "fold", "method"]));
  const { report, svg } = await resp.json();
  $("layer-svg").href = "data:image/svg+xml;charset=utf-8," + encodeURIComponent(svg);
  $("layer-plot").replaceChildren(layerPlot(report));
  const items = [];
  for (const sw of report.sweeps) {
    for (const t of [...sw.transitions, sw.L1Transition]) {
      const name = layerName(report, t.layer), fits = name === "rows" ? "fit" : "fits";
      const what = t.kind === "transition" ? `${fits} up to s = ${t.s}` : t.kind === "fits throughout" ? `${fits} throughout the sweep (s ≤ ${t.s})` : `${fits} at no size of the sweep`;
      items.push(el("li", {}, [`block ${triple(sw.block)}: ${name} ${what}`]));
    }
  }
  if (report.sequential) {
    for (const c of report.sequential.conditions) {
      const square = report.dims === 3 && !report.inner ? `, square planes s ≤ ${c.maxSquare}` : "";
      items.push(el("li", {}, [`sequential ${layerName(report, c.layer)} condition (Kerncraft form): ${c.text}${square}`]));
    }
  }
  $("transitions").replaceChildren(...items);
  show("layers");
}

// layerName names a layer of a layercond report as the command line does:
// the rows of a 2-D sweep, the y and z layers of a 3-D one, and L1.
function layerName(rep, layer) {
  if (layer === "L1") return "L1 (blocks' lines)";
  return rep.dims === 2 ? "rows" : `${layer} layer`;
}

// totalText writes a series total as 2^k when it is a power of two.
function totalText(n) {
  const k = Math.log2(n);
  return Number.isInteger(k) ? `2^${k}` : String(n);
}

// sweptAxis labels the x axis of a layercond report: the swept extent and
// the domains of its series.
function sweptAxis(rep) {
  const t = totalText(rep.total);
  if (rep.dims === 2) return `row length s (domain s × y, y = ${t}/s rows)`;
  if (rep.inner) return `plane height s (domain ${rep.inner} × s × z, z = ${t}/(${rep.inner}·s))`;
  return `XY plane size s (domain s × s × z, z = ${t}/s²)`;
}

// sizeLabel writes a power-of-two extent for the x axis: in full up to
// 65536, then 128Ki … 1Mi ….
function sizeLabel(s) {
  if (s <= 65536) return String(s);
  return s < 1 << 20 ? `${s / 1024}Ki` : `${s / (1 << 20)}Mi`;
}

// volumeTicks returns 4 or 5 round tick values from 0 to at least top:
// steps of 1, 2, 2.5 or 5 times a power of ten.
function volumeTicks(top) {
  const raw = top / 4 || 1, p = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 2.5, 5, 10].map((f) => f * p).find((v) => v >= raw);
  const ticks = [];
  for (let i = 0; ticks.length === 0 || ticks[ticks.length - 1] < top; i++) ticks.push(i * step);
  return ticks;
}

// layerPlot draws the DRAM (memLoadV3) and L2→L1 (L2LoadV2) volumes
// against s on a log2 axis in two panels, one curve with a marker per
// point for each block. Dashed vertical lines mark each block's layer
// transitions in the DRAM panel and its L1 transition in the L2→L1 panel,
// each labelled on its own line so that no two labels meet; the legend of
// the blocks stands to the right of the panels.
function layerPlot(rep) {
  const W = 760, panelH = 190, gap = 28, legendW = 150;
  const m = { l: 56, r: 16 + legendW, t: 10, b: 44 };
  const H = m.t + 2 * panelH + gap + m.b;
  const pts = rep.sweeps.flatMap((s) => s.points);
  const sMin = Math.min(...pts.map((p) => p.s)), sMax = Math.max(...pts.map((p) => p.s));
  const lx = (s) => m.l + (Math.log2(s / sMin) / Math.max(1e-9, Math.log2(sMax / sMin))) * (W - m.l - m.r);
  const svg = svgEl("svg", { viewBox: `0 0 ${W} ${H}`, width: W, height: H, role: "img", "aria-label": `DRAM and L2→L1 load volumes against ${sweptAxis(rep)}` });
  const panels = [
    { key: "memLoadV3", label: "DRAM load B/Lup", top: m.t, marks: (sw) => sw.transitions, cls: "transition" },
    { key: "L2LoadV2", label: "L2→L1 load B/Lup", top: m.t + panelH + gap, marks: (sw) => [sw.L1Transition], cls: "l1-transition" },
  ];
  for (const pn of panels) {
    const ticks = volumeTicks(Math.max(...pts.map((p) => p[pn.key])));
    const vMax = ticks[ticks.length - 1] || 1;
    const bottom = pn.top + panelH;
    const ly = (v) => bottom - (v / vMax) * panelH;
    svg.append(svgEl("line", { x1: m.l, y1: bottom, x2: W - m.r, y2: bottom, stroke: "#5b6475" }));
    svg.append(svgEl("line", { x1: m.l, y1: pn.top, x2: m.l, y2: bottom, stroke: "#5b6475" }));
    for (let s = 2 ** Math.ceil(Math.log2(sMin)); s <= sMax; s *= 2) {
      svg.append(svgEl("line", { x1: lx(s), y1: bottom, x2: lx(s), y2: bottom + 4, stroke: "#5b6475" }));
      if (pn === panels[1]) svg.append(svgEl("text", { x: lx(s), y: bottom + 20, "text-anchor": "middle", "font-size": 11 }, [sizeLabel(s)]));
    }
    for (const v of ticks) {
      svg.append(svgEl("line", { x1: m.l, y1: ly(v), x2: W - m.r, y2: ly(v), stroke: "#e3e6eb" }));
      svg.append(svgEl("text", { x: m.l - 6, y: ly(v) + 4, "text-anchor": "end", "font-size": 11 }, [sig(v)]));
    }
    svg.append(svgEl("text", { x: 12, y: bottom, "font-size": 12, transform: `rotate(-90 12 ${bottom})`, "text-anchor": "start" }, [pn.label]));
    let row = 0; // the label line of the next transition in this panel
    rep.sweeps.forEach((sw, i) => {
      const color = COLORS[i % COLORS.length];
      svg.append(svgEl("polyline", { points: sw.points.map((p) => `${lx(p.s)},${ly(p[pn.key])}`).join(" "), fill: "none", stroke: color, "stroke-width": 2 }));
      for (const p of sw.points) {
        svg.append(svgEl("circle", { cx: lx(p.s), cy: ly(p[pn.key]), r: 3.5, fill: "#fff", stroke: color, "stroke-width": 1.5, class: "layer-point" },
          [svgEl("title", {}, [`block ${triple(sw.block)}, s = ${p.s}: ${fixed(p[pn.key])} B/Lup`])]));
      }
      for (const t of pn.marks(sw).filter((t) => t.kind === "transition")) {
        const what = t.layer === "L1" ? "L1: blocks' lines fit up to s = " : `${layerName(rep, t.layer)}: reuse fits up to s = `;
        svg.append(svgEl("line", { x1: lx(t.s), y1: pn.top, x2: lx(t.s), y2: bottom, stroke: color, "stroke-dasharray": "5 4", class: pn.cls },
          [svgEl("title", {}, [what + t.s])]));
        const right = lx(t.s) > (m.l + W - m.r) / 2; // labels of the right half run leftwards
        svg.append(svgEl("text", { x: lx(t.s) + (right ? -4 : 4), y: pn.top + 12 + 13 * row++, "text-anchor": right ? "end" : "start", "font-size": 11, fill: color },
          [`${rep.dims === 2 && t.layer !== "L1" ? "rows" : t.layer} s=${t.s}`]));
      }
    });
  }
  rep.sweeps.forEach((sw, i) => {
    const color = COLORS[i % COLORS.length], y = m.t + 14 + 18 * i, x = W - legendW;
    svg.append(svgEl("line", { x1: x, y1: y - 4, x2: x + 22, y2: y - 4, stroke: color, "stroke-width": 2 }));
    svg.append(svgEl("circle", { cx: x + 11, cy: y - 4, r: 3.5, fill: "#fff", stroke: color, "stroke-width": 1.5 }));
    svg.append(svgEl("text", { x: x + 28, y, "font-size": 12, fill: color }, [`block ${triple(sw.block)}`]));
  });
  svg.append(svgEl("text", { x: (m.l + W - m.r) / 2, y: H - 8, "text-anchor": "middle", "font-size": 12 }, [sweptAxis(rep)]));
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
    for (const d of await dev.json()) {
      devices.set(d.name, d);
      $("device").append(el("option", { value: d.name }, [`${d.name} (${d.display_name})`]));
    }
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
  $("spec").addEventListener("input", () => {
    // An edited example is the user's own spec.
    if ($("example").value && examples.get($("example").value) !== $("spec").value) $("example").value = "";
    drawGutter();
  });
  $("spec").addEventListener("scroll", () => { $("gutter").scrollTop = $("spec").scrollTop; });
  $("input").addEventListener("submit", (ev) => { ev.preventDefault(); busy(predict); });
  $("explore").addEventListener("click", () => busy(explore));
  $("layercond").addEventListener("click", () => busy(layercond));
  $("heat-variant").addEventListener("change", drawHeat);
  document.body.dataset.ready = "true";
}

start();
