#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""Write a well-formed DSLOG log with N runs to stdout (for dsdump.scaling):
each run has one PEBS record, one BTS branch, one LBR entry and its RUN line,
so every per-run listing of dsdump has N entries to handle. With --cpus each
run is a log of its own with HDR cpu=<run number>: N CPUs, one block each."""
import sys

def fnv(b):  # the DSLOG line checksum, FNV-1a 32 (docs/records.md)
    h = 0x811c9dc5
    for c in b:
        h = ((h ^ c) * 0x01000193) & 0xffffffff
    return h

def line(body):
    return '%s ck=%08x' % (body, fnv(body.encode()))

n = int(sys.argv[1])
cpus = sys.argv[2:] == ['--cpus']
hdr = 'DSLOG 1 HDR arch=x86_64 backend=model profile=test kernel=manyruns'
out = [] if cpus else [line(hdr)]
regs = ' '.join('%s=0x0' % r for r in 'ax bx cx dx si di bp sp r8 r9 r10 r11 r12 r13 r14 r15'.split())
for i in range(n):
    if cpus:
        out.append(line('%s cpu=%d' % (hdr, i)))
    ip = 0x401000 + 16 * (i % 64)
    out.append(line('DSLOG 1 PEBS run=r%d seq=0 fmt=3 counter=0 flags=0x202 ip=0x%x %s counters=0x0 '
                    'data_la=0x0 dse=0x0 latency=0 eventing_ip=0x%x tsx=0x0 tsc=0x0' % (i, ip, regs, ip)))
    out.append(line('DSLOG 1 BTS run=r%d seq=0 from=0x%x to=0x402000 pred=1 flags=0x10' % (i, ip)))
    out.append(line('DSLOG 1 LBR run=r%d snap=0 idx=0 of=1 from=0x%x to=0x402000 mispred=0 cycles=1 lbrfmt=5'
                    % (i, ip)))
    out.append(line('DSLOG 1 RUN name=r%d kind=pebs workload=w events=1000 period=1000 samples=1 records=3' % i))
    if cpus:
        out.append(line('DSLOG 1 END runs=1 records=3 passed=1 failed=0 skipped=0'))
if not cpus:
    out.append(line('DSLOG 1 END runs=%d records=%d passed=1 failed=0 skipped=0' % (n, 3 * n)))
print('\n'.join(out))
