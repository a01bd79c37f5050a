#!/usr/bin/env python3
"""tests/compat/consumers: every consumer of GROBID's TEI, unchanged, against a real Quire server.

    python3 tests/compat/consumers [--quire PATH] [--sets pmc-oa,jose,...] [--limit N] [--keep DIR]

1. Generated PDFs (`pdfgen.py`: a figure without caption, a table without rules, a PLOS-like
   DOI line) and, when ../shared is present, every PDF of eval/pmc-oa, eval/pmc-wide,
   eval/pmlr-v2, eval/jose and pdfs/articles. Without ../shared: a printed skip of those, and a
   failure under CI=true.
2. grobid-client-python (its command line, unchanged) fetches the full text of every PDF once
   from the server, with the options the consumers below ask for (generateIDs,
   consolidateHeader, segmentSentences, teiCoordinates, includeRawCitations). Its TEI files are
   the cached answers.
3. `check.py` feeds each answer to each consumer (see its docstring): grobid-client-python's
   JSON and Markdown converters, scipdf-parser, langchain-community's GrobidParser (both
   `segment_sentences` values), grobid-tei-xml, PyPI `grobid`, tei-chunker. On the generated
   PDFs, scipdf, GrobidParser and PyPI `grobid` also make their own request to the server.
   A consumer's exception, or an output without title, authors, abstract (where the PDF has
   one), sections with text or references (where the PDF has them), fails, with the document
   named.

Prints, per consumer, documents read / run, then every failure with its reason; exit status 1
when anything failed. The packages are pinned in `requirements.txt` and installed into a
private virtual environment under target/ (PyPI `grobid` in one of its own, its pins clash
with langchain's; scipdf-parser with --no-deps: it declares spacy,
which it only uses in feature functions no consumer here calls, and forgets bs4; what its TEI
parsing imports, numpy, pandas, textstat and beautifulsoup4, is pinned in requirements.txt). The server is the quire binary given with
--quire (default target/debug/quire, which `make test` builds; else target/release/quire),
started on free 127.0.0.1 ports with the repository's config.toml.
"""

from __future__ import annotations

import argparse
import collections
import glob
import hashlib
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
SHARED = os.path.join(ROOT, "..", "shared")
# PyPI `grobid` pins lxml<5 and httpx<0.24, which langchain's dependencies cannot share: it gets
# a virtual environment of its own.
VENVS = {
    "main": (os.path.join(ROOT, "target", "consumers-venv"), os.path.join(HERE, "requirements.txt"),
             ["scipdf-parser==0.52"]),
    "grobid": (os.path.join(ROOT, "target", "consumers-venv-grobid"),
               os.path.join(HERE, "requirements-grobid.txt"), []),
}
SETS = ["eval/pmc-oa", "eval/pmc-wide", "eval/pmlr-v2", "eval/jose", "pdfs/articles"]

sys.path.insert(0, HERE)
sys.dont_write_bytecode = True
import pdfgen  # noqa: E402


def venv_python(kind: str) -> str:
    venv, requirements, no_deps = VENVS[kind]
    py = os.path.join(venv, "bin", "python")
    want = hashlib.sha256(open(requirements, "rb").read() + "\n".join(no_deps).encode()).hexdigest()
    marker = os.path.join(venv, ".installed")
    if not os.path.exists(marker) or open(marker).read() != want:
        subprocess.run([sys.executable, "-m", "venv", venv], check=True)
        pip = [py, "-m", "pip", "install", "--quiet", "--disable-pip-version-check"]
        subprocess.run(pip + ["-r", requirements], check=True)
        if no_deps:
            subprocess.run(pip + ["--no-deps", *no_deps], check=True)
        open(marker, "w").write(want)
    return py


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_server(quire: str, log):
    port = free_port()
    admin = free_port()
    while admin == port:
        admin = free_port()
    proc = subprocess.Popen([quire, "serve", "--config", os.path.join(ROOT, "config.toml"),
                             "--port", str(port), "--admin-port", str(admin)],
                            stdout=log, stderr=subprocess.STDOUT, cwd=ROOT)
    url = f"http://127.0.0.1:{port}"
    deadline = time.time() + 180
    while time.time() < deadline:
        try:
            with urllib.request.urlopen(url + "/api/isalive", timeout=2) as r:
                if r.status == 200:
                    return proc, url
        except Exception:
            pass
        if proc.poll() is not None:
            break
        time.sleep(0.3)
    proc.kill()
    log.seek(0)
    raise SystemExit("the server did not become alive:\n" + log.read().decode(errors="replace")[-3000:])


