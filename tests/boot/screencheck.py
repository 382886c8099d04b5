#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""Read the verdict off the screen (ctest boot.<arch>.screen_<mode>) and
compare it with the verdict the kernel printed on serial ("# verdict | ..."
lines), line by line.

framebuffer (UEFI): a QEMU screendump (PPM). Every cell of the 8s x 16s grid
(s = 1..3) is matched pixel for pixel against the glyphs of the same PSF font
the kernel was built with (kernel/font/psf2c.py reads it), foreground = the
pixels that differ from the background colour; a cell that matches no glyph
is '?'. Rows that start two cells further in are continuations of the line
above (the kernel wraps long lines). The background must be green for PASS
and red for FAIL.
text (BIOS): the VGA text buffer at 0xB8000 (80x25 cells, dumped through the
QEMU monitor): the "# verdict |" lines must be on the visible screen.
usage: screencheck.py fb SERIAL.log SCREEN.ppm FONT.psf.gz
       screencheck.py text SERIAL.log XP_DUMP.txt"""
import os, re, sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), '..', '..', 'kernel', 'font'))


def expected(serial):
    text = open(serial, 'rb').read().decode('latin-1')
    lines = [m.group(1).rstrip() for m in re.finditer(r'^# verdict \| (.*?)\r?$', text, re.M)]
    if not lines:
        sys.exit('FAIL: the kernel printed no verdict on serial')
    return lines


def read_ppm(path):
    d = open(path, 'rb').read()
    parts = d.split(maxsplit=4)
    assert parts[0] == b'P6' and parts[3] == b'255', 'not a binary PPM'
    w, h = int(parts[1]), int(parts[2])
    return w, h, parts[4]


def fb(serial, ppm, font):
    import psf2c
    want = expected(serial)
    w, h, px = read_ppm(ppm)
    at = lambda x, y: px[3 * (y * w + x):3 * (y * w + x) + 3]
    bg = at(w - 1, h - 1)
    passed = want[0].endswith('PASS')
    r, g, b = bg
    if passed and not (g > r and g > b) or not passed and not (r > g and r > b):
        sys.exit(f'FAIL: background rgb{tuple(bg)} does not say {"PASS" if passed else "FAIL"}')
    glyphs = psf2c.glyphs(font)
    best = None
    for s in (3, 2, 1):
        shapes = {}
        for c, rows in glyphs.items():
            key = tuple(tuple(bool(rows[y // s] & (0x80 >> (x // s))) for x in range(8 * s)) for y in range(16 * s))
            shapes.setdefault(key, chr(c))
        blank = tuple(tuple(False for _ in range(8 * s)) for _ in range(16 * s))
        rows = []
        for cy in range(h // (16 * s)):
            row = ''
            for cx in range(w // (8 * s)):
                cell = tuple(tuple(at(cx * 8 * s + x, cy * 16 * s + y) != bg for x in range(8 * s))
                             for y in range(16 * s))
                row += ' ' if cell == blank else shapes.get(cell, '?')
            rows.append(row)
        got = []
        cols = w // (8 * s) - 4  # the kernel's wrap width (fbcon.c verdict_rows)
        for row in rows:  # drawn from cell 2; continuations from cell 4
            if not row.strip():
                continue
            indent = len(row) - len(row.lstrip(' '))
            if indent >= 4 and got:
                got[-1] += row[4:4 + cols - 2]
            else:
                got.append(row[2:2 + cols])
        got = [g.rstrip() for g in got]
        if best is None or sum(l in want for l in got) > sum(l in best for l in want):
            best, scale = got, s
        if got == want:
            print(f'ok - framebuffer shows the verdict ({len(want)} lines, scale {s}x): {want[-1]}')
            return
    print(f'not ok - the verdict on the framebuffer differs (best scale {scale}x):')
    for i in range(max(len(want), len(best))):
        a = want[i] if i < len(want) else ''
        b = best[i] if i < len(best) else ''
        print(f'  {"  " if a == b else "!="} serial: {a!r}\n     screen: {b!r}' if a != b else f'     {a!r}')
    sys.exit(1)


def text(serial, dump):
    want = expected(serial)
    # Only the "ADDRESS: 0xNNNN ..." rows: the monitor also echoes the typed
    # command ("xp /2000xh 0xb8000"), whose "0xb800" is no screen cell.
    words = [w for line in re.findall(r'^[0-9a-f]+:((?: 0x[0-9a-f]{4})+)', open(dump).read(), re.M)
             for w in re.findall(r'0x([0-9a-f]{4})', line)]
    if len(words) < 80 * 25:
        sys.exit(f'FAIL: VGA text dump has {len(words)} cells, want 2000')
    chars = ''.join(chr(int(x, 16) & 0xFF) for x in words[:2000])
    rows = [chars[i:i + 80].rstrip() for i in range(0, 2000, 80)]
    shown = [r[len('# verdict | '):] for r in rows if r.startswith('# verdict | ')]
    # Rows are 80 cells: a longer verdict line wraps onto the next row.
    joined, prev = [], None
    for r in rows:
        if r.startswith('# verdict | '):
            joined.append(r[len('# verdict | '):])
            prev = len(r) == 80
        elif prev and joined:
            joined[-1] += r
            prev = len(r) == 80
        else:
            prev = False
    if joined == want:
        print(f'ok - VGA text screen shows the verdict ({len(want)} lines): {want[-1]}')
        return
    print('not ok - the verdict on the VGA text screen differs:')
    print('  serial:', want, '\n  screen:', joined or shown)
    sys.exit(1)


if __name__ == '__main__':
    {'fb': fb, 'text': text}[sys.argv[1]](*sys.argv[2:])
