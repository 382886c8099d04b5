#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# dsdump tests on stored logs (tests/dsdump/logs), symbolization against ELF32
# and ELF64 files built here, JSON and SVG validity.
# usage: run_tests.sh DSDUMP GENLOG TESTDIR CC WORKDIR
set -u
dsdump=$1 genlog=$2 dir=$3 cc=$4 work=$5
mkdir -p "$work"
pass=0 fail=0
ok() { pass=$((pass+1)); }
bad() { fail=$((fail+1)); echo "not ok - $*"; }
check() { local what=$1; shift; if "$@"; then ok; else bad "$what"; fi; }

# Good logs: exit 0, every record reported.
for f in good_fmt3 good_nb32 good_adaptive good_unknown_key good_multi_crlf good_smp2 good_fmt6_cntr; do
  "$dsdump" "$dir/logs/$f.log" >"$work/$f.out" 2>"$work/$f.err"; rc=$?
  check "$f exit 0 (rc=$rc)" [ $rc -eq 0 ]
  check "$f END reported" grep -q '^# END' "$work/$f.out"
  "$dsdump" --json "$dir/logs/$f.log" >"$work/$f.json" 2>/dev/null
  check "$f JSON valid" python3 -m json.tool "$work/$f.json" >/dev/null
done
check "fmt3 table" grep -Eq '62\.50% +5 +0x401000' "$work/good_fmt3.out"
check "fmt3 stdin" bash -c "'$dsdump' - < '$dir/logs/good_fmt3.log' | grep -q '62.50%'"
check "unknown key noted" grep -q "unknown key.*future_key" "$work/good_unknown_key.err"
check "nb32 samples" grep -q 'PEBS run hot: 4 samples' "$work/good_nb32.out"
check "multi: two logs named by profile" grep -q 'PEBS run 1:test-5/hot: 4 samples' "$work/good_multi_crlf.out"
check "multi: lost per log" grep -q 'run 0:test-nb32/trace' "$work/good_multi_crlf.out"
check "adaptive samples" grep -q 'PEBS run hot: 4 samples' "$work/good_adaptive.out"
# fmt 6 counters group (genlog 6 3@401000 1@402000: GP0 = 100 + seq, GP1 = 200 + seq, fixed0 = 300 + seq)
check "fmt6 counters group summary" grep -q 'counters group (PEBS format 6) in 4 of 4 records' "$work/good_fmt6_cntr.out"
check "fmt6 first snapshot" grep -q 'first seq 0: gp0=0x64 gp1=0xc8 fixed0=0x12c$' "$work/good_fmt6_cntr.out"
check "fmt6 last snapshot" grep -q 'last  seq 3: gp0=0x67 gp1=0xcb fixed0=0x12f$' "$work/good_fmt6_cntr.out"
check "fmt6 JSON counters" python3 -c "import json,sys; d=json.load(open(sys.argv[1])); r=[x for x in d['records'] if x['type']=='PEBS'][3]; sys.exit(0 if r['cntr_gp']=={'0':'0x67','1':'0xcb'} and r['cntr_fixed']=={'0':'0x12f'} else 1)" "$work/good_fmt6_cntr.json"

# Logs of two CPUs (issue 13): good_smp2.log is hand-written from docs/records.md
# (log 0 cpu=0 alderlake_p, log 1 cpu=1 alderlake_e, log 2 cpu=0 skylake); the
# expectations below are counted from its lines. One block per CPU, a summary row
# per CPU, the cpu column in CSV and JSON.
s2=$work/good_smp2
check "smp2: summary row cpu 0 (2 logs, 3 runs, 4 pebs, 1 bts, 0 lbr, lost 0/2/0)" \
  grep -Eq '^ +0 +2 +3 +4 +1 +0 +0 +2 +0$' "$s2.out"
check "smp2: summary row cpu 1 (1 log, 2 runs, 2 pebs, 0 bts, 1 lbr, lost 1/0/0)" \
  grep -Eq '^ +1 +1 +2 +2 +0 +1 +1 +0 +0$' "$s2.out"