def expected(pdf: str, quire: str) -> dict[str, bool]:
    """Whether the PDF has an abstract and a reference list: from the set's gold file where it
    says so (JATS `abstract` and `ref`, the PMLR front matter's `abstract`, Crossref's
    `abstract` and a `citation` in its `citation_list`, which is empty for a paper without
    references), else from the PDF's text as laid out (a line starting
    with Abstract or Summary on the first two pages; one starting with References,
    Bibliography or Literature cited)."""
    stem = pdf[: -len(".pdf")]
    gold = {"abstract": None, "references": None}
    for path, abstract, refs in ((stem + ".gold.xml", r"<abstract[\s>]", r"<ref[\s>]"),
                                 (stem + ".gold.md", r"(?m)^abstract:\s*\S", None),
                                 (stem + ".crossref.xml", r"(?i)<(\w+:)?abstract[\s>]", r"<citation[\s>]")):
        if os.path.exists(path):
            text = open(path, encoding="utf-8", errors="replace").read()
            gold["abstract"] = re.search(abstract, text) is not None
            if refs:
                gold["references"] = re.search(refs, text) is not None
    if gold["abstract"] is None or gold["references"] is None:
        p = subprocess.run([quire, "layout", "--text", pdf], capture_output=True, text=True, cwd=ROOT)
        pages = p.stdout.split("\f")
        first = "\n".join(pages[:2]) if len(pages) > 1 else p.stdout[:8000]
        if gold["abstract"] is None:
            gold["abstract"] = re.search(r"(?im)^\s*(abstract|summary)\b", first) is not None
        if gold["references"] is None:
            gold["references"] = re.search(r"(?im)^\s*(\d+\.?\s*)?(references|bibliography|literature cited)\b",
                                           p.stdout) is not None
    return gold


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--write-known", action="store_true",
                    help="rewrite known_failures.txt from this run's failures")
    ap.add_argument("--quire", default=None, help="the quire binary (default target/debug/quire)")
    ap.add_argument("--sets", default=",".join(SETS), help="folders of ../shared to read")
    ap.add_argument("--limit", type=int, default=0, help="at most N PDFs per set (0: all)")
    ap.add_argument("--keep", default=None, help="keep the TEI answers in this folder")
    ap.add_argument("--n", type=int, default=2, help="requests at once")
    args = ap.parse_args()
    quire = args.quire or next((p for p in (os.path.join(ROOT, "target", "debug", "quire"),
                                            os.path.join(ROOT, "target", "release", "quire"))
                                if os.path.exists(p)), None)
    if not quire:
        print("FAIL: no quire binary (build it first: cargo build -p quire-web)")
        return 1
    quire = os.path.abspath(quire)
    work = args.keep or tempfile.mkdtemp(prefix="quire-consumers-")
    inp, out = os.path.join(work, "pdf"), os.path.join(work, "tei")
    shutil.rmtree(inp, ignore_errors=True)
    os.makedirs(inp)
    os.makedirs(out, exist_ok=True)

    docs = []  # (name, pdf path, live)
    source = {}  # copy -> the PDF in ../shared (its gold files lie beside it)
    for v in pdfgen.VARIANTS:
        path = os.path.join(inp, f"generated-{v}.pdf")
        with open(path, "wb") as f:
            f.write(pdfgen.article(v))
        docs.append((f"generated/{v}.pdf", path, True))
    failures_setup = []
    if os.path.isdir(SHARED):
        for s in [x for x in args.sets.split(",") if x]:
            pdfs = sorted(glob.glob(os.path.join(SHARED, s, "*.pdf")))
            if args.limit:
                pdfs = pdfs[: args.limit]
            if not pdfs:
                failures_setup.append(f"{s}: no PDF found under ../shared/{s}")
            for pdf in pdfs:
                name = f"{s}/{os.path.basename(pdf)}"
                link = os.path.join(inp, s.replace("/", "_") + "__" + os.path.basename(pdf))
                # A copy: the client resolves links and refuses files outside its input folder.
                shutil.copyfile(pdf, link)
                docs.append((name, link, False))
                source[link] = pdf
    elif os.environ.get("CI") == "true":
        print(f"FAIL: the consumer suite needs the eval PDFs under {SHARED} (absent) under CI=true")
        return 1
    else:
        print(f"skipped: the eval PDFs (../shared absent); only the {len(docs)} generated PDFs are run")

    py = venv_python("main")
    py_grobid = venv_python("grobid")
    log = tempfile.TemporaryFile()
    proc, url = start_server(quire, log)
    started = time.time()
    try:
        config = os.path.join(work, "client.json")
        with open(config, "w") as f:
            json.dump({"grobid_server": url, "timeout": 900,
                       "coordinates": ["title", "persName", "affiliation", "orgName", "formula",
                                       "figure", "ref", "biblStruct", "head", "p", "s", "note"]}, f)
        cmd = [py, "-m", "grobid_client.grobid_client", "--config", config, "--server", url,
               "--input", inp, "--output", out, "--n", str(args.n), "--force",
               "--generate_ids", "--consolidate_header", "--tei_coordinates", "--segment_sentences",
               "--include_raw_citations", "processFulltextDocument"]
        print(f"grobid-client-python: full text of {len(docs)} PDFs from {url} ...", flush=True)
        client = subprocess.run(cmd, capture_output=True, text=True, timeout=5400)
        fetched = time.time() - started
        print(f"  answers fetched in {fetched:.0f} s (client exit {client.returncode})", flush=True)
        if client.returncode != 0:
            failures_setup.append(f"grobid-client-python exited {client.returncode}: "
                                  f"{(client.stderr or client.stdout)[-1500:]}")
        jobs = []
        for name, pdf, live in docs:
            stem = os.path.basename(pdf)[: -len(".pdf")]
            jobs.append({"name": name, "pdf": pdf, "live": live,
                         "tei": os.path.join(out, stem + ".grobid.tei.xml"),
                         **({"abstract": True, "references": True} if live
                            else expected(source.get(pdf, pdf), quire))})
        jobs_file = os.path.join(work, "jobs.json")
        json.dump(jobs, open(jobs_file, "w"), indent=1)
        results = []
        # The client's own result: an answer (TEI file) for every PDF, no error file.
        for j in jobs:
            stem = os.path.basename(j["pdf"])[: -len(".pdf")]
            ok = os.path.exists(j["tei"])
            why = None
            if not ok:
                errors = glob.glob(os.path.join(out, glob.escape(stem) + "_*.txt"))
                why = ("error " + os.path.basename(errors[0]).rsplit("_", 1)[-1][:-4] + ": "
                       + open(errors[0]).read()[:200].strip()) if errors else "no TEI and no error file"
            results.append({"doc": j["name"], "consumer": "grobid-client-python [own request]",
                            "ok": ok, "why": why})
        for python, extra in ((py, []), (py_grobid, ["grobid"])):
            p = subprocess.run([python, os.path.join(HERE, "check.py"), jobs_file, url, *extra],
                               capture_output=True, text=True, timeout=5400)
            for line in p.stdout.splitlines():
                if line.startswith("{"):
                    results.append(json.loads(line))
            if p.returncode != 0:
                failures_setup.append(f"check.py {' '.join(extra)} exited {p.returncode}: {p.stderr[-2000:]}")
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()

    per = collections.OrderedDict()
    for r in results:
        c = per.setdefault(r["consumer"], [0, 0])
        c[1] += 1
        c[0] += bool(r["ok"])
    print(f"\nper consumer: documents read / run ({len(docs)} PDFs, "
          f"{time.time() - started:.0f} s with the server)")
    for name, (ok, n) in per.items():
        print(f"  {ok:4d} / {n:<4d} {name}")
    bad = [r for r in results if not r["ok"]]
    by_reason = collections.Counter((r["consumer"], r["why"]) for r in bad)
    # Known failures (consumer and document, one per line in known_failures.txt) are reported
    # but do not fail the run: a ratchet. A new failure fails it; a known one that passes is
    # said, so the list can shrink (--write-known rewrites it from this run).
    known_path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "known_failures.txt")
    known = set()
    if os.path.exists(known_path):
        with open(known_path) as f:
            known = {ln.rstrip("\n") for ln in f if ln.strip() and not ln.startswith("#")}
    key = lambda r: f"{r['consumer']}\t{r['doc']}"
    for r in bad:
        tag = "KNOWN" if key(r) in known else "FAIL"
        print(f"{tag} {r['consumer']}: {r['doc']}: {r['why']}")
    if bad:
        print("\nfailure reasons, most frequent first:")
        for (consumer, why), n in by_reason.most_common(25):
            print(f"  {n:4d}  {consumer}: {why}")
    # Only pairs this run checked can be said fixed (--sets or --limit run a part).
    fixed = ({key(r) for r in results} & known) - {key(r) for r in bad}
    for k in sorted(fixed):
        print("FIXED (listed as known, passed now):", k.replace("\t", ": "))
    if args.write_known:
        with open(known_path, "w") as f:
            f.write("# consumer<TAB>document: failures accepted for now (tests/compat/consumers)\n")
            # Known pairs this run did not check stay listed.
            unchecked = known - {key(r) for r in results}
            f.writelines(k + "\n" for k in sorted({key(r) for r in bad} | unchecked))
    for f in failures_setup:
        print("FAIL", f)
    new = [r for r in bad if key(r) not in known]
    failed = bool(new or failures_setup)
    print(f"consumers: {len(results) - len(bad)} passed, {len(new)} failed, "
          f"{len(bad) - len(new)} known failures")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
