#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""No include or call circle between the files of a source tree (issue 26 item 5).

A module is a source file and the header of the same name (kernel/src/smp.c
and kernel/include/k/smp.h are the module src/smp). Module A depends on B if
a file of A includes a header of B (the include graph, read from the sources)
or if A's object file needs a global symbol that B's object file defines
(the call graph, from `nm` of the objects the build made: calls and data
references alike). A circle is a strongly connected component of more than
one module; each is printed with one closed path through it, every step
with its reason (the #include line or the symbol).

Trees (--tree NAME, repeatable; default all three):
  kernel  kernel/: src/ with include/k/, e2e/, step/, records/, tests/,
          workloads/; an assembly file counts as part of the C module it
          serves (arch/*/isr.S: src/trap, arch/*/trampoline.S: src/smp,
          workloads/*.S: workloads/workloads).
  libds   libds/src with libds/include/ds (public header x.h: module x).
  model   model/src with model/include.
A private header named X_int.h or X_internal.h belongs to module X when a
module X exists in the same tree (libds/src/pmc_int.h is part of pmc), and so
does a source X_Y.c in X's directory that includes that private header: a
part split off X.c for size, sharing X's internals (libds/src/session_msr.c
with session_int.h is part of session). Any other file is strict: a header
of another name is a module of its own (libds/src/area_fields.h), and a file
that includes another module's private header depends on that module
(libds/src/pmi.c with cpu_int.h: pmi -> cpu).
Objects: --objs TREE=FILE[:FILE...] (object files or archives; a tree
without them is checked for include circles only, and says so).
--enforce TREE (repeatable): a circle in that tree fails (exit 1); circles
in the other trees are reported only. KNOWN names the circles an enforced
tree may keep for now, each with its reason; such a circle is printed as
"known, left: ..." and passes only while its module set is exactly the one
named (a circle that grows, shrinks or merges fails like a new one).

Usage: depgraph.py --root SRCDIR [--tree T]... [--objs T=F:F...]... [--enforce T]...
"""
import argparse
import os
import re
import subprocess
import sys

INCLUDE_RE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]')
ARCH_SUFFIX = re.compile(r'_(i386|x86_64)$')


def kernel_module(rel):
    """Module of a file under kernel/ (rel: path relative to kernel/), or None."""
    parts = rel.split('/')
    stem = os.path.splitext(parts[-1])[0]
    if parts[0] == 'include' and len(parts) == 3 and parts[1] == 'k':
        return 'src/' + stem
    if parts[0] == 'arch' and rel.endswith('.S'):
        return {'isr': 'src/trap', 'trampoline': 'src/smp'}.get(stem)
    if rel == 'font8x16.c':  # generated at build time: fbcon's font
        return 'src/fbcon'
    if parts[0] == 'workloads':
        return 'workloads/' + ARCH_SUFFIX.sub('', stem)
    if len(parts) == 2 and parts[0] in ('src', 'e2e', 'step', 'records', 'tests'):
        return parts[0] + '/' + stem
    return None


def libds_module(rel):
    parts = rel.split('/')
    stem = os.path.splitext(parts[-1])[0]
    if rel.startswith('include/ds/') and len(parts) == 3:
        return stem
    if parts[0] == 'src' and len(parts) == 2:
        return stem
    return None


def model_module(rel):
    parts = rel.split('/')
    stem = os.path.splitext(parts[-1])[0]
    if parts[0] in ('src', 'include') and len(parts) == 2:
        return stem
    return None


PRIVATE_SUFFIX = re.compile(r'^(.+)_(int|internal)$')

# tree -> [(modules of a circle allowed to stay, why)]; none is left (the
# last, libds's arch_pebs/area/bts/drain/internal/pebs, was layered away).
KNOWN = {}


def with_private_headers(modfn, base):
    """modfn, with X_int / X_internal mapped to X where module X exists."""
    plain = set()
    for dirpath, _, files in os.walk(base):
        for f in files:
            if f.endswith(('.c', '.h', '.S')):
                m = modfn(os.path.relpath(os.path.join(dirpath, f), base))
                if m:
                    plain.add(m)

    private = {}  # module X -> the file names of X's private headers
    for dirpath, _, files in os.walk(base):
        for f in files:
            rel = os.path.relpath(os.path.join(dirpath, f), base)
            m = modfn(rel) if f.endswith('.h') else None
            p = PRIVATE_SUFFIX.match(m) if m else None
            if p and p.group(1) in plain:
                private.setdefault(p.group(1), set()).add(f)
    cache = {}

    def split_part(rel, m):
        """X for a source X_Y.c that includes X's private header, else None."""
        if not rel.endswith('.c') or not os.path.isfile(os.path.join(base, rel)):
            return None
        if rel not in cache:
            cache[rel] = None
            for x, hdrs in sorted(private.items()):
                if not m.startswith(x + '_') or '/' in m[len(x):]:
                    continue
                with open(os.path.join(base, rel), encoding='utf-8', errors='replace') as fh:
                    incs = {os.path.basename(mm.group(2)) for mm in map(INCLUDE_RE.match, fh) if mm}
                if incs & hdrs:
                    cache[rel] = x
        return cache[rel]

    def mod(rel):
        m = modfn(rel)
        if not m:
            return m
        p = PRIVATE_SUFFIX.match(m)
        if p and p.group(1) in plain:
            return p.group(1)
        return split_part(rel, m) or m
    return mod


TREES = {
    # name: (directory, module function, include search dirs relative to it)
    'kernel': ('kernel', kernel_module, ['include', 'step', 'records', 'workloads', 'e2e']),
    'libds': ('libds', libds_module, ['include', 'src']),
    'model': ('model', model_module, ['include', 'src']),
}


def source_files(base, modfn):
    out = []
    for dirpath, _, files in os.walk(base):
        for f in sorted(files):
            if not f.endswith(('.c', '.h', '.S')):
                continue
            rel = os.path.relpath(os.path.join(dirpath, f), base)
            if modfn(rel):
                out.append(rel)
    return sorted(out)


def include_edges(base, modfn, incdirs, files):
    """(from, to) -> reason, from the #include lines."""
    edges = {}
    for rel in files:
        a = modfn(rel)
        with open(os.path.join(base, rel), encoding='utf-8', errors='replace') as fh:
            for no, line in enumerate(fh, 1):
                m = INCLUDE_RE.match(line)
                if not m:
                    continue
                name = m.group(2)
                cands = []
                if m.group(1) == '"':
                    cands.append(os.path.normpath(os.path.join(os.path.dirname(rel), name)))
                cands += [os.path.normpath(os.path.join(d, name)) for d in incdirs]
                for c in cands:
                    if os.path.isfile(os.path.join(base, c)):
                        b = modfn(c)
                        if b and b != a:
                            edges.setdefault((a, b), '%s:%d #include %s' % (rel, no, line.split('include', 1)[1].strip()))
                        break
    return edges


def object_source(path):
    """The source path a CMake object file was built from, relative to its
    target's source directory (.../NAME.dir/src/x.c.o -> src/x.c; CMake
    writes .../NAME.dir/./src/x.c.o for sources named ./src/x.c, which
    left every kernel object outside a module: normalised)."""
    m = re.search(r'\.dir/(.+)\.o$', path)
    return os.path.normpath(m.group(1)) if m else os.path.basename(path)[:-2]


def nm_symbols(paths, modfn):
    """module -> (defined globals, undefined) from nm; objects in no module listed."""
    defs, undefs, unknown = {}, {}, []
    for p in paths:
        try:
            out = subprocess.run(['nm', '-P', '-A', p], capture_output=True, text=True, check=True).stdout
        except (OSError, subprocess.CalledProcessError) as e:
            sys.exit('depgraph: nm %s: %s' % (p, e))
        for line in out.splitlines():
            # POSIX format: "file.o: name type value size" or "lib.a[member.o]: name type ..."
            head, _, rest = line.partition(': ')
            fields = rest.split()
            if len(fields) < 2:
                continue
            m = re.search(r'\[(.+)\]$', head)
            if m:  # archive member: its source is src/<member minus .o>
                mod = modfn('src/' + m.group(1)[:-2])
                where = m.group(1)
            else:
                mod = modfn(object_source(head))
                where = head
            if mod is None:
                if where not in unknown:
                    unknown.append(where)
                continue
            name, kind = fields[0], fields[1]
            if kind in ('U', 'w'):
                undefs.setdefault(mod, set()).add(name)
            elif kind in ('T', 'D', 'B', 'R', 'C', 'V', 'W', 'G', 'S', 'i'):
                defs.setdefault(mod, set()).add(name)
    return defs, undefs, unknown


def call_edges(defs, undefs):
    owner = {}
    for m, syms in defs.items():
        for s in syms:
            owner.setdefault(s, m)
    edges = {}
    for a, syms in undefs.items():
        for s in sorted(syms):
            b = owner.get(s)
            if b and b != a:
                edges.setdefault((a, b), 'uses %s' % s)
    return edges


def sccs(nodes, adj):
    """Tarjan, iterative; components of more than one node."""
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = [0]
    for root in sorted(nodes):
        if root in index:
            continue
        work = [(root, iter(sorted(adj.get(root, ()))))]
        index[root] = low[root] = counter[0]
        counter[0] += 1
        stack.append(root)
        on.add(root)
        while work:
            v, it = work[-1]
            nxt = next(it, None)
            if nxt is not None:
                if nxt not in index:
                    index[nxt] = low[nxt] = counter[0]
                    counter[0] += 1
                    stack.append(nxt)
                    on.add(nxt)
                    work.append((nxt, iter(sorted(adj.get(nxt, ())))))
                elif nxt in on:
                    low[v] = min(low[v], index[nxt])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                if len(comp) > 1:
                    out.append(sorted(comp))
    return out


def a_cycle(comp, adj):
    """One closed path through the component, from its first module."""
    inside = set(comp)
    start = comp[0]
    # BFS from each successor of start back to start, inside the component.
    prev = {start: None}
    queue = [start]
    while queue:
        v = queue.pop(0)
        for w in sorted(adj.get(v, ())):
            if w not in inside:
                continue
            if w == start:
                path = [v]
                while prev[path[-1]] is not None:
                    path.append(prev[path[-1]])
                return list(reversed(path)) + [start]
            if w not in prev:
                prev[w] = v
                queue.append(w)
    return [start]


def check_tree(root, name, objs, enforce):
    sub, modfn, incdirs = TREES[name]
    base = os.path.join(root, sub)
    modfn = with_private_headers(modfn, base)
    files = source_files(base, modfn)
    nodes = {modfn(f) for f in files}
    edges = include_edges(base, modfn, incdirs, files)
    ninc = len(edges)
    how = 'include graph only (no objects given)'
    if objs:
        defs, undefs, unknown = nm_symbols(objs, modfn)
        cedges = call_edges(defs, undefs)
        for k, v in cedges.items():
            if k in edges:
                edges[k] += '; ' + v
            else:
                edges[k] = v
        nodes |= set(defs) | set(undefs)
        how = 'include and call graph (%d objects%s)' % (
            len(objs), '; not in a module: ' + ', '.join(unknown) if unknown else '')
    adj = {}
    for (a, b) in edges:
        adj.setdefault(a, set()).add(b)
    comps = sccs(nodes, adj)
    tag = 'enforced' if enforce else 'reported only'
    print('depgraph: %s/: %d modules, %d dependencies (%d from #include), %s, %s' %
          (sub, len(nodes), len(edges), ninc, how, tag))
    known = dict(KNOWN.get(name, []))
    new = 0
    for comp in comps:
        cyc = a_cycle(comp, adj)
        why = known.get(frozenset(comp))
        if why:
            print('depgraph: %s/: known, left: circle of %d modules: %s (%s)' %
                  (sub, len(comp), ' '.join(comp), why))
        else:
            new += 1
            print('depgraph: %s/: circle of %d modules: %s' % (sub, len(comp), ' '.join(comp)))
        for a, b in zip(cyc, cyc[1:]):
            print('    %s -> %s: %s' % (a, b, edges[(a, b)]))
    if not new:
        print('depgraph: %s/: no circle%s' % (sub, ' but the known ones' if comps else ''))
    return not new or not enforce


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--root', required=True)
    ap.add_argument('--tree', action='append', choices=sorted(TREES))
    ap.add_argument('--objs', action='append', default=[], metavar='TREE=FILE[:FILE...]')
    ap.add_argument('--enforce', action='append', default=[], choices=sorted(TREES))
    a = ap.parse_args()
    objs = {}
    for o in a.objs:
        t, _, fl = o.partition('=')
        if t not in TREES:
            ap.error('--objs: unknown tree %s' % t)
        objs.setdefault(t, []).extend(f for f in re.split(r'[:;]', fl) if f)
    ok = True
    for t in a.tree or sorted(TREES):
        ok = check_tree(a.root, t, objs.get(t), t in a.enforce) and ok
    print('depgraph: %s' % ('PASS' if ok else 'FAIL: a circle in an enforced tree (above)'))
    return 0 if ok else 1


if __name__ == '__main__':
    sys.exit(main())
