/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Adaptive PEBS records, formats 4-6 (SDM Vol. 3B "Adaptive PEBS",
 * MSR_PEBS_DATA_CFG; format 6's counters group as Linux
 * setup_pebs_adaptive_sample_data): header validation, the groups' fields,
 * the fast runs over records that share a header, and the drain. Decode
 * cost follows the record: a record's groups are written, the fields of
 * groups the previous record carried and this one does not are cleared,
 * counter slots by their set bits. Entry points in pebs_int.h.
 */
#include <ds/pebs.h>
#include "drain_int.h"
#include "pebs_int.h"

#if DS_CONFIG_PEBS

/*
 * How an adaptive record is decoded (the facts the record does not carry),
 * one word, @opts: bits 1:0 whether header bits 47:32 hold a retire
 * latency (DS__RL_*), bit 8 whether the meminfo latency is split, bits
 * 23:16 the format (format 6 adds the counters group to the header group
 * bits that exist). From the CPU (drain, ds_pebs_decode_cpu) or defaults
 * (ds_pebs_decode). The drain's is also its scratch key
 * (adaptive_drain_opts): one word computed per drain, no options struct
 * in its frame (issue 29 item 3).
 */
#define DS__OPT_RL    0x3u
#define DS__OPT_SPLIT 0x100u
#define DS__OPT_FMT(fmt) (((uint32_t)(fmt) & 0xFFu) << 16)
_Static_assert(DS__RL_NEVER == 0 && DS__RL_ALWAYS == 1 && DS__RL_NONZERO <= DS__OPT_RL,
               "a bool pebs_timed is the drain's retire-latency rule");
_Static_assert((DS_PEBS_FMT_4 & 0xFF) != (DS_PEBS_FMT_6 & 0xFF) && (DS_PEBS_FMT_5 & 0xFF) != (DS_PEBS_FMT_6 & 0xFF),
               "the option word tells format 6 apart");

static inline uint32_t adaptive_opts(enum ds_pebs_fmt fmt, unsigned rl, bool lat_split)
{
    return DS__OPT_FMT(fmt) | (lat_split ? DS__OPT_SPLIT : 0u) | rl;
}

/* The header group bits that exist (with the LBR count) under @opts. */
static inline uint64_t adaptive_known(uint32_t opts)
{
    uint64_t k = 0xFull | DS_PEBS_DATA_CFG_LBR_MASK;
    if ((opts & DS__OPT_FMT(0xFF)) == DS__OPT_FMT(DS_PEBS_FMT_6))
        k |= DS_PEBS_DATA_CFG_CNTRS | DS_PEBS_DATA_CFG_METRICS;
    return k;
}

/* The present bits that depend only on the groups and the options. */
static uint32_t adaptive_present(uint64_t groups, uint32_t opts)
{
    uint32_t v = DS_SAMPLE_IP | DS_SAMPLE_EVENTING_IP | DS_SAMPLE_APPLICABLE | DS_SAMPLE_TSC;
    if ((opts & DS__OPT_RL) == DS__RL_ALWAYS)
        v |= DS_SAMPLE_RETIRE_LAT;
    if (groups & DS_PEBS_DATA_CFG_MEMINFO)
        v |= DS_SAMPLE_MEM | DS_SAMPLE_TSX | ((opts & DS__OPT_SPLIT) ? DS_SAMPLE_LAT_SPLIT : 0);
    if (groups & DS_PEBS_DATA_CFG_GPRS)
        v |= DS_SAMPLE_FLAGS | DS_SAMPLE_GPRS;
    if (groups & DS_PEBS_DATA_CFG_XMMS)
        v |= DS_SAMPLE_XMM;
    if (groups & DS_PEBS_DATA_CFG_LBRS)
        v |= DS_SAMPLE_LBR;
    return v;
}

/*
 * The fields of the basic, meminfo, GPR, XMM and LBR groups of one record
 * whose header @hdr was validated (groups @groups at their offsets). Writes
 * every field those groups carry; nothing else. @groups is a constant where
 * this is inlined for the basic-only fast run. @run (a constant): a fast
 * run's record, whose header key is the one of the record already in @s:
 * s->present is already the value to write (runs are drain-only, whose
 * retire-latency rule is never DS__RL_NONZERO) and says the options (its
 * DS_SAMPLE_RETIRE_LAT and DS_SAMPLE_LAT_SPLIT bits), so @opts and @present
 * are not read.
 */
