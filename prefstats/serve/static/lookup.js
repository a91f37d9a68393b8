// The static edition's My hand: the guides' answers by cell (answers.js), no server.
"use strict";
const $ = (id) => document.getElementById(id);

function cells() { return ANSWERS[$("table").value][$("chart-select").value]; }

function show() {
  const features = Object.fromEntries([...$("features").querySelectorAll("select")].map((s) => [s.name, s.value]));
  const found = cells().find((c) => Object.entries(c.features).every(([k, v]) => String(v) === features[k]));
  setUrlState({table: $("table").value, chart: $("chart-select").value, ...features});
  if (!found) { $("advice").textContent = "No such cell in this guide."; $("cell").innerHTML = ""; return; }
  showAdvice(found.answer, `charts.html?table=${$("table").value}&`);
}

function featureSelects() {
  const all = cells(), wanted = urlState();
  $("features").innerHTML = "";
  Object.keys(all[0].features).forEach((name) => {
    const values = [...new Set(all.map((c) => String(c.features[name])))];
    const label = document.createElement("label");
    label.textContent = name + " ";
    const select = document.createElement("select");
    select.name = name; select.id = "feature-" + name;
    select.innerHTML = values.map((v) => `<option>${v}</option>`).join("");
    if (values.includes(wanted[name])) select.value = wanted[name];
    select.onchange = show;
    label.appendChild(select); $("features").appendChild(label);
  });
  show();
}

function charts() {
  const names = Object.keys(ANSWERS[$("table").value]);
  $("chart-select").innerHTML = names.map((c) => `<option>${c}</option>`).join("");
  if (names.includes(urlState().chart)) $("chart-select").value = urlState().chart;
  featureSelects();
}

if (urlState().table in ANSWERS) $("table").value = urlState().table;
$("table").onchange = charts;
$("chart-select").onchange = featureSelects;
charts();
