/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * BTS internals shared with the PMI handler (pmi.c).
 */
#ifndef DS_BTS_INT_H
#define DS_BTS_INT_H

#include <ds/area.h>
#include <ds/bts.h>

/* ds_bts_drain's walk without its argument checks, added into @st (not
 * cleared; circular mode clears DS_DRAIN_FULL in @st, so one drain per @st
 * there: the PMI handler drains threshold mode only): ds_pmi_handle drains
 * into its result with no stats in its frames (issue 29 item 3), and
 * ds_bts_drain into its own. @ctx set up with a BTS buffer. */
void ds__bts_drain_add(struct ds_ctx *ctx, ds_bts_sink sink, void *arg, struct ds_drain_stats *st);

#endif /* DS_BTS_INT_H */
