// Quire console: tabs, the TEI services with their parameters and a foldable highlighted
// TEI view, the PDF viewer with referenceAnnotations drawn over pdfium-rendered pages, and the
// patent services (probed: enabled only when this server serves them). No library, no
// request outside this server.
"use strict";

const $ = (id) => document.getElementById(id);

// ---------------------------------------------------------------------------------------
// Tabs, service status, admin link

function showTab(name) {
  document.querySelectorAll(".tab").forEach((t) => {
    const on = t.dataset.tab === name;
    t.classList.toggle("active", on);
    t.setAttribute("aria-selected", on ? "true" : "false");
  });
  document.querySelectorAll(".panel").forEach((p) => p.classList.toggle("active", p.id === name));
  if (location.hash !== `#${name}`) history.replaceState(null, "", `#${name}`);
}
document.querySelectorAll(".tab").forEach((tab) => {
  tab.addEventListener("click", () => showTab(tab.dataset.tab));
});
if (location.hash && $(location.hash.slice(1))) showTab(location.hash.slice(1));

fetch("/api/version").then((r) => r.json()).then((v) => fetch("/api/isalive").then((r) => {
  $("status").textContent = `version ${v.version} (${v.revision}) · ${r.ok ? "alive" : "starting"}`;
})).catch(() => { $("status").textContent = "service unreachable"; });

// What the server says of itself: the admin port (metrics link) and the patent endpoints it
// routes (the Patent tab enables those).
const info = fetch("/console/info").then((r) => r.json());
info.then((i) => {
  $("admin-link").href = `${location.protocol}//${location.hostname}:${i.adminPort}/metrics`;
}).catch(() => { $("admin-link").hidden = true; });

// ---------------------------------------------------------------------------------------
// Calls: timing, status, size

function kb(n) { return n < 1024 ? `${n} B` : `${(n / 1024).toFixed(1)} kB`; }

// Fetches `url`; returns {res, ms, blob} or throws on a network failure.
async function timed(url, init) {
  const t0 = performance.now();
  const res = await fetch(url, init);
  const blob = await res.blob();
  return { res, blob, ms: Math.round(performance.now() - t0) };
}

function statusLine(el, res, ms, size) {
  el.textContent = `${res.status} ${res.statusText} · ${ms} ms · ${kb(size)}`;
  el.className = `status ${res.ok ? "ok" : "bad"}`;
}

// ---------------------------------------------------------------------------------------
// XML view: highlighted, every element with children foldable

function esc(s) {
  return s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
}

function openTag(el, selfClose) {
  let s = `<span class="p">&lt;</span><span class="t">${esc(el.nodeName)}</span>`;
  for (const a of el.attributes) {
    s += ` <span class="a">${esc(a.name)}</span><span class="p">=</span><span class="v">"${esc(a.value)}"</span>`;
  }
  return s + `<span class="p">${selfClose ? "/&gt;" : "&gt;"}</span>`;
}
function closeTag(el) {
  return `<span class="p">&lt;/</span><span class="t">${esc(el.nodeName)}</span><span class="p">&gt;</span>`;
}

