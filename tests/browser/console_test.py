#!/usr/bin/env python3
"""Drives Quire's console in a real browser (Playwright with Debian's chromium): every tab, the
results on the page, no console error, no request outside the server, a narrow screen.

Usage: console_test.py QUIRE_BINARY [SCREENSHOT_DIR]
The server is started on free 127.0.0.1 ports with the repository's models and libpdfium; the
PDF is generated here (a two-page article with numbered callouts and references). Exits 0 on
success, 1 on a failed check; run.sh decides whether a browser is available at all.
"""
import json
import os
import re
import subprocess
import sys
import tempfile
import time

from playwright.sync_api import sync_playwright

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def pdf_escape(s):
    return s.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")


def make_pdf(pages):
    """A PDF of `pages`, each a list of (x, y, font, size, text), fonts F1 Times-Roman,
    F2 Helvetica-Bold (PDF user space, origin bottom-left)."""
    objs = []
    n_pages = len(pages)
    # 1 catalog, 2 pages, 3 font F1, 4 font F2, then (page, content) pairs.
    kids = " ".join(f"{5 + 2 * i} 0 R" for i in range(n_pages))
    objs.append(b"<< /Type /Catalog /Pages 2 0 R >>")
    objs.append(f"<< /Type /Pages /Kids [{kids}] /Count {n_pages} >>".encode())
    objs.append(b"<< /Type /Font /Subtype /Type1 /BaseFont /Times-Roman /Encoding /WinAnsiEncoding >>")
    objs.append(b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica-Bold /Encoding /WinAnsiEncoding >>")
    for i, lines in enumerate(pages):
        content = "".join(
            f"BT /{font} {size} Tf {x} {y} Td ({pdf_escape(text)}) Tj ET\n"
            for (x, y, font, size, text) in lines
        ).encode("latin-1")
        objs.append(
            f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents {6 + 2 * i} 0 R "
            f"/Resources << /Font << /F1 3 0 R /F2 4 0 R >> >> >>".encode()
        )
        objs.append(b"<< /Length %d >>\nstream\n" % len(content) + content + b"endstream")
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for k, body in enumerate(objs):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % (k + 1) + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objs) + 1)
    for off in offsets:
        out += b"%010d 00000 n \n" % off
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objs) + 1, xref)
    return bytes(out)


def paragraph(x, y, lines, size=10, lead=12):
    return [(x, y - k * lead, "F1", size, t) for k, t in enumerate(lines)]


def article():
    page1 = [
        (72, 720, "F2", 16, "Estimating Soil Moisture from Satellite Images"),
        (72, 696, "F1", 11, "Maria Lopez and Hans Berger"),
        (72, 682, "F1", 10, "Department of Geography, University of Lisbon, Portugal"),
        (72, 650, "F2", 11, "Abstract"),
    ] + paragraph(72, 634, [
        "We present a simple method to estimate soil moisture from satellite images and",
        "evaluate it on three sites. The errors stay small across all seasons of the year.",
    ]) + [(72, 590, "F2", 12, "1 Introduction")] + paragraph(72, 572, [
        "Soil moisture controls the exchange of water and energy between the land and the",
        "atmosphere [1]. Measuring it over large areas has long been a challenge for hydrology",
        "and many methods were proposed over the last decades, with mixed results [2, 3].",
        "In this paper we describe a simple and robust approach that works at large scale.",
        "The approach builds on radiometer corrections [2] and land surface models [3].",
    ]) + [(300, 40, "F1", 9, "1")]
    page2 = [(72, 720, "F2", 12, "References")] + [
        (72, 700 - 16 * k, "F1", 9, r) for k, r in enumerate([
            "[1] Smith J, Brown A. Measuring the moisture of soils from space. Journal of Hydrology 12(3):45-67, 2001.",
            "[2] Garcia M, Chen L. A statistical correction for satellite radiometers. Remote Sensing of Environment 45(2):101-117, 2015.",
            "[3] Okafor E. Water and energy exchange at the land surface. Cambridge University Press, 2009.",
        ])
    ] + [(300, 40, "F1", 9, "2")]
    return make_pdf([page1, page2])


