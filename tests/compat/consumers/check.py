"""Runs every GROBID TEI consumer, unchanged, over the TEI answers of a real Quire server.

Executed with the private virtual environment's Python by `__main__.py`:

    check.py JOBS.json URL [grobid]

JOBS.json is a list of {"name", "tei", "pdf", "abstract": bool, "live": bool}. For each
document every consumer reads the cached TEI answer (the full text the grobid-client-python run
fetched once per PDF); for documents marked `live` (the generated PDFs) the consumers that talk
to the server themselves (scipdf, langchain's GrobidParser, PyPI `grobid`'s client) also run
their own request. One JSON line per (document, consumer) goes to standard output:
{"doc", "consumer", "ok", "why"}. PyPI `grobid` pins versions (lxml<5, httpx<0.24) that the
others cannot share, so it has a virtual environment of its own: with the argument `grobid`
only it runs, otherwise all the others.

How each consumer is run, and what its output must hold (title, authors, abstract where the
PDF has one, sections with text, references: as far as the consumer exposes them):

- grobid-client-python: its TEI to JSON and TEI to Markdown converters (`format/`), as its
  `--json` and `--markdown` options run them: both must give a document, the JSON one with a
  title, authors, body text and references;
- scipdf-parser: `convert_article_soup_to_dict(BeautifulSoup(tei, "lxml"))`, what
  `parse_pdf_to_dict` runs on the answer;
- langchain-community: `GrobidParser(segment_sentences=True|False).process_xml(...)`, what
  `lazy_parse` runs on the answer: chunks with text, and the paper title;
- grobid-tei-xml: `parse_document_xml`;
- PyPI grobid: `grobid.tei.Parser(bytes).parse()`;
- tei-chunker: `HierarchicalChunker.parse_grobid_xml` and `chunk_document`.
"""

from __future__ import annotations

import json
import sys
import traceback
import warnings


def short(e: BaseException) -> str:
    tb = traceback.extract_tb(e.__traceback__)
    where = ""
    for frame in reversed(tb):
        if "site-packages" in frame.filename:
            where = f" at {frame.filename.split('site-packages/')[-1]}:{frame.lineno}"
            break
    return f"{type(e).__name__}: {str(e)[:200]}{where}"


def missing(fields: dict[str, bool]) -> str | None:
    gone = [k for k, ok in fields.items() if not ok]
    return ("no " + ", no ".join(gone)) if gone else None


# ---------------------------------------------------------------------------------------------


def grobid_client_formats(job, xml):
    from grobid_client.format.TEI2LossyJSON import TEI2LossyJSONConverter
    from grobid_client.format.TEI2Markdown import TEI2MarkdownConverter

    data = TEI2LossyJSONConverter().convert_tei_file(job["tei"], stream=False)
    md = TEI2MarkdownConverter().convert_tei_file(job["tei"])
    if not data:
        return "the JSON converter gave nothing"
    if not md:
        return "the Markdown converter gave nothing"
    biblio = data.get("biblio") or {}
    body = data.get("body_text") or []
    return missing({
        "title": bool(biblio.get("title")),
        "authors": bool(biblio.get("authors")),
        "abstract": bool(biblio.get("abstract")) or not job["abstract"],
        "body text": any((p.get("text") or "").strip() for p in body),
        "references": bool(data.get("references")) or not job["references"],
    })


def scipdf_dict(job, xml):
    from bs4 import BeautifulSoup
    from scipdf.pdf.parse_pdf import convert_article_soup_to_dict

    d = convert_article_soup_to_dict(BeautifulSoup(xml, "lxml"))
    return scipdf_fields(job, d)


def scipdf_fields(job, d):
    if d is None:
        return "no article"
    return missing({
        "title": bool(d.get("title")),
        "authors": bool(d.get("authors", "").strip("; ")),
        "abstract": bool(d.get("abstract", "").strip()) or not job["abstract"],
        "sections with text": any(str(s.get("text", "")).strip() for s in d.get("sections", [])),
        "references": bool(d.get("references")) or not job["references"],
    })


def scipdf_live(job, url):
    from scipdf.pdf.parse_pdf import parse_pdf_to_dict

    return scipdf_fields(job, parse_pdf_to_dict(job["pdf"], grobid_url=url))


def langchain_docs(docs):
    docs = list(docs)
    if not docs:
        return "no chunk"
    title = docs[0].metadata.get("paper_title", "")
    return missing({
        "title": bool(title) and title != "No title found",
        "chunk text": any(d.page_content.strip() for d in docs),
    })


def langchain(segment):
    def run(job, xml):
        from langchain_community.document_loaders.parsers import GrobidParser

        parser = GrobidParser(segment_sentences=segment, grobid_server=URL + "/api/processFulltextDocument")
        return langchain_docs(parser.process_xml(job["pdf"], xml, segment))

    return run