// An element as DOM: a leaf (text only) on one line, otherwise a <details> open by default
// down to `depth` levels.
function xmlNode(node, level) {
  if (node.nodeType === Node.TEXT_NODE) {
    const t = node.nodeValue;
    if (!t.trim()) return null;
    const span = document.createElement("span");
    span.className = "x";
    span.textContent = t.trim();
    return span;
  }
  if (node.nodeType === Node.COMMENT_NODE) {
    const span = document.createElement("div");
    span.className = "c";
    span.textContent = `<!--${node.nodeValue}-->`;
    return span;
  }
  if (node.nodeType !== Node.ELEMENT_NODE) return null;
  const kids = Array.from(node.childNodes).filter((k) => k.nodeType !== Node.TEXT_NODE || k.nodeValue.trim());
  const onlyText = kids.every((k) => k.nodeType === Node.TEXT_NODE);
  const inline = kids.length === 0 || (onlyText && node.textContent.length < 160)
    || (kids.length <= 12 && node.textContent.length < 200 && !kids.some((k) => k.nodeType === Node.ELEMENT_NODE && k.children.length > 2));
  if (inline) {
    const div = document.createElement("div");
    div.className = "leaf";
    if (kids.length === 0) { div.innerHTML = openTag(node, true); return div; }
    div.innerHTML = openTag(node, false) + inlineHtml(node) + closeTag(node);
    return div;
  }
  const det = document.createElement("details");
  det.open = level < 6;
  const sum = document.createElement("summary");
  sum.innerHTML = openTag(node, false);
  det.appendChild(sum);
  const body = document.createElement("div");
  body.className = "kids";
  for (const k of kids) {
    const c = xmlNode(k, level + 1);
    if (c) body.appendChild(c);
  }
  det.appendChild(body);
  const end = document.createElement("div");
  end.className = "end";
  end.innerHTML = closeTag(node);
  det.appendChild(end);
  return det;
}
// Mixed content on one line (a paragraph with its refs).
function inlineHtml(node) {
  let s = "";
  for (const k of node.childNodes) {
    if (k.nodeType === Node.TEXT_NODE) s += `<span class="x">${esc(k.nodeValue)}</span>`;
    else if (k.nodeType === Node.ELEMENT_NODE) {
      s += k.childNodes.length ? openTag(k, false) + inlineHtml(k) + closeTag(k) : openTag(k, true);
    }
  }
  return s;
}

function showXml(target, text) {
  target.textContent = "";
  const doc = new DOMParser().parseFromString(text, "application/xml");
  if (doc.getElementsByTagName("parsererror").length) {
    const pre = document.createElement("pre");
    pre.textContent = text;
    target.appendChild(pre);
    return false;
  }
  const root = xmlNode(doc.documentElement, 0);
  if (root) target.appendChild(root);
  return true;
}

function showText(target, text) {
  target.textContent = "";
  const pre = document.createElement("pre");
  pre.textContent = text;
  target.appendChild(pre);
}

// ---------------------------------------------------------------------------------------
// TEI tab

const PDF_SERVICES = ["processFulltextDocument", "processHeaderDocument", "processReferences", "processFulltextAssetDocument"];
const RAW_FIELD = {
  processDate: "date",
  processHeaderNames: "names",
  processCitationNames: "names",
  processAffiliations: "affiliations",
  processCitation: "citations",
  processCitationList: "citations",
};
const RAW_SAMPLE = {
  processDate: "September 16, 2001",
  processHeaderNames: "Jane A. Smith and Li Chen",
  processCitationNames: "Smith J, Chen L, Okafor E",
  processAffiliations: "Department of Physics, University of Lisbon, 1749-016 Lisbon, Portugal",
  processCitation: "Smith J, Brown A. Measuring the moisture of soils from space. Journal of Hydrology 12(3):45-67, 2001.",
  processCitationList: "Smith J, Brown A. Measuring soils from space. J Hydrol 12:45-67, 2001.\nOkafor E. Water and energy exchange. Cambridge University Press, 2009.",
};

function teiEndpoint() { return $("tei-endpoint").value; }

function syncTeiForm() {
  const ep = teiEndpoint();
  const pdf = PDF_SERVICES.includes(ep);
  document.querySelectorAll("#tei-form [data-kind]").forEach((el) => {
    el.hidden = el.dataset.kind !== (pdf ? "pdf" : "raw");
  });
  document.querySelectorAll("#tei-form [data-for]").forEach((el) => {
    el.hidden = !el.dataset.for.split(" ").includes(ep);
  });
  const text = $("tei-text");
  if (!pdf && (text.dataset.auto !== "0" || !text.value.trim())) {
    text.value = RAW_SAMPLE[ep];
    text.dataset.auto = "1";
  }
}
$("tei-text").addEventListener("input", () => { $("tei-text").dataset.auto = "0"; });
$("tei-endpoint").addEventListener("change", syncTeiForm);
syncTeiForm();

