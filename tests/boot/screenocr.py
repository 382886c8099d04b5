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
OCR confusions are folded on both sides alike (O/o -> 0, I/l/| -> 1, blanks
collapsed), never beyond.
usage: screenocr.py SERIAL.log SCREEN.ppm [WIDTHxHEIGHT]
Exit 77 (SKIP) when tesseract is missing."""
import os, re, shutil, string, subprocess, sys, tempfile
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


def binarize(w, h, px, k, out):
    """Background (the most common colour) white, everything else black,
    every pixel k x k: tesseract reads dark text on white best. k = 2 for
    QEMU's 720x400 VGA text picture (at 3 or more it read 'x66_64' and
    'FASS'), 1 for a framebuffer (the kernel scales its font up)."""
    cells = [px[i:i + 3] for i in range(0, 3 * w * h, 3)]
    bg = Counter(cells[::7]).most_common(1)[0][0]
    rows = bytearray()
    for y in range(h):
        line = bytes(255 if c == bg else 0 for c in cells[y * w:(y + 1) * w])
        line = bytes(b for b in line for _ in range(k))
        rows += line * k
    with open(out, 'wb') as f:
        f.write(b'P5\n%d %d\n255\n' % (w * k, h * k))
        f.write(rows)
    return bg


def expected(serial):
    text = open(serial, 'rb').read().decode('latin-1')
    lines = [m.group(1).rstrip() for m in re.finditer(r'^# verdict \| (.*?)\r?$', text, re.M)]
    if not lines:
        sys.exit('FAIL: the kernel printed no verdict on serial')
    return lines


GROUP = re.compile(r'gr0up (\S+) (\d+) passed (\d+) fai1ed (\d+) skipped')
TOTAL = re.compile(r'(\d+) passed, (\d+) fai1ed, (\d+) skipped: (PASS|FA1L)')


def facts(lines):
    """The verdict's facts from folded lines: overall word, cpu, groups, total."""
    f = {'verdict': None, 'cpu': None, 'groups': {}, 'total': None}
    for l in lines:
        m = re.search(r'1ibds test kerne1 \((i386|x86_64)\): (PASS|FA1L)', l)
        if m:
            f['verdict'] = (m.group(1), m.group(2))
        m = re.search(r'(?:^|\| |1 )cpu: (.*)$', l)
        if m and f['cpu'] is None:
            f['cpu'] = m.group(1).strip()
        for m in GROUP.finditer(l):
            f['groups'][m.group(1)] = m.groups()[1:]
        m = TOTAL.search(l)
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
    k = max(1, round(1440 / w))
    with tempfile.TemporaryDirectory() as tmp:
        pgm = os.path.join(tmp, 'screen.pgm')
        bg = binarize(w, h, px, k, pgm)
        # Only the characters a verdict uses: the VGA font's dotted zero is
        # then read as O (folded to 0), not as '\u00a9' or '@'.
        chars = string.ascii_letters + string.digits + '#|():,_-.=/ '
        r = subprocess.run(['tesseract', pgm, 'stdout', '--psm', '6', '-c', 'tessedit_char_whitelist=' + chars],
                           capture_output=True, text=True)
        if r.returncode != 0:
            sys.exit(f'FAIL: tesseract: {r.stderr.strip()}')
    ocr = [l for l in r.stdout.splitlines() if l.strip()]
    got = facts([fold(l) for l in ocr])
    print(f'screen {w}x{h}, background rgb{tuple(bg)}, OCR at {k}x: {len(ocr)} lines')
    bad = []
    for key in ('verdict', 'cpu', 'total'):
        ok = want[key] is not None and got[key] == want[key]
        print(f'{"ok" if ok else "not ok"} - {key}: screen {got[key]!r}, serial {want[key]!r}')
        if not ok:
            bad.append(key)
    for g, counts in want['groups'].items():
        ok = got['groups'].get(g) == counts
        print(f'{"ok" if ok else "not ok"} - group {g}: screen {got["groups"].get(g)}, serial {counts}')
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
