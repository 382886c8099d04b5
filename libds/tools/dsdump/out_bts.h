/* SPDX-License-Identifier: BSD-2-Clause */
/* The BTS trace of the text report: every branch of a run, symbolized. */
#ifndef DSDUMP_OUT_BTS_H
#define DSDUMP_OUT_BTS_H

#include "cpugroups.h"
#include "input.h"
#include "runs.h"

/* The branches of the runs in rl on stdout, at most bts_limit per run (negative: all). */
void print_bts(const struct input *S, const struct runs *R, const struct idxs *rl, long bts_limit);

#endif /* DSDUMP_OUT_BTS_H */