static inline __attribute__((always_inline)) void adaptive_fields(const unsigned char *p, uint64_t hdr,
                                                                  uint64_t groups, uint32_t opts,
                                                                  uint32_t present, bool run,
                                                                  struct ds_pebs_sample *s)
{
    s->header = hdr;
    s->ip = ds__ld64(p + 0x08); /* the basic group's IP is the eventing IP */
    s->eventing_ip = s->ip;
    s->counters = ds__ld64(p + 0x10);
    s->tsc = ds__ld64(p + 0x18);
    /* Header bits 47:32: retire latency on timed-PEBS parts (PERF_CAPABILITIES[17],
     * Linux pebs_basic.retire_latency); meaningless otherwise. */
    if (run) {
        if (s->present & DS_SAMPLE_RETIRE_LAT)
            s->retire_latency = (uint32_t)((hdr >> DS_PEBS_HDR_RETIRE_LAT_SHIFT) & 0xFFFF);
    } else if ((opts & DS__OPT_RL) == DS__RL_NEVER) {
        s->present = present;
    } else {
        uint32_t rl = (uint32_t)((hdr >> DS_PEBS_HDR_RETIRE_LAT_SHIFT) & 0xFFFF);
        s->retire_latency = rl;
        s->present = ((opts & DS__OPT_RL) == DS__RL_NONZERO && rl) ? present | DS_SAMPLE_RETIRE_LAT : present;
    }
    const unsigned char *q = p + sizeof(struct ds_pebs_basic);
    if (groups & DS_PEBS_DATA_CFG_MEMINFO) {
        s->data_addr = ds__ld64(q + 0x00);
        s->data_source = ds__ld64(q + 0x08);
        uint64_t lat = ds__ld64(q + 0x10);
        s->latency = lat;
        if (run ? (s->present & DS_SAMPLE_LAT_SPLIT) != 0 : (opts & DS__OPT_SPLIT) != 0) {
            s->instr_latency = (uint32_t)(lat & 0xFFFF);
            s->cache_latency = (uint32_t)((lat >> 32) & 0xFFFF);
        }
        s->tsx = ds__ld64(q + 0x18);
        q += sizeof(struct ds_pebs_meminfo);
    }
    if (groups & DS_PEBS_DATA_CFG_GPRS) {
        uint64_t *g = s->gpr;
        /* GPR group order: RFLAGS, RIP, RAX, RCX, RDX, RBX, RSP, RBP, RSI, RDI, R8..R15
         * = encoding order after RIP. */
        s->flags = ds__ld64(q);
        g[0] = ds__ld64(q + 0x10), g[1] = ds__ld64(q + 0x18), g[2] = ds__ld64(q + 0x20);
        g[3] = ds__ld64(q + 0x28), g[4] = ds__ld64(q + 0x30), g[5] = ds__ld64(q + 0x38);
        g[6] = ds__ld64(q + 0x40), g[7] = ds__ld64(q + 0x48), g[8] = ds__ld64(q + 0x50);
        g[9] = ds__ld64(q + 0x58), g[10] = ds__ld64(q + 0x60), g[11] = ds__ld64(q + 0x68);
        g[12] = ds__ld64(q + 0x70), g[13] = ds__ld64(q + 0x78), g[14] = ds__ld64(q + 0x80);
        g[15] = ds__ld64(q + 0x88);
        q += sizeof(struct ds_pebs_gprs);
    }
    if (groups & DS_PEBS_DATA_CFG_XMMS) {
        s->xmm = (const struct ds_pebs_xmms *)(const void *)q;
        q += sizeof(struct ds_pebs_xmms);
    }
    if (groups & DS_PEBS_DATA_CFG_LBRS)
        s->lbr = (const struct ds_pebs_lbr_entry *)(const void *)q;
}

