// Charts: a committed guide's cells as an interactive heatmap (Plotly, shipped by the
// plotly package); hover a cell for its figures, click it for My hand with such a hand.
"use strict";
const $ = (id) => document.getElementById(id);
let guide = null;

function axes(chart) {
  const cells = guide.records.filter((r) => r.kind === "cell" && r.chart === chart);
  const names = Object.keys(cells[0].features);
  const [x, y] = names.length === 2 ? names : [names[1], names[0] + "/" + names[2]];
  const key = (r, f) => f.includes("/") ? f.split("/").map((g) => r.features[g]).join("/") : r.features[f];
  return {cells, x, y, key};
}

function draw() {
  const chart = $("chart").dataset.chart = $("chart-select").value;
  const option = $("option").value;
  const {cells, x, y, key} = axes(chart);
  const rows = cells.filter((r) => r.option === option);
  const xs = [...new Set(rows.map((r) => key(r, x)))];
  const ys = [...new Set(rows.map((r) => key(r, y)))];
  const z = ys.map(() => xs.map(() => null)), text = ys.map(() => xs.map(() => ""));
  const custom = ys.map(() => xs.map(() => null));
  rows.forEach((r) => {
    const i = ys.indexOf(key(r, y)), j = xs.indexOf(key(r, x));
    z[i][j] = r.enough ? r.gain : null;
    custom[i][j] = r.features;
    text[i][j] = `advice ${r.advice}<br>gain ${fmt(r.gain)} [${fmt(r.ci_low)}, ${fmt(r.ci_high)}]<br>n ${r.n}` +
      `<br>${r.robust === true ? "robust" : r.robust === false ? "breaks: " + r.breaks.join(", ") : "robustness unknown"}`;
  });
  const layout = {title: {text: `${guide.variant}: ${chart}, gain of ${option} over pass`},
                  xaxis: {title: {text: x}, type: "category"}, yaxis: {title: {text: y}, type: "category"},
                  margin: {l: 60, r: 10, t: 40, b: 50}, autosize: true};
  Plotly.newPlot("chart", [{type: "heatmap", x: xs.map(String), y: ys.map(String), z, text, customdata: custom,
                            hovertemplate: "%{text}<extra></extra>", colorscale: "RdBu", zmid: 0}],
                 layout, {responsive: true, displaylogo: false});
  $("chart").on("plotly_click", (ev) => {
    const features = ev.points[0].customdata;
    if (!features) return;
    const where = `table=${$("table").value}&chart=${chart}&` + new URLSearchParams(features);
    location.href = window.GUIDES ? "index.html?" + where : "/sample?" + where;  // the static site: its lookup
  });
  setUrlState({table: $("table").value, chart, option});
}

function options() {
  const chart = $("chart-select").value;
  const opts = [...new Set(guide.records.filter((r) => r.kind === "cell" && r.chart === chart).map((r) => r.option))];
  $("option").innerHTML = opts.map((o) => `<option>${o}</option>`).join("");
  const wanted = urlState().option;
  if (opts.includes(wanted)) $("option").value = wanted;
  draw();
}

async function load() {
  guide = window.GUIDES ? GUIDES[$("table").value] : await api("/api/guides/" + $("table").value);
  const charts = [...new Set(guide.records.map((r) => r.chart))];
  $("chart-select").innerHTML = charts.map((c) => `<option>${c}</option>`).join("");
  const wanted = urlState().chart;
  if (charts.includes(wanted)) $("chart-select").value = wanted;
  options();
}

const initial = urlState();
if (initial.table) $("table").value = initial.table;
$("table").onchange = load;
$("chart-select").onchange = options;
$("option").onchange = draw;
load();