// The visible parameters of the TEI form, appended to `body` (FormData or URLSearchParams).
function appendParams(body) {
  document.querySelectorAll("#tei-form .params > label:not([hidden])").forEach((label) => {
    const input = label.querySelector("input, select");
    const name = input.id.replace(/^p-/, "");
    if (name === "bibtex") return;
    if (input.type === "checkbox") { if (input.checked) body.append(name, "1"); return; }
    if (name === "models" && !$("p-debugMode").checked) return;
    if (input.value !== "") body.append(name, input.value);
  });
  const coords = document.querySelector("#tei-form .coords");
  if (!coords.hidden) {
    coords.querySelectorAll("input:checked").forEach((box) => body.append("teiCoordinates", box.value));
  }
}

let teiUrl = null;
$("tei-form").addEventListener("submit", async (ev) => {
  ev.preventDefault();
  const ep = teiEndpoint();
  const pdf = PDF_SERVICES.includes(ep);
  let body;
  if (pdf) {
    const file = $("tei-file").files[0];
    if (!file) { $("tei-status").textContent = "choose a PDF first"; $("tei-status").className = "status bad"; return; }
    body = new FormData();
    body.append("input", file);
  } else {
    body = new URLSearchParams();
    const text = $("tei-text").value;
    if (ep === "processCitationList") text.split("\n").filter((l) => l.trim()).forEach((l) => body.append(RAW_FIELD[ep], l));
    else body.append(RAW_FIELD[ep], text);
  }
  appendParams(body);
  const bibtex = !$("p-bibtex").closest("label").hidden && $("p-bibtex").checked;
  const accept = bibtex ? "application/x-bibtex" : "application/xml";
  const shown = Array.from(body.entries()).filter(([k]) => k !== "input").map(([k, v]) => `${k}=${v}`);
  $("tei-call").textContent = `POST /api/${ep}${shown.length ? " · " + shown.join(" ") : ""}`;
  $("tei-status").textContent = "working…";
  $("tei-status").className = "status";
  $("tei-send").disabled = true;
  try {
    const { res, blob, ms } = await timed(`/api/${ep}`, { method: "POST", body, headers: { Accept: accept } });
    statusLine($("tei-status"), res, ms, blob.size);
    const type = res.headers.get("content-type") || "";
    const out = $("tei-output");
    if (teiUrl) URL.revokeObjectURL(teiUrl);
    teiUrl = URL.createObjectURL(blob);
    const dl = $("tei-download");
    dl.href = teiUrl;
    dl.classList.remove("disabled");
    let folding = false;
    if (type.startsWith("application/zip")) {
      setConversions(null, ep);
      dl.download = "result.zip";
      showText(out, `ZIP archive of ${kb(blob.size)}: use download.`);
    } else {
      const text = await blob.text();
      const xml = type.includes("xml") && res.ok;
      dl.download = xml ? `${ep}.tei.xml` : (bibtex ? `${ep}.bib` : `${ep}.txt`);
      if (xml) folding = showXml(out, text);
      else showText(out, text || "(empty body)");
      out.dataset.text = text;
      setConversions(xml ? text : null, ep);
    }
    $("tei-copy").disabled = type.startsWith("application/zip");
    $("tei-expand").disabled = !folding;
    $("tei-collapse").disabled = !folding;
  } catch (e) {
    $("tei-status").textContent = `network error: ${e}`;
    $("tei-status").className = "status bad";
  } finally {
    $("tei-send").disabled = false;
  }
});

