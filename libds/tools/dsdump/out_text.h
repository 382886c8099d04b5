/* SPDX-License-Identifier: BSD-2-Clause */
/* The text report (the default output): HDR lines, with logs of several CPUs
 * a summary row and a block per CPU, PEBS sample tables, the BTS trace
 * (out_bts.h), LBR stacks (out_lbr.h), lost and END counts. */
#ifndef DSDUMP_OUT_TEXT_H
#define DSDUMP_OUT_TEXT_H

#include "cpugroups.h"
#include "input.h"
#include "runs.h"

/* On stdout. bts_limit, lbr_limit, lbr_entries: --limit, --lbr-limit, --lbr-entries (negative: all). */
void print_text(const struct input *S, const struct runs *R, const struct cpugroups *G, long bts_limit,
                long lbr_limit, long lbr_entries);

#endif /* DSDUMP_OUT_TEXT_H */
