// The dashboard: polls GET /api/status every 2 s and draws it; the forms POST the control
// requests (the same JSON as on Kafka; a drain to /api/drain) and show the answer, or the
// validator's field and reason.
"use strict";

const $ = (sel) => document.querySelector(sel);
let token = sessionStorage.getItem("redcrawl-token") || "";

function headers() {
  const h = { "Content-Type": "application/json" };
  if (token) h.Authorization = "Bearer " + token;
  return h;
}

async function api(method, path, body) {
  const r = await fetch(path, { method, headers: headers(), body: body && JSON.stringify(body) });
  if (r.status === 401) $("#token-form").hidden = false;
  let data = null;
  try { data = await r.json(); } catch (e) { data = { error: "HTTP " + r.status }; }
  return { status: r.status, data };
}

function cell(tr, text, cls) {
  const td = tr.insertCell();
  td.textContent = text;
  if (cls) td.className = cls;
  return td;
}

function fill(table, rows, draw) {
  const tb = $(table + " tbody");
  tb.replaceChildren();
  for (const row of rows) draw(tb.insertRow(), row);
}

function num(x, digits) {
  return typeof x === "number" ? x.toFixed(digits || 0) : "";
}

function drawChart(series) {
  const c = $("#chart"), g = c.getContext("2d");
  const w = c.width, h = c.height, pad = 28;
  g.clearRect(0, 0, w, h);
  const max = Math.max(1, ...series.map((p) => p.pages));
  const bw = (w - pad) / Math.max(series.length, 1);
  g.fillStyle = "#667"; g.font = "11px sans-serif";
  g.fillText(String(max), 2, 12); g.fillText("0", 2, h - 4);
  g.fillStyle = "#3b7dd8";
  series.forEach((p, i) => {
    const bh = (h - 16) * p.pages / max;
    g.fillRect(pad + i * bw + 1, h - bh, Math.max(bw - 2, 1), bh);
  });
}

function render(s) {
  const jobs = s.jobs.slice().sort((a, b) => b.created_ms - a.created_ms);
  const used = s.redis.used_memory >= 0 ? (s.redis.used_memory / 1048576).toFixed(1) + " MiB" : "?";
  $("#summary").textContent = `${jobs.length} jobs · ${s.workers.length} workers · scheduler ${s.scheduler || "none"}` +
    ` · frontier ${s.redis.frontier} · backlog ${s.hosts.total_backlog} · Redis ${used}`;
  $("#updated").textContent = "updated " + new Date(s.time_ms).toLocaleTimeString();
  fill("#jobs", jobs, (tr, j) => {
    tr.dataset.crawlid = j.crawlid;
    cell(tr, j.crawlid, "crawlid"); cell(tr, j.appid);
    cell(tr, j.state, "state state-" + j.state);
    for (const k of ["pending", "fetched", "items", "errors"]) cell(tr, String(j[k]), k);
    // robots.txt: URLs its rules deny, and URLs of hosts whose robots.txt could not be read
    cell(tr, String(j.robots_denied), "denied");
    cell(tr, String(j.robots_unreachable), j.robots_unreachable ? "unreachable warn" : "unreachable");
    cell(tr, num(j.pages_per_s, 1), "rate");
    const td = tr.insertCell();
    if (j.state === "running") {
      const b = document.createElement("button");
      b.textContent = "stop";
      b.addEventListener("click", () => stopJob(j.crawlid, j.appid, $("#stop-result")));
      td.append(b);
    }
  });
  fill("#workers", s.workers, (tr, w) => {
    cell(tr, w.id); cell(tr, w.ip); cell(tr, String(w.weight)); cell(tr, num(w.pages_per_s, 1));
    cell(tr, String(w.inflight)); cell(tr, String(w.queued)); cell(tr, String(w.fetched));
    cell(tr, String(w.errors)); cell(tr, num(w.heartbeat_age_s, 1) + " s");
    cell(tr, w.draining ? "draining" : "active", "wstate");
    tr.dataset.worker = w.id;
  });
  fill("#hosts", s.hosts.top, (tr, x) => {
    cell(tr, x.host); cell(tr, String(x.backlog)); cell(tr, x.state); cell(tr, x.rate);
  });
  fill("#failures", s.failures, (tr, f) => {
    cell(tr, new Date(f.time_ms).toLocaleTimeString()); cell(tr, f.crawlid);
    cell(tr, f.url, "url").title = f.url; cell(tr, f.reason);
  });
  $("#statuses").textContent = Object.entries(s.statuses["1h"]).map(([k, v]) => `${k}: ${v}`).join("   ") || "none";
  drawChart(s.throughput);
}

async function refresh() {
  try {
    const r = await api("GET", "/api/status");
    if (r.status === 200) render(r.data);
    else $("#summary").textContent = r.data.error || "HTTP " + r.status;
  } catch (e) {
    $("#summary").textContent = "redcrawl-web unreachable: " + e.message;
  }
}

// The answer as it came, or the validator's field and reason (HTTP 400).
function show(out, r) {
  const d = r.data || {};
  if (d.error) {
    out.className = "error";
    out.textContent = d.field ? `${d.field}: ${d.reason}` : d.error;
  } else {
    out.className = "ok";
    out.textContent = JSON.stringify(d);
  }
}

// A number when the text is one, else the text: the validator names a wrong type itself.
function value(text) {
  const t = text.trim();
  return t !== "" && !isNaN(Number(t)) ? Number(t) : t;
}

function formObject(form, names) {
  const o = {};
  for (const n of names) {
    const v = form.elements[n].value.trim();
    if (v !== "") o[n] = value(v);
  }
  if (typeof o.crawlid === "number") o.crawlid = String(o.crawlid);
  return o;
}

async function stopJob(crawlid, appid, out) {
  show(out, await api("POST", "/api/stop", { appid, crawlid, spiderid: "link" }));
  refresh();
}

function setup() {
  $("#token-form").addEventListener("submit", (e) => {
    e.preventDefault();
    token = $("#token").value.trim();
    sessionStorage.setItem("redcrawl-token", token);
    $("#token-form").hidden = true;
    refresh();
  });
  $("#crawl-form").addEventListener("submit", async (e) => {
    e.preventDefault();
    const o = formObject(e.target, ["url", "crawlid", "appid", "maxdepth", "max_pages"]);
    if (typeof o.url === "number") o.url = String(o.url);
    show($("#crawl-result"), await api("POST", "/api/crawl", o));
    refresh();
  });
  $("#stop-form").addEventListener("submit", async (e) => {
    e.preventDefault();
    const o = formObject(e.target, ["crawlid", "appid"]);
    stopJob(o.crawlid, o.appid, $("#stop-result"));
  });
  $("#domain-form").addEventListener("submit", async (e) => {
    e.preventDefault();
    const action = e.submitter ? e.submitter.value : "domain-update";
    const names = action === "domain-update" ? ["domain", "hits", "window", "scale"] : ["domain"];
    const o = Object.assign({ appid: "dashboard", action }, formObject(e.target, names));
    show($("#domain-result"), await api("POST", "/api/domain", o));
  });
  $("#drain-form").addEventListener("submit", async (e) => {
    e.preventDefault();
    const undo = e.submitter ? e.submitter.value === "undo" : false;
    const worker = e.target.elements.worker.value.trim();
    show($("#drain-result"), await api("POST", "/api/drain", { worker, undo }));
    refresh();
  });
  refresh();
  setInterval(refresh, 2000);
}

document.addEventListener("DOMContentLoaded", setup);