check "smp2: one block per CPU, each with its own runs only" python3 - "$s2.out" <<'PY2'
import sys
t = open(sys.argv[1]).read()
assert t.count('\n## CPU ') == 2, 'two CPU blocks'
c0 = t[t.index('\n## CPU 0: logs 0:alderlake_p 2:skylake\n'):t.index('\n## CPU 1: logs 1:alderlake_e\n')]
c1 = t[t.index('\n## CPU 1: logs 1:alderlake_e\n'):t.index('\n# Lost: pebs=1 bts=2 lbr=0\n')]
for want in ('# PEBS run 0:alderlake_p/hot: 3 samples', '# PEBS run 2:skylake/hot: 1 samples',
             '# BTS run 0:alderlake_p/trace: 1 branches', 'run 0:alderlake_p/trace  kind=bts  reason=wrap',
             '# Lost on cpu 0: pebs=0 bts=2 lbr=0'):
    assert want in c0, want
for want in ('# PEBS run 1:alderlake_e/hot: 2 samples', '# LBR run 1:alderlake_e/trace snapshot 0',
             'run 1:alderlake_e/hot    kind=pebs reason=drain', '# Lost on cpu 1: pebs=1 bts=0 lbr=0'):
    assert want in c1, want
assert 'alderlake_e' not in c0 and 'alderlake_p' not in c1 and 'skylake' not in c1
PY2
"$dsdump" --csv "$dir/logs/good_smp2.log" >"$s2.csv"
check "smp2: CSV cpu column = the log's HDR cpu=" python3 -c "
import csv,sys; r=list(csv.DictReader(open(sys.argv[1])))
want={('0','0x401000'):'0',('0','0x401010'):'0',('1','0x402000'):'1',('2','0x401000'):'0'}
sys.exit(0 if {(x['log'],x['symbol']):x['cpu'] for x in r}==want else 1)" "$s2.csv"
check "smp2: JSON records and runs carry cpu, cpus summary" python3 -c "
import json,sys; d=json.load(open(sys.argv[1])); hcpu={0:0,1:1,2:0}
assert all(r['cpu']==hcpu[r['log']] for r in d['records']), 'record cpu'
assert [(r['log'],r['cpu']) for r in d['runs']]==[(0,0),(0,0),(1,1),(1,1),(2,0)], d['runs']
c={x['cpu']:x for x in d['cpus']}
assert sorted(c)==[0,1] and c[0]['logs']==[0,2] and c[1]['logs']==[1]
assert (c[0]['runs'],c[0]['pebs_records'],c[0]['bts_records'],c[0]['lbr_records'])==(3,4,1,0)
assert (c[1]['runs'],c[1]['pebs_records'],c[1]['bts_records'],c[1]['lbr_records'])==(2,2,0,1)
assert c[0]['lost']=={'pebs':0,'bts':2,'lbr':0} and c[1]['lost']=={'pebs':1,'bts':0,'lbr':0}" "$s2.json"
# Single-CPU input prints as before: no per-CPU block, with or without cpu=.
python3 -c "
import sys; out=[]; skip=False
for l in open(sys.argv[1]):
    skip = skip or 'HDR' in l and 'cpu=1 ' in l
    if not skip: out.append(l)
    skip = skip and not ' END ' in l
open(sys.argv[2],'w').write(''.join(out))" "$dir/logs/good_smp2.log" "$work/smp_cpu0.log"
"$dsdump" "$work/smp_cpu0.log" >"$work/smp_cpu0.out" 2>&1
check "cpu 0 only: exit 0, no per-CPU block" bash -c "grep -q 'PEBS run 1:skylake/hot: 1 samples' '$work/smp_cpu0.out' && ! grep -Eq '^## CPU|^# Per CPU' '$work/smp_cpu0.out'"
check "no cpu= (fmt3, multi): no per-CPU block" bash -c "! grep -Eq '^## CPU|^# Per CPU' '$work/good_fmt3.out' '$work/good_multi_crlf.out'"