def start_server(binary, workdir):
    cfg = os.path.join(workdir, "config.toml")
    with open(cfg, "w") as f:
        f.write(
            "[server]\nhost = \"127.0.0.1\"\nport = 0\nadmin_port = 0\n"
            f"[models]\ndir = {os.path.join(ROOT, 'models')!r}\n"
            f"pdfium_lib = {os.path.join(ROOT, 'vendor/pdfium/libpdfium.so')!r}\n".replace("'", '"')
        )
    proc = subprocess.Popen(
        [binary, "serve", "--config", cfg],
        stdout=subprocess.PIPE,
        stderr=open(os.path.join(workdir, "server.log"), "w"),
        text=True,
    )
    line = proc.stdout.readline()
    m = re.search(r"api=([\d.]+:\d+) admin=([\d.]+:\d+)", line)
    if not m:
        proc.kill()
        raise SystemExit(f"the server did not start: {line!r}")
    return proc, f"http://{m.group(1)}", m.group(2).split(":")[1]


class Checks:
    def __init__(self):
        self.failed = []

    def check(self, ok, what):
        print(("ok    " if ok else "FAIL  ") + what)
        if not ok:
            self.failed.append(what)


def main():
    binary = sys.argv[1]
    shots = sys.argv[2] if len(sys.argv) > 2 else None
    work = tempfile.mkdtemp(prefix="quire-console-")
    pdf_path = os.path.join(work, "article.pdf")
    with open(pdf_path, "wb") as f:
        f.write(article())
    proc, base, admin_port = start_server(binary, work)
    c = Checks()
    errors, outside = [], []
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(
                executable_path=os.environ.get("CHROMIUM", "/usr/bin/chromium"),
                args=["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"],
            )
            page = browser.new_page(viewport={"width": 1280, "height": 900})
            page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.on("request", lambda r: None if r.url.startswith(base) or r.url.startswith(("data:", "blob:"))
                    else outside.append(r.url))
            # Wait for the models to be ready.
            for _ in range(120):
                if page.request.get(f"{base}/api/isalive").ok:
                    break
                time.sleep(0.5)
            page.goto(base + "/")
            page.wait_for_function("document.getElementById('status').textContent.includes('alive')")
            c.check(page.get_attribute("#admin-link", "href").endswith(f":{admin_port}/metrics"),
                    "the admin link points at the admin server's metrics")

            # TEI tab: a raw string, then the full text with coordinates.
            page.select_option("#tei-endpoint", "processDate")
            page.click("#tei-send")
            page.wait_for_selector("#tei-status.ok")
            c.check("when" in page.inner_text("#tei-output"), "processDate answers a date with @when")
            page.select_option("#tei-endpoint", "processFulltextDocument")
            c.check(page.is_visible("#p-teiCoordinates") and page.is_visible("#p-flavor"),
                    "full-text parameters are shown for processFulltextDocument")
            page.set_input_files("#tei-file", pdf_path)
            page.check("#p-teiCoordinates input[value=ref]")
            page.check("#p-generateIDs")
            page.click("#tei-send")
            page.wait_for_selector("#tei-status.ok, #tei-status.bad", timeout=180_000)
            status = page.inner_text("#tei-status")
            c.check(status.startswith("200") and " ms" in status, f"full text status and timing shown ({status})")
            out = page.inner_text("#tei-output")
            c.check("Estimating Soil Moisture" in out and "biblStruct" in out and "coords" in out,
                    "the TEI is shown with the title, references and coordinates")
            c.check(page.locator("#tei-output .t").count() > 20, "TEI tags are highlighted")
            opened = page.locator("#tei-output details[open]").count()
            page.click("#tei-collapse")
            closed = page.locator("#tei-output details[open]").count()
            c.check(opened > 3 and closed == 1, f"the TEI folds ({opened} open, {closed} after collapse)")
            page.click("#tei-expand")
            c.check(page.get_attribute("#tei-download", "href").startswith("blob:"), "the TEI can be downloaded")
            # The Markdown and JSON views, converted in the browser (tei-convert.js).
            page.click("#tei-view-md")
            md = page.inner_text("#tei-output")
            c.check(md.startswith("# Estimating Soil Moisture") and "## References" in md
                    and "](#b0)" in md, "the Markdown view has the title, callout links and references")
            page.click("#tei-view-json")
            converted = json.loads(page.inner_text("#tei-output"))
            # The TEI's references: its biblStructs but the one of the header's sourceDesc.
            n_bibl = out.count("<biblStruct") - out.count("<sourceDesc")
            c.check(converted["title"].startswith("Estimating Soil Moisture") and n_bibl >= 3
                    and len(converted["references"]) == n_bibl
                    and converted["references"][0]["id"] == "b0",
                    f"the JSON view has the title and the references ({len(converted['references'])} "
                    f"of the TEI's {n_bibl})")
            c.check(page.get_attribute("#tei-download-md", "href").startswith("blob:")
                    and page.get_attribute("#tei-download-json", "href").startswith("blob:"),
                    "the Markdown and JSON renderings can be downloaded")
            page.click("#tei-view-tei")
            c.check("biblStruct" in page.inner_text("#tei-output"), "the TEI view comes back")
            page.select_option("#tei-endpoint", "processDate")
            page.click("#tei-send")
            page.wait_for_selector("#tei-status.ok")
            c.check(page.is_disabled("#tei-view-md"), "a raw-string fragment has no Markdown view")
            page.select_option("#tei-endpoint", "processFulltextDocument")
            if shots:
                page.screenshot(path=os.path.join(shots, "console-tei.png"))

            # PDF tab: pages with boxes; a callout click shows its reference.
            page.click("#tab-pdf")
            page.set_input_files("#pdf-file", pdf_path)
            page.click("#pdf-send")
            page.wait_for_selector("#pdf-pages .page img", timeout=180_000)
            c.check(page.locator("#pdf-pages .page").count() == 2, "both pages are rendered")
            page.wait_for_function("[...document.querySelectorAll('#pdf-pages img')].every(i => i.complete && i.naturalWidth > 0)")
            refs = page.locator(".box.ref").count()
            markers = page.locator("button.box.marker:not(.unresolved)").count()
            c.check(refs >= 3 and markers >= 2, f"reference and callout boxes drawn ({refs} references, {markers} callouts)")
            page.locator("button.box.marker:not(.unresolved)").first.click()
            side = page.inner_text("#pdf-ref")
            c.check("Measuring the moisture of soils" in side or "statistical correction" in side or "Water and energy" in side,
                    f"a callout click shows its parsed reference ({side[:60]!r})")
            c.check(page.locator(".box.ref.selected").count() >= 1, "the reference is highlighted")
            page.click("#pdf-annotate")
            page.wait_for_selector("#pdf-download:not(.disabled)", timeout=180_000)
            with page.expect_download() as dl:
                page.click("#pdf-download")
            data = open(dl.value.path(), "rb").read()
            c.check(data.startswith(b"%PDF") and b"/Link" in data, "annotatePDF's output downloads with links")
            if shots:
                page.screenshot(path=os.path.join(shots, "console-pdf.png"))

            # Patent tab: enabled exactly when the server serves the patent endpoints and their
            # model is ready.
            page.click("#tab-patent")
            routed = page.request.post(f"{base}/api/processCitationPatentTXT", form={}).status != 404
            health = page.request.get(f"{base}/api/health").json()
            served = routed and health.get("models", {}).get("patent-citation", {}).get("state") == "ready"
            # The server's own account of the patent routes agrees with what answers.
            said = page.request.get(f"{base}/console/info").json().get("patent", [])
            c.check(("processCitationPatentTXT" in said) == served, f"/console/info lists the patent routes served ({said})")
            page.wait_for_function("!document.getElementById('patent-state').textContent.startsWith('Checking')")
            c.check(page.is_visible("#patent-form") == served,
                    f"the patent form is {'shown' if served else 'hidden with a note'} (endpoints served: {served})")
            if served:
                page.click("#patent-form button[type=submit]")
                page.wait_for_selector("#patent-status.ok, #patent-status.bad", timeout=120_000)
                c.check(page.inner_text("#patent-status").startswith("200"), "processCitationPatentTXT answers")
            if shots:
                page.screenshot(path=os.path.join(shots, "console-patent.png"))

            # A narrow screen: nothing wider than the viewport.
            page.set_viewport_size({"width": 390, "height": 844})
            for tab in ["tei", "pdf", "patent"]:
                page.click(f"#tab-{tab}")
                wide = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
                c.check(wide <= 1, f"the {tab} tab fits a 390 px screen (overflow {wide} px)")
            if shots:
                page.click("#tab-pdf")
                page.screenshot(path=os.path.join(shots, "console-pdf-narrow.png"))
            browser.close()
    finally:
        proc.terminate()
        proc.wait(timeout=20)
    c.check(not errors, f"no error in the browser console {errors}")
    c.check(not outside, f"no request outside the server {outside}")
    if c.failed:
        print(f"{len(c.failed)} check(s) failed")
        return 1
    print("browser test passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
