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
new = lambda: {'logs': 0, 'pebs': 0, 'bts': 0, 'lbr': 0, 'lost': 0, 'syms': collections.Counter()}
for r in d['runs']:
    f = flows.setdefault(r['name'], new())
    f['logs'] += 1
    for k in ('pebs', 'bts', 'lbr'):
        f[k] += r[k + '_records']
    for s in r.get('symbols', []):
        f['syms'][re.sub(r'\+0x[0-9a-f]+$', '', s['symbol'])] += s['samples']
lost = []
for r in d['records']:
    if r['type'] == 'LOST' and r.get('count', 0):
        flows.setdefault(r['run'], new())['lost'] += r['count']
        h = hdr.get(r['log'], {})
        lost.append(f"cpu{h.get('cpu', '?')} {h.get('profile', '?')} {r['run']}: {r['count']} {r['kind']} ({r['reason']})")
profiles = sorted({h.get('profile', '?') for h in hdr.values()})
cpus = sorted({h['cpu'] for h in hdr.values() if 'cpu' in h})
print(f"{len(hdr)} logs: profiles {' '.join(profiles)}" + (f" on CPUs {','.join(map(str, cpus))}" if cpus else ''))
print(f"{'flow':<22} {'logs':>4} {'PEBS':>6} {'BTS':>6} {'LBR':>6} {'lost':>5}  top symbol (PEBS samples, share)")
for name, f in flows.items():
    top = ''
    if f['syms']:
        s, n = f['syms'].most_common(1)[0]
        top = f"{s} ({n}, {100 * n / sum(f['syms'].values()):.0f}%)"
    print(f"{name:<22} {f['logs']:>4} {f['pebs']:>6} {f['bts']:>6} {f['lbr']:>6} {f['lost']:>5}  {top}")
ex = next((r for r in d['runs'] if r['pebs_records'] and r['lbr_records'] and 'records' in r), None)
if ex:
    print(f"(summed over the logs; the verdict's number per run is one log's RUN records=, all its record lines:"
          f" {ex['name']} on {hdr.get(ex['log'], {}).get('profile', '?')}: {ex['pebs_records']} PEBS +"
          f" {ex['lbr_records']} LBR = {ex['records']})")
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
print(f"  perf script -i {perf} -F event,ip,sym | awk '{{print $1, $3}}' | sort | uniq -c | sort -rn | head -20")
print(f"      # the hottest symbols of all {sum(f['logs'] for f in flows.values())} runs' events at once"
      " (perf report prints one section per event)")
print(f"  perf annotate -i {perf} --stdio -s wl_loop   # PEBS samples per instruction")
print(f"  hotspot {perf}                              # flame graph, timeline per CPU")
print("  (scripts/run.sh --raw: the whole serial log; dsdump -e ELF LOG: every table)")