// The Markdown and JSON renderings of a TEI answer (tei-convert.js), made in the browser.
const teiViews = { tei: null, md: null, json: null, urls: [] };
function setConversions(text, ep) {
  teiViews.urls.forEach((u) => URL.revokeObjectURL(u));
  teiViews.urls = [];
  teiViews.tei = text;
  teiViews.md = null;
  teiViews.json = null;
  if (text !== null) {
    try {
      teiViews.md = TeiConvert.markdown(text);
      teiViews.json = TeiConvert.json(text);
    } catch (e) {
      teiViews.md = null; // not a TEI document (a raw-string fragment): TEI view only
      teiViews.json = null;
    }
  }
  for (const [kind, id, mime, ext] of [["md", "tei-download-md", "text/markdown", "md"],
    ["json", "tei-download-json", "application/json", "json"]]) {
    const a = $(id);
    if (teiViews[kind] === null) {
      a.classList.add("disabled");
      a.removeAttribute("href");
      continue;
    }
    const url = URL.createObjectURL(new Blob([teiViews[kind]], { type: mime }));
    teiViews.urls.push(url);
    a.href = url;
    a.download = `${ep}.${ext}`;
    a.classList.remove("disabled");
  }
  $("tei-view-tei").disabled = text === null;
  $("tei-view-md").disabled = teiViews.md === null;
  $("tei-view-json").disabled = teiViews.json === null;
  markView("tei");
}
function markView(kind) {
  for (const k of ["tei", "md", "json"]) $(`tei-view-${k}`).classList.toggle("on", k === kind);
}
function showView(kind) {
  const out = $("tei-output");
  if (kind === "tei") {
    const folding = showXml(out, teiViews.tei);
    $("tei-expand").disabled = !folding;
    $("tei-collapse").disabled = !folding;
    out.dataset.text = teiViews.tei;
  } else {
    showText(out, teiViews[kind]);
    out.dataset.text = teiViews[kind];
    $("tei-expand").disabled = true;
    $("tei-collapse").disabled = true;
  }
  markView(kind);
}
$("tei-view-tei").addEventListener("click", () => showView("tei"));
$("tei-view-md").addEventListener("click", () => showView("md"));
$("tei-view-json").addEventListener("click", () => showView("json"));

function foldAll(open) { document.querySelectorAll("#tei-output details").forEach((d) => { d.open = open; }); }
$("tei-expand").addEventListener("click", () => foldAll(true));
$("tei-collapse").addEventListener("click", () => {
  foldAll(false);
  const root = document.querySelector("#tei-output > details");
  if (root) root.open = true;
});

async function copyText(text, button) {
  try {
    await navigator.clipboard.writeText(text);
  } catch (e) {
    const area = document.createElement("textarea");
    area.value = text;
    document.body.appendChild(area);
    area.select();
    document.execCommand("copy");
    area.remove();
  }
  const label = button.textContent;
  button.textContent = "copied";
  setTimeout(() => { button.textContent = label; }, 1200);
}
$("tei-copy").addEventListener("click", () => copyText($("tei-output").dataset.text || "", $("tei-copy")));

// ---------------------------------------------------------------------------------------
// PDF tab

const TEI_NS = "http://www.tei-c.org/ns/1.0";
let annotated = null; // object URL of the annotatePDF output

function pdfStatus(text, bad) {
  $("pdf-status").textContent = text;
  $("pdf-status").className = `status${bad ? " bad" : ""}`;
}

function pdfForm(file, extra) {
  const body = new FormData();
  body.append("input", file);
  body.append("consolidateCitations", $("pdf-consolidateCitations").value);
  for (const [k, v] of extra) body.append(k, v);
  return body;
}

// A box of the annotations as a positioned element over its page.
function drawBox(layer, page, box, cls, title) {
  const el = document.createElement(cls.includes("marker") ? "button" : "div");
  el.className = `box ${cls}`;
  el.style.left = `${(100 * box.x) / page.page_width}%`;
  el.style.top = `${(100 * box.y) / page.page_height}%`;
  el.style.width = `${(100 * box.w) / page.page_width}%`;
  el.style.height = `${(100 * box.h) / page.page_height}%`;
  if (title) el.title = title;
  layer.appendChild(el);
  return el;
}

// The parsed references of processReferences, by id (`b0`…).
function referencesById(xml) {
  const out = {};
  const doc = new DOMParser().parseFromString(xml, "application/xml");
  for (const b of doc.getElementsByTagNameNS(TEI_NS, "biblStruct")) {
    const id = b.getAttribute("xml:id");
    if (id) out[id] = b;
  }
  return out;
}

