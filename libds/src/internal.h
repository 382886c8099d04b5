/* SPDX-License-Identifier: BSD-2-Clause */
/* libds private DS-area internals (area.c, drain.c, pebs.c, bts.c, pmi.c,
 * probe.c): the DS management fields, buffer thresholds and the drain engine
 * shared by PEBS and BTS. Helpers without facility types are in util.h
 * (issue 26 item 5: included here, never the other way round). */
#ifndef DS_INTERNAL_H
#define DS_INTERNAL_H

#include "util.h"
#include <ds/area.h>
#include <ds/pebs.h>

/*
 * DS management fields (SDM Vol. 3B "DS Save Area": BTS base, index,
 * maximum, threshold, then the same four for PEBS), read/written through
 * volatile (the CPU updates the index). Inline: the PMI path reads them on
 * every NMI (issue 10 item 21); @pebs and @f are constants at every call,
 * so each is one load or store after the layout test.
 */
enum ds__fld { DS__BASE = 0, DS__INDEX = 1, DS__MAX = 2, DS__THRESH = 3 };

static inline uint64_t ds__area_get(const struct ds_ctx *ctx, bool pebs, enum ds__fld f)
{
    unsigned i = (pebs ? 4u : 0u) + (unsigned)f;
    if (ctx->layout == DS_LAYOUT_32)
        return ((const volatile uint32_t *)&ctx->area->a32)[i];
    return ((const volatile uint64_t *)&ctx->area->a64)[i];
}

static inline void ds__area_put(struct ds_ctx *ctx, bool pebs, enum ds__fld f, uint64_t v)
{
    unsigned i = (pebs ? 4u : 0u) + (unsigned)f;
    if (ctx->layout == DS_LAYOUT_32)
        ((volatile uint32_t *)&ctx->area->a32)[i] = (uint32_t)v;
    else
        ((volatile uint64_t *)&ctx->area->a64)[i] = v;
}

/* The threshold field value setup programs for a buffer: the interrupt
 * threshold, or past the absolute maximum (never reached) without one.
 * Computed once at setup into b->thresh_at (area.c check_buf). */
static inline uint64_t ds__thresh_value(const struct ds_buf_state *b)
{
    if (b->thresh_records == 0)
        return b->linear + b->bytes + b->rec_size;
    return b->linear + (uint64_t)b->thresh_records * b->rec_size;
}

/* Zero drain statistics field by field (7 stores; no ds__zero byte loop). */
static inline void ds__stats_clear(struct ds_drain_stats *d)
{
    d->present = d->records = 0;
    d->lost_beyond = d->lost_corrupt = d->lost_rejected = d->lost_race = 0;
    d->anomalies = 0;
}
/* The threshold field value for the context's BTS (@pebs false: beyond the
 * maximum while bts_circular) or PEBS buffer, as the drain repairs it. */
uint64_t ds__buf_thresh_field(const struct ds_ctx *ctx, bool pebs);

/* ds_pebs_drain's walk, no argument checks, counts added into @st (pebs.c;
 * DS_CONFIG_PEBS only). @ctx must be set up with a PEBS buffer. */
void ds__pebs_drain_add(struct ds_ctx *ctx, ds_pebs_sink sink, void *arg, struct ds_drain_stats *st);
/* The same for ds_pmi_handle, with the caller's persistent sample @scratch
 * for fixed formats: prepared (cleared, per-format fields) only when *@key
 * does not name the context's format, then *@key names it. */
void ds__pebs_drain_pmi(struct ds_ctx *ctx, ds_pebs_sink sink, void *arg, struct ds_drain_stats *st,
                        struct ds_pebs_sample *scratch, uint32_t *key);

/* --- Drain engine shared by PEBS and BTS (drain.c) -------------------------
 * Bounds that hold whatever the DS management fields contain. Inline with
 * @pebs a constant at each call (pebs.c: the PMI path, issue 10 item 21,
 * one frame per drain); bts.c calls the out-of-line copies in drain.c
 * (ds__drain_span, ds__drain_finish).
 */

/* Verify and repair base/max/threshold fields (anomaly bits into st). */
static inline __attribute__((always_inline)) void ds__drain_check_fields(struct ds_ctx *ctx, bool pebs,
                                                                          struct ds_drain_stats *st)
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
    uint64_t t = pebs ? b->thresh_at : ds__buf_thresh_field(ctx, false);
    if (ctx->layout == DS_LAYOUT_32)
        t &= 0xFFFFFFFFull;
    if (ds__area_get(ctx, pebs, DS__THRESH) != t) {
        st->anomalies |= DS_DRAIN_THRESH_CHANGED;
        ds__area_put(ctx, pebs, DS__THRESH, t);
    }
}

/* Finish a drain: race check against @seen_index, reset the index. */
static inline __attribute__((always_inline)) void ds__drain_finish_inl(struct ds_ctx *ctx, bool pebs,
                                                                        uint64_t seen_index,
                                                                        struct ds_drain_stats *st)
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

/*
 * Fixed-size drain (PEBS fmt 0-3 and NetBurst, BTS): read the index once into *out_idx,
 * repair base/max/threshold, account present/lost_beyond and the anomaly
 * bits, and return how many whole records [0, n) lie inside the caller's
 * buffer (n <= b->nrec, so mem + n * rec_size <= mem + bytes). One
 * division per call, none per record. Follow with the walk (records
 * [0, n), advancing a pointer by rec_size), then
 * ds__drain_finish(ctx, pebs, *out_idx, st).
 */
static inline __attribute__((always_inline)) uint32_t ds__drain_span_inl(struct ds_ctx *ctx, bool pebs,
                                                                          struct ds_drain_stats *st,
                                                                          uint64_t *out_idx)
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

/* Out-of-line copies (drain.c, BTS or PEBS compiled in). */
uint32_t ds__drain_span(struct ds_ctx *ctx, bool pebs, struct ds_drain_stats *st, uint64_t *out_idx);
void ds__drain_finish(struct ds_ctx *ctx, bool pebs, uint64_t seen_index, struct ds_drain_stats *st);

#endif /* DS_INTERNAL_H */
