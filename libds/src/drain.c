/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Drain engine shared by PEBS and BTS: bounds that hold whatever the DS
 * management fields contain. Only the caller's buffer as recorded at setup
 * (ctx->{bts,pebs}.mem, .bytes) is ever read; base, maximum and threshold
 * are taken from the context, never from the (CPU- or attacker-writable)
 * area; the index is read once, checked, and clamped.
 */
#include <ds/area.h>
#include "drain_int.h"

/* Needed by BTS and PEBS only (ds/config.h). */
#if DS_CONFIG_BTS || DS_CONFIG_PEBS

/* The bodies are inline in drain_int.h (pebs_fixed.c inlines them on the
 * PMI path); these copies serve bts.c and pebs_adaptive.c. */
uint32_t ds__drain_span(struct ds_ctx *ctx, bool pebs, struct ds_drain_stats *st, uint64_t *out_idx)
{
    return ds__drain_span_inl(ctx, pebs, st, out_idx);
}

void ds__drain_finish(struct ds_ctx *ctx, bool pebs, uint64_t seen_index, struct ds_drain_stats *st)
{
    ds__drain_finish_inl(ctx, pebs, seen_index, st);
}

#endif /* DS_CONFIG_BTS || DS_CONFIG_PEBS */
