// Shared by the pages: calling the API (its error shown on the page) and the URL's state.
"use strict";
const SUITS = ["♠", "♣", "♦", "♥"];
const RANKS = ["7", "8", "9", "10", "J", "Q", "K", "A"];

function showError(message) {
  const box = document.getElementById("error");
  box.textContent = message || "";
  box.hidden = !message;
}

// The API's answer; its error shown on the page (unless `show` is false) and thrown.
async function api(path, options, show = true) {
  const response = await fetch(path, options);
  const body = await response.json().catch(() => ({error: "the server sent no JSON"}));
  const message = response.ok ? "" : body.error || ("HTTP " + response.status);
  if (show) showError(message);
  if (message) throw new Error(message);
  return body;
}

function postJSON(path, data) {
  return api(path, {method: "POST", headers: {"Content-Type": "application/json"},
                    body: JSON.stringify(data)});
}

function urlState() {
  return Object.fromEntries(new URLSearchParams(location.search));
}

function setUrlState(state) {
  const query = new URLSearchParams(Object.entries(state).filter(([, v]) => v !== "" && v != null));
  history.replaceState(null, "", location.pathname + "?" + query);
}

function fmt(x, digits = 1) {
  return x == null ? "–" : (x > 0 ? "+" : "") + Number(x).toFixed(digits);
}