function field(label, value) {
  if (!value) return "";
  return `<dt>${esc(label)}</dt><dd>${value}</dd>`;
}

// A biblStruct shown as fields.
function describeReference(id, bib, entity) {
  const get = (sel) => Array.from(bib.querySelectorAll(sel));
  const text = (sel) => { const e = bib.querySelector(sel); return e ? esc(e.textContent.trim()) : ""; };
  const authors = get("analytic author persName, monogr author persName").map((p) => esc(Array.from(p.children).map((c) => c.textContent.trim()).join(" ") || p.textContent.trim())).join("; ");
  const date = bib.querySelector("date[when]");
  const idnos = get("idno").map((i) => `${esc(i.getAttribute("type") || "")} ${esc(i.textContent.trim())}`).join(", ");
  const pages = bib.querySelector("biblScope[unit=page]");
  const pageText = pages ? esc(pages.getAttribute("from") ? `${pages.getAttribute("from")}–${pages.getAttribute("to") || ""}` : pages.textContent) : "";
  const raw = bib.querySelector("note[type=raw_reference]");
  const url = entity && entity.url ? `<a href="${esc(entity.url)}" target="_blank" rel="noopener">${esc(entity.url)}</a>` : "";
  return `<p class="refid">${esc(id)}</p><dl>`
    + field("title", text("analytic title") || text("monogr title[level=m]"))
    + field("authors", authors)
    + field("in", text("monogr title[level=j]") || text("monogr title[level=m]"))
    + field("volume", text("biblScope[unit=volume]"))
    + field("issue", text("biblScope[unit=issue]"))
    + field("pages", pageText)
    + field("date", date ? esc(date.getAttribute("when")) : "")
    + field("publisher", text("publisher"))
    + field("identifiers", idnos)
    + field("link", url)
    + field("raw", raw ? esc(raw.textContent) : "")
    + "</dl>";
}

let pdfData = null; // {ann, refs, layers}

function selectReference(id) {
  if (!pdfData) return;
  document.querySelectorAll(".box.selected").forEach((b) => b.classList.remove("selected"));
  const side = $("pdf-ref");
  const entity = pdfData.ann.refBibs.find((r) => r.id === id);
  const bib = pdfData.refs[id];
  side.innerHTML = bib ? describeReference(id, bib, entity) : `<p class="refid">${esc(id)}</p><p>not among the parsed references</p>`;
  document.querySelectorAll(`.box.ref[data-id="${CSS.escape(id)}"]`).forEach((b) => b.classList.add("selected"));
  const first = document.querySelector(`.box.ref[data-id="${CSS.escape(id)}"]`);
  if (first) first.scrollIntoView({ behavior: "smooth", block: "center" });
}

function selectTarget(id) {
  document.querySelectorAll(".box.selected").forEach((b) => b.classList.remove("selected"));
  const first = document.querySelector(`.box.target[data-id="${CSS.escape(id)}"]`);
  document.querySelectorAll(`.box.target[data-id="${CSS.escape(id)}"]`).forEach((b) => b.classList.add("selected"));
  $("pdf-ref").innerHTML = `<p class="refid">${esc(id)}</p>`;
  if (first) first.scrollIntoView({ behavior: "smooth", block: "center" });
}

