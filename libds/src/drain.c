/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Drain engine shared by PEBS and BTS: bounds that hold whatever the DS
 * management fields contain. Only the caller's buffer as recorded at setup
 * (ctx->{bts,pebs}.mem, .bytes) is ever read; base, maximum and threshold
 * are taken from the context, never from the (CPU- or attacker-writable)
 * area; the index is read once, checked, and clamped.
 */
#include <ds/area.h>
#include <ds/pebs.h>
#include "internal.h"

/* Needed by BTS and PEBS only (ds/config.h). */
#if DS_CONFIG_BTS || DS_CONFIG_PEBS

void ds__drain_check_fields(struct ds_ctx *ctx, bool pebs, struct ds_drain_stats *st)
{
    const struct ds_buf_state *b = pebs ? &ctx->pebs : &ctx->bts;
    if (ds__area_get(ctx, pebs, DS__BASE) != b->linear) {
        st->anomalies |= DS_DRAIN_BASE_CHANGED;
        ds__area_put(ctx, pebs, DS__BASE, b->linear);
    }
    if (ds__area_get(ctx, pebs, DS__MAX) != b->linear + b->bytes) {
        st->anomalies |= DS_DRAIN_MAX_CHANGED;
        ds__area_put(ctx, pebs, DS__MAX, b->linear + b->bytes);
    }
    uint64_t t = ds__buf_thresh_field(ctx, pebs);
    if (ctx->layout == DS_LAYOUT_32)
        t &= 0xFFFFFFFFull;
    if (ds__area_get(ctx, pebs, DS__THRESH) != t) {
        st->anomalies |= DS_DRAIN_THRESH_CHANGED;
        ds__area_put(ctx, pebs, DS__THRESH, t);
    }
}

void ds__drain_finish(struct ds_ctx *ctx, bool pebs, uint64_t seen_index, struct ds_drain_stats *st)
{
    const struct ds_buf_state *b = pebs ? &ctx->pebs : &ctx->bts;
    uint64_t now = ds__area_get(ctx, pebs, DS__INDEX);
    /* Records the CPU appended while we walked (only meaningful if the index
     * we walked to was sane and it moved forward within the buffer). */
    if (now != seen_index && seen_index >= b->linear && now > seen_index && now <= b->linear + b->bytes) {
        uint64_t n = ds__div_rec(now - seen_index, b->rec_size, NULL);
        if (n) {
            st->lost_race += n;
            st->present += n;
            st->anomalies |= DS_DRAIN_RACE;
        }
    }
    ds__area_put(ctx, pebs, DS__INDEX, b->linear);
}

uint32_t ds__drain_span(struct ds_ctx *ctx, bool pebs, struct ds_drain_stats *st, uint64_t *out_idx)
{
    const struct ds_buf_state *b = pebs ? &ctx->pebs : &ctx->bts;
    uint64_t idx = ds__area_get(ctx, pebs, DS__INDEX);

    DS_ASSERT(b->mem && b->rec_size && b->bytes == (uint64_t)b->nrec * b->rec_size);
    *out_idx = idx;
    ds__drain_check_fields(ctx, pebs, st);
    if (idx < b->linear) {
        st->anomalies |= DS_DRAIN_INDEX_BELOW_BASE;
        return 0;
    }
    uint64_t off = idx - b->linear;
    uint64_t rem;
    uint64_t claimed = ds__div_rec(off, b->rec_size, &rem);
    if (rem)
        st->anomalies |= DS_DRAIN_INDEX_MISALIGNED;
    uint64_t inbuf = claimed < b->nrec ? claimed : b->nrec;
    /* Compare bytes, not whole records: an index past the maximum by less
     * than one record is past the maximum too (pebs.h DS_DRAIN_INDEX_PAST_MAX);
     * FULL is the index exactly at the maximum. */
    if (off > b->bytes)
        st->anomalies |= DS_DRAIN_INDEX_PAST_MAX;
    else if (off == b->bytes)
        st->anomalies |= DS_DRAIN_FULL;
    st->present += claimed;
    st->lost_beyond += claimed - inbuf;
    return (uint32_t)inbuf;
}

#endif /* DS_CONFIG_BTS || DS_CONFIG_PEBS */
