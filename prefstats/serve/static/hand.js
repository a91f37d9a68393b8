// My hand: the guide's cell at once, then a live rollout of the exact hand.
"use strict";
const $ = (id) => document.getElementById(id);
const FIELDS = ["hand", "variant", "players", "seat", "decision", "level", "trump", "seed"];
const draw = cardGrid($("grid"), (mask) => { $("hand").value = handText(mask); ask(); });
let job = null, timer = null, asked = 0;

async function ask() {
  $("whist-options").hidden = $("decision").value !== "whist";
  const s = formState(FIELDS);
  setUrlState(s);
  const mine = ++asked;  // typing sends a lookup a key: only the last one's answer shows
  if (!s.hand) { draw(0); return; }
  const query = new URLSearchParams(s); query.delete("seed");
  let a;
  try { a = await api("/api/advice?" + query, undefined, false); } catch (e) {
    if (mine === asked) { showError(e.message); $("advice").textContent = e.message; $("cell").innerHTML = ""; }
    return;
  }
  if (mine !== asked) return;
  showError("");
  draw(a.mask);
  showAdvice(a);
}

function rolloutTable(r) {
  if (!r.rows) return "";
  const rows = r.rows.map((o) => `<tr><td>${o.option}</td><td>${fmt(o.mean, 2)}</td>
    <td>[${fmt(o.ci[0], 2)}, ${fmt(o.ci[1], 2)}]</td><td>${fmt(o.diff_to_best, 2)}</td><td>${o.n}${o.dropped ? "*" : ""}</td></tr>`).join("");
  return `<table id="rollout-table"><tr><th>option</th><th>mean</th><th>95% CI</th><th>vs best</th><th>n</th></tr>${rows}</table>
    <p>best: <strong id="rollout-best">${r.best}</strong> (${r.decided ? "decided at 3 SE" : "not decided yet"}), ${r.deals.toLocaleString()} deals</p>`;
}

async function poll() {
  const j = await api("/api/jobs/" + job);
  $("progress").value = j.progress;
  $("rollstate").textContent = j.state + (j.place ? ` (place ${j.place} in the queue)` : "") + (j.error ? ": " + j.error : "");
  if (j.result) $("rollout").innerHTML = rolloutTable(j.result);
  if (j.state === "queued" || j.state === "running") timer = setTimeout(poll, 300);
  else { $("cancel").disabled = true; $("roll").disabled = false; if (j.error) showError(j.error); }
}

async function roll() {
  const s = formState(FIELDS);
  const body = {hand: s.hand, variant: s.variant, players: Number(s.players), seat: Number(s.seat),
                decision: s.decision === "misere" ? "first_call" : s.decision,
                seed: Number(s.seed), deals: Number($("deals").value)};
  if (body.decision === "raspasy") body.decision = "first_call";
  let r;
  try { r = await postJSON("/api/rollout", body); } catch (e) { return; }
  job = r.job; $("roll").disabled = true; $("cancel").disabled = false; $("rollout").innerHTML = "";
  poll();
}

const initial = urlState();
FIELDS.forEach((f) => { if (initial[f] != null) $(f).value = initial[f]; $(f).addEventListener(f === "hand" ? "input" : "change", ask); });
$("roll").onclick = roll;
$("cancel").onclick = async () => { clearTimeout(timer); await api("/api/jobs/" + job, {method: "DELETE"}); poll(); };
ask();
