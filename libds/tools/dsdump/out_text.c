/* SPDX-License-Identifier: BSD-2-Clause */
/* The text report: headers, per-CPU blocks, PEBS tables, lost counts, END. See out_text.h. */
#include "out_text.h"

#include "out_bts.h"
#include "out_lbr.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

/* One counters-group snapshot: "seq N: gp0=0x.. fixed1=0x.. slots=0x.. metrics=0x..". */
static void print_cntr(FILE *f, const char *what, const struct dslog_rec *r)
{
    fprintf(f, "#   %s seq %" PRIu64 ":", what, r->v[K_SEQ]);
    for (unsigned n = 0; n < 16; n++)
        if (r->cntr_gp_mask >> n & 1)
            fprintf(f, " gp%u=0x%" PRIx64, n, r->cntr_gp[n]);
    for (unsigned n = 0; n < 8; n++)
        if (r->cntr_fixed_mask >> n & 1)
            fprintf(f, " fixed%u=0x%" PRIx64, n, r->cntr_fixed[n]);
    if (dslog_has(r, K_SLOTS))
        fprintf(f, " slots=0x%" PRIx64 " metrics=0x%" PRIx64, r->v[K_SLOTS], r->v[K_METRICS]);
    fprintf(f, "\n");
}

static void print_pebs_tables(const struct runs *R, const struct idxs *rl)
{
    for (size_t x = 0; x < rl->n; x++) {
        const struct run *ru = &R->v[rl->v[x]];
        if (!ru->pebs)
            continue;
        char lb[80];
        run_label(R, ru->log, ru->name, lb, sizeof lb);
        printf("\n# PEBS run %s: %" PRIu64 " samples", lb, ru->pebs);
        struct dslog_rec buf;
        const struct dslog_rec *sum = run_summary(R, ru, &buf);
        if (sum)
            printf(" (kind=%s events=%" PRIu64 " period=%" PRIu64 " expected samples=%" PRIu64 ")",
                   sum->s[K_KIND], sum->v[K_EVENTS], sum->v[K_PERIOD], sum->v[K_SAMPLES]);
        printf("\n# %9s %9s  %-32s %s\n", "Overhead", "Samples", "Symbol", "");
        for (size_t k = 0; k < ru->nsyms; k++) {
            double pct = 100.0 * (double)ru->syms[k].n / (double)ru->pebs;
            int bar = (int)(pct / 2.0 + 0.5);
            char bars[51];
            memset(bars, '#', (size_t)bar);
            bars[bar] = 0;
            printf("  %8.2f%% %9" PRIu64 "  %-32s %s\n", pct, ru->syms[k].n, ru->syms[k].name, bars);
        }
        if (ru->cntr) {
            printf("# counters group (PEBS format 6) in %" PRIu64 " of %" PRIu64 " records\n", ru->cntr, ru->pebs);
            print_cntr(stdout, "first", item_rec(R->S, ru->cntr_first, &buf));
            if (ru->cntr > 1)
                print_cntr(stdout, "last ", item_rec(R->S, ru->cntr_last, &buf));
        }
    }
}

/* The LOST lines in ll. */
static void print_lost(const struct input *S, const struct runs *R, const struct idxs *ll)
{
    for (size_t x = 0; x < ll->n; x++) {
        size_t j = ll->v[x];
        struct dslog_rec buf;
        const struct dslog_rec *r = item_rec(S, j, &buf);
        if (!x)
            printf("\n# Lost records\n");
        char lb[80];
        run_label(R, S->items.v[j].log, r->s[K_RUN], lb, sizeof lb);
        printf("  run %-20s kind=%-4s reason=%-12s count=%" PRIu64 "\n", lb, r->s[K_KIND], r->s[K_REASON],
               r->v[K_COUNT]);
    }
}

static void print_sections(const struct input *S, const struct runs *R, const struct cpugroups *G, size_t g,
                           long bts_limit, long lbr_limit, long lbr_entries)
{
    print_pebs_tables(R, &G->runs[g]);
    print_bts(S, R, &G->runs[g], bts_limit);
    print_lbr(S, R, &G->runs[g], &G->logs[g], G->snaps, lbr_limit, lbr_entries);
    print_lost(S, R, &G->lost[g]);
}