# --junit (issue 27 item 9): one testcase per TAP line, skips as skipped, failures as failures.
printf 'ok 1 - caps: a <b> & "c"\nnot ok 2 - pmi fails\nok 3 - lbr # SKIP no LBR\n' >"$work/tap.log"
cat "$dir/logs/good_smp2.log" >>"$work/tap.log"
"$dsdump" --junit "$work/tap.xml" "$work/tap.log" >/dev/null 2>&1
check "--junit: 5 testcases, 1 failure, 1 skipped, escaped" python3 -c "
import sys, xml.etree.ElementTree as E
s = E.parse(sys.argv[1]).getroot().find('testsuite'); c = s.findall('testcase')
assert (s.get('tests'), s.get('failures'), s.get('skipped')) == ('5', '1', '1'), s.attrib
assert [x.get('name') for x in c[:3]] == ['caps: a <b> & \"c\"', 'pmi fails', 'lbr'], [x.get('name') for x in c]
assert c[1].find('failure') is not None and c[2].find('skipped').get('message') == 'no LBR'
" "$work/tap.xml"

# Malformed logs: exit 1, the error names the line, earlier records still reported.
expect_bad() { # name line message-part samples-before
  local f=$1 line=$2 msg=$3
  "$dsdump" "$dir/logs/$f.log" >"$work/$f.out" 2>"$work/$f.err"; local rc=$?
  check "$f exit 1 (rc=$rc)" [ $rc -eq 1 ]
  check "$f names line $line: $msg" grep -q "$f.log:$line: error: .*$msg" "$work/$f.err"
  if [ -n "${4:-}" ]; then
    check "$f keeps earlier records" grep -q "$4" "$work/$f.out"
  fi
  "$dsdump" --json "$dir/logs/$f.log" >"$work/$f.json" 2>/dev/null
  check "$f JSON valid and lists errors" python3 -c "import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if d['errors'] else 1)" "$work/$f.json"
}
expect_bad bad_version 8 "unsupported DSLOG format version 2" "PEBS run hot: 7 samples"
expect_bad bad_truncated_line 8 "line truncated" "PEBS run hot: 7 samples"
expect_bad bad_hex 8 "bad value '0x40g000'" "PEBS run hot: 7 samples"
expect_bad bad_unknown_type 8 "unknown record type 'PEBX'" "PEBS run hot: 7 samples"
expect_bad bad_lost_line 13 "records=8, but 7" "PEBS run hot: 7 samples"
expect_bad bad_missing_header 4 "before any 'DSLOG 1 HDR'"
check "missing header: final error" grep -q "no 'DSLOG 1 HDR' header line" "$work/bad_missing_header.err"
expect_bad bad_tsc_khz 13 "bad value '0' for key 'tsc_khz'" "PEBS run hot: 4 samples"
expect_bad bad_truncated_log 20 "line truncated" "PEBS run hot: 8 samples"
check "truncated log: no END" grep -q "without the END line" "$work/bad_truncated_log.err"

expect_bad bad_multi_no_end 12 "new header, but the log begun at line 1 has no END" "PEBS run 1:test-5/hot: 4 samples"
check "multi no END: first log still reported" grep -q 'PEBS run 0:test-nb32/hot: 4 samples' "$work/bad_multi_no_end.out"

# Garbled logs (line noise on a serial cable): invalid UTF-8 copied from the
# log into messages must be escaped so that --json stays valid JSON (strict
# UTF-8), and a valid multi-byte character must survive unchanged.
python3 - "$dir/logs/good_fmt3.log" "$work" <<'PY'
import sys
def fnv(b):  # the DSLOG line checksum: FNV-1a 32 (docs/records.md)
    h = 0x811c9dc5
    for c in b:
        h = ((h ^ c) * 0x01000193) & 0xffffffff
    return h
def reck(line):  # re-checksum so the garbled bytes reach the parser
    body = line[line.index(b'DSLOG '):line.rindex(b' ck=')]
    return body + b' ck=%08x' % fnv(body)