/* adaptive_body's header key: the header, retire latency masked out. */
#define DS__HDR_KEY_MASK (~(0xFFFFull << DS_PEBS_HDR_RETIRE_LAT_SHIFT))
#define DS__NO_HDR (~0ull) /* bits 23:6 set: never a valid header */
#define DS__CNTR_GROUPS (DS_PEBS_DATA_CFG_CNTRS | DS_PEBS_DATA_CFG_METRICS)
/* The format 6 counters group's own header (struct ds_pebs_cntr_hdr). */
struct ds__cntr {
    uint32_t gp, fixed;
    bool metrics;
};

/*
 * Format 6 counters group after the LBR group: its size comes from its own
 * header (Linux setup_pebs_adaptive_sample_data). Checks header @hdr (size
 * field @size) against it and reads it into @c.
 */
static inline __attribute__((always_inline)) int cntr_check(const unsigned char *p, size_t avail, uint64_t hdr,
                                                            uint32_t size, uint64_t groups,
                                                            uint64_t known, struct ds__cntr *c)
{
    if ((hdr & 0x00000000FFFFFFFFull & ~known) != 0)
        return DS_ERR_REC_SIZE;
    uint32_t base = ds__pebs_adaptive_size(groups);
    if (size < base + sizeof(struct ds_pebs_cntr_hdr) || avail < base + sizeof(struct ds_pebs_cntr_hdr)) {
        if (size > avail)
            return DS_ERR_REC_SHORT;
        return DS_ERR_REC_SIZE;
    }
    c->gp = ds__ld32(p + base);
    c->fixed = ds__ld32(p + base + 4);
    c->metrics = ds__ld32(p + base + 8) == DS_PEBS_CNTR_METRICS;
    /* DATA_CFG can name GP 0-15 and fixed 0-7 only. */
    if ((c->gp >> 16) || (c->fixed >> 8) || size != base + ds__pebs_cntr_group_size(c->gp, c->fixed, c->metrics))
        return DS_ERR_REC_SIZE;
    return DS_OK;
}

/*
 * Validate header @hdr (size field @size, groups @groups) of the record at
 * @p with @avail bytes left; see adaptive_body for *@vkey. Fills @c when
 * the counters group is present.
 */
static inline __attribute__((always_inline)) int adaptive_check(const unsigned char *p, size_t avail, uint64_t hdr,
                                                                uint32_t size, uint64_t groups,
                                                                uint64_t known, uint64_t *vkey,
                                                                struct ds__cntr *c)
{
    if (groups & DS__CNTR_GROUPS) {
        int e = cntr_check(p, avail, hdr, size, groups, known, c);
        if (e)
            return e;
        *vkey = DS__NO_HDR;
    } else if ((hdr & DS__HDR_KEY_MASK) != *vkey) {
        /* Header bits 23:4 (23:6 on format 6) would be groups libds does not
         * know: their size is unknown. */
        if ((hdr & 0x0000000000FFFFF0ull) & ~known)
            return DS_ERR_REC_SIZE;
        if (size != ds__pebs_adaptive_size(groups))
            return DS_ERR_REC_SIZE;
        *vkey = hdr & DS__HDR_KEY_MASK;
    }
    if (size > avail)
        return DS_ERR_REC_SHORT;
    /* The sample points into the record for the XMM and LBR groups: typed
     * pointers must be aligned for the caller's natural access (the drain's
     * records always are: 8-byte aligned buffer, sizes multiples of 8). */
    if ((groups & (DS_PEBS_DATA_CFG_XMMS | DS_PEBS_DATA_CFG_LBRS)) && ((uintptr_t)p & 7u))
        return DS_ERR_REC_ALIGN;
    return DS_OK;
}

/* Clear what the previous record in @s carried (s->present) and the one
 * with groups @groups and counters group header @c (all 0 without the
 * group) does not; reset the LBR fields. */
