// Shared by the pages: calling the API (its error shown on the page) and the URL's state.
"use strict";
const SUITS = ["♠", "♣", "♦", "♥"];
const RANKS = ["7", "8", "9", "10", "J", "Q", "K", "A"];

function showError(message) {
  const box = document.getElementById("error");
  box.textContent = message || "";
  box.hidden = !message;
}

// The API's answer; its error shown on the page (unless `show` is false) and thrown.
async function api(path, options, show = true) {
  const response = await fetch(path, options);
  const body = await response.json().catch(() => ({error: "the server sent no JSON"}));
  const message = response.ok ? "" : body.error || ("HTTP " + response.status);
  if (show) showError(message);
  if (message) throw new Error(message);
  return body;
}

function postJSON(path, data) {
  return api(path, {method: "POST", headers: {"Content-Type": "application/json"},
                    body: JSON.stringify(data)});
}

function urlState() {
  return Object.fromEntries(new URLSearchParams(location.search));
}

function setUrlState(state) {
  const query = new URLSearchParams(Object.entries(state).filter(([, v]) => v !== "" && v != null));
  history.replaceState(null, "", location.pathname + "?" + query);
}

// The fields of My hand's form by id, as its URL keeps them (level and trump are the
// whist decision's only).
function formState(fields) {
  const s = Object.fromEntries(fields.map((f) => [f, document.getElementById(f).value.trim()]));
  if (s.decision !== "whist") { delete s.level; delete s.trump; }
  return s;
}

function fmt(x, digits = 1) {
  return x == null ? "–" : (x > 0 ? "+" : "") + Number(x).toFixed(digits);
}

// The guide's answer for a cell (GET /api/advice's) in #advice and #cell.
function showAdvice(a, charts = "/charts?") {
  const robust = a.robust === true ? "robust" : a.robust === false ? "breaks under " + a.breaks.join(", ") : "robustness unknown";
  const box = document.getElementById("advice");
  box.innerHTML = `<strong id="advice-word">${a.advice}</strong> — gain <span id="gain">${fmt(a.gain)}</span>
    whists a deal, 95% CI [${fmt(a.ci_low)}, ${fmt(a.ci_high)}], n = <span id="n">${a.n}</span>; ${robust}.
    ${a.decided ? "" : "(not decided at 3 SE)"}<br><span class="muted">${a.rule || ""}</span>`;
  box.className = "";
  document.getElementById("cell").innerHTML = cellTable(a.cell, charts);
}

function cellTable(cell, charts) {
  const rows = cell.options.map((o) => `<tr><td>${o.option}</td><td>${fmt(o.gain)}</td>
    <td>[${fmt(o.ci_low)}, ${fmt(o.ci_high)}]</td><td>${o.n}</td></tr>`).join("");
  const where = Object.entries(cell.features).map(([k, v]) => `${k} ${v === "" ? "–" : v}`).join(", ");
  return `<p class="muted">Cell of chart <a href="${charts}chart=${cell.chart}">${cell.chart}</a>: ${where}</p>
    <table><tr><th>option</th><th>gain over pass</th><th>95% CI</th><th>n</th></tr>${rows}</table>`;
}
