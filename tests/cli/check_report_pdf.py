#!/usr/bin/env python3
"""The PDF report (issue 7: "the same content as the HTML"), read back with poppler-utils: sample 07's
report and the comparison of its two configs (as it is, and with enable_output_clone on) are written
as PDF and as JSON, and the PDF must hold what the JSON says: the title (text and metadata), every
option away from its default, every hazard's kind, every comparison row. Its first pages, rendered to
PNG at 80 dpi, must show the highlighted rows and the memory chart's device-reserved line.
Exits 77 (SKIP in CTest) when poppler-utils is not installed (scripts/install-deps.sh installs it).

usage: check_report_pdf.py path/to/aclgraph-inspector path/to/resources/samples
"""
import json
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile
import unicodedata

from clicheck import Checks
from pngcheck import HIGHLIGHT, RESERVED_LINE, colour_counts, near, read_png

EXE, SAMPLES = sys.argv[1], pathlib.Path(sys.argv[2])
if not all(shutil.which(tool) for tool in ("pdftotext", "pdfinfo", "pdftoppm")):
    print("SKIP: poppler-utils (pdftotext, pdfinfo, pdftoppm) is not installed")
    sys.exit(77)
checks = Checks(EXE)
check, run = checks.check, checks.run


def squeezed(text):
    """Text without white space (table cells wrap long names, and pdftotext keeps the breaks) and with
    the font's ligatures (U+FB01 for "fi") spelled out."""
    return re.sub(r"\s+", "", unicodedata.normalize("NFKC", text))


def pdf_facts(pdf):
    """(text, pdfinfo fields) of a PDF file."""
    # -raw: in the order the PDF draws the text, so that a wrapped cell's lines stay together.
    text = subprocess.run(["pdftotext", "-raw", pdf, "-"], capture_output=True, text=True, check=True).stdout
    info = subprocess.run(["pdfinfo", pdf], capture_output=True, text=True, check=True).stdout
    fields = dict(line.split(":", 1) for line in info.splitlines() if ":" in line)
    return text, {k.strip(): v.strip() for k, v in fields.items()}


def check_report(pdf, doc, what):
    """The facts of the JSON document `doc` are in `pdf`."""
    check(pdf.read_bytes().startswith(b"%PDF-"), f"{what}: a PDF file")
    text, info = pdf_facts(pdf)
    flat = squeezed(text)
    check(info.get("Title") == doc["title"], f"{what}: the title in the metadata ({info.get('Title')!r})")
    check(info.get("Creator", "").startswith("aclgraph-inspector"), f"{what}: the creator ({info.get('Creator')!r})")
    check(int(info.get("Pages", "0")) >= 1, f"{what}: pages")
    check(squeezed(doc["title"]) in flat, f"{what}: the title in the text")
    for r in doc["runs"]:
        check(squeezed(r["label"]) in flat, f"{what}: the run {r['label']!r}")
        for o in r["options"]:
            if o["non_default"]:
                check(squeezed(o["name"]) in flat, f"{what}: the non-default option {o['name']}")
        for h in r["simulation"]["hazards"]:
            check(h["kind"] in flat, f"{what}: the hazard kind {h['kind']}")
    for r in doc.get("comparison", {}).get("rows", []):
        row = squeezed(" ".join((r["metric"], r["a"], r["b"])))
        check(row in flat, f"{what}: the comparison row {r['section']} / {r['metric']}")
    return int(info.get("Pages", "0"))


def page_colours(pdf, tmp, first, last):
    """Colour counts of every pixel of pages first..last rendered at 80 dpi, one per page (at 60 dpi
    the chart's lines, under a millimetre wide, are blended with the white around them)."""
    subprocess.run(["pdftoppm", "-png", "-r", "80", "-f", str(first), "-l", str(last), pdf, tmp / "page"],
                   check=True)
    pages = sorted(tmp.glob("page-*.png"))
    return [colour_counts(read_png(p)[2], step=1) for p in pages]


held = SAMPLES / "07_held_outputs_overwritten.json"
with tempfile.TemporaryDirectory() as tmp:
    tmp = pathlib.Path(tmp)
    run("report", held, "-o", tmp / "r.json")
    run("report", held, "-o", tmp / "r.pdf")
    doc = json.loads((tmp / "r.json").read_text())
    check(doc["runs"][0]["simulation"]["hazards"], "sample 07 has hazards to look for")
    pages = check_report(tmp / "r.pdf", doc, "sample 07")
    colours = page_colours(tmp / "r.pdf", tmp, 1, min(pages, 2))
    check(colours and near(colours[0], HIGHLIGHT) > 5000, "page 1 shows the highlighted non-default options")
    check(any(near(c, RESERVED_LINE) > 200 for c in colours), "the chart's device-reserved line is drawn")

    cfg = ["--compare-set", "debug.aclgraph.enable_output_clone=True"]
    run("report", held, *cfg, "-o", tmp / "c.json")
    run("report", held, *cfg, "-o", tmp / "c.pdf", "--title", "Sample 07: output clone off and on")
    doc = json.loads((tmp / "c.json").read_text())
    doc["title"] = "Sample 07: output clone off and on"
    check(any(r["differs"] for r in doc["comparison"]["rows"]), "the two configs differ somewhere")
    check_report(tmp / "c.pdf", doc, "two configs")
checks.finish()