static inline __attribute__((always_inline)) void adaptive_clear(uint64_t groups, const struct ds__cntr *c,
                                                                 struct ds_pebs_sample *s)
{
    uint32_t prev = s->present;
    if (!(groups & DS_PEBS_DATA_CFG_MEMINFO) && (prev & DS_SAMPLE_MEM)) {
        s->data_addr = 0, s->data_source = 0, s->latency = 0, s->tsx = 0;
        s->instr_latency = 0, s->cache_latency = 0;
    }
    if (!(groups & DS_PEBS_DATA_CFG_GPRS) && (prev & DS_SAMPLE_GPRS)) {
        uint64_t *g = s->gpr;
        s->flags = 0;
        g[0] = 0, g[1] = 0, g[2] = 0, g[3] = 0, g[4] = 0, g[5] = 0, g[6] = 0, g[7] = 0;
        g[8] = 0, g[9] = 0, g[10] = 0, g[11] = 0, g[12] = 0, g[13] = 0, g[14] = 0, g[15] = 0;
    }
    if (!(groups & DS_PEBS_DATA_CFG_XMMS))
        s->xmm = NULL;
    s->lbr = NULL;
    s->lbr_count = 0;
    if (groups & DS_PEBS_DATA_CFG_LBRS)
        s->lbr_count = (uint32_t)((groups & DS_PEBS_DATA_CFG_LBR_MASK) >> DS_PEBS_DATA_CFG_LBR_SHIFT) + 1;
    /* Counter slots the previous record set and this one (@c) does not:
     * the set bits only, no loop over absent counters. */
    if (prev & DS_SAMPLE_CNTRS) {
        for (uint32_t m = s->cntr_gp_mask & ~c->gp; m; m &= m - 1)
            s->cntr_gp[__builtin_ctz(m)] = 0;
        for (uint32_t m = s->cntr_fixed_mask & ~c->fixed; m; m &= m - 1)
            s->cntr_fixed[__builtin_ctz(m)] = 0;
        s->cntr_gp_mask = 0, s->cntr_fixed_mask = 0;
    }
    if ((prev & DS_SAMPLE_METRICS) && !c->metrics)
        s->topdown_slots = 0, s->perf_metrics = 0;
}

/* The counters group's values at @q (after its header @c), in counter
 * order, GP then fixed, then the metrics pair (Linux
 * setup_pebs_adaptive_sample_data). @run (a constant): a fast run's
 * record, whose counters-group header is the one in @s (masks, metrics
 * bit): @c is not read, the masks and s->present are not written. */
static inline __attribute__((always_inline)) void cntr_fields(const unsigned char *q, const struct ds__cntr *c,
                                                              bool run, struct ds_pebs_sample *s)
{
    uint32_t gp = run ? s->cntr_gp_mask : c->gp, fixed = run ? s->cntr_fixed_mask : c->fixed;
    bool metrics = run ? (s->present & DS_SAMPLE_METRICS) != 0 : c->metrics;
    if (!run) {
        s->cntr_gp_mask = gp;
        s->cntr_fixed_mask = fixed;
        s->present |= DS_SAMPLE_CNTRS | (metrics ? DS_SAMPLE_METRICS : 0u);
    }
    for (uint32_t m = gp; m; m &= m - 1, q += 8)
        s->cntr_gp[__builtin_ctz(m)] = ds__ld64(q);
    for (uint32_t m = fixed; m; m &= m - 1, q += 8)
        s->cntr_fixed[__builtin_ctz(m)] = ds__ld64(q);
    if (metrics) {
        s->topdown_slots = ds__ld64(q);
        s->perf_metrics = ds__ld64(q + 8);
    }
}

/*
 * Validate and decode one adaptive record into @s, which holds either a
 * cleared sample or the previous record of the same drain (s->fmt and
 * s->ip_is_next already set): every field a group can carry is written,
 * absent groups' fields are zeroed if the previous record had them. On
 * error @s is untouched. *@vkey: the last header (retire latency masked
 * out) whose group bits and size field were checked consistent; a record
 * with the same key skips that check (a drain's records usually share
 * one). Records with the counters group (format 6) are checked every time
 * (their size also depends on the group's own header) and leave *@vkey at
 * DS__NO_HDR. Start with DS__NO_HDR, which no valid header equals.
 */
