/* SPDX-License-Identifier: BSD-2-Clause */
/* The input's logs grouped by CPU (issue 13): see cpugroups.h. */
#include "cpugroups.h"

#include "input.h"
#include "runs.h"
#include "xalloc.h"

#include <stdlib.h>
#include <string.h>

static int ll_cmp(const void *a, const void *b)
{
    long long x = *(const long long *)a, y = *(const long long *)b;
    return (x > y) - (x < y);
}

static int lost_kind(const char *kind)
{
    return !strcmp(kind, "pebs") ? 0 : !strcmp(kind, "bts") ? 1 : 2;
}

static size_t cpu_rank(const struct cpugroups *G, long long c)
{
    const long long *p = bsearch(&c, G->cpu, G->n, sizeof *G->cpu, ll_cmp);
    return p ? (size_t)(p - G->cpu) : 0;
}

/* Put index i (of rank rk) at the end of group rk's list, sized by a first counting pass. */
static void group_put(struct idxs *l, size_t rk, size_t i, int counting)
{
    if (counting)
        l[rk].n++;
    else
        l[rk].v[l[rk].n++] = i;
}

static size_t log_rank(const struct runs *R, const struct cpugroups *G, unsigned log)
{
    return log < R->nlogs ? G->rank[log] : 0;
}

static void groups_fill(const struct input *S, const struct runs *R, struct cpugroups *G, int counting)
{
    for (unsigned l = 0; l < R->nlogs; l++)
        group_put(G->logs, G->rank[l], l, counting);
    for (size_t i = 0; i < R->n; i++)
        group_put(G->runs, log_rank(R, G, R->v[i].log), i, counting);
    for (size_t j = 0; j < S->items.n; j++)
        if (S->items.v[j].type == DSLOG_LOST)
            group_put(G->lost, log_rank(R, G, S->items.v[j].log), j, counting);
}

void groups_build(const struct input *S, const struct runs *R, struct cpugroups *G)
{
    memset(G, 0, sizeof *G);
    G->cpu = xrealloc(NULL, (R->nlogs + 1) * sizeof *G->cpu);
    for (unsigned l = 0; l < R->nlogs; l++)
        G->cpu[l] = log_cpu(R, l);
    qsort(G->cpu, R->nlogs, sizeof *G->cpu, ll_cmp);
    for (unsigned l = 0; l < R->nlogs; l++)
        if (!G->n || G->cpu[G->n - 1] != G->cpu[l])
            G->cpu[G->n++] = G->cpu[l];
    if (!G->n) /* no HDR: one group of everything */
        G->cpu[G->n++] = CPU_NONE;
    G->rank = xrealloc(NULL, (R->nlogs + 1) * sizeof *G->rank);
    G->snaps = xrealloc(NULL, (R->nlogs + 1) * sizeof *G->snaps);
    memset(G->snaps, 0, (R->nlogs + 1) * sizeof *G->snaps);
    for (unsigned l = 0; l < R->nlogs; l++)
        G->rank[l] = cpu_rank(G, log_cpu(R, l));
    size_t k = G->n + 1;
    G->runs = xrealloc(NULL, 3 * k * sizeof *G->runs);
    memset(G->runs, 0, 3 * k * sizeof *G->runs);
    G->lost = G->runs + k;
    G->logs = G->lost + k;
    groups_fill(S, R, G, 1);
    size_t total = 0;
    for (size_t g = 0; g < 3 * k; g++)
        total += G->runs[g].n;
    G->store = xrealloc(NULL, (total + 1) * sizeof *G->store);
    for (size_t g = 0, at = 0; g < 3 * k; g++) {
        G->runs[g].v = G->store + at;
        at += G->runs[g].n;
        G->runs[g].n = 0;
    }
    groups_fill(S, R, G, 0);
    G->st = xrealloc(NULL, k * sizeof *G->st);
    memset(G->st, 0, k * sizeof *G->st);
    for (size_t g = 0; g < G->n; g++) {
        struct cpustat *st = &G->st[g];
        st->logs = (unsigned)G->logs[g].n;
        st->runs = G->runs[g].n;
        for (size_t i = 0; i < G->runs[g].n; i++) {
            const struct run *ru = &R->v[G->runs[g].v[i]];
            st->pebs += ru->pebs;
            st->bts += ru->bts;
            st->lbr += ru->lbr;
        }
        for (size_t i = 0; i < G->lost[g].n; i++) {
            struct dslog_rec buf;
            const struct dslog_rec *r = item_rec(S, G->lost[g].v[i], &buf);
            st->lost[lost_kind(r->s[K_KIND])] += r->v[K_COUNT];
        }
    }
}

void groups_free(struct cpugroups *G)
{
    free(G->cpu);
    free(G->runs);
    free(G->store);
    free(G->st);
    free(G->rank);
    free(G->snaps);
}

