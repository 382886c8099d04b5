/* SPDX-License-Identifier: BSD-2-Clause */
/* libds private helpers: static assertions and a bounded text builder (no libc). */
#ifndef DS_INTERNAL_H
#define DS_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>
#include <ds/config.h>

#define DS_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* Text builder (fmt.c, compiled only with DS_CONFIG_FORMAT): appends into a caller buffer, always NUL-terminated, records truncation. */
struct ds__sb {
    char *buf;
    size_t len;   /* capacity including the NUL */
    size_t pos;   /* characters written so far (excluding NUL) */
    bool truncated;
};

void ds__sb_init(struct ds__sb *sb, char *buf, size_t len);
void ds__sb_putc(struct ds__sb *sb, char c);
void ds__sb_puts(struct ds__sb *sb, const char *s);
void ds__sb_dec(struct ds__sb *sb, uint64_t v);
/* Hex with "0x" prefix; @digits = minimum number of digits (0 = as many as needed;
 * above 16, 16: a 64-bit value has 16 hex digits). */
void ds__sb_hex(struct ds__sb *sb, uint64_t v, unsigned digits);

/* --- DS context internals (area.c, pebs.c, bts.c, pmi.c) ------------------ */
#include <ds/area.h>
#include <ds/pebs.h>

/*
 * Little-endian loads from possibly unaligned bytes: one plain load (x86 is
 * little-endian and allows unaligned access). The may_alias, aligned(1)
 * types make reading any byte buffer through them defined for GCC/Clang;
 * no memcpy call is emitted (freestanding, no libc).
 */
_Static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "libds targets x86 (little-endian)");
typedef uint64_t __attribute__((may_alias, aligned(1))) ds__u64_una;
typedef uint32_t __attribute__((may_alias, aligned(1))) ds__u32_una;

static inline uint64_t ds__ld64(const unsigned char *p)
{
    return *(const ds__u64_una *)(const void *)p;
}

static inline uint32_t ds__ld32(const unsigned char *p)
{
    return *(const ds__u32_una *)(const void *)p;
}

/* Zero @n bytes without a memset call (cpu.c: core, always compiled). */
void ds__zero(void *p, size_t n);

/*
 * Start and reload values for a sampling period on a @width-bit counter
 * (ds_pmc_period_values' arithmetic, shared with ds_nb_period so that
 * NetBurst support does not need DS_CONFIG_PMC). Pure.
 */
static inline int ds__period_values(unsigned width, bool full_width, uint64_t period,
                                    uint64_t *out_start, uint64_t *out_reset)
{
    if (!out_start || !out_reset)
        return DS_ERR_NULL;
    if (width < 8 || width > 64)
        return DS_ERR_INVAL;
    if (period == 0)
        return DS_ERR_PMC_PERIOD_ZERO;
    /* Legacy IA32_PMCx writes load bits 31:0 and sign-extend bit 31 (SDM
     * "Full-Width Writes to Performance Counter Registers"). */
    unsigned usable = (!full_width && width > 32) ? 32 : width;
    if (period > (1ull << (usable - 1)))
        return DS_ERR_PMC_PERIOD_WIDE;
    uint64_t mask = width >= 64 ? ~0ull : ((1ull << width) - 1);
    uint64_t v = (0 - period) & mask;
    *out_start = v;
    *out_reset = v;
    return DS_OK;
}

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

/*
 * 64-bit unsigned division without libgcc: i386 would otherwise call
 * __udivdi3/__umoddi3, which a kernel may not provide. Shift-subtract,
 * bounded (64 steps); native on 64-bit targets. @d must be non-zero.
 */
static inline uint64_t ds__div64(uint64_t n, uint64_t d, uint64_t *out_rem)
{
#if UINTPTR_MAX > 0xFFFFFFFFu
    if (out_rem)
        *out_rem = n % d;
    return n / d;
#else
    uint64_t q = 0, r = 0;
    for (int i = 63; i >= 0; i--) {
        r = (r << 1) | ((n >> i) & 1);
        if (r >= d) {
            r -= d;
            q |= 1ull << i;
        }
    }
    if (out_rem)
        *out_rem = r;
    return q;
#endif
}

/*
 * n / d for a record size @d (non-zero): a native 32-bit divide when @n fits
 * in 32 bits (always, for an index inside a buffer on i386, where size_t is
 * 32 bits), ds__div64 only for a garbage index beyond 4 GiB. Used once per
 * drain; the per-record walk adds record sizes and never divides.
 */
static inline uint64_t ds__div_rec(uint64_t n, uint32_t d, uint64_t *out_rem)
{
    if (n <= 0xFFFFFFFFull) {
        uint32_t n32 = (uint32_t)n;
        if (out_rem)
            *out_rem = n32 % d;
        return n32 / d;
    }
    return ds__div64(n, d, out_rem);
}

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

/* --- MSR access on the PMI path (pmi.c) ------------------------------------ */
#include <ds/cpu.h>
#include <ds/msr.h>

/*
 * ds_msr_read / ds_msr_write (msr.c) inlined, without their NULL checks:
 * for callers that validated @cpu once (ds_pmi_init) and run on every NMI
 * (issue 10 item 21: the call into msr.c and its checks were 19 and 17
 * instructions per access). Same results as msr.c, backend or native.
 */
static inline __attribute__((always_inline)) int ds__msr_rd(const struct ds_cpu *cpu, uint32_t msr, uint64_t *out)
{
    const struct ds_msr_ops *o = cpu->ops;
    if (o)
        return o->read && o->read(cpu->ops_ctx, msr, out) == DS_OK ? DS_OK : DS_ERR_MSR_FAULT;
#if defined(DS_HOSTED)
    (void)msr;
    (void)out;
    return DS_ERR_MSR_FAULT; /* no ring 0 on a host build */
#else
    *out = ds_rdmsr_native(msr);
    return DS_OK;
#endif
}

static inline __attribute__((always_inline)) int ds__msr_wr(const struct ds_cpu *cpu, uint32_t msr, uint64_t val)
{
    const struct ds_msr_ops *o = cpu->ops;
    if (o)
        return o->write && o->write(cpu->ops_ctx, msr, val) == DS_OK ? DS_OK : DS_ERR_MSR_FAULT;
#if defined(DS_HOSTED)
    (void)msr;
    (void)val;
    return DS_ERR_MSR_FAULT;
#else
    ds_wrmsr_native(msr, val);
    return DS_OK;
#endif
}

#endif /* DS_INTERNAL_H */