static int adaptive_body(const unsigned char *p, size_t avail, struct ds_pebs_sample *s, uint64_t *vkey,
                         uint32_t opts)
{
    if (avail < sizeof(struct ds_pebs_basic))
        return DS_ERR_REC_SHORT;
    uint64_t hdr = ds__ld64(p);
    uint32_t size = (uint32_t)(hdr >> DS_PEBS_HDR_SIZE_SHIFT);
    uint64_t known = adaptive_known(opts);
    uint64_t groups = hdr & known;
    if (!(groups & DS_PEBS_DATA_CFG_LBRS))
        groups &= ~DS_PEBS_DATA_CFG_LBR_MASK; /* the LBR count is meaningless without the group */
    struct ds__cntr c = { 0, 0, false };
    int e = adaptive_check(p, avail, hdr, size, groups, known, vkey, &c);
    if (e)
        return e;
    adaptive_clear(groups, &c, s); /* reads the previous s->present: before adaptive_fields */
    s->size = size;
    adaptive_fields(p, hdr, groups, opts, adaptive_present(groups, opts), false, s);
    if (groups & DS__CNTR_GROUPS)
        cntr_fields(p + ds__pebs_adaptive_size(groups) + sizeof(struct ds_pebs_cntr_hdr), &c, false, s);
    return DS_OK;
}

/* A record handed to the sink: counted as taken or rejected. */
static inline __attribute__((always_inline)) void count_sink(int rc, struct ds_drain_stats *st)
{
    if (rc == 0)
        st->records++;
    else
        st->lost_rejected++;
}

/*
 * Records after a validated one (in @s) whose header is the same but for
 * the retire latency carry the same groups at the same offsets and the
 * same size (s->size): only the values change. Decode them with no
 * validation beyond the key compare (against s->header, before it is
 * rewritten) and the bounds, and no clearing (every field they carry is
 * rewritten; fields of absent groups are already zero). Stops at the first
 * other header, or when fewer than s->size bytes remain (the caller's
 * validating path then takes over). @groups (those of s->header) is a
 * constant where inlined. Counts into @st; *@pp advances past the records.
 * Live across the sink call: p, end, s, sink, arg, st (issue 29 item 3).
 */
static inline __attribute__((always_inline)) void run_same(const unsigned char **pp, const unsigned char *end,
                                                           uint32_t groups, struct ds_pebs_sample *s,
                                                           ds_pebs_sink sink, void *arg, struct ds_drain_stats *st)
{
    const unsigned char *p = *pp;
    while ((size_t)(end - p) >= s->size) {
        uint64_t hdr = ds__ld64(p);
        if ((hdr ^ s->header) & DS__HDR_KEY_MASK)
            break;
        adaptive_fields(p, hdr, groups, 0, 0, true, s);
        st->present++;
        count_sink(sink(arg, s), st);
        p += s->size;
    }
    *pp = p;
}

/*
 * run_same for records with the counters group (format 6): after a
 * validated record decoded into @s, records with the same header (retire
 * latency aside) and the same counters-group header (GP and fixed bitmaps
 * = s's masks, metrics word naming metrics or not as s's did) have the
 * same groups, counters and size; they are decoded without validation or
 * clearing (every field they carry is rewritten: the same counter slots).
 * Stops at the first other record. @groups: the basic to LBR groups of
 * s->header (a constant where inlined for basic + counters), @base their
 * size. As run_same otherwise.
 */
static inline __attribute__((always_inline)) void run_same_cntr(const unsigned char **pp, const unsigned char *end,
                                                                uint32_t groups, uint32_t base,
                                                                struct ds_pebs_sample *s, ds_pebs_sink sink,
                                                                void *arg, struct ds_drain_stats *st)
{
    const unsigned char *p = *pp;
    while ((size_t)(end - p) >= s->size) {
        uint64_t hdr = ds__ld64(p);
        /* The masks are adjacent in the sample: GP low, fixed high, as in the record. */
        if (((hdr ^ s->header) & DS__HDR_KEY_MASK) ||
            ds__ld64(p + base) != ds__ld64((const unsigned char *)&s->cntr_gp_mask) ||
            (ds__ld32(p + base + 8) == DS_PEBS_CNTR_METRICS) != ((s->present & DS_SAMPLE_METRICS) != 0))
            break;
        adaptive_fields(p, hdr, groups, 0, 0, true, s);
        cntr_fields(p + base + sizeof(struct ds_pebs_cntr_hdr), NULL, true, s);
        st->present++;
        count_sink(sink(arg, s), st);
        p += s->size;
    }
    *pp = p;
}
_Static_assert(__builtin_offsetof(struct ds_pebs_sample, cntr_fixed_mask) ==
                   __builtin_offsetof(struct ds_pebs_sample, cntr_gp_mask) + 4,
               "run_same_cntr reads both masks as one word");

