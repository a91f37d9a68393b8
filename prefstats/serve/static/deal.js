// My deal: the double-dummy table, then the best play with every legal card's value.
"use strict";
const $ = (id) => document.getElementById(id);
const STRAINS = ["♠", "♣", "♦", "♥", "NT"];
let played = [];

function deal() {
  return {variant: $("variant").value, players: null, hands: [0, 1, 2].map((s) => $("h" + s).value),
          talon: $("talon").value || null};
}

function saveUrl() {
  setUrlState({variant: $("variant").value, h0: $("h0").value, h1: $("h1").value, h2: $("h2").value, talon: $("talon").value,
               declarer: $("declarer").value, contract: $("contract").value, played: played.join(",")});
}

async function solve() {
  saveUrl();
  let t;
  try { t = await postJSON("/api/solve", deal()); } catch (e) { $("table").innerHTML = ""; return; }
  const head = "<tr><th>declarer</th>" + STRAINS.map((s) => `<th>${s}</th>`).join("") + "<th>misère</th></tr>";
  const cell = (d, s, n) => `<td data-declarer="${d}" data-strain="${s}" title="discard ${t.discards[d][s]}">${n}</td>`;
  const rows = Object.keys(t.tricks).map((d) => `<tr><td>seat ${d}</td>` +
    STRAINS.map((s) => cell(d, s, t.tricks[d][s])).join("") + cell(d, "misere", t.misere[d]) + "</tr>").join("");
  $("table").innerHTML = `<table id="dd">${head}${rows}</table>`;
}

async function show() {
  saveUrl();
  let p;
  try {
    p = await postJSON("/api/play", {...deal(), declarer: Number($("declarer").value),
                                      contract: $("contract").value, played});
  } catch (e) { return; }
  const values = Object.entries(p.values);
  const top = $("contract").value === "misere" ? Math.min(...values.map(([, v]) => v)) : Math.max(...values.map(([, v]) => v));
  const took = `<p>seat ${$("declarer").value} took the talon and discarded ${p.discard}</p>`;
  const seats = took + p.hands.map((h, s) => `<p>seat ${s}${s === p.to_move ? " to play" : ""}: ${h || "–"}</p>`).join("");
  const cards = values.map(([c, v]) => `<button class="${v === top ? "best" : ""}" data-card="${c}" data-value="${v}">${c} → ${v}</button>`).join("");
  $("play").innerHTML = `${seats}<p>trick: ${p.trick.join(" ") || "–"}; declarer's tricks so far ${p.declarer_tricks}</p>
    <p class="muted">each card: the declarer's tricks at the end of the hand after it, with perfect play on</p><div class="cards" id="cards">${cards}</div>`;
  $("cards").querySelectorAll("button").forEach((b) => { b.onclick = () => { played.push(b.dataset.card); show(); }; });
}

async function random() {
  const d = await api("/api/random-deal");
  d.hands.forEach((h, s) => { $("h" + s).value = h; });
  $("talon").value = d.talon;
  played = [];
  solve();
}

const initial = urlState();
["variant", "h0", "h1", "h2", "talon", "declarer", "contract"].forEach((f) => { if (initial[f]) $(f).value = initial[f]; });
played = initial.played ? initial.played.split(",") : [];
$("solve").onclick = () => { played = []; solve(); };
$("random").onclick = random;
$("start").onclick = () => { played = []; show(); };
$("best").onclick = () => { const b = document.querySelector("#cards .best"); if (b) b.click(); };
$("back").onclick = () => { played.pop(); show(); };
if (initial.h0) { solve(); if (initial.played !== undefined) show(); }
