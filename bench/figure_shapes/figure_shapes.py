#!/usr/bin/env python3
"""Figure and table shapes in TEI outputs (Python 3 standard library only).

For each directory of `<id>.tei.xml` files (as `../shared/eval/evaluate --out DIR` writes
them under DIR/<set>/), counts the `figure` elements (figures, and tables: `@type="table"`)
and reports:

  captioned   share with a non-empty `figDesc` or `head` (what score_fulltext.py reads)
  complete    share with `head`, `label` and `figDesc` children, in that order (and `table`
              for tables): what GROBID consumers such as scipdf-parser read unchecked

usage: figure_shapes.py DIR [DIR...] [--json]
"""
import json
import pathlib
import sys
import xml.etree.ElementTree as ET

TEI = "{http://www.tei-c.org/ns/1.0}"


def text(el):
    return "".join(el.itertext()).strip() if el is not None else ""


def shapes(directory):
    counts = {k: {"figures": 0, "captioned": 0, "complete": 0} for k in ("figure", "table")}
    unreadable = 0
    for path in sorted(pathlib.Path(directory).glob("*.tei.xml")):
        try:
            root = ET.parse(path).getroot()
        except ET.ParseError:
            unreadable += 1
            continue
        for fig in root.iter(TEI + "figure"):
            kind = "table" if fig.get("type") == "table" else "figure"
            c = counts[kind]
            c["figures"] += 1
            head, desc = fig.find(TEI + "head"), fig.find(TEI + "figDesc")
            if text(head) or text(desc):
                c["captioned"] += 1
            names = [child.tag[len(TEI):] for child in fig if child.tag.startswith(TEI)]
            want = ["head", "label", "figDesc"]
            ordered = names[:3] == want
            if kind == "table":
                ordered = ordered and "table" in names
            c["complete"] += ordered
    return counts, unreadable


def main():
    args = [a for a in sys.argv[1:] if a != "--json"]
    if not args:
        sys.exit(__doc__)
    report = {}
    for d in args:
        counts, unreadable = shapes(d)
        report[d] = {"counts": counts, "unreadable": unreadable}
    if "--json" in sys.argv:
        print(json.dumps(report, indent=1))
        return
    print(f"{'dir':40} {'kind':7} {'n':>5} {'captioned':>10} {'complete':>9}")
    for d, r in report.items():
        for kind, c in r["counts"].items():
            n = c["figures"]
            pct = lambda k: f"{100 * c[k] / n:.1f}%" if n else "-"
            print(f"{d[-40:]:40} {kind:7} {n:5} {pct('captioned'):>10} {pct('complete'):>9}")
        if r["unreadable"]:
            print(f"{d[-40:]:40} unreadable files: {r['unreadable']}")


if __name__ == "__main__":
    main()