src = open(sys.argv[1], 'rb').read().split(b'\n')
cases = {  # name: (old, new, re-checksum)
    'type':      (b'DSLOG 1 PEBS run=hot seq=2', b'DSLOG 1 PE\xffBS run=hot seq=2', 1),
    'value':     (b'ip=0x401000 ax', b'ip=0x40\xc3\x281000 ax', 1),
    'key':       (b'ax=0x0 bx', b'a\xe2\x82=0x0 bx', 1),
    'cksum':     (b'ck=5aee8bf5', b'ck=5a\xf0\x9f\x98ee', 0),
    'surrogate': (b'run=hot seq=3', b'run=h\xed\xa0\x80t seq=3', 1),
    'overlong':  (b'run=hot seq=4', b'run=h\xc0\xafot seq=4', 1),
    'valid':     (b'run=hot seq=5', b'run=h\xc3\xa9t seq=5', 1),
}
for name, (old, new, ck) in cases.items():
    out = [(reck(l.replace(old, new, 1)) if ck else l.replace(old, new, 1)) if old in l else l for l in src]
    assert out != src, name
    open(f'{sys.argv[2]}/garbled_{name}.log', 'wb').write(b'\n'.join(out))
PY
for g in type value key cksum surrogate overlong valid; do
  "$dsdump" --json "$work/garbled_$g.log" >"$work/garbled_$g.json" 2>/dev/null
  check "garbled ($g): JSON valid UTF-8" python3 -c "import json,sys; d=json.load(open(sys.argv[1],encoding='utf-8',errors='strict')); sys.exit(0 if d['errors'] else 1)" "$work/garbled_$g.json"
done
check "garbled (valid): e-acute kept in the message" python3 -c "import json,sys; d=json.load(open(sys.argv[1],encoding='utf-8')); sys.exit(0 if any(\"'h\u00e9t'\" in e['message'] for e in d['errors']) else 1)" "$work/garbled_valid.json"
check "garbled (overlong): each bad byte becomes U+FFFD" python3 -c "import json,sys; d=json.load(open(sys.argv[1],encoding='utf-8')); sys.exit(0 if any(\"'h\ufffd\ufffdot'\" in e['message'] for e in d['errors']) else 1)" "$work/garbled_overlong.json"

# --lbr-limit: at most N snapshots per log; --lbr-entries: N entries per snapshot.
"$dsdump" --lbr-limit 0 "$dir/logs/good_fmt3.log" >"$work/lbrlim0.out" 2>/dev/null
check "--lbr-limit 0 shows no snapshot" bash -c "! grep -q '^  \[ 0\]' '$work/lbrlim0.out' && grep -q 'more LBR snapshots in 1 log(s); --lbr-limit' '$work/lbrlim0.out'"
"$dsdump" --lbr-limit 1 "$dir/logs/good_fmt3.log" >"$work/lbrlim1.out" 2>/dev/null
check "--lbr-limit 1 shows the snapshot" bash -c "grep -q '^  \[ 1\]' '$work/lbrlim1.out' && ! grep -q 'more snapshots' '$work/lbrlim1.out'"
"$dsdump" --lbr-limit x "$dir/logs/good_fmt3.log" >/dev/null 2>&1; check "bad --lbr-limit exit 2" [ $? -eq 2 ]
"$dsdump" --lbr-entries 1 "$dir/logs/good_fmt3.log" >"$work/lbrent1.out" 2>/dev/null
check "--lbr-entries 1: entry 0 shown, entry 1 elided" bash -c "grep -q '^  \[ 0\]' '$work/lbrent1.out' && ! grep -q '^  \[ 1\]' '$work/lbrent1.out' && grep -q '(2 entries in all; --lbr-entries)' '$work/lbrent1.out'"
"$dsdump" --lbr-entries 2 "$dir/logs/good_fmt3.log" >"$work/lbrent2.out" 2>/dev/null
check "--lbr-entries 2 = the whole snapshot" bash -c "grep -q '^  \[ 1\]' '$work/lbrent2.out' && ! grep -q 'entries in all' '$work/lbrent2.out'"

# Usage errors.
"$dsdump" --help | grep -q '^usage: dsdump'; check "--help" [ $? -eq 0 ]
"$dsdump" --bogus >/dev/null 2>&1; check "bad option exit 2" [ $? -eq 2 ]
"$dsdump" "$work/does-not-exist" >/dev/null 2>&1; check "missing file exit 2" [ $? -eq 2 ]
"$dsdump" -e "$dir/logs/good_fmt3.log" "$dir/logs/good_fmt3.log" >/dev/null 2>&1; check "non-ELF exit 2" [ $? -eq 2 ]

