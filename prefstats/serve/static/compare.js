// Compare: the rule-comparison article over the variants picked, made as a job.
"use strict";
const $ = (id) => document.getElementById(id);
let job = null, timer = null;

async function poll() {
  const j = await api("/api/jobs/" + job);
  $("progress").value = j.progress;
  $("state").textContent = j.state + (j.place ? ` (place ${j.place})` : "");
  if (j.state === "queued" || j.state === "running") { timer = setTimeout(poll, 500); return; }
  $("go").disabled = false; $("cancel").disabled = true;
  if (j.error) { showError(j.error); $("result").textContent = j.error; }
  if (j.state === "done") {
    const r = j.result;
    $("result").innerHTML = `<h2>${r.variants.join(" · ")}</h2>
      <p><a id="page" href="${r.page}">The article</a> (${r.deals} deals and ${r.pulkas} pulkas a variant, seed ${r.seed})</p>
      <iframe src="${r.page}" title="The article" style="width:100%;height:70vh"></iframe>`;
  }
}

$("go").onclick = async () => {
  const variants = [...document.querySelectorAll("input[name=variant]:checked")].map((b) => b.value);
  const house = $("house").files[0];
  $("result").innerHTML = "";
  try {
    if (house) variants.push((await api("/api/variants", {method: "POST", body: house})).variant);
    const players = $("players").value;
    const r = await postJSON("/api/compare", {
      variants, players: players ? Number(players) : null, deals: Number($("deals").value),
      pulkas: Number($("pulkas").value), seed: Number($("seed").value)});
    job = r.job;
  } catch (e) { $("result").textContent = e.message; return; }
  $("go").disabled = true; $("cancel").disabled = false;
  poll();
};
$("cancel").onclick = async () => { clearTimeout(timer); await api("/api/jobs/" + job, {method: "DELETE"}); poll(); };
