/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The NetBurst PEBS flow: no global status, one PEBS counter (IQ_COUNTER4)
 * and an event named by ESCR and mask with a replay-tagging metric
 * (netburst.h). The runs chase loads (1stL_cache_load_miss_retired tags
 * them: STEP_DSM_LOAD_DATA_SRC) with fixed-vector and NMI delivery; the checks
 * are the DS-area PEBS ones (pebs.c, checks.c). See flow.h.
 */
#include "flow.h"

/* The NetBurst PEBS runs appended to @runs; returns the new count. */
unsigned nb_runs(struct run_cfg *runs, unsigned nr)
{
    runs[nr++] = (struct run_cfg){.name = "pebs-chase-fixed", .lbr = true, .kind = "pebs", .wl = WL_CHASE,
                                  .n = CHASE_N, .pebs = true, .loads = true, .period = CHASE_PERIOD};
    runs[nr++] = (struct run_cfg){.name = "pebs-chase-nmi", .lbr = true, .kind = "pebs", .wl = WL_CHASE,
                                  .n = CHASE_N, .pebs = true, .loads = true, .period = CHASE_PERIOD,
                                  .nmi = true};
    return nr;
}
