// Quire console: tab switching, service status, and forms that call the API.
"use strict";

function show(status, text) {
  document.getElementById("result-status").textContent = status;
  document.getElementById("result").textContent = text;
}

async function send(url, init) {
  show("…", "");
  try {
    const res = await fetch(url, init);
    const text = await res.text();
    show(`${res.status} ${res.statusText}`, text || "(empty body)");
  } catch (e) {
    show("network error", String(e));
  }
}

document.querySelectorAll(".tab").forEach((tab) => {
  tab.addEventListener("click", () => {
    document.querySelectorAll(".tab, .panel").forEach((el) => el.classList.remove("active"));
    tab.classList.add("active");
    document.getElementById(tab.dataset.tab).classList.add("active");
  });
});

document.getElementById("raw-form").addEventListener("submit", (ev) => {
  ev.preventDefault();
  const select = document.getElementById("raw-endpoint");
  const option = select.options[select.selectedIndex];
  const field = option.dataset.field;
  const input = document.getElementById("raw-input").value;
  const body = new URLSearchParams();
  if (select.value === "processCitationList") {
    input.split("\n").filter((l) => l.trim() !== "").forEach((l) => body.append(field, l));
  } else {
    body.append(field, input);
  }
  if (document.getElementById("raw-include").checked) body.append("includeRawCitations", "1");
  const accept = document.getElementById("raw-bibtex").checked ? "application/x-bibtex" : "application/xml";
  send(`/api/${select.value}`, { method: "POST", body, headers: { Accept: accept } });
});

document.getElementById("pdf-form").addEventListener("submit", (ev) => {
  ev.preventDefault();
  const file = document.getElementById("pdf-input").files[0];
  if (!file) { show("", "choose a PDF first"); return; }
  const select = document.getElementById("pdf-endpoint");
  const option = select.options[select.selectedIndex];
  const body = new FormData();
  body.append("input", file);
  body.append(option.dataset.consolidate, document.getElementById("pdf-consolidate").value);
  if (select.value === "processReferences" && document.getElementById("pdf-include").checked) {
    body.append("includeRawCitations", "1");
  }
  const accept = document.getElementById("pdf-bibtex").checked ? "application/x-bibtex" : "application/xml";
  send(`/api/${select.value}`, { method: "POST", body, headers: { Accept: accept } });
});

fetch("/api/version").then((r) => r.json()).then((v) => {
  return fetch("/api/isalive").then((r) => {
    document.getElementById("status").textContent =
      `version ${v.version} (${v.revision}) — ${r.ok ? "alive" : "starting"}`;
  });
}).catch(() => { document.getElementById("status").textContent = "service unreachable"; });
