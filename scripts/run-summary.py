#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""The one-screen report of scripts/run.sh (issue 27 item 8), from dsdump --json:
one row per flow (run name) summed over the logs (model profiles x CPUs) that
ran it: logs, records, lost, hottest symbol; then only the non-zero losses, the
kernel's check counts, the paths and a few perf/hotspot commands.
usage: run-summary.py JSON SERIAL_LOG PERF_DATA"""
import collections, json, re, sys

d = json.load(open(sys.argv[1]))
log, perf = sys.argv[2], sys.argv[3]
hdr = {r['log']: r for r in d['records'] if r['type'] == 'HDR'}
flows = collections.OrderedDict()
for r in d['runs']:
    f = flows.setdefault(r['name'], {'logs': 0, 'records': 0, 'lost': 0, 'syms': collections.Counter()})
    f['logs'] += 1
    f['records'] += r.get('records', 0)
    for s in r.get('symbols', []):
        f['syms'][re.sub(r'\+0x[0-9a-f]+$', '', s['symbol'])] += s['samples']
lost = []
for r in d['records']:
    if r['type'] == 'LOST' and r.get('count', 0):
        flows.setdefault(r['run'], {'logs': 0, 'records': 0, 'lost': 0, 'syms': collections.Counter()})['lost'] += r['count']
        h = hdr.get(r['log'], {})
        lost.append(f"cpu{h.get('cpu', '?')} {h.get('profile', '?')} {r['run']}: {r['count']} {r['kind']} ({r['reason']})")
profiles = sorted({h.get('profile', '?') for h in hdr.values()})
cpus = sorted({h['cpu'] for h in hdr.values() if 'cpu' in h})
print(f"{len(hdr)} logs: profiles {' '.join(profiles)}" + (f" on CPUs {','.join(map(str, cpus))}" if cpus else ''))
print(f"{'flow':<24} {'logs':>4} {'records':>8} {'lost':>6}  top symbol (PEBS samples, share)")
for name, f in flows.items():
    top = ''
    if f['syms']:
        s, n = f['syms'].most_common(1)[0]
        top = f"{s} ({n}, {100 * n / sum(f['syms'].values()):.0f}%)"
    print(f"{name:<24} {f['logs']:>4} {f['records']:>8} {f['lost']:>6}  {top}")
if lost:
    print(f"lost records (non-zero only, {len(lost)}):")
    for l in lost[:8]:
        print('  ' + l)
    if len(lost) > 8:
        print(f'  ... {len(lost) - 8} more (dsdump {log})')
ok = skip = notok = 0
for line in open(log, 'rb').read().decode('utf-8', 'replace').splitlines():
    if re.match(r'ok \d+ ', line):
        if re.search(r'# SKIP', line):
            skip += 1
        else:
            ok += 1
    elif re.match(r'not ok \d+ ', line):
        notok += 1
print(f"kernel checks: {ok} passed, {skip} skipped, {notok} failed (ok/not ok lines of the serial log;"
      " a skipped check is an 'ok ... # SKIP' line)")
if d['errors']:
    print(f"dsdump: {len(d['errors'])} error(s) in the log: dsdump {log}")
print(f"serial log: {log}\nperf.data:  {perf}")
print(f"  perf report -i {perf} --stdio --sort sym        # every event's hot symbols")
print(f"  perf report -i {perf} --stdio -b --branch-history # LBR/BTS branch paths")
print(f"  hotspot {perf}                                   # the same in a GUI")
print("  (scripts/run.sh --raw: the whole serial log; dsdump -e ELF LOG: every table)")
