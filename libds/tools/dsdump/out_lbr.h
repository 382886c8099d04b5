/* SPDX-License-Identifier: BSD-2-Clause */
/* The LBR stacks of the text report: each snapshot's entries, newest first. */
#ifndef DSDUMP_OUT_LBR_H
#define DSDUMP_OUT_LBR_H

#include "cpugroups.h"
#include "input.h"
#include "runs.h"

/* LBR snapshots of the runs in rl (of the logs in ll) on stdout: at most
 * lbr_limit snapshots per log and lbr_entries entries per snapshot (negative:
 * all); snaps counts per log (R->nlogs + 1 slots, zero at first). */
void print_lbr(const struct input *S, const struct runs *R, const struct idxs *rl, const struct idxs *ll,
               long *snaps, long lbr_limit, long lbr_entries);

#endif /* DSDUMP_OUT_LBR_H */
