#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# Mutation testing of the test suite (developer tool, too slow for ctest):
# plant one small plausible bug at a time in libds/src (or, with -f, in the
# host tool dsdump's sources libds/tools/dsdump), rebuild, run the tests
# labelled `host|model` (-L to choose) that the mutant can reach, and count
# the mutants the suite kills.
#
# Mutants are generated mechanically from the source text (comments and
# string literals skipped), one per site:
#   relop   <  <=  >  >=  swapped with their neighbour (off-by-one compare)
#   eqop    == <-> !=
#   logop   && <-> ||
#   const   an integer literal N -> N+1, or N-1 when N > 0 (wrong bit/table value)
#   guard   `return DS_ERR_...;` -> `(void)0;`   (a removed check)
# A mutant that does not compile is "stillborn" and not counted.
# A mutant is killed when a test fails (ctest stops at the first failure) or
# when the tests run past 10x their unmutated time, at least 60 s (a hang).
#
# Which tests run: every test of the labels that ctest -N lists; the build-dir
# files its command names (test executables, dsdump, dsinfo, the libraries
# tools.depgraph reads) are the targets rebuilt per mutant. A test runs
# against a mutant when one of those files was rebuilt with the mutant, or
# when its command names none (a script that builds or reads what it needs
# itself, e.g. i386.host); a test whose every input is byte-for-byte the
# unmutated build's passed already in the unmutated run and is not rerun
# (-a reruns it anyway). So a dsdump mutant runs the dsdump tests only,
# a libds mutant the tests linked with libds.
#
# usage: scripts/mutate.sh [-n SAMPLE] [-s SEED] [-j JOBS] [-f FILES] [-L LABELS] [-a] [--list]
#   -n  how many mutants to try, drawn at random from all sites (default 20; 0 = all)
#   -s  random seed of the sample (default 1)
#   -j  build parallelism (default 1)
#   -f  only mutate these files: a comma-separated list of paths from the
#       top of the tree or basenames, shell globs allowed, looked up in
#       libds/src and libds/tools/dsdump (e.g. -f event.c, -f 'session*.c,dslog.c',
#       -f libds/tools/dsdump/perfdata.c; a private header with inline code,
#       e.g. -f drain_int.h, only when named). Default: every libds/src/*.c (the
#       dsdump sources only when named, so an old seed draws the old sample)
#   -L  ctest label regex of the suite that must kill the mutants (default "host|model";
#       "host|model|tools|dsdump" for dsdump mutants; "host|model|fuzz" adds the fuzz
#       smoke runs and the i386 build: slower)
#   -a  run every test of the labels against each mutant, not only those it can reach
#   --list  print the mutants of the sample and exit
# Works on a copy of the tree in $MUTATE_DIR (default /tmp/libds-mutate.$USER),
# never in the checkout. Prints one line per mutant (killed: the failing test),
# then "killed K of N (R %)" and the survivors.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
n=20 seed=1 jobs=1 only="" list=0 labels="host|model" alltests=0
while [ $# -gt 0 ]; do
  case $1 in
    -n|-s|-j|-f|-L) [ $# -ge 2 ] || { echo "$0: $1 needs a value" >&2; exit 2; }
        set -- "$1$2" "${@:3}" ;;  # -j 1 is read as -j1
    -n?*) n=${1#-n}; shift ;;
    -s?*) seed=${1#-s}; shift ;;
    -j?*) jobs=${1#-j}; shift ;;
    -f?*) only=${1#-f}; shift ;;
    -L?*) labels=${1#-L}; shift ;;
    -a) alltests=1; shift ;;
    --list) list=1; shift ;;
    *) echo "usage: $0 [-n N] [-s SEED] [-j JOBS] [-f FILES] [-L LABELS] [-a] [--list]" >&2; exit 2 ;;
  esac
