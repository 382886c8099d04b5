#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""Read the verdict off a screenshot as a person would, by OCR (tesseract),
and compare what it says with the kernel's serial verdict (ctest
boot.<arch>.screen_ocr_*; issue 24 item 3). Independent of the kernel's
font and of screencheck.py's pixel matching: the picture is QEMU's
screendump of whatever is on the screen (the framebuffer, or the VGA text
screen rendered by QEMU with the VGA BIOS font).

Read from the picture, each compared with the serial "# verdict |" lines:
  - the overall word, PASS or FAIL, on the "libds test kernel (ARCH)" line;
  - the CPU line ("cpu: <vendor> <family>_<model>H ...");
  - every "group NAME N passed N failed N skipped" line, all counts;
  - the final "N passed, N failed, N skipped: PASS|FAIL" line.
OCR confusions are folded on both sides alike (O/o -> 0, I/l/| -> 1, S -> 5
in a count; blanks ignored), never beyond. Rows the kernel wrapped (long
lines on the framebuffer at 2x/3x) are joined again: an OCR line that opens
no verdict or console line continues the one above.
usage: screenocr.py SERIAL.log SCREEN.ppm [WIDTHxHEIGHT]
Exit 77 (SKIP) when tesseract is missing."""
import math, os, re, shutil, string, subprocess, sys, tempfile
from collections import Counter


def fold(s):
    s = s.translate(str.maketrans({'O': '0', 'o': '0', 'I': '1', 'l': '1', '|': '1'}))
    return re.sub(r'\s+', ' ', s).strip()


def read_ppm(path):
    d = open(path, 'rb').read()
    parts = d.split(maxsplit=4)
    if parts[0] != b'P6' or parts[3] != b'255':
        sys.exit(f'FAIL: {path} is not a binary PPM')
    return int(parts[1]), int(parts[2]), parts[4]


def pixel_size(w, h, fg):
    """The size of the font's pixels on the screen: the greatest common
    divisor of every run of foreground pixels, across and down (a font
    drawn s x s per font pixel has only runs that are multiples of s)."""
    s = 0
    for y in range(h):
        row, n = fg[y * w:(y + 1) * w], 0
        for v in row + b'\0':
            if v:
                n += 1
            elif n:
                s, n = math.gcd(s, n), 0
        if s == 1:
            return 1
    for x in range(w):
        col, n = fg[x::w], 0
        for v in col + b'\0':
            if v:
                n += 1
            elif n:
                s, n = math.gcd(s, n), 0
        if s == 1:
            return 1
    return s or 1


def binarize(w, h, px, out):
    """Background (the most common colour) white, everything else black:
    tesseract reads dark text on white best. A font drawn at s x s per font
    pixel (the kernel scales its 8x16 font up to 3x on a framebuffer) is
    taken back to 1x, then drawn 2x and smoothed (3x3 mean): tesseract
    misreads the stair steps of a blocky 3x font (x86_64 as 86_64, 0 as oO,
    cpu as cou), and reads the smoothed 2x nearly without fault. A 1x
    picture is only scaled up, nearest pixel: 2x for QEMU's 720x400 VGA text
    picture (at 3x or more it read 'x66_64' and 'FASS')."""
    cells = [px[i:i + 3] for i in range(0, 3 * w * h, 3)]
    bg = Counter(cells[::7]).most_common(1)[0][0]
    fg = bytes(c != bg for c in cells)
    s = pixel_size(w, h, fg)
    w1, h1 = w // s, h // s
    one = [bytes(0 if fg[y * s * w + x * s] else 255 for x in range(w1)) for y in range(h1)]
    k = 2 if s > 1 else max(1, round(1440 / w))
    big = [bytes(v for v in row for _ in range(k)) for row in one for _ in range(k)]
    if s > 1:
        big = smooth(big)
    with open(out, 'wb') as f:
        f.write(b'P5\n%d %d\n255\n' % (w1 * k, h1 * k))
        f.write(b''.join(big))
    return bg, s, k


def smooth(img):
    """3x3 mean, the border repeated."""
    h, w = len(img), len(img[0])
    horiz = []
    for row in img:
        r = row[:1] + row + row[-1:]
        horiz.append([r[x] + r[x + 1] + r[x + 2] for x in range(w)])
    out = []
    for y in range(h):
        a, b, c = horiz[max(y - 1, 0)], horiz[y], horiz[min(y + 1, h - 1)]
        out.append(bytes((a[x] + b[x] + c[x]) // 9 for x in range(w)))
    return out


def expected(serial):
    text = open(serial, 'rb').read().decode('latin-1')
    lines = [m.group(1).rstrip() for m in re.finditer(r'^# verdict \| (.*?)\r?$', text, re.M)]
    if not lines:
        sys.exit('FAIL: the kernel printed no verdict on serial')
    return lines


# A line that opens a verdict line or a console line (folded, the VGA
# screen's "# verdict | " prefix included); any other OCR line is the rest of
# the line above, wrapped by the kernel (continuation rows, two cells in).
OPENING = re.compile(r'^(#|0k |n0t 0k |1ibds test kerne1 |gr0up |\d+ passed, |\(|[^ :]+:( |$))')


def unwrap(lines):
    out = []
    for l in lines:
        if out and not OPENING.match(l):
            out[-1] += ' ' + l
        else:
            out.append(l)
    return out


def counts(l):
    """In a count (the number before passed/failed/skipped) an S is a 5:
    tesseract reads this font's lone 5 as S; a count has digits only."""
    return re.sub(r'\b[0-9S]+(?= (passed|fai1ed|skipped))', lambda m: m.group(0).replace('S', '5'), l)