def langchain_live(segment):
    def run(job, url):
        from langchain_community.document_loaders.blob_loaders import Blob
        from langchain_community.document_loaders.parsers import GrobidParser

        parser = GrobidParser(segment_sentences=segment, grobid_server=url + "/api/processFulltextDocument")
        return langchain_docs(parser.lazy_parse(Blob.from_path(job["pdf"])))

    return run


def grobid_tei_xml(job, xml):
    import grobid_tei_xml

    doc = grobid_tei_xml.parse_document_xml(xml)
    h = doc.header
    return missing({
        "title": bool(h and h.title),
        "authors": bool(h and h.authors),
        "abstract": bool(doc.abstract) or not job["abstract"],
        "body text": bool((doc.body or "").strip()),
        "references": bool(doc.citations) or not job["references"],
    })


def grobid_article(job, article):
    def para_text(sec):
        return any(str(p).strip() for p in (getattr(sec, "paragraphs", None) or []))

    b = article.bibliography
    return missing({
        "title": bool(b and b.title),
        "authors": bool(b and b.authors),
        "abstract": bool(article.abstract and para_text(article.abstract)) or not job["abstract"],
        "sections with text": any(para_text(s) for s in article.sections),
        "references": bool(article.citations) or not job["references"],
    })


def pypi_grobid(job, xml):
    from grobid.tei import Parser

    return grobid_article(job, Parser(xml.encode("utf-8")).parse())


def pypi_grobid_live(job, url):
    from grobid.client import Client
    from grobid.models.form import File, Form
    from grobid.tei import Parser

    with open(job["pdf"], "rb") as f:
        form = Form(file=File(payload=f.read(), file_name="doc.pdf", mime_type="application/pdf"))
    res = Client(base_url=url, form=form, timeout=600).sync_request()
    return grobid_article(job, Parser(res.content).parse())


def tei_chunker(job, xml):
    from tei_chunker.chunking import HierarchicalChunker

    ch = HierarchicalChunker(max_chunk_size=2000)
    sections = ch.parse_grobid_xml(xml)
    chunks = ch.chunk_document(sections)
    return missing({
        "sections": bool(sections),
        "abstract": any(s.title == "Abstract" for s in sections) or not job["abstract"],
        "sections with text": any(s.title != "Abstract" and s.full_content.strip() for s in sections),
        "chunks": any(c.strip() for c in chunks),
    })


CACHED = [
    ("grobid-client-python", grobid_client_formats),
    ("scipdf-parser", scipdf_dict),
    ("langchain GrobidParser(segment_sentences=True)", langchain(True)),
    ("langchain GrobidParser(segment_sentences=False)", langchain(False)),
    ("grobid-tei-xml", grobid_tei_xml),
    ("grobid (PyPI)", pypi_grobid),
    ("tei-chunker", tei_chunker),
]

LIVE = [
    ("scipdf-parser", scipdf_live),
    ("langchain GrobidParser(segment_sentences=True)", langchain_live(True)),
    ("langchain GrobidParser(segment_sentences=False)", langchain_live(False)),
    ("grobid (PyPI)", pypi_grobid_live),
]

URL = ""


def main() -> int:
    global URL
    # The consumers' own warnings (bs4 on lxml's HTML parser, langchain's sunset notice) are
    # not findings.
    warnings.filterwarnings("ignore")
    jobs = json.load(open(sys.argv[1]))
    URL = sys.argv[2]
    only_grobid = sys.argv[3:] == ["grobid"]
    cached = [(n, f) for n, f in CACHED if (n == "grobid (PyPI)") == only_grobid]
    live = [(n, f) for n, f in LIVE if (n == "grobid (PyPI)") == only_grobid]
    for job in jobs:
        try:
            xml = open(job["tei"], encoding="utf-8").read()
        except OSError as e:
            for name, _ in cached:
                print(json.dumps({"doc": job["name"], "consumer": name, "ok": False,
                                  "why": f"no TEI answer ({e.strerror})"}), flush=True)
            continue
        runs = [(name, lambda f=f: f(job, xml)) for name, f in cached]
        if job.get("live"):
            runs += [(name + " [own request]", lambda f=f: f(job, URL)) for name, f in live]
        for name, run in runs:
            try:
                why = run()
            except BaseException as e:  # noqa: BLE001 (PyPI grobid raises BaseException subclasses)
                if isinstance(e, KeyboardInterrupt):
                    raise
                why = short(e)
            print(json.dumps({"doc": job["name"], "consumer": name, "ok": why is None, "why": why}),
                  flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