done
work=${MUTATE_DIR:-/tmp/libds-mutate.${USER:-$(id -un)}}
mkdir -p "$work"
src="$work/src"
rm -rf "$src"
mkdir -p "$src"
# the working tree as it is (tracked + untracked, not ignored)
(cd "$here" && git ls-files -co --exclude-standard -z | xargs -0 tar -cf - 2>/dev/null) | tar -xf - -C "$src"
# tar keeps the checkout's mtimes: a run interrupted mid-mutant left objects
# newer than the sources, built from a mutant; rebuild libds from this copy
find "$src/libds/src" "$src/libds/tools" -type f -exec touch {} +
# the real-CPU CPUID dumps (tests/cpuid, model test_dumps) are looked up at
# ../shared/cpuid or ../../shared/cpuid of the tree: give the copy the
# checkout's, or those two tests SKIP and every mutant they would kill survives
for d in "$here/../shared" "$here/../../shared"; do
  if [ -d "$d/cpuid" ]; then ln -sfn "$(cd "$d" && pwd)" "$work/shared"; break; fi
done

gen() { # prints: id<TAB>file (from the top of the tree)<TAB>line<TAB>kind<TAB>new line (python-escaped)
python3 - "$src" "$seed" "$n" "$only" "$labels" <<'EOF'
import fnmatch, os, random, re, sys
src, seed, n, only, labels = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4], sys.argv[5]
dirs = ["libds/src", "libds/tools/dsdump"]
cands = sorted(os.path.join(d, f) for d in dirs for f in os.listdir(os.path.join(src, d)) if f.endswith(".c"))
# private headers with inline code (drain_int.h, session_attr.h, ...): only
# when -f names them, so the default sample and old seeds stay as they were
hdrs = sorted(os.path.join(d, f) for d in dirs for f in os.listdir(os.path.join(src, d)) if f.endswith(".h"))
if not only:
    files = [f for f in cands if f.startswith("libds/src/")]
else:
    files = set()
    for pat in (p.strip() for p in only.split(",") if p.strip()):
        pool = hdrs if pat.endswith(".h") else cands
        hit = [f for f in pool if fnmatch.fnmatchcase(f, pat) or fnmatch.fnmatchcase(os.path.basename(f), pat)]
        if not hit:
            sys.exit("mutate.sh: -f %s: no such %s file in %s" % (pat, ".h" if pat.endswith(".h") else ".c", " or ".join(dirs)))
        files.update(hit)
    files = sorted(files)
print("# files: %s" % " ".join(files), file=sys.stderr)
tok = re.compile(r'//.*|/\*.*?\*/|"(?:\\.|[^"\\])*"|\'(?:\\.|[^\'\\])*\'|'
                 r'(?P<op><<=|>>=|<<|>>|->|<=|>=|==|!=|&&|\|\||<|>)|'
                 r'(?P<num>\b(?:0[xX][0-9a-fA-F]+|\d+)(?P<suf>[uUlL]*)\b)|'
                 r'(?P<guard>return\s+DS_ERR_[A-Z0-9_]+\s*;)')
swap = {"<": "<=", "<=": "<", ">": ">=", ">=": ">", "==": "!=", "!=": "==", "&&": "||", "||": "&&"}
kind = {"<": "relop", "<=": "relop", ">": "relop", ">=": "relop", "==": "eqop", "!=": "eqop",
        "&&": "logop", "||": "logop"}
