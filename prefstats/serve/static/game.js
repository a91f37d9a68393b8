// My game: an uploaded record analysed as a job; a game's pages, or a deal's decisions.
"use strict";
const $ = (id) => document.getElementById(id);
let job = null, timer = null;

function decisions(rows) {
  const body = rows.map((r) => `<tr><td>${r.field}</td><td>${r.seat}</td><td>${r.done ?? ""}</td>
    <td>${r.best ?? ""}</td><td>${r.loss == null ? "" : r.loss.toFixed(2)}</td><td>${r.method}</td></tr>`).join("");
  return `<table id="decisions"><tr><th>decision</th><th>seat</th><th>made</th><th>best</th><th>loss</th><th>by</th></tr>${body}</table>`;
}

function show(r) {
  if (r.kind === "game") {
    const players = r.players.map((p) => `<li>${p.name}: result ${fmt(p.result)} = luck ${fmt(p.luck)} + own decisions ${fmt(p.own)} + the others' ${fmt(p.others)}</li>`).join("");
    $("result").innerHTML = `<h2>${r.game}</h2><ul>${players}</ul>
      <p><a id="page" href="${r.page}">The game's page</a> · <a href="${r.train}">its mistakes to practise</a></p>`;
  } else {
    $("result").innerHTML = `<h2>The deal's decisions</h2><p class="muted">loss: whists the made option cost against the best</p>${decisions(r.decisions)}`;
  }
}

async function poll() {
  const j = await api("/api/jobs/" + job);
  $("progress").value = j.progress;
  $("state").textContent = j.state + (j.place ? ` (place ${j.place})` : "");
  if (j.state === "queued" || j.state === "running") { timer = setTimeout(poll, 400); return; }
  $("go").disabled = false; $("cancel").disabled = true;
  if (j.error) { showError(j.error); $("result").textContent = j.error; }
  if (j.state === "done") show(j.result);
}

$("go").onclick = async () => {
  const file = $("file").files[0];
  if (!file) { showError("file: choose a record to upload"); return; }
  $("result").innerHTML = "";
  let r;
  try {
    r = await api(`/api/analyze?deals=${Number($("deals").value)}`, {method: "POST", body: file});
  } catch (e) { $("result").textContent = e.message; return; }
  job = r.job; $("go").disabled = true; $("cancel").disabled = false;
  poll();
};
$("cancel").onclick = async () => { clearTimeout(timer); await api("/api/jobs/" + job, {method: "DELETE"}); poll(); };
