#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""ctest scripts.pipefail (issue 27 item 10): in a script under `set -o pipefail`,
`producer | grep -q PATTERN` fails at random: grep exits at the first match,
the producer dies of SIGPIPE on its next write and the pipeline's status is
141 (bench.sh printed "skipped" for 3 of 20 runs under load). Read the output
into a variable first. Lists every such line of the scripts given.
usage: pipefail_lint.py SCRIPT..."""
import re, sys

bad = 0
for path in sys.argv[1:]:
    lines = open(path).read().splitlines()
    if not any(re.match(r'\s*set\s+-\w*o\s+pipefail|\s*set\s+-o\s+pipefail', l) for l in lines):
        print(f'ok - {path}: no pipefail')
        continue
    hits = [(i + 1, l.strip()) for i, l in enumerate(lines)
            if not l.lstrip().startswith('#') and re.search(r'\|\s*grep\s+(-[A-Za-z]*q[A-Za-z]*|--quiet|--silent)\b', l)]
    for n, l in hits:
        print(f'not ok - {path}:{n}: a pipe into grep -q under pipefail: {l}')
    if not hits:
        print(f'ok - {path}: no pipe into grep -q')
    bad += len(hits)
sys.exit(1 if bad else 0)