muts = []
# Code that the host/model build compiles out (a ds/config.h option at a
# non-default value, the freestanding !DS_HOSTED side) cannot change what
# those tests see: its mutants are equivalent there and are not drawn unless
# -L includes "config" (tests/config builds each option set; the freestanding
# side is only built by the kernel, which this script does not run).
skip_dead = "config" not in labels
defaults = {"DS_HOSTED": 1, "__x86_64__": 1, "DS_CONFIG_ASSERT": 0}
def cond(k, c):
    """True/False for a condition on DS_CONFIG_* / DS_HOSTED / __x86_64__ alone, else None."""
    c = re.sub(r'/\*.*?\*/|//.*', '', c).strip()
    if k in ("ifdef", "ifndef"):
        c = ("!" if k == "ifndef" else "") + "defined(" + c + ")"
    names = set(re.findall(r'[A-Za-z_]\w*', c)) - {"defined"}
    if not names or any(not (n.startswith("DS_CONFIG_") or n in defaults) for n in names):
        return None
    e = re.sub(r'defined\s*\(\s*(\w+)\s*\)', lambda m: "1", c)
    e = re.sub(r'[A-Za-z_]\w*', lambda m: str(defaults.get(m.group(0), 1)), e)
    e = e.replace("&&", " and ").replace("||", " or ").replace("!", " not ")
    try:
        return bool(eval(e, {}))
    except Exception:
        return None
for f in files:
    incomment = False
    stack = []  # per open #if: (this branch compiled, some branch taken, parent compiled)
    for ln, line in enumerate(open(os.path.join(src, f)), 1):
        pp = re.match(r'\s*#\s*(if|ifdef|ifndef|elif|else|endif)\b(.*)', line)
        if pp and not incomment:
            k, c = pp.group(1), pp.group(2)
            live = all(b[0] for b in stack)
            if k in ("if", "ifdef", "ifndef"):
                v = cond(k, c) if live else False
                stack.append([v is not False, v is not False, live])
            elif k == "elif" and stack:
                v = cond("if", c) if stack[-1][2] and not stack[-1][1] else False
                stack[-1][0] = v is not False
                stack[-1][1] |= stack[-1][0]
            elif k == "else" and stack:
                stack[-1][0] = stack[-1][2] and not stack[-1][1]
                stack[-1][1] = True
            elif k == "endif" and stack:
                stack.pop()
            continue
        if skip_dead and not all(b[0] for b in stack):
            continue  # compiled out in the tested build
        s = line.rstrip("\n")
        if incomment:
            if "*/" not in s:
                continue
            incomment = False
            continue  # rest of a comment's closing line: skipped
        st = s.lstrip()
        if st.startswith("#") or st.startswith("*"):
            continue  # preprocessor (includes, guards, config) and comment bodies
        if "/*" in s and "*/" not in s[s.index("/*"):]:
            incomment = True
            s = s[:s.index("/*")]
        for m in tok.finditer(s):
            a, b = m.span()
            if m.group("op") and m.group("op") in swap:
                o = m.group("op")
                muts.append((f, ln, kind[o], s[:a] + swap[o] + s[b:]))
            elif m.group("num"):
                t = m.group("num")
                suf = m.group("suf") or ""
                body = t[:len(t) - len(suf)] if suf else t
                octal = len(body) > 1 and body[0] == "0" and body[1] not in "xX"  # 0644 (dsdump)
                v = int(body, 8 if octal else 0)
                nv = v + 1 if v == 0 or (ln + a) % 2 else v - 1
                nb = hex(nv) if body.lower().startswith("0x") else "0%o" % nv if octal else str(nv)
                muts.append((f, ln, "const", s[:a] + nb + suf + s[b:]))
            elif m.group("guard"):
                muts.append((f, ln, "guard", s[:a] + "(void)0;" + s[b:]))
rng = random.Random(seed)
idx = list(range(len(muts)))
if n and n < len(idx):
    # the sample in the order drawn, not by file: a run stopped early (or
    # read while it runs) is still a random sample of every file
    idx = rng.sample(idx, n)
print("# %d mutation sites, %d in the sample" % (len(muts), len(idx)), file=sys.stderr)
for i in idx:
    f, ln, k, new = muts[i]
    print("%d\t%s\t%d\t%s\t%s" % (i, f, ln, k, new.replace("\\", "\\\\").replace("\t", "\\t")))
