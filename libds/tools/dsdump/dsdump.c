/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * dsdump: read a libds test-kernel serial log (DSLOG format, docs/records.md),
 * check and decode every record, symbolize IPs against the kernel ELF (libelf),
 * and print a perf-report-like sample table, the BTS trace, LBR stacks, lost
 * record counts; or JSON / CSV; optionally an SVG hot-spot chart.
 *
 * This file is main and its glue. The parts, each with its header, in the
 * order of a run of the program (an arrow: "uses"):
 *   options      the command line
 *   input        the log read into records and errors -> dslog (the DSLOG reader)
 *   symtab       ELF symbols (libelf)
 *   runs         the model of a run: records grouped into runs, per-run symbol
 *                counts and BTS/LBR chains -> hmap, symtab
 *   cpugroups    runs, LOST lines and logs grouped per CPU (HDR cpu=) -> runs
 *   out_text     the text report -> out_bts (BTS trace), out_lbr (LBR stacks)
 *   out_json, out_csv, out_svg   --json, --csv, --svg (out_json, out_svg -> utf8)
 *   out_junit    --junit: the log's TAP checks as JUnit XML
 *   perfdata     --perf-data (write_perf below converts the runs for it)
 * xalloc (allocation that exits on failure) is used by all of them.
 */
#include "cpugroups.h"
#include "input.h"
#include "options.h"
#include "out_csv.h"
#include "out_json.h"
#include "out_junit.h"
#include "out_svg.h"
#include "out_text.h"
#include "perfdata.h"
#include "runs.h"
#include "symtab.h"
#include "xalloc.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct dslog_rec *pd_rec(const void *ctx, size_t i, struct dslog_rec *buf)
{
    return item_rec(ctx, i, buf);
}

/* --perf-data: the items, runs and logs in perfdata.h's terms, argv as the recorded command line. */
static int write_perf(const char *path, const struct input *S, const struct runs *R, const struct pd_elf *elf,
                      int argc, char **argv, char *err, size_t errsz)
{
    struct pd_item *items = xrealloc(NULL, (S->items.n + 1) * sizeof *items);
    struct pd_run *runs = xrealloc(NULL, (R->n + 1) * sizeof *runs);
    struct pd_log *logs = xrealloc(NULL, (R->nlogs + 1) * sizeof *logs);
    struct dslog_rec *buf = xrealloc(NULL, sizeof *buf);
    for (size_t i = 0; i < S->items.n; i++)
        items[i] = (struct pd_item){S->items.v[i].type, R->run_of[i] == NONE ? PD_NONE : R->run_of[i],
                                    S->items.v[i].log};
    for (size_t i = 0; i < R->n; i++) {
        const struct dslog_rec *sum = run_summary(R, &R->v[i], buf);
        runs[i] = (struct pd_run){R->v[i].name, R->v[i].log, sum ? sum->v[K_PERIOD] : 0, R->v[i].pebs,
                                  R->v[i].bts, R->v[i].lbr};
    }
    for (unsigned l = 0; l < R->nlogs; l++) {
        const struct dslog_rec *h = log_hdr(R, l, buf);
        struct pd_log *p = &logs[l];
        memset(p, 0, sizeof *p);
        if (!h)
            continue;
        *p = (struct pd_log){.present = 1, .has_cpu = dslog_has(h, K_CPU), .has_why = dslog_has(h, K_WHY),
                             .cpu = (uint32_t)h->v[K_CPU], .tsc_khz = h->tsc_khz};
        snprintf(p->arch, sizeof p->arch, "%s", h->s[K_ARCH]);
        snprintf(p->backend, sizeof p->backend, "%s", h->s[K_BACKEND]);
        snprintf(p->profile, sizeof p->profile, "%s", h->s[K_PROFILE]);
        snprintf(p->kernel, sizeof p->kernel, "%s", h->s[K_KERNEL]);
        snprintf(p->why, sizeof p->why, "%s", h->s[K_WHY]);
    }
    free(buf);
    char cmd[1024] = "";
    for (int i = 0; i < argc; i++) {
        size_t n = strlen(cmd);
        snprintf(cmd + n, sizeof cmd - n, "%s%s", i ? " " : "", argv[i]);
    }
    struct pd_input in = {.items = items, .nitems = S->items.n, .rec = pd_rec, .ctx = S, .runs = runs,
                          .nruns = R->n, .logs = logs, .nlogs = R->nlogs, .elf = *elf, .cmdline = cmd};
    int rc = pd_write(path, &in, err, errsz);
    free(items);
    free(runs);
    free(logs);
    return rc;
}

