#!/usr/bin/env python3
"""The HTML report in a real browser: Debian's Chromium renders sample 04's report headless to a PNG,
and the PNG must show what the page says it shows: the highlighted rows of the options away from
their default (#fff3c4) and the memory chart's device-reserved line (#1e88e5), at the page's width.
Chromium's own failure to start is a failure too: scripts/install-deps.sh installs it.

usage: check_report_browser.py path/to/aclgraph-inspector path/to/resources/samples [OUT.png]
(OUT.png: keep the picture, e.g. for docs/screenshots)
"""
import pathlib
import shutil
import subprocess
import sys
import tempfile

from clicheck import Checks
from pngcheck import HIGHLIGHT, RESERVED_LINE, colour_counts, near, read_png

EXE, SAMPLES = sys.argv[1], pathlib.Path(sys.argv[2])
KEEP = pathlib.Path(sys.argv[3]) if len(sys.argv) > 3 else None
checks = Checks(EXE)
check, run = checks.check, checks.run


browser = shutil.which("chromium") or shutil.which("chromium-browser")
check(browser is not None, "chromium is not installed (scripts/install-deps.sh installs it)")
if browser:
    with tempfile.TemporaryDirectory() as tmp:
        tmp = pathlib.Path(tmp)
        page, png = tmp / "report.html", tmp / "report.png"
        run("report", SAMPLES / "04_kv_cache_moves.json", "-o", page)
        r = subprocess.run([browser, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                            f"--user-data-dir={tmp / 'profile'}", "--window-size=1200,1800",
                            f"--screenshot={png}", page.as_uri()], capture_output=True, text=True, timeout=120)
        check(r.returncode == 0 and png.exists(), f"chromium could not render the page: {r.stderr[-500:]!r}")
        if png.exists():
            width, height, rows = read_png(png)
            check((width, height) == (1200, 1800), f"page size {width}x{height}")
            colours = colour_counts(rows)
            check(near(colours, HIGHLIGHT) > 2000, "the highlighted non-default options are drawn")
            check(near(colours, RESERVED_LINE) > 100, "the chart's device-reserved line is drawn")
            if KEEP:
                shutil.copy(png, KEEP)
checks.finish()
