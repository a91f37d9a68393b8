"""The training page of an analysed game (``prefstats analyze GAME`` writes
``train.html`` beside ``train.json``): each position where a player lost whists, shown
as he saw it -- his hand, the hands the rules laid open to him, the talon once shown,
the auction and the tricks so far -- with the question and its options. Choosing one
reveals the answer: the choice made at the table, the best option, the whists it gains
and every option's value. One self-contained file (its style and script inline, nothing
fetched), every player's positions on it, filtered by player."""

from __future__ import annotations

from html import escape
from pathlib import Path

from prefstats.game.codes import SEAT_NAMES

#: The red suits, printed red.
RED = ("♦", "♥")

STYLE = """
body { font-family: system-ui, sans-serif; max-width: 60rem; margin: 1rem auto;
       padding: 0 1rem; color: #222; }
h1 { font-size: 1.5rem; } h2 { font-size: 1.1rem; margin: 0 0 .4rem; }
.position { border: 1px solid #ccc; border-radius: 6px; padding: .8rem 1rem;
            margin: 1rem 0; }
.cards { font-size: 1.15rem; letter-spacing: .03em; }
.red { color: #c0392b; }
dl { display: grid; grid-template-columns: max-content auto; gap: .2rem .8rem;
     margin: .4rem 0; }
dt { color: #666; } dd { margin: 0; }
.question { font-weight: 600; margin: .6rem 0 .3rem; }
button.option { font-size: 1rem; margin: .15rem; padding: .25rem .6rem;
                border: 1px solid #888; border-radius: 4px; background: #f7f7f7;
                cursor: pointer; }
button.picked { outline: 2px solid #333; }
button.best { background: #d4edda; } button.done { background: #f8d7da; }
table { border-collapse: collapse; margin-top: .4rem; }
td, th { padding: .1rem .6rem; text-align: right; } td:first-child { text-align: left; }
.verdict { font-weight: 600; }
#score { color: #555; }
"""

SCRIPT = """
const sections = Array.from(document.querySelectorAll('section.position'));
const score = document.getElementById('score');
let answered = 0, right = 0;
function tally() {
  const shown = sections.filter(s => !s.hidden).length;
  score.textContent = `${shown} position(s) shown; ${answered} answered, ${right} best.`;
}
for (const sec of sections) {
  const top = parseFloat(sec.dataset.top);
  for (const b of sec.querySelectorAll('button.option')) {
    b.addEventListener('click', () => {
      if (sec.classList.contains('answered')) return;
      sec.classList.add('answered');
      b.classList.add('picked');
      for (const o of sec.querySelectorAll('button.option')) {
        if (o.dataset.option === sec.dataset.best) o.classList.add('best');
        if (o.dataset.option === sec.dataset.done) o.classList.add('done');
      }
      const lost = top - parseFloat(b.dataset.value);
      answered += 1;
      if (lost <= 1e-9) right += 1;
      sec.querySelector('.verdict').textContent = lost <= 1e-9
        ? 'Your choice is the best option.'
        : `Your choice gives up ${lost.toFixed(1)} whists against the best.`;
      sec.querySelector('details.answer').open = true;
      tally();
    });
  }
}
document.getElementById('player').addEventListener('change', e => {
  for (const sec of sections)
    sec.hidden = e.target.value !== '' && sec.dataset.player !== e.target.value;
  tally();
});
tally();
"""


def cards_html(text: str | None) -> str:
    """Cards as written (``♠AQ10 ♥K``, ``A♠``), the red suits coloured."""
    if not text:
        return "-"
    return " ".join(f'<span class="red">{escape(part)}</span>' if any(s in part for s in RED)
                    else escape(part) for part in text.split())


def _seat(p: dict, seat: int | None) -> str:
    if seat is None:
        return "(forced)"
    if seat == 3:
        return "talon"
    you = " (you)" if seat == p["seat"] else ""
    return f"{escape(p['seats'][seat])}{you}"


def _played(p: dict, cards: list) -> str:
    return ", ".join(f"{_seat(p, s)} {cards_html(c)}" for s, c in cards)


