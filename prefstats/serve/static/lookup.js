// The static edition's My hand: a typed or clicked hand's cell in a committed guide,
// computed in the page (features.js), and its answer as GET /api/advice gives it
// (answers.js); no server.
"use strict";
const $ = (id) => document.getElementById(id);
const FIELDS = ["hand", "table", "seat", "decision", "chart", "level", "trump"];
const draw = cardGrid($("grid"), (mask) => { $("hand").value = handText(mask); show(); });

// Only the charts of the decision picked can be picked.
function charts() {
  const names = CLASSIFY.charts[$("decision").value];
  [...$("chart").options].forEach((o) => { o.hidden = !names.includes(o.value); });
  if (!names.includes($("chart").value)) $("chart").value = names[0];
}

// The guide's answer for the cell of `mask`, or an Error naming the field.
function answer(s, mask) {
  const cells = ANSWERS[s.table][s.chart];
  if (!cells) throw new Error(`chart: no chart ${s.chart} in the guide of ${s.table}`);
  const trump = s.trump === "NT" ? null : SUITS.indexOf(s.trump);
  const features = handFeatures(cells.map((c) => c.features), s.chart, mask, Number(s.seat),
                                Number(s.level), trump);
  const found = cells.find((c) => sameFeatures(c.features, features));
  if (!found) {
    const named = Object.entries(features).map(([k, v]) => `'${k}': ${typeof v === "string" ? `'${v}'` : v}`);
    throw new Error(`hand: no cell of chart ${s.chart} for {${named.join(", ")}}`);  // as the server says
  }
  return found.answer;
}

function show() {
  charts();
  $("whist-options").hidden = $("decision").value !== "whist";
  const s = formState(FIELDS);
  setUrlState(s);
  let found = null, message = "";
  if (!s.hand) draw(0);
  else {
    try {
      const mask = handMask(s.hand, "hand", 10);
      draw(mask);
      found = answer(s, mask);
    } catch (e) { message = e.message; }
  }
  showError(message);
  if (found) { showAdvice(found, `charts.html?table=${s.table}&`); return; }
  $("advice").textContent = message || "Type or click ten cards.";
  $("cell").innerHTML = "";
}

function randomHand() {
  const deck = [...Array(32).keys()];
  let mask = 0;
  for (let i = 0; i < 10; i++) {
    const j = i + Math.floor(Math.random() * (32 - i));
    [deck[i], deck[j]] = [deck[j], deck[i]];
    mask |= 1 << deck[i];
  }
  return mask >>> 0;
}

// The fields of a hand of the cell `wanted` names (the charts' links: table, chart and
// the cell's features), dealt at random, as the server's /sample finds one.
function sample(wanted) {
  const cells = ANSWERS[wanted.table]?.[wanted.chart] || [];
  const cell = cells.find((c) => Object.entries(c.features).every(([k, v]) => String(v) === wanted[k]));
  if (!cell) throw new Error(`features: no cell of chart ${wanted.chart} in ${wanted.table} is so`);
  const f = cell.features, seat = f.seat ?? 0, level = f.level ?? 6, trump = f.trumps === -1 ? null : 0;
  const all = cells.map((c) => c.features);
  for (let i = 0; i < CLASSIFY.sample_hands; i++) {
    const mask = randomHand();
    if (sameFeatures(handFeatures(all, wanted.chart, mask, seat, level, trump), f)) {
      const decision = Object.keys(CLASSIFY.charts).find((d) => CLASSIFY.charts[d].includes(wanted.chart));
      return {hand: handText(mask), table: wanted.table, seat, decision, chart: wanted.chart,
              level, trump: trump === null ? "NT" : "♠"};
    }
  }
  throw new Error(`features: no hand of this cell in ${CLASSIFY.sample_hands.toLocaleString()} dealt`);
}

let initial = urlState(), failed = "";
try {
  if (!initial.hand && initial.chart) initial = sample(initial);
} catch (e) { failed = e.message; }
FIELDS.forEach((f) => {
  const box = $(f), was = box.value;
  if (initial[f] != null) box.value = initial[f];
  if (box.tagName === "SELECT" && box.value === "") box.value = was;  // not one it offers
  box.addEventListener(f === "hand" ? "input" : "change", show);
});
show();
if (failed) { showError(failed); $("advice").textContent = failed; }