/* Prints the chosen report, then writes the SVG and perf.data files asked for.
 * Returns the exit code: 1 if the log had errors, 2 if an output failed. */
static int write_outputs(const struct opts *o, struct input *S, struct runs *R, const struct pd_elf *pelf,
                         int argc, char **argv, char *err, size_t errsz)
{
    struct cpugroups G;
    groups_build(S, R, &G);
    if (o->json)
        print_json(S, R, &G);
    else if (o->csv)
        print_csv(S, R);
    else
        print_text(S, R, &G, o->limit, o->lbr_limit, o->lbr_entries);
    groups_free(&G);
    int rc = S->nerr ? 1 : 0;
    if (o->svg && write_svg(o->svg, S, R)) {
        fprintf(stderr, "dsdump: %s: %s\n", o->svg, strerror(errno));
        rc = 2;
    }
    if (o->perf && write_perf(o->perf, S, R, pelf, argc, argv, err, errsz)) {
        fprintf(stderr, "dsdump: %s\n", err);
        rc = 2;
    }
    if (fflush(stdout))
        rc = 2;
    return rc;
}

/* Issue 27 item 7: an ELF of the other arch gives wrong symbols silently. */
static void warn_elf_mismatch(const struct input *S, const char *elf)
{
    struct dslog_rec buf;
    for (size_t i = 0; i < S->items.n; i++) {
        if (S->items.v[i].type != DSLOG_HDR)
            continue;
        const struct dslog_rec *r = item_rec(S, i, &buf);
        char d[48];
        const char *what = symtab_mismatch(S->syms, r->s[K_ARCH], d, sizeof d);
        if (what) {
            fprintf(stderr, "dsdump: warning: %s is %s, but the log at line %lu is arch=%s: its symbols will be "
                            "wrong (give the kernel ELF that wrote the log)\n", elf, what, S->items.v[i].line,
                    r->s[K_ARCH]);
            return;
        }
    }
}

int main(int argc, char **argv)
{
    struct opts o;
    int rc = parse_args(argc, argv, &o);
    if (rc >= 0)
        return rc;
    FILE *fin = stdin;
    if (o.in && strcmp(o.in, "-")) {
        fin = fopen(o.in, "r");
        if (!fin) {
            fprintf(stderr, "dsdump: %s: %s\n", o.in, strerror(errno));
            return 2;
        }
    }
    struct symtab st;
    char err[512];
    struct input S = {.name = o.in && strcmp(o.in, "-") ? o.in : "<stdin>"};
    struct pd_elf pelf = {0};
    static char elfpath[4096];
    if (o.elf) {
        if (load_symbols(o.elf, &st, err, sizeof err) ||
            (o.perf && pd_elf_read(o.elf, &pelf, elfpath, sizeof elfpath, err, sizeof err))) {
            fprintf(stderr, "dsdump: %s\n", err);
            return 2;
        }
        S.syms = &st;
    }
    if (o.junit && !(S.tap = tmpfile())) {
        fprintf(stderr, "dsdump: --junit: %s\n", strerror(errno));
        return 2;
    }
    if (read_log(fin, &S, err, sizeof err))
        return 2;
    if (S.syms)
        warn_elf_mismatch(&S, o.elf);
    struct runs R = {0};
    aggregate(&S, &R);
    rc = write_outputs(&o, &S, &R, &pelf, argc, argv, err, sizeof err);
    if (S.tap) {
        if (write_junit(o.junit, S.tap, S.name, S.nerr)) {
            fprintf(stderr, "dsdump: %s: %s\n", o.junit, strerror(errno));
            rc = 2;
        }
        fclose(S.tap);
    }
    runs_free(&R);
    input_free(&S);
    if (S.syms)
        symtab_free(&st);
    return rc;
}
