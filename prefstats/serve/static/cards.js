// A hand as a 32-bit mask (bit 8 * suit + rank): its text, the 32-card grid, and typed
// cards read as the server reads them (prefstats.game.cards.parse_cards), its messages too.
"use strict";
const SUIT_OF = {"♠": 0, "♣": 1, "♦": 2, "♥": 3, S: 0, C: 1, D: 2, H: 3, s: 0, c: 1, d: 2, h: 3};
const RANK_OF = {"7": 0, "8": 1, "9": 2, T: 3, J: 4, Q: 5, K: 6, A: 7};

function handText(m) {
  return SUITS.map((s, suit) => {
    const ranks = RANKS.filter((r, rank) => (m >>> (8 * suit + rank)) & 1).reverse();
    return ranks.length ? s + ranks.join("") : "";
  }).filter(Boolean).join(" ");
}

// The 32-card grid in `box`: a click toggles a card and calls `toggled(mask)`; the
// function returned shows a hand on it.
function cardGrid(box, toggled) {
  let mask = 0;
  const draw = (m) => {
    mask = m >>> 0;
    box.querySelectorAll("button").forEach((b) => {
      b.classList.toggle("on", ((mask >>> Number(b.dataset.card)) & 1) === 1);
    });
  };
  SUITS.forEach((s, suit) => RANKS.slice().reverse().forEach((r) => {
    const card = 8 * suit + RANKS.indexOf(r);
    const b = document.createElement("button");
    b.type = "button"; b.textContent = s + r; b.dataset.card = card;
    if (suit >= 2) b.classList.add("red");
    b.onclick = () => { draw(mask ^ (1 << card)); toggled(mask); };
    box.appendChild(b);
  }));
  return draw;
}

// Ranks in a run such as `AKQ`, `T98` or `109`; `-` is a void.
function parseRanks(text, token) {
  const chars = Array.from(text.toUpperCase()), ranks = [];
  for (let i = 0; i < chars.length; i++) {
    if (chars[i] === "1" && chars[i + 1] === "0") { ranks.push(3); i++; }
    else if (Object.hasOwn(RANK_OF, chars[i])) ranks.push(RANK_OF[chars[i]]);
    else if (!(chars[i] === "-" && chars.length === 1)) {
      throw new Error(`bad card token '${token}': '${chars[i]}' is not a rank`);
    }
  }
  return ranks;
}

// Suit groups (`♠AKQ ♣7 ♥10 9 8`, `S:AKQ C:7 H:T98`) and single cards rank first (`As 10d`).
function parseCards(text) {
  let mask = 0, suit = null;
  for (const token of text.trim().split(/[\s,;]+/)) {
    if (!token || token === "-") continue;
    const chars = Array.from(token), last = chars[chars.length - 1];
    let cards;
    if (Object.hasOwn(SUIT_OF, chars[0])) {
      suit = SUIT_OF[chars[0]];
      cards = parseRanks(chars.slice(1).join("").replace(/^:+/, ""), token).map((r) => 8 * suit + r);
    } else if (Object.hasOwn(SUIT_OF, last) && chars.length > 1) {
      const ranks = parseRanks(chars.slice(0, -1).join(""), token);
      if (ranks.length !== 1) throw new Error(`bad card token '${token}': expected one rank before the suit`);
      cards = [8 * SUIT_OF[last] + ranks[0]];
      suit = null;
    } else if (suit !== null) {
      cards = parseRanks(token, token).map((r) => 8 * suit + r);
    } else {
      throw new Error(`bad card token '${token}': no suit given for these ranks`);
    }
    for (const c of cards) {
      if ((mask >>> c) & 1) throw new Error(`bad card token '${token}': ${RANKS[c & 7]}${SUITS[c >> 3]} is named twice`);
      mask = (mask | (1 << c)) >>> 0;
    }
  }
  return mask;
}

// `text` as a mask of `count` cards, or an Error whose message names `field`.
function handMask(text, field, count) {
  let mask;
  try { mask = parseCards(text); } catch (e) { throw new Error(`${field}: ${e.message}`); }
  let held = 0;
  for (let m = mask; m; m >>>= 1) held += m & 1;
  if (held !== count) throw new Error(`${field}: ${count} cards needed, got ${held} (${handText(mask) || "-"})`);
  return mask;
}