EOF
}
gen >"$work/sample.tsv" || exit 1
mapfile -t sample <"$work/sample.tsv"
if [ $list = 1 ]; then
  for m in "${sample[@]}"; do
    IFS=$'\t' read -r id f ln k new <<<"$m"
    printf 'M%s %s:%s %s: %s => %s\n' "$id" "$f" "$ln" "$k" "$(sed -n "${ln}p" "$src/$f" | sed 's/^ *//')" "$(printf '%b' "$new" | sed 's/^ *//')"
  done
  exit 0
fi

b="$work/build"
cmake -S "$src" -B "$b" -G Ninja -DLIBDS_BUILD_KERNEL=OFF >"$work/cmake.log" 2>&1 || {
  echo "mutate.sh: cmake failed, see $work/cmake.log" >&2; exit 1; }
# Each test's inputs: the build-dir files its command names that ninja builds
# (host.X runs tests/host/X, dsdump.logs names dsdump and dsrec_genlog,
# tools.dsinfo.* pass -DEXE=.../dsinfo, tools.depgraph --objs libds=a.a:b.a),
# read from the add_test lines of the CTestTestfile.cmake files (ctest
# --show-only=json-v1 leaves out the command of a test not built yet).
# $work/tests.tsv: name<TAB>inputs (space-separated, relative to $b; may be empty).
ninja -C "$b" -t targets all | sed -n 's/^\([^ ]*\): .*/\1/p' >"$work/outputs.txt"
(cd "$b" && ctest -N -L "$labels") | sed -n 's/^ *Test *#[0-9]*: //p' >"$work/names.txt"
find "$b" -name CTestTestfile.cmake -exec cat {} + | python3 -c '
import re, sys
b, outs = sys.argv[1], set(open(sys.argv[2]).read().split())
names = open(sys.argv[3]).read().split()
cmd = {}
for line in sys.stdin:
    m = re.match(r"add_test\(\[=\[(.*?)\]=\] (.*)\)$", line.strip())
    if m:
        cmd[m.group(1)] = re.findall(r"\"((?:[^\"\\]|\\.)*)\"", m.group(2))
for name in names:
    ins = set()
    for word in cmd.get(name, []):
        for p in re.split(r"[=:,;]", word):
            if p.startswith(b + "/") and p[len(b) + 1:] in outs:
                ins.add(p[len(b) + 1:])
    print("%s\t%s" % (name, " ".join(sorted(ins))))
' "$b" "$work/outputs.txt" "$work/names.txt" >"$work/tests.tsv"
targets=$(cut -f2 "$work/tests.tsv" | tr ' ' '\n' | sed '/^$/d' | sort -u | tr '\n' ' ')
[ -s "$work/tests.tsv" ] || { echo "mutate.sh: no tests labelled $labels found" >&2; exit 1; }
[ -n "$targets" ] || { echo "mutate.sh: the tests labelled $labels name no build target" >&2; exit 1; }
# shellcheck disable=SC2086
ninja -C "$b" -j"$jobs" $targets >"$work/build0.log" 2>&1 || {
  echo "mutate.sh: the unmutated tree does not build, see $work/build0.log" >&2; exit 1; }
(cd "$b" && ctest -L "$labels" -j"$jobs" >"$work/ctest0.log" 2>&1) || {
  echo "mutate.sh: the suite fails without mutants, see $work/ctest0.log" >&2; exit 1; }
# unmutated seconds per test, for the hang bound below
declare -A secs0
while read -r name t; do secs0[$name]=$t; done < <(
  sed -n 's/^ *[0-9]*\/[0-9]* *Test *#[0-9]*: \([^ ]*\) .* \([0-9.]*\) sec$/\1 \2/p' "$work/ctest0.log")
skipped=$(sed -n '/did not run:/,/^$/p' "$work/ctest0.log" | grep -oE '[a-z0-9_]+[.][a-z0-9_.]+' | tr '\n' ' ' || true)
[ -z "$skipped" ] || echo "mutate.sh: skipped without mutants (they kill nothing): $skipped" >&2
echo "mutate.sh: $(wc -l <"$work/tests.tsv") tests labelled $labels, $(wc -w <<<"$targets") build targets"