/*
 * After a validated record decoded into @s (or, at a drain's start, the
 * last record of the previous drain into ds_pmi's scratch sample, which
 * was validated then): the records at *@pp with its header run through
 * run_same / run_same_cntr, the basic-only cases specialised.
 */
static inline __attribute__((always_inline)) void fast_run(const unsigned char **pp, const unsigned char *end,
                                                           struct ds_pebs_sample *s, ds_pebs_sink sink, void *arg,
                                                           struct ds_drain_stats *st)
{
    uint64_t key = s->header;
    uint32_t g = (uint32_t)(key & (0xFull | DS_PEBS_DATA_CFG_LBR_MASK)); /* bits 31:24 and 3:0 */
    if (!(g & DS_PEBS_DATA_CFG_LBRS))
        g &= ~DS_PEBS_DATA_CFG_LBR_MASK;
    if (s->present & DS_SAMPLE_CNTRS) {
        if (g == 0)
            run_same_cntr(pp, end, 0, sizeof(struct ds_pebs_basic), s, sink, arg, st);
        else
            run_same_cntr(pp, end, g, ds__pebs_adaptive_size(g), s, sink, arg, st);
    } else if (key & DS__CNTR_GROUPS) {
        /* the group's bits without its values: only the validating path */
    } else if (g == 0) {
        run_same(pp, end, 0, s, sink, arg, st);
    } else {
        run_same(pp, end, g, s, sink, arg, st);
    }
}

static int decode_adaptive(enum ds_pebs_fmt fmt, const unsigned char *p, size_t avail, uint32_t opts,
                           struct ds_pebs_sample *out)
{
    out->fmt = fmt;
    out->ip_is_next = false; /* the basic group's IP is the eventing IP */
    uint64_t vkey = DS__NO_HDR;
    int e = adaptive_body(p, avail, out, &vkey, opts);
    if (e)
        ds__pebs_clear_sample(out);
    return e;
}

int ds__pebs_decode_adaptive(enum ds_pebs_fmt fmt, const unsigned char *p, size_t avail, unsigned rl, bool lat_split,
                             struct ds_pebs_sample *out)
{
    return decode_adaptive(fmt, p, avail, adaptive_opts(fmt, rl, lat_split), out);
}

/*
 * An index at or past the maximum (@claimed bytes from the base, at least
 * the buffer's): one past it counts the excess (rounded up to whole
 * records of the configured size) as lost beyond it; one at the maximum
 * is "full". Returns the bytes to walk, the whole buffer. Out of line: a
 * 64-bit division off the PMI frame (issue 29 item 3).
 */
static __attribute__((noinline, cold)) size_t adaptive_past_max(const struct ds_buf_state *b, uint64_t claimed,
                                                                 struct ds_drain_stats *st)
{
    if (claimed > b->bytes) {
        uint64_t excess = claimed - b->bytes;
        uint64_t rem;
        uint64_t n = ds__div_rec(excess, b->rec_size, &rem) + (rem ? 1 : 0);
        st->anomalies |= DS_DRAIN_INDEX_PAST_MAX;
        st->lost_beyond += n;
        st->present += n;
    } else {
        st->anomalies |= DS_DRAIN_FULL;
    }
    return (size_t)b->bytes;
}

/*
 * Walk [p, end) by the records' own (validated) size fields into @s (the
 * sample prepared for the drain), handing each to @sink; counts into @st.
 * One fast_run site: after ds_pmi's scratch (the previous drain's last,
 * validated record: s->present set) and after each validated record.
 */
