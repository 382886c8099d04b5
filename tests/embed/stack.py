#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""ctest embed.stack.<arch> (issue 29): worst-case stack depth of every
NMI-reachable libds entry point, from gcc's -fcallgraph-info=su (each
function's frame, return address included, and its direct calls) on the
freestanding build with the flags of the installed library.

ds_session_pmi is static inline (session.h): a one-line wrapper translation
unit gives it a frame of its own, as a kernel's handler would. Indirect
calls are resolved by their call site: a drain's sink call (pebs.c,
pebs_fixed.c, pebs_adaptive.c, arch_pebs.c, bts.c) to session.c's sinks, the PMI handler's overflow hook
(pmi.c) to session.c's hook; the rest -- the MSR backend (cpu.c,
cpu_int.h) and session.c's calls of your callbacks -- are yours: add your
callbacks' and backend's frames (0 with native MSR instructions, ops NULL).
A frame gcc cannot bound ("dynamic"), recursion, or an entry point missing
from the graph fails the test, as does a depth above the budget: <pmi budget>
for the PMI path (PMI_ENTRIES: ds_session_pmi, its out-of-line rest and
ds_pmi_handle, with everything they call; issue 29 item 3), <budget> for the
other entry points (the public drains keep their decoded sample in their
frame). Tail calls are counted as calls (both frames), an over-estimate.