# Symbolization against ELF32 and ELF64 with known function names.
for m in 32 64; do
  elf="$work/sym$m.elf"
  if ! "$cc" -m$m -O1 -fno-pie -no-pie -nostdlib -static -fno-asynchronous-unwind-tables -o "$elf" "$dir/sym_fixture.c" 2>"$work/cc$m.err"; then
    bad "build ELF$m fixture: $(cat "$work/cc$m.err")"; continue
  fi
  addr() { nm "$elf" | awk -v s="$1" '$3==s {print $1}'; }
  hot=$(addr func_hot) cold=$(addr func_cold) mid=$(addr func_mid)
  h4=$(printf '%x' $((0x$hot + 4))) c2=$(printf '%x' $((0x$cold + 2)))
  fmt=3; [ $m = 32 ] && fmt=nb32
  "$genlog" $fmt 7@$h4 2@$c2 1@$mid > "$work/sym$m.log"
  "$dsdump" -e "$elf" --svg "$work/sym$m.svg" "$work/sym$m.log" > "$work/sym$m.out" 2>&1
  check "ELF$m exit 0" [ $? -eq 0 ]
  check "ELF$m class" bash -c "readelf -h '$elf' | grep -Eq 'Class: +ELF$m'"
  check "ELF$m func_hot 70%" grep -Eq '70\.00% +7 +func_hot +#{35}$' "$work/sym$m.out"
  check "ELF$m func_cold 20%" grep -Eq '20\.00% +2 +func_cold ' "$work/sym$m.out"
  check "ELF$m func_mid 10%" grep -Eq '10\.00% +1 +func_mid ' "$work/sym$m.out"
  check "ELF$m BTS symbolized" grep -q "func_hot+0x4 -> func_cold+0x2" "$work/sym$m.out"
  check "ELF$m LBR symbolized" grep -q "\[ 0\] func_cold+0x2 -> func_mid+0x0  mispredicted" "$work/sym$m.out"
  check "ELF$m SVG well-formed" python3 -c "import sys,xml.etree.ElementTree as E; r=E.parse(sys.argv[1]).getroot(); sys.exit(0 if r.tag.endswith('svg') and 'func_hot' in E.tostring(r).decode() else 1)" "$work/sym$m.svg"
  "$dsdump" -e "$elf" --csv "$work/sym$m.log" > "$work/sym$m.csv"
  check "ELF$m CSV" python3 -c "import csv,sys; r=list(csv.DictReader(open(sys.argv[1]))); sys.exit(0 if r[0]['symbol']=='func_hot' and r[0]['samples']=='7' and r[0]['percent']=='70.00' else 1)" "$work/sym$m.csv"
  "$dsdump" -e "$elf" --json "$work/sym$m.log" > "$work/sym$m.json"
  check "ELF$m JSON symbols" python3 -c "import json,sys; d=json.load(open(sys.argv[1])); s=d['runs'][0]['symbols'][0]; sys.exit(0 if s['symbol']=='func_hot' and s['samples']==7 else 1)" "$work/sym$m.json"
done
# The ELF of the other arch (issue 27 item 7): a warning naming both; none when they fit.
if [ -f "$work/sym32.elf" ] && [ -f "$work/sym64.elf" ]; then
  check "ELF64 log + ELF64: no arch warning" bash -c "! grep -q 'warning' '$work/sym64.out'"
  "$dsdump" -e "$work/sym32.elf" "$work/sym64.log" >/dev/null 2>"$work/mismatch.err"
  check "ELF32 on an x86_64 log: warning" grep -q "sym32.elf is ELF32 e_machine 3, but the log at line 1 is arch=x86_64" "$work/mismatch.err"
  "$dsdump" -e "$work/sym64.elf" "$work/sym32.log" >/dev/null 2>"$work/mismatch2.err"
  check "ELF64 on an i386 log: warning" grep -q "sym64.elf is ELF64 e_machine 62, but the log at line 1 is arch=i386" "$work/mismatch2.err"
fi

echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