function drawAnnotations(ann, images) {
  const pages = $("pdf-pages");
  pages.textContent = "";
  const layers = ann.pages.map((size, i) => {
    const wrap = document.createElement("div");
    wrap.className = "page";
    wrap.style.aspectRatio = `${size.page_width} / ${size.page_height}`;
    wrap.dataset.page = String(i + 1);
    const img = document.createElement("img");
    img.src = images[i];
    img.alt = `page ${i + 1}`;
    wrap.appendChild(img);
    const layer = document.createElement("div");
    layer.className = "layer";
    wrap.appendChild(layer);
    const n = document.createElement("span");
    n.className = "pageno";
    n.textContent = `${i + 1} / ${ann.pages.length}`;
    wrap.appendChild(n);
    pages.appendChild(wrap);
    return layer;
  });
  const on = (box) => layers[box.p - 1] && ann.pages[box.p - 1];
  for (const r of ann.refBibs) {
    for (const box of r.pos || []) {
      if (!on(box)) continue;
      drawBox(layers[box.p - 1], ann.pages[box.p - 1], box, "ref", r.url || r.id).dataset.id = r.id;
    }
  }
  const targets = [["formulas", "formula"], ["figures", "figure"], ["tables", "figure"]];
  for (const [key, cls] of targets) {
    for (const e of ann[key] || []) {
      for (const box of e.pos || []) {
        if (!on(box)) continue;
        drawBox(layers[box.p - 1], ann.pages[box.p - 1], box, `target ${cls}`, e.id).dataset.id = e.id;
      }
    }
  }
  const markers = [["refMarkers", "marker"], ["formulaMarkers", "marker formula"], ["figureMarkers", "marker figure"], ["tableMarkers", "marker figure"]];
  for (const [key, cls] of markers) {
    for (const m of ann[key] || []) {
      if (!on(m)) continue;
      const el = drawBox(layers[m.p - 1], ann.pages[m.p - 1], m, m.id ? cls : `${cls} unresolved`, m.id ? `→ ${m.id}` : "unresolved callout");
      if (!m.id) { el.disabled = true; continue; }
      el.dataset.id = m.id;
      el.addEventListener("click", () => (key === "refMarkers" ? selectReference(m.id) : selectTarget(m.id)));
    }
  }
}

$("pdf-form").addEventListener("submit", async (ev) => {
  ev.preventDefault();
  const file = $("pdf-file").files[0];
  if (!file) { pdfStatus("choose a PDF first", true); return; }
  $("pdf-send").disabled = true;
  pdfStatus("annotating…");
  const extra = [];
  if ($("pdf-includeRawCitations").checked) extra.push(["includeRawCitations", "1"]);
  if ($("pdf-includeFiguresTables").checked) extra.push(["includeFiguresTables", "1"]);
  try {
    const [a, r] = await Promise.all([
      timed("/api/referenceAnnotations", { method: "POST", body: pdfForm(file, extra) }),
      timed("/api/processReferences", { method: "POST", body: pdfForm(file, [["includeRawCitations", "1"]]) }),
    ]);
    if (!a.res.ok) { pdfStatus(`referenceAnnotations: ${a.res.status} ${await a.blob.text()}`, true); return; }
    const ann = JSON.parse(await a.blob.text());
    const refs = r.res.ok ? referencesById(await r.blob.text()) : {};
    pdfStatus(`referenceAnnotations ${a.res.status} · ${a.ms} ms · rendering ${ann.pages.length} page(s)…`);
    const sizes = ann.pages.map((p) => `${p.page_width},${p.page_height}`).join(";");
    const body = new FormData();
    body.append("input", file);
    body.append("sizes", sizes);
    body.append("scale", String(Math.min(3, 1.5 * (window.devicePixelRatio || 1))));
    const p = await timed("/console/pages", { method: "POST", body });
    if (!p.res.ok) { pdfStatus(`page images: ${p.res.status} ${await p.blob.text()}`, true); return; }
    const images = JSON.parse(await p.blob.text()).pages;
    pdfData = { ann, refs };
    drawAnnotations(ann, images);
    const markers = (ann.refMarkers || []).length;
    pdfStatus(`referenceAnnotations ${a.res.status} · ${a.ms} ms · ${ann.refBibs.length} references, ${markers} callout boxes · pages ${p.ms} ms`);
    $("pdf-annotate").disabled = false;
  } catch (e) {
    pdfStatus(`error: ${e}`, true);
  } finally {
    $("pdf-send").disabled = false;
  }
});

