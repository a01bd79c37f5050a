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

function fulltextSelected() {
  const select = document.getElementById("pdf-endpoint");
  return select.options[select.selectedIndex].dataset.fulltext === "1";
}

document.getElementById("pdf-endpoint").addEventListener("change", () => {
  document.getElementById("fulltext-options").hidden = !fulltextSelected();
});

// The full-text parameters of the form, appended to `body`.
function appendFulltext(body) {
  const value = (id) => document.getElementById(id).value;
  const checked = (id) => document.getElementById(id).checked;
  body.append("consolidateCitations", value("ft-consolidate-citations"));
  body.append("consolidateFunders", value("ft-consolidate-funders"));
  if (checked("ft-raw-affiliations")) body.append("includeRawAffiliations", "1");
  if (checked("ft-raw-copyrights")) body.append("includeRawCopyrights", "1");
  if (checked("ft-sentences")) body.append("segmentSentences", "1");
  if (checked("ft-ids")) body.append("generateIDs", "1");
  body.append("start", value("ft-start"));
  body.append("end", value("ft-end"));
  if (value("ft-flavor")) body.append("flavor", value("ft-flavor"));
  document.querySelectorAll("#ft-coordinates input:checked").forEach((box) => {
    body.append("teiCoordinates", box.value);
  });
}

// A ZIP answer is offered as a download; anything else is shown as text.
async function sendPdf(url, init) {
  show("…", "");
  try {
    const res = await fetch(url, init);
    const type = res.headers.get("content-type") || "";
    if (res.ok && type.startsWith("application/zip")) {
      const blob = await res.blob();
      const link = document.createElement("a");
      link.href = URL.createObjectURL(blob);
      link.download = "result.zip";
      link.textContent = `download result.zip (${blob.size} bytes)`;
      show(`${res.status} ${res.statusText}`, "");
      document.getElementById("result").appendChild(link);
      return;
    }
    const text = await res.text();
    show(`${res.status} ${res.statusText}`, text || "(empty body)");
  } catch (e) {
    show("network error", String(e));
  }
}

document.getElementById("pdf-form").addEventListener("submit", (ev) => {
  ev.preventDefault();
  const file = document.getElementById("pdf-input").files[0];
  if (!file) { show("", "choose a PDF first"); return; }
  const select = document.getElementById("pdf-endpoint");
  const option = select.options[select.selectedIndex];
  const body = new FormData();
  body.append("input", file);
  body.append(option.dataset.consolidate, document.getElementById("pdf-consolidate").value);
  const fulltext = fulltextSelected();
  if ((select.value === "processReferences" || fulltext) && document.getElementById("pdf-include").checked) {
    body.append("includeRawCitations", "1");
  }
  if (fulltext) appendFulltext(body);
  if (document.getElementById("pdf-debug").checked) {
    body.append("debugMode", "1");
    const models = document.getElementById("pdf-models").value.trim();
    if (models) body.append("models", models);
  }
  const accept = document.getElementById("pdf-bibtex").checked && !fulltext ? "application/x-bibtex" : "application/xml";
  sendPdf(`/api/${select.value}`, { method: "POST", body, headers: { Accept: accept } });
});

fetch("/api/version").then((r) => r.json()).then((v) => {
  return fetch("/api/isalive").then((r) => {
    document.getElementById("status").textContent =
      `version ${v.version} (${v.revision}) — ${r.ok ? "alive" : "starting"}`;
  });
}).catch(() => { document.getElementById("status").textContent = "service unreachable"; });
