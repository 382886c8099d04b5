/* SPDX-License-Identifier: BSD-2-Clause */
/* The input's logs grouped by the CPU of their HDR cpu= (issue 13). */
#ifndef DSDUMP_CPUGROUPS_H
#define DSDUMP_CPUGROUPS_H

#include <stddef.h>
#include <stdint.h>

struct input;
struct runs;

struct cpustat {
    unsigned logs;
    uint64_t runs, pebs, bts, lbr, lost[3]; /* lost: pebs, bts, lbr */
};

/* A list of indexes (runs, LOST items or logs) in input order. */
struct idxs {
    size_t *v, n;
};

/* The input's logs grouped by CPU: n distinct CPUs (ascending, CPU_NONE
 * first); for group g its runs, LOST items and logs in input order, and
 * its sums. Built in one pass (counting sort), so the report stays linear
 * in the records whatever the number of CPUs. */
struct cpugroups {
    long long *cpu;
    size_t n;
    struct idxs *runs, *lost, *logs;
    struct cpustat *st;
    size_t *store; /* the index arrays of all groups */
    size_t *rank;  /* per log: its group */
    long *snaps;   /* per log (+1): LBR snapshots shown (print_lbr) */
};

void groups_build(const struct input *S, const struct runs *R, struct cpugroups *G);
void groups_free(struct cpugroups *G);

#endif /* DSDUMP_CPUGROUPS_H */