static void cpu_name(long long cpu, char *b, size_t n)
{
    if (cpu == CPU_NONE)
        snprintf(b, n, "?");
    else
        snprintf(b, n, "%lld", cpu);
}

/* With logs of several CPUs: a summary row per CPU, then one block per CPU
 * (issue 13: dsdump groups the records per CPU). */
static void print_per_cpu(const struct input *S, const struct runs *R, const struct cpugroups *G, long bts_limit,
                          long lbr_limit, long lbr_entries)
{
    printf("\n# Per CPU (HDR cpu=; ? = a log without cpu=): %zu CPUs\n", G->n);
    printf("# %5s %5s %5s %9s %9s %9s %9s %9s %9s\n", "cpu", "logs", "runs", "pebs", "bts", "lbr", "lost.pebs",
           "lost.bts", "lost.lbr");
    for (size_t g = 0; g < G->n; g++) {
        const struct cpustat *st = &G->st[g];
        char nm[24];
        cpu_name(G->cpu[g], nm, sizeof nm);
        printf("  %5s %5u %5" PRIu64 " %9" PRIu64 " %9" PRIu64 " %9" PRIu64 " %9" PRIu64 " %9" PRIu64 " %9" PRIu64
               "\n", nm, st->logs, st->runs, st->pebs, st->bts, st->lbr, st->lost[0], st->lost[1], st->lost[2]);
    }
    for (size_t g = 0; g < G->n; g++) {
        char nm[24];
        cpu_name(G->cpu[g], nm, sizeof nm);
        printf("\n## CPU %s: logs", nm);
        for (size_t x = 0; x < G->logs[g].n; x++) {
            size_t l = G->logs[g].v[x];
            printf(" %zu:%s", l, R->hdr[l].profile);
        }
        printf("\n");
        print_sections(S, R, G, g, bts_limit, lbr_limit, lbr_entries);
        const struct cpustat *st = &G->st[g];
        printf("\n# Lost on cpu %s: pebs=%" PRIu64 " bts=%" PRIu64 " lbr=%" PRIu64 "\n", nm, st->lost[0], st->lost[1],
               st->lost[2]);
    }
}

void print_text(const struct input *S, const struct runs *R, const struct cpugroups *G, long bts_limit,
                long lbr_limit, long lbr_entries)
{
    struct dslog_rec buf;
    for (size_t i = 0; i < S->items.n; i++) {
        if (S->items.v[i].type != DSLOG_HDR)
            continue;
        const struct dslog_rec *r = item_rec(S, i, &buf);
        printf("DSLOG v1 log %u (line %lu): arch=%s backend=%s profile=%s kernel=%s%s%s", S->items.v[i].log,
               S->items.v[i].line, r->s[K_ARCH], r->s[K_BACKEND], r->s[K_PROFILE], r->s[K_KERNEL],
               dslog_has(r, K_WHY) ? " why=" : "", dslog_has(r, K_WHY) ? r->s[K_WHY] : "");
        if (dslog_has(r, K_CPU))
            printf(" cpu=%llu", (unsigned long long)r->v[K_CPU]);
        printf("\n");
    }
    uint64_t lost[3] = {0, 0, 0};
    for (size_t g = 0; g < G->n; g++)
        for (int k = 0; k < 3; k++)
            lost[k] += G->st[g].lost[k];
    if (G->n > 1)
        print_per_cpu(S, R, G, bts_limit, lbr_limit, lbr_entries);
    else
        print_sections(S, R, G, 0, bts_limit, lbr_limit, lbr_entries);
    printf("\n# Lost: pebs=%" PRIu64 " bts=%" PRIu64 " lbr=%" PRIu64 "\n", lost[0], lost[1], lost[2]);
    for (size_t j = 0; j < S->items.n; j++) {
        if (S->items.v[j].type != DSLOG_END)
            continue;
        const struct dslog_rec *r = item_rec(S, j, &buf);
        printf("# END (line %lu): runs=%" PRIu64 " records=%" PRIu64 " kernel tests passed=%" PRIu64
               " failed=%" PRIu64 " skipped=%" PRIu64 "\n",
               S->items.v[j].line, r->v[K_RUNS], r->v[K_RECORDS], r->v[K_PASSED], r->v[K_FAILED], r->v[K_SKIPPED]);
    }
    if (S->nerr)
        printf("# %zu error(s) in the log; the records above are the well-formed ones\n", S->nerr);
}

