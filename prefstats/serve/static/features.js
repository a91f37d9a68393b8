// A hand's cell in a guide's chart, computed as prefstats.serve.guides.hand_features
// computes it, from the classifiers' tables the site exports (CLASSIFY, classify.js).
"use strict";

function holdings(mask) { return [0, 1, 2, 3].map((s) => (mask >>> (8 * s)) & 0xff); }

// Hand points: the best suit's length and A K Q, and the aces outside it.
function byPoints(held) {
  const {best_key: key, length, top, aces} = CLASSIFY;
  const best = held.reduce((b, h, s) => (key[h] + s > key[held[b]] + b ? s : b), 0);
  const all = held.reduce((n, h) => n + aces[h], 0);
  return length[held[best]] + top[held[best]] + all - aces[held[best]];
}

// The evaluator's expected tricks of a dealt hand in `strain` (4: no trumps), summed in
// the evaluator's order so that the sums are the same doubles.
function preTricks(held, strain, leads) {
  const pre = CLASSIFY.pre, length = CLASSIFY.length;
  let total = 0;
  if (strain === 4) {
    held.forEach((h) => { total += pre.nt[h]; });
    return total + pre.lead_nt * leads;
  }
  let voids = 0, singles = 0;
  held.forEach((h, s) => {
    total += (s === strain ? pre.trump : pre.side)[h];
    if (s !== strain) { voids += length[h] === 0 ? 1 : 0; singles += length[h] === 1 ? 1 : 0; }
  });
  const trumps = length[held[strain]];
  total += pre.lead_trump * leads;
  total += pre.voids * (voids * trumps);
  return total + pre.singles * (singles * trumps);
}

// numpy's rint: a half rounds to the even neighbour.
function rint(x) {
  const f = Math.floor(x), d = x - f;
  return d > 0.5 || (d === 0.5 && f % 2 !== 0) ? f + 1 : f;
}

// Expected tricks in the best strain, rounded; the first hand (seat 0) leads.
function byTricks(held, seat) {
  let best = -1;
  for (let strain = 0; strain < 5; strain++) best = Math.max(best, preTricks(held, strain, seat === 0 ? 1 : 0));
  return rint(best);
}

// The misère hole pattern: an index of the misère chart's cells in their order.
function holePattern(held) {
  const unsafe = held.filter((h) => !CLASSIFY.safe[h]);
  if (unsafe.length !== 1) return [0, null, 10, 11][Math.min(unsafe.length, 3)];
  const length = CLASSIFY.length[unsafe[0]];
  return length === 1 ? 31 - Math.clz32(unsafe[0]) : length === 2 ? 8 : 9;
}

// The features of `mask`'s cell in `chart` (`cells`: the features of the chart's cells,
// whose values bound each feature); `level` and `trump` (a suit, null for no trumps) are
// the contract defended, for the whist chart.
function handFeatures(cells, chart, mask, seat, level, trump) {
  const held = holdings(mask), length = CLASSIFY.length;
  const clip = (name, value) => {
    const values = cells.map((c) => c[name]).filter((v) => v >= 0);
    return Math.min(Math.max(value, Math.min(...values)), Math.max(...values));
  };
  if (chart === "first_call_points") return {points: clip("points", byPoints(held)), seat};
  if (chart === "first_call_expected_tricks") {
    return {expected_tricks: clip("expected_tricks", byTricks(held, seat)), seat};
  }
  if (chart === "misere") return {...cells[holePattern(held)]};
  const acesKings = clip("aces_kings", held.reduce((n, h) => n + CLASSIFY.aces_kings[h], 0));
  if (chart === "whist") {
    return {level: clip("level", level), aces_kings: acesKings,
            trumps: trump === null ? -1 : clip("trumps", length[held[trump]])};
  }
  return {aces_kings: acesKings, longest: clip("longest", Math.max(...held.map((h) => length[h])))};
}

function sameFeatures(a, b) {
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((k) => a[k] === b[k]);
}