$("pdf-annotate").addEventListener("click", async () => {
  const file = $("pdf-file").files[0];
  if (!file) return;
  $("pdf-annotate").disabled = true;
  pdfStatus("annotatePDF…");
  try {
    const { res, blob, ms } = await timed("/api/annotatePDF", { method: "POST", body: pdfForm(file, []) });
    if (!res.ok) { pdfStatus(`annotatePDF: ${res.status} ${await blob.text()}`, true); return; }
    if (annotated) URL.revokeObjectURL(annotated);
    annotated = URL.createObjectURL(blob);
    const dl = $("pdf-download");
    dl.href = annotated;
    dl.download = file.name.replace(/\.pdf$/i, "") + ".annotated.pdf";
    dl.classList.remove("disabled");
    pdfStatus(`annotatePDF ${res.status} · ${ms} ms · ${kb(blob.size)}`);
  } catch (e) {
    pdfStatus(`error: ${e}`, true);
  } finally {
    $("pdf-annotate").disabled = false;
  }
});

// ---------------------------------------------------------------------------------------
// Patent tab: enabled when the server serves the patent endpoints

function syncPatentForm() {
  const opt = $("patent-endpoint").selectedOptions[0];
  const file = opt.dataset.kind === "file";
  $("patent-file-label").hidden = !file;
  $("patent-text-label").hidden = file;
  $("patent-raw-label").hidden = opt.value === "citationPatentAnnotations";
  $("patent-file").accept = opt.value === "processCitationPatentST36" ? ".xml,application/xml,text/xml" : "application/pdf,.pdf";
}
$("patent-endpoint").addEventListener("change", syncPatentForm);
syncPatentForm();

info.then((i) => {
  const served = new Set(i.patent || []);
  document.querySelectorAll("#patent-endpoint option").forEach((o) => { o.disabled = !served.has(o.value); });
  const first = Array.from($("patent-endpoint").options).find((o) => !o.disabled);
  if (!first) {
    $("patent-state").textContent = "The patent endpoints (processCitationPatentTXT, processCitationPatentST36, processCitationPatentPDF, citationPatentAnnotations) are not available on this server: they need a trained patent-citation model (see /api/health). The tab enables itself once the model is there.";
    return;
  }
  $("patent-endpoint").value = first.value;
  syncPatentForm();
  const missing = Array.from($("patent-endpoint").options).filter((o) => o.disabled).map((o) => o.value);
  $("patent-state").textContent = "Patent citations: TEI from a patent's text, ST.36 XML or PDF; citationPatentAnnotations gives the JSON boxes."
    + (missing.length ? ` Not served here: ${missing.join(", ")}.` : "");
  $("patent-form").hidden = false;
}).catch(() => { $("patent-state").textContent = "service unreachable"; });

$("patent-form").addEventListener("submit", async (ev) => {
  ev.preventDefault();
  const ep = $("patent-endpoint").value;
  const opt = $("patent-endpoint").selectedOptions[0];
  let body;
  if (opt.dataset.kind === "file") {
    const file = $("patent-file").files[0];
    if (!file) { $("patent-status").textContent = "choose a file first"; $("patent-result").hidden = false; return; }
    body = new FormData();
    body.append("input", file);
  } else {
    body = new URLSearchParams();
    body.append("input", $("patent-text").value);
  }
  body.append("consolidateCitations", $("patent-consolidateCitations").value);
  if (!$("patent-raw-label").hidden && $("patent-includeRawCitations").checked) body.append("includeRawCitations", "1");
  $("patent-result").hidden = false;
  $("patent-status").textContent = "working…";
  try {
    const { res, blob, ms } = await timed(`/api/${ep}`, { method: "POST", body });
    statusLine($("patent-status"), res, ms, blob.size);
    const text = await blob.text();
    const type = res.headers.get("content-type") || "";
    if (res.ok && type.includes("json")) showText($("patent-output"), JSON.stringify(JSON.parse(text), null, 2));
    else if (res.ok && type.includes("xml")) showXml($("patent-output"), text);
    else showText($("patent-output"), text || "(empty body)");
  } catch (e) {
    $("patent-status").textContent = `network error: ${e}`;
  }
});
