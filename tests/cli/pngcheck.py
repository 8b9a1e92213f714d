"""Pictures of reports checked for the colours that carry meaning (the checks of the HTML report in a
browser and of the PDF report share it): a pure-Python PNG reader, so the tests need no imaging
package, and colour counts."""
import struct
import zlib

# engine/report/report_html.cpp's colours: a highlighted row (an option away from its default, a
# differing comparison row) and the memory chart's device-reserved line.
HIGHLIGHT = (255, 243, 196)
RESERVED_LINE = (30, 136, 229)


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


def colour_counts(rows, step=2):
    """{RGB: pixel count} over every `step`-th pixel of every `step`-th row."""
    colours = {}
    for line in rows[::step]:
        for px in line[::step]:
            colours[px] = colours.get(px, 0) + 1
    return colours


def near(colours, want, tolerance=6):
    """How many counted pixels are within `tolerance` of `want` in each channel."""
    return sum(n for px, n in colours.items() if all(abs(p - q) <= tolerance for p, q in zip(px, want)))
