#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""Check dsdump --perf-data against Linux perf (ctest dsdump.perf, and the e2e
kernel runs): the file dsdump writes from LOG must make

  perf report --sort sym   give dsdump's own per-symbol sample counts,
  perf script              list every BTS branch of the log in order, every
                           LBR snapshot with its entries, the PEBS GPRs,
  perf report              state the lost records,
  perf report --header     show what the kernel logged (profile, backend),
  perf annotate            run on the hottest symbol (with an ELF).

Expectations come from the DSLOG lines themselves (parsed here, not by dsdump)
and, for the sample table, from dsdump's CSV, as the issue asks.
usage: perfcheck.py DSDUMP LOG OUTDIR [ELF]
Exit 0 all passed, 1 a check failed, 77 perf is not installed (skip)."""
import collections, csv as csvmod, io, os, re, shutil, subprocess, sys

dsdump, log, out = sys.argv[1:4]
elf = sys.argv[4] if len(sys.argv) > 4 else None
if not shutil.which('perf'):
    print('SKIP: perf is not installed (Debian: linux-perf; scripts/deps.sh installs it)')
    sys.exit(77)
os.makedirs(out, exist_ok=True)
data = os.path.join(out, 'perf.data')
fails = 0


def check(ok, what):
    global fails
    print(('ok - ' if ok else 'not ok - ') + what)
    fails += not ok


def run(*cmd):
    p = subprocess.run(cmd, capture_output=True, text=True, errors='replace')
    return p.returncode, p.stdout, p.stderr


def perf(*args):
    return run('perf', *args, '-i', data)


def fnv(b):  # the DSLOG line checksum, FNV-1a 32 (docs/records.md)
    h = 0x811c9dc5
    for c in b:
        h = ((h ^ c) * 0x01000193) & 0xffffffff
    return h


# ---- the log, parsed independently ----
hdrs, recs = [], []  # recs: (log index, type, {key: value})
for line in open(log, 'rb').read().decode('utf-8', 'replace').splitlines():
    m = re.search(r'DSLOG 1 (\w+) (.*) ck=([0-9a-f]{8})$', line)
    if not m or fnv(line[m.start():m.start(3) - 4].encode()) != int(m.group(3), 16):
        continue  # not a record, or one the reader drops (checksum)
    kv = dict(t.split('=', 1) for t in m.group(2).split() if '=' in t)
    if m.group(1) == 'HDR':
        hdrs.append(kv)
    recs.append((len(hdrs) - 1, m.group(1), kv))
multi = len(hdrs) > 1


def label(logi, run_):
    return f"{hdrs[logi]['profile']}/{run_}" if multi else run_


# ---- write it ----
cmd = [dsdump, '--perf-data', data] + (['-e', elf] if elf else []) + [log]
rc, _, err = run(*cmd)
check(rc in (0, 1) and os.path.isfile(data) and os.path.getsize(data) > 104, f'dsdump --perf-data wrote {data} (exit {rc})')
rc, _, err = perf('report', '--stdio', '--header-only')
check(rc == 0, f'perf report --header-only exit 0 ({err.strip()[:200]})')

# ---- perf report --sort sym == dsdump's table ----
rc, csv, _ = run(dsdump, '--csv', *(['-e', elf] if elf else []), log)
want = collections.Counter()
for row in csvmod.DictReader(io.StringIO(csv)):
    want[(label(int(row['log']), row['run']), row['symbol'])] += int(row['samples'])  # one profile on several CPUs (issue 13): summed, as perf does
rc, rep, err = perf('report', '--stdio', '--sort', 'sym', '-n', '--no-branch-stack', '-F', 'sample,sym')
check(rc == 0, 'perf report --sort sym exit 0')
got, ev = collections.Counter(), None
for line in rep.splitlines():
    m = re.match(r"# Samples: \d+\s+of event '(.*)'", line)
    if m:
        ev = m.group(1)
        continue
    m = re.match(r'\s+(\d+)\s+\[\.\] (.*?)\s*$', line)
    if m and ev and not ev.startswith(('branches/', 'lbr/')):
        sym = m.group(2)
        got[(ev, '[unknown]' if sym.startswith('0x') else sym)] += int(m.group(1))
if not elf:  # no mapping: perf puts every IP under one unresolved entry, dsdump under each address
    fold = collections.Counter()
    for (e, _), n in want.items():
        fold[(e, '[unknown]')] += n
    want = fold
check(got == want and sum(want.values()) > 0,
      f'perf report per-symbol PEBS samples == dsdump table ({sum(got.values())} vs {sum(want.values())})')
if got != want:
    print('  perf:  ', sorted(got.items())[:8], '\n  dsdump:', sorted(want.items())[:8])

# ---- lost records stated ----
m = re.search(r'lost (\d+) chunks', err)
check(m is None, 'perf report prints no "lost N chunks" (the LOST counts are lost samples)')

# ---- perf script: BTS in order, LBR stacks, PEBS registers ----
rc, scr, _ = perf('script', '-F', 'cpu,event,ip,addr,brstack', '--show-lost-events')  # per CPU: perf orders by time
check(rc == 0, 'perf script exit 0')
bts_got, lbr_got = collections.defaultdict(list), collections.defaultdict(list)
for line in scr.splitlines():
    m = re.match(r'\s*\[(\d+)\]\s+(branches/\S+|\S+):\s+([0-9a-f]+)\s+=>\s+([0-9a-f]+)', line)
    if m and m.group(2).startswith('branches/'):
        bts_got[(int(m.group(1)), m.group(2))].append((int(m.group(3), 16), int(m.group(4), 16)))
        continue
    m = re.match(r'\s*\[(\d+)\]\s+(lbr/\S+):\s+[0-9a-f]+\s+[0-9a-f]+\s+(.*)$', line)
    if m:
        ents = [e.split('/') for e in m.group(3).split()]
        lbr_got[(int(m.group(1)), m.group(2))].append([(int(e[0], 16), int(e[1], 16), e[2] == 'M', e[5]) for e in ents])
bts_want, lbr_want = collections.defaultdict(list), collections.defaultdict(list)
for logi, t, kv in recs:
    cpu = int(hdrs[logi].get('cpu', 0)) if logi >= 0 else 0
    if t == 'BTS':
        bts_want[(cpu, 'branches/' + label(logi, kv['run']))].append((int(kv['from'], 16), int(kv['to'], 16)))
    if t == 'LBR':
        ev, e = (cpu, 'lbr/' + label(logi, kv['run'])), (int(kv['from'], 16), int(kv['to'], 16),
                                                kv.get('mispred') == '1', '0')  # cycles not written (perfdata.c: perf 6.1 crash)
        if kv['idx'] == '0':
            lbr_want[ev].append([])
        lbr_want[ev][-1].append(e)
check(bts_got == bts_want, f'perf script lists the {sum(map(len, bts_want.values()))} BTS branches in log order')
check(lbr_got == lbr_want, f'perf script -F brstack shows the {sum(map(len, lbr_want.values()))} LBR snapshots')
pebs = [(logi, kv) for logi, t, kv in recs if t == 'PEBS' and 'ax' in kv]
if pebs:
    rc, regs, _ = perf('script', '-F', 'event,ip,sym,addr,iregs')
    logi, kv = pebs[0]
    first = next((l for l in regs.splitlines() if l.strip().startswith(label(logi, kv['run']) + ':')), '')
    want_regs = ' '.join(f'{r}:0x{int(kv[r], 16):x}' for r in ('ax', 'bx', 'cx', 'dx', 'si', 'di', 'bp', 'sp'))
    got_regs = ' '.join(f'{r.lower()}:{v}' for r, v in re.findall(r'\b(AX|BX|CX|DX|SI|DI|BP|SP):(0x[0-9a-f]+)', first))
    check(got_regs == want_regs, f'perf script -F iregs shows the first PEBS record GPRs ({got_regs[:60]})')

# ---- CPUs (issue 27 item 1): each log's HDR cpu= on its samples, nr_cpus in the header ----
cpus = sorted({int(h['cpu']) for h in hdrs if 'cpu' in h})
ncpu_rec = sum(1 for _, t, _ in recs if t in ('PEBS', 'BTS') or (t == 'LBR'))
rc, scr, _ = perf('script', '-F', 'cpu,event,ip')
got_cpus = sorted({int(m) for m in re.findall(r'^\s*\[(\d+)\]', scr, re.M)})
check(got_cpus == (cpus or [0]) if ncpu_rec else True,
      f'perf script shows samples on the logged CPUs {cpus or [0]} (got {got_cpus})')
rc, hdr, _ = perf('report', '--header-only')
m = re.search(r'nrcpus online : (\d+)\s+# nrcpus avail : (\d+)', hdr)
check(m is not None and (int(m.group(1)), int(m.group(2))) == (max(len(cpus), 1), (max(cpus) + 1) if cpus else 1),
      f'perf report --header: nrcpus online/avail {m.groups() if m else None} for CPUs {cpus or [0]}')
for c in cpus:
    rc, rep, err = perf('report', '--stdio', '-C', str(c), '--sort', 'sym')
    check(rc == 0 and 'too large' not in err, f'perf report -C {c} exit 0 ({err.strip()[:80]})')

# ---- one time base (item 2): per CPU the samples in log order, times rising ----
rc, scr, _ = perf('script', '--ns', '-F', 'cpu,time,event,ip')
per_cpu = collections.defaultdict(list)
for line in scr.splitlines():
    m = re.match(r'\s*\[(\d+)\]\s+(\d+)\.(\d{9}):\s+(\S+):\s+([0-9a-f]+)', line)
    if m:
        per_cpu[int(m.group(1))].append((int(m.group(2)) * 10**9 + int(m.group(3)), m.group(4), int(m.group(5), 16)))
want_seq = collections.defaultdict(list)
for logi, t, kv in recs:
    cpu = int(hdrs[logi].get('cpu', 0)) if logi >= 0 else 0
    if any(re.search(r'[^0-9a-fx]', kv.get(k, '0')) for k in ('ip', 'eventing_ip', 'from', 'to')):
        continue  # a bad value: the reader drops the line
    if t == 'PEBS':
        want_seq[cpu].append((label(logi, kv['run']), int(kv.get('eventing_ip', kv.get('ip', '0')), 16)))
    elif t == 'BTS':
        want_seq[cpu].append(('branches/' + label(logi, kv['run']), int(kv['from'], 16)))
    elif t == 'LBR' and kv['idx'] == '0':
        want_seq[cpu].append(('lbr/' + label(logi, kv['run']), int(kv['to'], 16)))
ok = all([(e, ip) for _, e, ip in per_cpu[c]] == want_seq[c] for c in want_seq) and \
    all(all(a[0] < b[0] for a, b in zip(v, v[1:])) for v in per_cpu.values())
check(ok, 'perf script --ns: per CPU, every sample in log order at strictly rising times')
khz = {i: int(h['tsc_khz']) for i, h in enumerate(hdrs) if 'tsc_khz' in h}
tsc_want = sorted((int(hdrs[logi].get('cpu', 0)), int(kv['tsc'], 16) * 10**6 // khz[logi])
                  for logi, t, kv in recs if t == 'PEBS' and int(kv.get('tsc', '0'), 16) and logi in khz)
tsc_got = {(c, ts) for c, v in per_cpu.items() for ts, _, _ in v}
check(all(w in tsc_got for w in tsc_want), f'{len(tsc_want)} PEBS TSCs at tsc * 10^6 / HDR tsc_khz ns')

# ---- a plain perf report shows every event (item 3), no crash on branch sort keys ----
rc, evl, _ = perf('evlist')
events = {l.strip() for l in evl.splitlines() if l.strip() and not l.startswith('#')}
rc, rep, err = perf('report', '--stdio')
shown = set(re.findall(r"# Samples: \d+\S*\s+of event '(.*)'", rep))
check(rc == 0 and shown == events, f'plain perf report shows all {len(events)} events ({len(shown)} shown)')
if any(t in ('LBR',) for _, t, _ in recs) or any(t == 'PEBS' and 'lbr0' in kv for _, t, kv in recs):
    for key in ('symbol_from', 'symbol_to', 'symbol_from,symbol_to'):
        rc, rep, err = perf('report', '--stdio', '-b', '--sort', key)
        check(rc == 0 and 'Samples' in rep, f'perf report -b --sort {key} exit {rc} ({err.strip()[-80:]})')

# ---- lost samples (item 4): the DSLOG counts, per CPU ----
lost_want = collections.Counter()
for logi, t, kv in recs:
    if t == 'LOST' and int(kv['count']):
        lost_want[int(hdrs[logi].get('cpu', 0)) if logi >= 0 else 0] += int(kv['count'])
m = re.search(r'Total Lost Samples: (\d+)', perf('report', '--stdio')[1])
check(m is not None and int(m.group(1)) == sum(lost_want.values()),
      f'perf report: Total Lost Samples {m.group(1) if m else None} == {sum(lost_want.values())}')
rc, dump, _ = perf('script', '-D')  # perf script prints no LOST_SAMPLES line; its raw dump does, with the CPU
lost_got = collections.Counter()
for m in re.finditer(r'^(\d+) \d+ 0x[0-9a-f]+ \[0x[0-9a-f]+\]: PERF_RECORD_LOST_SAMPLES: id:\d+: lost samples :(\d+)',
                     dump, re.M):
    lost_got[int(m.group(1))] += int(m.group(2))
check(lost_got == lost_want, f'perf script -D: LOST_SAMPLES per CPU {dict(lost_got)} == {dict(lost_want)}')

# ---- with an ELF: perf and dsdump name the same symbol for every branch (item 5) ----
if elf:
    rc, js, _ = run(dsdump, '--json', '-e', elf, log)
    d = __import__('json').loads(js)
    hdr_of = {r['log']: r for r in d['records'] if r['type'] == 'HDR'}
    want_br = collections.Counter()
    for r in d['records']:
        if r['type'] in ('BTS', 'LBR') and 'from_symbol' in r:
            ev = ('branches/' if r['type'] == 'BTS' else 'lbr/') + label(r['log'], r['run'])
            want_br[(ev, r['from_symbol'], r['to_symbol'])] += 1
    got_br = collections.Counter()
    rc, scr, _ = perf('script', '-F', 'event,ip,sym,symoff,addr')  # BTS: from sym => to sym
    for line in scr.splitlines():
        m = re.match(r'\s*(branches/\S+):\s+[0-9a-f]+\s+(\S+)\s+=>\s+[0-9a-f]+\s+(\S+)', line)
        if m:
            got_br[(m.group(1), m.group(2), m.group(3))] += 1
    rc, scr, _ = perf('script', '-F', 'event,brstacksym')  # LBR stacks (the PEBS LBR group is not in dsdump's records)
    for line in scr.splitlines():
        m = re.match(r'\s*(lbr/\S+):\s+(.*)$', line)
        if m:
            for e in m.group(2).split():
                f = e.split('/')
                got_br[(m.group(1), f[0], f[1])] += 1
    fix = lambda c: collections.Counter({(e, re.sub(r'\+0x0$', '', a), re.sub(r'\+0x0$', '', b)): n
                                         for (e, a, b), n in c.items()})
    got_br, want_br = fix(got_br), fix(want_br)
    check(got_br == want_br and sum(want_br.values()) > 0,
          f'perf and dsdump give every BTS/LBR branch the same symbols ({sum(want_br.values())} branches)')
    if got_br != want_br:
        print('  perf only:  ', list((got_br - want_br).items())[:4], '\n  dsdump only:', list((want_br - got_br).items())[:4])

# ---- hotspot's parser (item 6), where installed (Debian hotspot) ----
hp = next((p for p in ('/usr/lib/x86_64-linux-gnu/libexec/hotspot-perfparser', shutil.which('hotspot-perfparser') or '')
           if p and os.access(p, os.X_OK)), None)
if hp:
    p = subprocess.run([hp, '--input', data, '--output', os.path.join(out, 'hotspot.out')], capture_output=True,
                       text=True, errors='replace', timeout=120)
    bad = [l for l in p.stderr.splitlines() if 'not fully parsed' in l or 'but not present' in l]
    check(p.returncode == 0 and not bad, f'hotspot-perfparser parses every event ({len(bad)} complaints: {bad[:1]})')
else:
    print('# SKIP hotspot-perfparser: not installed (Debian: apt-get install hotspot)')

# ---- header and annotate ----
rc, hdr, _ = perf('report', '--header-only')
check(all(f"profile={h['profile']} backend={h['backend']}" in hdr for h in hdrs),
      'perf report --header shows each log\'s profile and backend')
if elf and want:
    hot = max(want.items(), key=lambda kv: kv[1])[0][1]
    rc, ann, err = perf('annotate', '--stdio', '-s', hot)
    check(rc == 0 and hot in ann and re.search(r'^\s+\d+\.\d+ :', ann, re.M) is not None,
          f'perf annotate --stdio -s {hot} shows percentages')
    bid = run('readelf', '-n', elf)[1]
    m = re.search(r'Build ID: ([0-9a-f]+)', bid)
    if m:
        check(m.group(1) in perf('buildid-list')[1], 'perf buildid-list names the ELF build-id')
print(f'{fails} failed')
sys.exit(1 if fails else 0)
