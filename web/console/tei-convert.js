"use strict";
// Markdown and JSON renderings of a TEI answer, in the browser: the same document structure
// and the same Markdown as `quire convert` (src/tei/convert.rs; docs/convert.md describes the
// JSON). Reads TEI only; a document that is not well-formed XML or not TEI throws an Error.

const TeiConvert = (() => {
  const collapse = (s) => s.split(/\s+/).filter(Boolean).join(" ");
  const nonEmpty = (s) => (s ? s : null);
  const elems = (e) => Array.from(e.childNodes).filter((n) => n.nodeType === 1);
  const child = (e, name) => (e ? elems(e).find((c) => c.localName === name) || null : null);
  const children = (e, name) => (e ? elems(e).filter((c) => c.localName === name) : []);
  const path = (e, names) => names.reduce((at, n) => child(at, n), e);

  function find(e, name) {
    for (const c of elems(e)) {
      if (c.localName === name) return c;
      const f = find(c, name);
      if (f) return f;
    }
    return null;
  }
  function findAll(e, name, out = []) {
    for (const c of elems(e)) {
      if (c.localName === name) out.push(c);
      else findAll(c, name, out);
    }
    return out;
  }
  function rawText(e) {
    let s = "";
    for (const n of Array.from(e.childNodes)) {
      if (n.nodeType === 3 || n.nodeType === 4) s += n.nodeValue;
      else if (n.nodeType === 1) s += n.localName === "lb" ? " " : rawText(n);
    }
    return s;
  }
  const text = (e) => collapse(rawText(e));
  const attr = (e, name) => (e && e.hasAttribute(name) ? e.getAttribute(name) : null);
  const targetId = (t) => (t.trim().split(/\s+/)[0] || "").replace(/^#/, "");

  function inlines(e, out) {
    for (const n of Array.from(e.childNodes)) {
      if (n.nodeType === 3 || n.nodeType === 4) out.push({ text: n.nodeValue });
      else if (n.nodeType !== 1) continue;
      else if (n.localName === "lb") out.push({ text: " " });
      else if (n.localName === "ref") {
        const t = attr(n, "target");
        out.push({ ref: text(n), target: t && targetId(t) ? targetId(t) : null });
      } else if (n.localName === "s") {
        inlines(n, out);
        out.push({ text: " " });
      } else inlines(n, out);
    }
  }

  // A paragraph: pieces of text and callouts, white space collapsed across them.
  function para(e) {
    const parts = [];
    inlines(e, parts);
    const out = [];
    let pending = false;
    for (const p of parts) {
      if (p.text !== undefined) {
        const starts = /^\s/.test(p.text);
        const ends = /\s$/.test(p.text);
        const c = collapse(p.text);
        if (!c) { pending = pending || p.text.length > 0; continue; }
        const t = (pending || starts) && out.length ? " " + c : c;
        const last = out[out.length - 1];
        if (last && last.text !== undefined) last.text += t;
        else out.push({ text: t });
        pending = ends;
      } else {
        if (pending && out.length) {
          const last = out[out.length - 1];
          if (last.text !== undefined) last.text += " ";
          else out.push({ text: " " });
        }
        pending = false;
        out.push(p);
      }
    }
    return out;
  }
  const paraText = (p) => collapse(p.map((x) => (x.text !== undefined ? x.text : x.ref)).join(""));

  function formula(e) {
    const label = child(e, "label");
    let body = "";
    for (const n of Array.from(e.childNodes)) {
      if (n.nodeType === 3 || n.nodeType === 4) body += n.nodeValue;
      else if (n.nodeType === 1 && n.localName !== "label") body += rawText(n);
    }
    let t = collapse(body);
    const l = label ? text(label) : "";
    if (l) t = t ? `${t} ${l}` : l;
    return [{ text: t }];
  }

  function figure(e) {
    const table = child(e, "table");
    return {
      id: attr(e, "xml:id"),
      type: attr(e, "type") === "table" ? "table" : "figure",
      label: nonEmpty(child(e, "label") ? text(child(e, "label")) : ""),
      head: nonEmpty(child(e, "head") ? text(child(e, "head")) : ""),
      caption: nonEmpty(child(e, "figDesc") ? text(child(e, "figDesc")) : ""),
      rows: table ? children(table, "row").map((r) => children(r, "cell").map(text)) : [],
    };
  }
  const note = (e) => ({ id: attr(e, "xml:id"), n: attr(e, "n"), text: text(e) });

  function section(div, doc) {
    const out = [{
      kind: attr(div, "type"),
      head: nonEmpty(child(div, "head") ? text(child(div, "head")) : ""),
      n: attr(child(div, "head"), "n"),
      paragraphs: [],
    }];
    for (const c of elems(div)) {
      const name = c.localName;
      if (name === "p" || name === "ab" || name === "list") {
        const p = para(c);
        if (paraText(p)) out[0].paragraphs.push(p);
      } else if (name === "formula") out[0].paragraphs.push(formula(c));
      else if (name === "figure") doc.figures.push(figure(c));
      else if (name === "note") doc.notes.push(note(c));
      else if (name === "div") {
        // Nested divisions follow, of the wrapper's kind unless they have their own.
        for (const inner of section(c, doc)) {
          if (!inner.kind) inner.kind = out[0].kind;
          out.push(inner);
        }
      }
    }
    return out.filter((s) => s.head || s.paragraphs.length);
  }

  function persName(p) {
    const forename = nonEmpty(children(p, "forename").map(text).join(" "));
    const surname = nonEmpty(child(p, "surname") ? text(child(p, "surname")) : "");
    const name = forename || surname ? collapse(`${forename || ""} ${surname || ""}`) : text(p);
    return { name, forename, surname };
  }

  function affiliation(a) {
    const parts = children(a, "orgName").map(text);
    const addr = child(a, "address");
    if (addr) parts.push(...elems(addr).map(text));
    const kept = parts.filter(Boolean);
    if (kept.length) return kept.join(", ");
    return child(a, "note") ? text(child(a, "note")) : text(a);
  }

  const doiOf = (e) => {
    const i = findAll(e, "idno").find((x) => (attr(x, "type") || "").toLowerCase() === "doi");
    return i ? nonEmpty(text(i)) : null;
  };

  function reference(b) {
    const analytic = child(b, "analytic");
    const monogr = child(b, "monogr");
    const titleOf = (e) => (child(e, "title") ? nonEmpty(text(child(e, "title"))) : null);
    const authorsOf = (e) => children(e, "author")
      .map((a) => child(a, "persName")).filter(Boolean).map((p) => persName(p).name).filter(Boolean);
    let authors = analytic ? authorsOf(analytic) : [];
    if (!authors.length && monogr) authors = authorsOf(monogr);
    const at = analytic ? titleOf(analytic) : null;
    const mt = monogr ? titleOf(monogr) : null;
    const imprint = child(monogr, "imprint");
    const scope = (unit) => {
      const s = children(imprint, "biblScope").find((x) => attr(x, "unit") === unit);
      if (!s) return null;
      const from = attr(s, "from");
      const to = attr(s, "to");
      if (from && to) return `${from}-${to}`;
      if (from) return from;
      return nonEmpty(text(s));
    };
    const date = child(imprint, "date");
    const raw = children(b, "note").find((n) => attr(n, "type") === "raw_reference");
    return {
      id: attr(b, "xml:id"),
      authors,
      title: at || mt,
      venue: at ? mt : null,
      date: date ? attr(date, "when") || nonEmpty(text(date)) : null,
      volume: scope("volume"),
      issue: scope("issue"),
      pages: scope("page"),
      doi: doiOf(b),
      raw: raw ? nonEmpty(text(raw)) : null,
    };
  }

  function referenceLine(r) {
    const parts = [];
    if (r.authors.length) parts.push(r.authors.join(", "));
    if (r.title) parts.push(r.title);
    let venue = r.venue || "";
    if (r.volume) venue = venue ? `${venue}, ${r.volume}` : r.volume;
    if (r.issue) venue += `(${r.issue})`;
    if (r.pages) venue = venue ? `${venue}, ${r.pages}` : r.pages;
    if (venue) parts.push(venue);
    if (r.date) parts.push(r.date);
    if (r.doi) parts.push(`doi:${r.doi}`);
    if (!parts.length) return r.raw || "";
    const kept = parts.map((p) => p.trim().replace(/\.+$/, "")).filter(Boolean);
    if (!kept.length) return r.raw || "";
    // No period after a DOI, which could be read as part of it.
    return kept.join(". ") + (kept[kept.length - 1].startsWith("doi:") ? "" : ".");
  }

  // The converted document (paragraphs still hold their callouts).
  function read(xmlText) {
    const xml = new DOMParser().parseFromString(xmlText, "application/xml");
    const err = xml.getElementsByTagName("parsererror")[0];
    if (err) throw new Error(`not a readable TEI document: ${collapse(err.textContent).slice(0, 300)}`);
    const root = xml.documentElement;
    if (!root || root.localName !== "TEI") {
      throw new Error(`not a readable TEI document: the root element is <${root ? root.localName : "?"}>, not <TEI>`);
    }
    const doc = { title: null, authors: [], date: null, doi: null, keywords: [], abstract: [],
      sections: [], figures: [], notes: [], back: [], references: [] };
    const header = child(root, "teiHeader");
    if (header) {
      const ts = path(header, ["fileDesc", "titleStmt"]);
      const titles = children(ts, "title");
      const t = titles.find((x) => attr(x, "type") === "main") || titles[0];
      doc.title = t ? nonEmpty(text(t)) : null;
      const source = path(header, ["fileDesc", "sourceDesc", "biblStruct"]);
      for (const a of children(child(source, "analytic"), "author")) {
        const p = child(a, "persName");
        if (!p) continue;
        const n = persName(p);
        if (!n.name) continue;
        doc.authors.push({ name: n.name, forename: n.forename, surname: n.surname,
          email: child(a, "email") ? nonEmpty(text(child(a, "email"))) : null,
          affiliations: children(a, "affiliation").map(affiliation).filter(Boolean) });
      }
      doc.doi = source ? doiOf(source) : null;
      const pub = path(header, ["fileDesc", "publicationStmt"]);
      const d = child(pub, "date") || (source ? find(source, "date") : null);
      doc.date = d ? attr(d, "when") || nonEmpty(text(d)) : null;
      const profile = child(header, "profileDesc");
      if (profile) {
        const k = find(profile, "keywords");
        if (k) doc.keywords = children(k, "term").map(text).filter(Boolean);
        const abs = child(profile, "abstract");
        if (abs) doc.abstract = findAll(abs, "p").map(para).filter((p) => paraText(p));
      }
    }
    const txt = child(root, "text");
    const body = child(txt, "body");
    if (body) {
      for (const e of elems(body)) {
        const name = e.localName;
        if (name === "div") doc.sections.push(...section(e, doc));
        else if (name === "figure") doc.figures.push(figure(e));
        else if (name === "note") doc.notes.push(note(e));
        else if (name === "p" || name === "formula") {
          const p = name === "p" ? para(e) : formula(e);
          const last = doc.sections[doc.sections.length - 1];
          if (last && !last.head) last.paragraphs.push(p);
          else doc.sections.push({ kind: null, head: null, n: null, paragraphs: [p] });
        }
      }
    }
    const back = child(txt, "back");
    if (back) {
      for (const e of elems(back)) {
        const name = e.localName;
        if (name === "div" && attr(e, "type") !== "references") {
          const kind = attr(e, "type");
          const s = section(e, doc);
          s.forEach((x) => { if (!x.kind) x.kind = kind; });
          doc.back.push(...s);
        } else if (name === "figure") doc.figures.push(figure(e));
        else if (name === "note") doc.notes.push(note(e));
      }
    }
    if (txt) {
      for (const l of findAll(txt, "listBibl")) {
        for (const b of children(l, "biblStruct")) doc.references.push(reference(b));
      }
    }
    return doc;
  }

  const sectionsJson = (ss, withKind) => ss.map((s) => {
    const v = { head: s.head, n: s.n, paragraphs: s.paragraphs.map(paraText) };
    if (withKind) v.type = s.kind;
    return v;
  });

  function toJson(doc) {
    return {
      title: doc.title,
      authors: doc.authors,
      date: doc.date,
      doi: doc.doi,
      keywords: doc.keywords,
      abstract: doc.abstract.map(paraText),
      sections: sectionsJson(doc.sections, false),
      figures: doc.figures,
      notes: doc.notes,
      back: sectionsJson(doc.back, true),
      references: doc.references.map((r) => ({ ...r, text: referenceLine(r) })),
    };
  }

  const inlineEscape = (s) => s.replace(/[\\*_[\]`<>|]/g, (c) => "\\" + c);
  function mdEscape(s) {
    let out = inlineEscape(s);
    if (/^[#+-]/.test(out)) out = "\\" + out;
    const m = /^(\d+)\. /.exec(out);
    if (m) out = m[1] + "\\" + out.slice(m[1].length);
    return out;
  }
  function mdPara(p) {
    return p.map((x, i) => {
      if (x.text !== undefined) return i === 0 ? mdEscape(x.text) : inlineEscape(x.text);
      return x.target ? `[${inlineEscape(x.ref)}](#${x.target})` : inlineEscape(x.ref);
    }).join("");
  }
  function heading(s, fallback) {
    const n = s.n ? `${s.n} ` : "";
    return `## ${inlineEscape(n)}${inlineEscape(s.head || fallback)}\n\n`;
  }
  const BACK_HEADS = { acknowledgement: "Acknowledgements", funding: "Funding", availability: "Availability", annex: "Annex" };

  function toMarkdown(doc) {
    let md = `# ${inlineEscape(doc.title || "Untitled")}\n\n`;
    if (doc.authors.length) md += doc.authors.map((a) => inlineEscape(a.name)).join(", ") + "\n\n";
    const meta = [];
    if (doc.date) meta.push(`Date: ${inlineEscape(doc.date)}`);
    if (doc.doi) meta.push(`DOI: ${inlineEscape(doc.doi)}`);
    if (doc.keywords.length) meta.push(`Keywords: ${doc.keywords.map(inlineEscape).join("; ")}`);
    if (meta.length) md += meta.join("  \n") + "\n\n";
    if (doc.abstract.length) {
      md += "## Abstract\n\n";
      for (const p of doc.abstract) md += mdPara(p) + "\n\n";
    }
    for (const s of doc.sections) {
      md += heading(s, "Untitled section");
      for (const p of s.paragraphs) md += mdPara(p) + "\n\n";
    }
    if (doc.figures.length) {
      md += "## Figures and tables\n\n";
      for (const f of doc.figures) {
        if (f.id) md += `<a id="${f.id}"></a>`;
        const kind = f.type === "table" ? "Table" : "Figure";
        const name = f.head || (f.label ? `${kind} ${f.label}` : kind);
        md += `**${inlineEscape(name)}**`;
        if (f.caption) md += ` ${inlineEscape(f.caption)}`;
        md += "\n\n";
        if (f.rows.length) {
          const width = Math.max(1, ...f.rows.map((r) => r.length));
          const row = (cells) => {
            const r = cells.map(inlineEscape);
            while (r.length < width) r.push("");
            return `| ${r.join(" | ")} |\n`;
          };
          md += row(f.rows[0]) + "|" + " --- |".repeat(width) + "\n";
          for (const r of f.rows.slice(1)) md += row(r);
          md += "\n";
        }
      }
    }
    if (doc.notes.length) {
      md += "## Notes\n\n";
      for (const n of doc.notes) {
        if (n.id) md += `<a id="${n.id}"></a>`;
        if (n.n) md += `${inlineEscape(n.n)}: `;
        md += inlineEscape(n.text) + "\n\n";
      }
    }
    for (const s of doc.back) {
      md += heading(s, BACK_HEADS[s.kind] || "Back matter");
      for (const p of s.paragraphs) md += mdPara(p) + "\n\n";
    }
    if (doc.references.length) {
      md += "## References\n\n";
      doc.references.forEach((r, i) => {
        const anchor = r.id ? `<a id="${r.id}"></a>` : "";
        md += `${i + 1}. ${anchor}${inlineEscape(referenceLine(r))}\n`;
      });
      md += "\n";
    }
    return md.trimEnd() + "\n";
  }

  // Keys sorted, as `quire convert --to json` writes them.
  function sortKeys(v) {
    if (Array.isArray(v)) return v.map(sortKeys);
    if (v && typeof v === "object") {
      const out = {};
      for (const k of Object.keys(v).sort()) out[k] = sortKeys(v[k]);
      return out;
    }
    return v;
  }

  return {
    markdown: (xmlText) => toMarkdown(read(xmlText)),
    json: (xmlText) => JSON.stringify(sortKeys(toJson(read(xmlText))), null, 2) + "\n",
  };
})();