def facts(lines, names=None):
    """The verdict's facts from folded lines: overall word, cpu, groups
    (those named, else every group line), total. Matched without blanks: a
    row wrapped inside a word comes back from unwrap() with a blank in it."""
    f = {'verdict': None, 'cpu': None, 'groups': {}, 'total': None}
    for l in map(counts, lines):
        if names is None:
            for m in re.finditer(r'gr0up (\S+) ', l):
                f['groups'][m.group(1)] = None
        l = re.sub(r'^# ?verdict ?1 ?', '', l).replace(' ', '')  # the VGA screen's "# verdict | "
        m = re.search(r'1ibdstestkerne1\((i386|x86_64)\):(PASS|FA1L)', l)
        if m:
            f['verdict'] = m.groups()
        m = re.search(r'^cpu:(.*)$', l)
        if m and f['cpu'] is None:
            f['cpu'] = m.group(1)
        for g in names if names is not None else list(f['groups']):
            m = re.search('gr0up' + re.escape(g) + r'(\d+)passed(\d+)fai1ed(\d+)skipped', l)
            if m:
                f['groups'][g] = m.groups()
        m = re.search(r'(\d+)passed,(\d+)fai1ed,(\d+)skipped:(PASS|FA1L)', l)
        if m:
            f['total'] = m.groups()
    return f


def main():
    serial, ppm = sys.argv[1], sys.argv[2]
    size = sys.argv[3] if len(sys.argv) > 3 else None
    if not shutil.which('tesseract'):
        print('screenocr.py: SKIP: tesseract is not installed (scripts/deps.sh installs tesseract-ocr)')
        sys.exit(77)
    want = facts([fold(l) for l in expected(serial)])
    w, h, px = read_ppm(ppm)
    if size and f'{w}x{h}' != size:
        sys.exit(f'FAIL: the screen is {w}x{h}, not the {size} the menu entry asked for')
    with tempfile.TemporaryDirectory() as tmp:
        pgm = os.path.join(tmp, 'screen.pgm')
        bg, s, k = binarize(w, h, px, pgm)
        # Only the characters a verdict uses: the VGA font's dotted zero is
        # then read as O (folded to 0), not as '\u00a9' or '@'.
        chars = string.ascii_letters + string.digits + '#|():,_-.=/+ '
        r = subprocess.run(['tesseract', pgm, 'stdout', '--psm', '6', '-c', 'tessedit_char_whitelist=' + chars],
                           capture_output=True, text=True)
        if r.returncode != 0:
            sys.exit(f'FAIL: tesseract: {r.stderr.strip()}')
    ocr = [l for l in r.stdout.splitlines() if l.strip()]
    got = facts(unwrap([fold(l) for l in ocr]), list(want['groups']))
    print(f'screen {w}x{h}, background rgb{tuple(bg)}, font pixels {s}x{s}, OCR at {k}x{" smoothed" if s > 1 else ""}: {len(ocr)} lines')
    bad = []
    for key in ('verdict', 'cpu', 'total'):
        ok = want[key] is not None and got[key] == want[key]
        print(f'{"ok" if ok else "not ok"} - {key}: screen {got[key]!r}, serial {want[key]!r}')
        if not ok:
            bad.append(key)
    for g, n in want['groups'].items():
        ok = got['groups'].get(g) == n
        print(f'{"ok" if ok else "not ok"} - group {g}: screen {got["groups"].get(g)}, serial {n}')
        if not ok:
            bad.append(g)
    if not want['groups']:
        bad.append('no group line on serial')
    if bad:
        print('--- OCR text:\n' + '\n'.join(ocr))
        sys.exit(f'FAIL: read from the screen and different from serial: {", ".join(bad)}')
    print(f'screenocr.py: PASS ({want["verdict"][1]}, cpu, {len(want["groups"])} group line(s) and the total read off the screen)')


if __name__ == '__main__':
    main()