static inline __attribute__((always_inline)) void walk_adaptive(const unsigned char *p, const unsigned char *end,
                                                                struct ds_pebs_sample *s, uint32_t opts,
                                                                ds_pebs_sink sink, void *arg,
                                                                struct ds_drain_stats *st)
{
    uint64_t vkey = DS__NO_HDR;
    for (;;) {
        if (s->present) /* a validated record in @s: the records that follow with its header */
            fast_run(&p, end, s, sink, arg, st);
        if (p >= end)
            break;
        st->present++;
        if (adaptive_body(p, (size_t)(end - p), s, &vkey, opts) != DS_OK) {
            /* The size field cannot be trusted: the rest is one lost record. */
            if ((size_t)(end - p) < sizeof(struct ds_pebs_basic))
                st->anomalies |= DS_DRAIN_INDEX_MISALIGNED;
            else
                st->anomalies |= DS_DRAIN_SIZE_LIE;
            st->lost_corrupt++;
            break;
        }
        count_sink(sink(arg, s), st);
        p += s->size;
    }
}

/* The options of @ctx's adaptive records: its retire-latency rule (the
 * bool pebs_timed: DS__RL_ALWAYS or DS__RL_NEVER), the latency split and
 * the format. The key of ds_pmi's scratch sample after an adaptive drain
 * of @ctx (pebs_int.h) is DS__SCRATCH_ADAPTIVE | this. */
static inline uint32_t adaptive_drain_opts(const struct ds_ctx *ctx)
{
    return DS__OPT_FMT(ctx->pebs_fmt) | (uint32_t)ctx->pebs_lat_split << 8 | (uint32_t)ctx->pebs_timed;
}

/* A sample not prepared for @ctx's adaptive records (*@key is not its
 * DS__SCRATCH_ADAPTIVE | adaptive_drain_opts): cleared and prepared, then named by *@key. Out of line:
 * once per ds_pmi (cold_1rec in scripts/bench.sh) or per ds_pebs_drain. */
static __attribute__((noinline)) void adaptive_prep(const struct ds_ctx *ctx, struct ds_pebs_sample *s, uint32_t *key)
{
    ds__pebs_clear_sample(s);
    s->fmt = ctx->pebs_fmt;
    s->ip_is_next = false; /* the basic group's IP is the eventing IP */
    *key = DS__SCRATCH_ADAPTIVE | adaptive_drain_opts(ctx);
}

/* An index below the base: nothing to walk (ds__drain_finish counts no race). */
static __attribute__((noinline, cold)) void adaptive_below_base(struct ds_ctx *ctx, uint64_t idx,
                                                                 struct ds_drain_stats *st)
{
    st->anomalies |= DS_DRAIN_INDEX_BELOW_BASE;
    ds__drain_finish(ctx, true, idx, st);
}

/* Drain an adaptive format into @s: a cleared sample (or a previous
 * adaptive drain's, *@key naming this context's options) is kept as
 * it is; else it is cleared here. */
void ds__pebs_drain_adaptive(struct ds_ctx *ctx, ds_pebs_sink sink, void *arg, struct ds_drain_stats *st,
                             struct ds_pebs_sample *s, uint32_t *key)
{
    const struct ds_buf_state *b = &ctx->pebs;
    uint64_t idx = ds__area_get(ctx, true, DS__INDEX);

    ds__drain_check_fields(ctx, true, st);
    if (idx < b->linear) {
        adaptive_below_base(ctx, idx, st);
        return;
    }
    /* The bytes of the buffer the index claims, at most the buffer. */
    size_t len = (size_t)(idx - b->linear);
    if (idx - b->linear >= b->bytes)
        len = adaptive_past_max(b, idx - b->linear, st);
    uint32_t opts = adaptive_drain_opts(ctx);
    if (*key != (DS__SCRATCH_ADAPTIVE | opts))
        adaptive_prep(ctx, s, key);
    const unsigned char *end = b->mem + len;
    walk_adaptive(b->mem, end, s, opts, sink, arg, st);
    /* The race check needs fixed sizes: it uses the configured record
     * size. The index it compares with is the one read above, idx, or
     * (idx past the maximum) the maximum, base + len: not kept across the
     * walk. Either way a race is counted only for an index now above it
     * and at most the maximum, which no index above the maximum is. */
    ds__drain_finish_inl(ctx, true, b->linear + (uint64_t)(end - b->mem), st);
}

#endif /* DS_CONFIG_PEBS */