# reached TESTS_FILE STAMP: the tests to run against the mutant just built, as
# a ctest -R regex (see the header), and the hang bound in seconds: 10x their
# unmutated run, at least 60 s (a test's own TIMEOUT, 120 s for host tests,
# would cost minutes per looping mutant; ten times slower with the mutant is
# a detection: a hang)
reached() {
  local name ins i run sel="" secs=""
  while IFS=$'\t' read -r name ins; do
    run=$alltests
    [ -n "$ins" ] || run=1
    for i in $ins; do
      [ $run = 1 ] && break
      [ ! "$b/$i" -nt "$2" ] || run=1
    done
    [ $run = 1 ] || continue
    sel="$sel|${name//./\\.}"
    secs="$secs ${secs0[$name]:-0}"
  done <"$1"
  secs=$(awk -v s="$secs" 'BEGIN { n = split(s, a, " "); for (i = 1; i <= n; i++) t += a[i]
                                   l = int(t * 10 + 0.999); print (l < 60 ? 60 : l) }')
  [ -z "$sel" ] || echo "^(${sel#|})\$ $secs"
}

killed=0 total=0 still=0
survivors=()
stamp="$work/stamp"
for m in "${sample[@]}"; do
  IFS=$'\t' read -r id f ln k new <<<"$m"
  file="$src/$f"
  cp "$file" "$work/orig.c"
  python3 - "$file" "$ln" "$new" <<'EOF'
import sys
p, ln, new = sys.argv[1], int(sys.argv[2]), sys.argv[3]
new = new.replace("\\t", "\t").replace("\\\\", "\\")
lines = open(p).read().split("\n")
lines[ln - 1] = new
open(p, "w").write("\n".join(lines))
EOF
  desc="M$id $f:$ln $k: $(sed -n "${ln}p" "$work/orig.c" | sed 's/^ *//') => $(sed -n "${ln}p" "$file" | sed 's/^ *//')"
  touch "$stamp"
  # shellcheck disable=SC2086
  if ! ninja -C "$b" -j"$jobs" $targets >"$work/build.log" 2>&1; then
    still=$((still + 1))
    echo "stillborn $desc"
  else
    total=$((total + 1))
    rc=0 sel=$(reached "$work/tests.tsv" "$stamp")
    if [ -z "$sel" ]; then
      desc="$desc (no test of $labels reaches it)"
    else
      # timeout signals ctest's whole process group (the test it runs too), KILL 5 s later
      (cd "$b" && timeout -k 5 "${sel#* }" ctest -R "${sel% *}" -L "$labels" -j"$jobs" --stop-on-failure \
        >"$work/ctest.log" 2>&1) || rc=$?
    fi
    if [ $rc = 0 ]; then
      survivors+=("$desc")
      echo "SURVIVED  $desc"
    else
      killed=$((killed + 1))
      grep -q "tests FAILED:" "$work/ctest.log" || echo "tests FAILED: (past ${sel#* } s) 0 - timeout (" >>"$work/ctest.log"
      failing=$(sed -n '/tests FAILED:/,$p' "$work/ctest.log" | grep -oE '[0-9]+ - [a-z0-9_.]+ \(' |
                awk '{print $3}' | sort -u | tr '\n' ' ' || true)
      echo "killed    $desc (failing: $failing)"
    fi
  fi
  # back to the unmutated build before the next mutant's stamp
  cp "$work/orig.c" "$file"
  touch "$file"
  # shellcheck disable=SC2086
  ninja -C "$b" -j"$jobs" $targets >/dev/null 2>&1 || true
done
echo "stillborn (did not compile, not counted): $still"
if [ $total -gt 0 ]; then
  echo "killed $killed of $total ($((100 * killed / total)) %)"
else
  echo "killed 0 of 0"
fi
if [ ${#survivors[@]} -gt 0 ]; then
  echo "survivors:"
  printf '  %s\n' "${survivors[@]}"
fi
