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
import struct
import subprocess
import sys
import tempfile
import zlib

from clicheck import Checks

EXE, SAMPLES = sys.argv[1], pathlib.Path(sys.argv[2])
KEEP = pathlib.Path(sys.argv[3]) if len(sys.argv) > 3 else None
checks = Checks(EXE)
check, run = checks.check, checks.run


def read_png(path):
    """(width, height, rows of RGB tuples) of an 8-bit RGB or RGBA, non-interlaced PNG."""
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat, width = 8, b"", 0
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            width, height, depth, colour, _, _, interlace = struct.unpack(">IIBBBBB", body)
            assert depth == 8 and colour in (2, 6) and interlace == 0, "unexpected PNG layout"
            channels = 3 if colour == 2 else 4
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    raw, stride, rows, prev = zlib.decompress(idat), width * channels, [], bytearray(width * channels)
    for y in range(height):
        f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - channels] if i >= channels else 0
            b, c = prev[i], prev[i - channels] if i >= channels else 0
            if f == 1:
                line[i] = (line[i] + a) & 255
            elif f == 2:
                line[i] = (line[i] + b) & 255
            elif f == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append([tuple(line[x * channels:x * channels + 3]) for x in range(width)])
        prev = line
    return width, height, rows


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
            colours = {}
            for line in rows[::2]:
                for px in line[::2]:
                    colours[px] = colours.get(px, 0) + 1
            near = lambda want: sum(n for px, n in colours.items() if all(abs(p - q) <= 6 for p, q in zip(px, want)))
            check(near((255, 243, 196)) > 2000, "the highlighted non-default options are drawn")
            check(near((30, 136, 229)) > 100, "the chart's device-reserved line is drawn")
            if KEEP:
                shutil.copy(png, KEEP)
checks.finish()