usage: stack.py <arch i386|x86_64> <budget bytes> <pmi budget bytes> <cc> <include dir> <src.c...>
"""
import os, re, subprocess, sys, tempfile

ENTRIES = [
    "ds_session_pmi", "ds__session_pmi_rest", "ds_pmi_handle", "ds_pmi_decode",
    "ds_pebs_drain", "ds_pebs_drain_array", "ds_bts_drain", "ds_bts_drain_array",
    "ds_arch_pebs_drain", "ds_pebs_decode", "ds_pebs_decode_cpu", "ds_arch_pebs_decode",
    "ds_lbr_read", "ds_lbr_unfreeze", "ds_nb_pmi_scan", "ds_nb_rearm", "ds_pmc_gp_write",
    "ds_pmi_pmu_enable", "ds_session_set_period",
]
PMI_ENTRIES = ["ds_session_pmi", "ds__session_pmi_rest", "ds_pmi_handle"]
# libds functions called through a pointer on the PMI path (session.c).
CALLBACKS = ["ses_one_sink", "ses_pebs_sink", "ses_bts_sink", "ses_ovf_hook"]
SITES = {"pebs.c": ["ses_one_sink", "ses_pebs_sink"], "pebs_fixed.c": ["ses_one_sink", "ses_pebs_sink"],
         "pebs_adaptive.c": ["ses_one_sink", "ses_pebs_sink"], "arch_pebs.c": ["ses_one_sink", "ses_pebs_sink"],
         "bts.c": ["ses_bts_sink"], "pmi.c": ["ses_ovf_hook"]}
FLAGS = {"i386": ["-m32", "-march=i686", "-fno-pic"], "x86_64": ["-m64", "-fpie"]}
WRAPPER = """#include <ds/session.h>
int stack_ds_session_pmi(struct ds_session *s, uint64_t ip, struct ds_pmi_result *out);
int stack_ds_session_pmi(struct ds_session *s, uint64_t ip, struct ds_pmi_result *out)
{ return ds_session_pmi(s, ip, out); }
"""


def main():
    arch, budget, pmi_budget, cc = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
    inc, srcs = os.path.abspath(sys.argv[5]), [os.path.abspath(s) for s in sys.argv[6:]]
    ccinc = subprocess.run([cc, "-print-file-name=include"], capture_output=True, text=True).stdout.strip()
    flags = FLAGS[arch] + ["-O2", "-ffreestanding", "-mno-red-zone", "-mgeneral-regs-only",
                           "-fno-stack-protector", "-fno-builtin", "-nostdinc", "-isystem", ccinc,
                           "-I", inc, "-fcallgraph-info=su"]
    frame, dynamic, edges, short = {}, set(), {}, {}
    with tempfile.TemporaryDirectory() as d:
        w = os.path.join(d, "stack_wrapper.c")
        with open(w, "w") as f:
            f.write(WRAPPER)
        for i, src in enumerate(list(srcs) + [w]):
            out = os.path.join(d, "u%d.o" % i)
            subprocess.run([cc] + flags + ["-c", src, "-o", out], check=True, cwd=d)
            with open(out[:-2] + ".ci") as f:
                text = f.read()
            for m in re.finditer(r'node: \{ title: "([^"]+)" label: "([^"]*)"', text):
                title, label = m.group(1), m.group(2)
                s = re.search(r"\\n(\d+) bytes \(([a-z,]+)\)", label)
                if s:
                    frame[title] = int(s.group(1))
                    if s.group(2) not in ("static", "dynamic,bounded"):
                        dynamic.add(title)
                    short.setdefault(title.split(":")[-1].split(".")[0], []).append(title)
            for m in re.finditer(r'edge: \{ sourcename: "([^"]+)" targetname: "([^"]+)" label: "([^":]+)', text):
                t = m.group(2)
                if t == "__indirect_call":
                    t = "__indirect_call@" + os.path.basename(m.group(3))
                edges.setdefault(m.group(1), set()).add(t)
    short["ds_session_pmi"] = short.get("stack_ds_session_pmi", [])
    fails = []
    if any(c not in short for c in CALLBACKS):
        fails.append("callbacks missing from the graph: %s" % [c for c in CALLBACKS if c not in short])

    memo = {}

    def depth(node, stack):
        if node in memo:
            return memo[node]
        if node in stack:
            fails.append("recursion: " + " -> ".join(stack + [node]))
            return 0, []
        if node.startswith("__indirect_call@"):
            site = node.split("@", 1)[1]
            best = (0, ["(yours: %s)" % site])
            for c in SITES.get(site, []):
                for t in short.get(c, []):
                    best = max(best, depth(t, stack + [node]), key=lambda x: x[0])
            memo[node] = best
            return best
        if node not in frame:
            resolved = short.get(node)
            if resolved and resolved[0] != node:
                return depth(resolved[0], stack)
            return 0, [node + " (external)"]
        if node in dynamic:
            fails.append("unbounded (dynamic) frame: " + node)
        best = (0, [])
        for t in sorted(edges.get(node, ())):
            best = max(best, depth(t, stack + [node]), key=lambda x: x[0])
        res = (frame[node] + best[0], [node.split(":")[-1] + " %d" % frame[node]] + best[1])
        memo[node] = res
        return res

    worst, worst_pmi = 0, 0
    for e in ENTRIES:
        titles = short.get(e) or ([e] if e in frame else [])
        if not titles:
            fails.append("entry point not found: " + e)
            continue
        n, path = depth(titles[0], [])
        if e in PMI_ENTRIES:
            worst_pmi = max(worst_pmi, n)
        else:
            worst = max(worst, n)
        print("%-22s %5d bytes  %s" % (e, n, " > ".join(path)))
    print("worst PMI-path depth (%s, gcc -O2, installed-library flags; %s): %d bytes, budget %d"
          % (arch, ", ".join(PMI_ENTRIES), worst_pmi, pmi_budget))
    print("worst depth of the other NMI-reachable entry points (%s): %d bytes, budget %d" % (arch, worst, budget))
    for f in fails:
        print("FAIL: " + f)
    if worst_pmi > pmi_budget:
        print("FAIL: PMI path %d bytes, over its budget of %d" % (worst_pmi, pmi_budget))
        fails.append("pmi budget")
    if worst > budget:
        print("FAIL: %d bytes over the budget of %d" % (worst, budget))
        fails.append("budget")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