def position_html(p: dict) -> str:
    """One position: the view, the question, the options and the answer."""
    v = p["view"]
    rows = [("you are", f"{escape(p['name'])}, {SEAT_NAMES[p['seat']]}"
                        + (f", playing {escape(p['seats'][p['plays_for']])}'s cards"
                           if p["plays_for"] != p["seat"] else "")),
            ("your hand", f'<span class="cards">{cards_html(v["hand"])}</span>')]
    rows += [(f"{escape(p['seats'][s])}'s cards (open)",
              f'<span class="cards">{cards_html(h)}</span>')
             for s, h in enumerate(v["seen"]) if h]
    if v["talon"]:
        rows.append(("talon", cards_html(v["talon"])))
    if v["discard"]:
        rows.append(("your discard", cards_html(v["discard"])))
    rows.append(("calls", ", ".join(f"{_seat(p, s)} {escape(c)}" for s, c in v["calls"])
                 or "none yet"))
    if v["contract"]:
        rows.append(("contract", f"{_seat(p, v['declarer'])} plays "
                                 f"{cards_html(v['contract'])}"))
    if v["whist"]:
        rows.append(("whist calls", ", ".join(f"{_seat(p, s)} {escape(c)}"
                                              for s, c in v["whist"])))
    for t, trick in enumerate(v["tricks"], 1):
        rows.append((f"trick {t}", _played(p, trick)))
    if v["phase"] == "play":
        rows.append(("this trick", _played(p, v["trick"]) or "you lead"))
        rows.append(("tricks taken", ", ".join(f"{_seat(p, s)} {n}"
                                               for s, n in enumerate(v["taken"]))))
    view = "".join(f"<dt>{k}</dt><dd>{val}</dd>" for k, val in rows)
    top = max(o["value"] for o in p["options"])
    buttons = "".join(f'<button class="option" data-option="{escape(o["option"])}" '
                      f'data-value="{o["value"]!r}">{cards_html(o["option"])}</button>'
                      for o in p["options"])
    ranked = sorted(p["options"], key=lambda o: -o["value"])
    table = "".join(
        f"<tr><td>{cards_html(o['option'])}</td><td>{o['value']:.1f}</td>"
        f"<td>{'best' if o['option'] == p['best'] else ''}"
        f"{' made' if o['option'] == p['done'] else ''}</td></tr>" for o in ranked)
    se = f" ± {p['gain_se']:.1f}" if p["gain_se"] else ""
    return (
        f'<section class="position" id="{escape(p["id"])}" data-player="{p["player"]}" '
        f'data-best="{escape(p["best"])}" data-done="{escape(p["done"])}" '
        f'data-top="{top!r}">'
        f"<h2>Deal {p['deal']}: {escape(p['name'])}, {escape(p['type'])}</h2>"
        f"<dl>{view}</dl><p class=\"question\">{escape(p['question'])}</p>"
        f'<div class="options">{buttons}</div>'
        f'<details class="answer"><summary>Answer</summary><p class="verdict"></p>'
        f"<p>At the table: <b>{cards_html(p['done'])}</b>. Best: "
        f"<b>{cards_html(p['best'])}</b>, {p['gain']:.1f}{se} whists better.</p>"
        f"<table><tr><th>option</th><th>whists</th><th></th></tr>{table}</table>"
        f"<p><small>Values: {escape(p['values'])}; {escape(p['field'])} of the "
        f"record.</small></p></details></section>")


def train_page(doc: dict, title: str | None = None) -> str:
    """The HTML text of a training document's page."""
    title = title or f"{doc['game']}: mistakes to train"
    positions = doc["positions"]
    counts = {p: sum(q["player"] == p for q in positions) for p in range(len(doc["names"]))}
    options = "".join(f'<option value="{p}">{escape(n)} ({counts[p]})</option>'
                      for p, n in enumerate(doc["names"]))
    a = doc.get("analysis") or {}
    how = (f"Calls valued by rollouts of {a['deals']} deals with the {a.get('policy')} "
           f"policy; cards and discards double dummy." if "deals" in a else "")
    body = "".join(position_html(p) for p in positions) or "<p>No mistakes: nothing to train.</p>"
    return (
        f'<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">'
        f'<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{escape(title)}</title><style>{STYLE}</style></head><body>"
        f"<h1>{escape(title)}</h1><p>Each decision of the game that lost whists, shown as "
        f"the player saw it: make your choice, then compare it with the best. {how}</p>"
        f'<p><label>Player <select id="player"><option value="">everyone '
        f"({len(positions)})</option>{options}</select></label> "
        f'<span id="score"></span></p>{body}<script>{SCRIPT}</script></body></html>\n')


def write_train_page(doc: dict, path: str | Path, title: str | None = None) -> Path:
    """Write :func:`train_page` to ``path``."""
    path = Path(path)
    path.write_text(train_page(doc, title), "utf-8")
    return path
