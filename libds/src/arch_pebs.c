/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Architectural PEBS: the record decoder and the drains (detection,
 * IA32_PEBS_BASE/INDEX and CFG_C setup: arch_pebs_setup.c). Facts and their sources: ds/arch_pebs.h (Linux
 * "arch-PEBS enabling for Intel platforms": perf_event.h, msr-index.h,
 * events/intel/ds.c and core.c; KVM vmx/pmu_intel.c).
 */
#include <ds/arch_pebs.h>
#include "util.h"
#include "pebs_int.h"
#include "cpu_int.h"
#include "arch_pebs_int.h"

#if DS_CONFIG_PEBS

static uint32_t popcnt32(uint32_t v)
{
    uint32_t n = 0;
    for (; v; v &= v - 1)
        n++;
    return n;
}

/* MAXPHYADDR (SDM Vol. 2A CPUID 80000008H:EAX[7:0]; without that leaf, 36
 * with PAE, else 32: SDM Vol. 3A "Physical Address Width"). Capped at 52,
 * the architectural maximum, so that 1 << bits never overflows. */
/* --- Decoder -------------------------------------------------------------------------- */

/* Linux arch_pebs_record_continued: CONT, or a null fragment (bits 63:16 zero). */
static bool continued(uint64_t h)
{
    return (h & DS_APEBS_HDR_CONT) || !(h & ~DS_APEBS_HDR_SIZE_MASK);
}

/* Basic group (struct arch_pebs_basic) at q. */
static void basic_group(const unsigned char *q, struct ds_pebs_sample *s)
{
    s->ip = ds__ld64(q);
    s->eventing_ip = s->ip;
    s->counters = ds__ld64(q + 8);
    s->tsc = ds__ld64(q + 16);
    s->present |= DS_SAMPLE_IP | DS_SAMPLE_EVENTING_IP | DS_SAMPLE_APPLICABLE | DS_SAMPLE_TSC;
    uint64_t r = ds__ld64(q + 24); /* retire [15:0], valid [16] */
    if (r & (1ull << 16)) {
        s->retire_latency = (uint32_t)(r & 0xFFFF);
        s->present |= DS_SAMPLE_RETIRE_LAT;
    }
}

/* Aux group (struct arch_pebs_aux): address, 4 reserved, aux, latency, tsx_tuning. */
static void aux_group(const unsigned char *q, struct ds_pebs_sample *s)
{
    s->data_addr = ds__ld64(q);
    s->data_source = ds__ld64(q + 40);
    s->latency = ds__ld64(q + 48);
    s->instr_latency = (uint32_t)(s->latency & 0xFFFF);
    s->cache_latency = (uint32_t)((s->latency >> 32) & 0xFFFF);
    s->tsx = ds__ld64(q + 56);
    s->present |= DS_SAMPLE_MEM | DS_SAMPLE_TSX | DS_SAMPLE_LAT_SPLIT;
}

/* GPR group (struct arch_pebs_gprs): flags, ip, ax..r15 in encoding order, ssp. */
static void gpr_group(const unsigned char *q, struct ds_pebs_sample *s)
{
    s->flags = ds__ld64(q);
    for (unsigned i = 0; i < DS_GPR__COUNT; i++)
        s->gpr[i] = ds__ld64(q + 16 + 8 * i);
    s->ssp = ds__ld64(q + 144);
    s->present |= DS_SAMPLE_FLAGS | DS_SAMPLE_GPRS | DS_SAMPLE_SSP;
}

/* Counters group (struct arch_pebs_cntr_header + values; Linux
 * setup_arch_pebs_sample_data). @room: bytes from q to the fragment end.
 * Returns the group size, 0 if it does not fit. Values of GP counters
 * >= 16 and fixed >= 8 are skipped (no slot in the sample). */
static uint32_t cntr_group(const unsigned char *q, uint32_t room, struct ds_pebs_sample *s)
{
    if (room < DS_APEBS_CNTR_HDR_BYTES)
        return 0;
    uint32_t gp = ds__ld32(q), fx = ds__ld32(q + 4);
    bool met = ds__ld32(q + 8) == DS_PEBS_CNTR_METRICS;
    uint32_t n = popcnt32(gp) + popcnt32(fx) + (met ? 2u : 0u);
    if (n > (room - DS_APEBS_CNTR_HDR_BYTES) / 8)
        return 0;
    /* Values in counter order, one per set bit (no loop over absent
     * counters); GP 16-31 and fixed 8-31 have a slot in the record but
     * none in the sample: skipped. */
    const unsigned char *v = q + DS_APEBS_CNTR_HDR_BYTES;
    for (uint32_t m = gp & 0xFFFFu; m; m &= m - 1, v += 8)
        s->cntr_gp[__builtin_ctz(m)] = ds__ld64(v);
    v += 8u * popcnt32(gp >> 16);
    for (uint32_t m = fx & 0xFFu; m; m &= m - 1, v += 8)
        s->cntr_fixed[__builtin_ctz(m)] = ds__ld64(v);
    v += 8u * popcnt32(fx >> 8);
    s->cntr_gp_mask = gp & 0xFFFFu;
    s->cntr_fixed_mask = fx & 0xFFu;
    s->present |= DS_SAMPLE_CNTRS;
    if (met) {
        s->topdown_slots = ds__ld64(v);
        s->perf_metrics = ds__ld64(v + 8);
        s->present |= DS_SAMPLE_METRICS;
    }
    return DS_APEBS_CNTR_HDR_BYTES + 8 * n;
}

/* LBR group (struct arch_pebs_lbr_header + entries). Returns its size, 0 if
 * it does not fit in @room or the entries are not 8-byte aligned. */
static uint32_t lbr_group(const unsigned char *q, uint32_t room, uint64_t hdr, struct ds_pebs_sample *s)
{
    if (room < DS_APEBS_LBR_HDR_BYTES)
        return 0;
    uint64_t sel = (hdr & DS_APEBS_HDR_LBR) >> DS_APEBS_HDR_LBR_SHIFT;
    uint64_t n = sel == DS_APEBS_LBR_NUM_VAR ? ds__ld64(q + 16) : sel * 8; /* ARCH_PEBS_BASE_LBR_ENTRIES */
    if (n > (room - DS_APEBS_LBR_HDR_BYTES) / DS_APEBS_LBR_ENTRY_BYTES)
        return 0;
    s->lbr = (const struct ds_pebs_lbr_entry *)(const void *)(q + DS_APEBS_LBR_HDR_BYTES);
    s->lbr_count = (uint32_t)n;
    s->present |= DS_SAMPLE_LBR;
    return DS_APEBS_LBR_HDR_BYTES + (uint32_t)n * DS_APEBS_LBR_ENTRY_BYTES;
}

/* Vector-register group (XER header + the parts the header names, in the
 * order XMM, YMMH, OPMASK, ZMMH, H16ZMM: Linux setup_arch_pebs_sample_data
 * with the vector series, struct arch_pebs_xer_header / arch_pebs_xmm /
 * _ymmh / _opmask / _zmmh / _h16zmm). @room: bytes from q to the fragment
 * end. Returns the group size; 0 if it does not fit (*e REC_SIZE) or is not
 * 8-byte aligned (*e REC_ALIGN). */
static uint32_t vecr_group(const unsigned char *q, uint32_t room, uint64_t h, struct ds_pebs_sample *s, int *e)
{
    static const uint64_t bit[] = { DS_APEBS_HDR_XMM, DS_APEBS_HDR_YMMH, DS_APEBS_HDR_OPMASK, DS_APEBS_HDR_ZMMH,
                                     DS_APEBS_HDR_H16ZMM };
    static const uint32_t len[] = { DS_APEBS_XMM_BYTES, DS_APEBS_YMMH_BYTES, DS_APEBS_OPMASK_BYTES,
                                     DS_APEBS_ZMMH_BYTES, DS_APEBS_H16ZMM_BYTES };
    static const uint32_t flag[] = { DS_SAMPLE_XMM, DS_SAMPLE_YMMH, DS_SAMPLE_OPMASK, DS_SAMPLE_ZMMH,
                                      DS_SAMPLE_H16ZMM };
    _Static_assert(DS_ARRAY_SIZE(len) == DS_ARRAY_SIZE(bit) && DS_ARRAY_SIZE(flag) == DS_ARRAY_SIZE(bit),
                   "one length and one sample flag per vector-register header bit");
    uint32_t total = DS_APEBS_XER_BYTES;
    for (unsigned i = 0; i < DS_ARRAY_SIZE(bit); i++)
        total += (h & bit[i]) ? len[i] : 0;
    *e = DS_ERR_APEBS_REC_SIZE;
    if (total > room)
        return 0;
    *e = DS_ERR_APEBS_REC_ALIGN;
    if ((uintptr_t)q & 7u)
        return 0;
    s->xstate = ds__ld64(q);
    const unsigned char *v = q + DS_APEBS_XER_BYTES;
    for (unsigned i = 0; i < DS_ARRAY_SIZE(bit); i++) {
        if (!(h & bit[i]))
            continue;
        const void *at = v;
        if (i == 0)
            s->xmm = at;
        else if (i == 1)
            s->ymmh = at;
        else if (i == 2)
            s->opmask = at;
        else if (i == 3)
            s->zmmh = at;
        else
            s->h16zmm = at;
        s->present |= flag[i];
        v += len[i];
    }
    return total;
}

/*
 * The groups of one fragment p[0, sz) (sz >= 16, inside the bytes), in
 * the order of setup_arch_pebs_sample_data: basic, aux, GPR, vector
 * registers, LBR, counters. Every group is checked to lie inside the
 * fragment before it is read. Returns DS_OK, DS_ERR_APEBS_REC_SIZE or
 * DS_ERR_APEBS_REC_ALIGN.
 */
static int frag_groups(const unsigned char *p, uint32_t sz, struct ds_pebs_sample *s)
{
    uint64_t h = ds__ld64(p);
    uint32_t at = DS_APEBS_HDR_BYTES;
    const uint64_t fixed[3] = { DS_APEBS_HDR_BASIC, DS_APEBS_HDR_AUX, DS_APEBS_HDR_GPR };
    const uint32_t len[3] = { DS_APEBS_BASIC_BYTES, DS_APEBS_AUX_BYTES, DS_APEBS_GPR_BYTES };
    for (unsigned g = 0; g < 3; g++) {
        if (!(h & fixed[g]))
            continue;
        if (len[g] > sz - at)
            return DS_ERR_APEBS_REC_SIZE;
        const unsigned char *q = p + at;
        if (g == 0)
            basic_group(q, s);
        else if (g == 1)
            aux_group(q, s);
        else
            gpr_group(q, s);
        at += len[g];
    }
    if (h & DS_APEBS_HDR_VECR) {
        int e;
        uint32_t n = vecr_group(p + at, sz - at, h, s, &e);
        if (!n)
            return e;
        at += n;
    }
    if (h & DS_APEBS_HDR_LBR) {
        if ((uintptr_t)(p + at) & 7u)
            return DS_ERR_APEBS_REC_ALIGN;
        uint32_t n = lbr_group(p + at, sz - at, h, s);
        if (!n)
            return DS_ERR_APEBS_REC_SIZE;
        at += n;
    }
    if ((h & DS_APEBS_HDR_CNTR) && !cntr_group(p + at, sz - at, s))
        return DS_ERR_APEBS_REC_SIZE;
    return DS_OK;
}

/* Zero the sample: 8-byte stores (a drain clears one per record), volatile
 * so that no memset call is emitted; the tail bytes (i386 layout) one by one. */
static void clear_sample(struct ds_pebs_sample *s)
{
    volatile ds__u64_una *w = (volatile ds__u64_una *)(void *)s;
    size_t i, n = sizeof(*s) / 8;
    for (i = 0; i < n; i++)
        w[i] = 0;
    volatile unsigned char *b = (volatile unsigned char *)(void *)s;
    for (i = n * 8; i < sizeof(*s); i++)
        b[i] = 0;
}

/*
 * Zero what the previous record in @s carried (s->present): after it @s
 * is a cleared sample again, at a cost proportional to that record, not
 * to the 528-byte sample (a drain decodes into one sample, cleared once).
 * Every field a group writes is named under that group's present bit;
 * header, size and fragments are rewritten by record().
 */
static void clear_prev(struct ds_pebs_sample *s)
{
    uint32_t p = s->present;
    s->present = 0;
    if (p & DS_SAMPLE_IP)
        s->ip = 0, s->eventing_ip = 0, s->counters = 0, s->tsc = 0;
    if (p & DS_SAMPLE_RETIRE_LAT)
        s->retire_latency = 0;
    if (p & DS_SAMPLE_MEM)
        s->data_addr = 0, s->data_source = 0, s->latency = 0, s->instr_latency = 0, s->cache_latency = 0,
        s->tsx = 0;
    if (p & DS_SAMPLE_GPRS) {
        uint64_t *g = s->gpr;
        s->flags = 0, s->ssp = 0;
        g[0] = 0, g[1] = 0, g[2] = 0, g[3] = 0, g[4] = 0, g[5] = 0, g[6] = 0, g[7] = 0;
        g[8] = 0, g[9] = 0, g[10] = 0, g[11] = 0, g[12] = 0, g[13] = 0, g[14] = 0, g[15] = 0;
    }
    if (p & (DS_SAMPLE_XMM | DS_SAMPLE_YMMH | DS_SAMPLE_OPMASK | DS_SAMPLE_ZMMH | DS_SAMPLE_H16ZMM))
        s->xstate = 0, s->xmm = NULL, s->ymmh = NULL, s->opmask = NULL, s->zmmh = NULL, s->h16zmm = NULL;
    if (p & DS_SAMPLE_LBR)
        s->lbr = NULL, s->lbr_count = 0;
    if (p & DS_SAMPLE_CNTRS) {
        for (uint32_t m = s->cntr_gp_mask; m; m &= m - 1)
            s->cntr_gp[__builtin_ctz(m)] = 0;
        for (uint32_t m = s->cntr_fixed_mask; m; m &= m - 1)
            s->cntr_fixed[__builtin_ctz(m)] = 0;
        s->cntr_gp_mask = 0, s->cntr_fixed_mask = 0;
    }
    if (p & DS_SAMPLE_METRICS)
        s->topdown_slots = 0, s->perf_metrics = 0;
}

/*
 * One record: its first fragment and the fragments continuing it, inside
 * p[0, avail). A first fragment without the basic group is skipped alone
 * (DS_ERR_APEBS_NO_BASIC, *used = its size, its CONT not followed): Linux
 * intel_pmu_drain_arch_pebs "1st fragment or single record must have basic
 * group", at += header->size. *used: bytes consumed (set on DS_OK and on
 * DS_ERR_APEBS_NO_BASIC). @s holds a cleared sample (s->fmt set) or the
 * previous record, whose fields clear_prev zeroes first; meaningful only on
 * DS_OK.
 */
static int record(const unsigned char *p, uint32_t avail, struct ds_pebs_sample *s, uint32_t *used)
{
    clear_prev(s);
    s->size = 0;
    s->fragments = 0;
    uint32_t at = 0, nfrag = 0;
    for (;;) {
        if (avail - at < DS_APEBS_HDR_BYTES)
            return DS_ERR_APEBS_REC_SHORT; /* also: a continuation promised but absent */
        uint64_t h = ds__ld64(p + at);
        uint32_t sz = (uint32_t)(h & DS_APEBS_HDR_SIZE_MASK);
        if (sz < DS_APEBS_HDR_BYTES || sz > avail - at)
            return DS_ERR_APEBS_REC_SHORT;
        if (sz & 7u)
            return DS_ERR_APEBS_REC_ALIGN;
        if (nfrag == 0) {
            s->header = h;
            if (!(h & DS_APEBS_HDR_BASIC)) {
                *used = sz;
                return DS_ERR_APEBS_NO_BASIC;
            }
        }
        int e = frag_groups(p + at, sz, s);
        if (e)
            return e;
        at += sz;
        nfrag++;
        if (!continued(h))
            break;
    }
    *used = at;
    s->size = at;
    s->fragments = nfrag;
    return DS_OK;
}

int ds_arch_pebs_decode(const void *rec, size_t avail, struct ds_pebs_sample *out, uint32_t *out_consumed)
{
    if (out_consumed)
        *out_consumed = 0;
    if (!rec || !out)
        return DS_ERR_NULL;
    uint32_t used = 0;
    clear_sample(out);
    out->fmt = DS_PEBS_FMT_ARCH;
    /* Bytes past 4 GiB are never looked at (a buffer holds at most 128 MiB). */
    int e = record(rec, avail > 0xFFFFFFFFu ? 0xFFFFFFFFu : (uint32_t)avail, out, &used);
    if (out_consumed && (e == DS_OK || e == DS_ERR_APEBS_NO_BASIC))
        *out_consumed = used;
    return e;
}

/* --- Drain ------------------------------------------------------------------------------ */

/*
 * The layout of the single-fragment record decoded into @s (header
 * s->header): the offsets of its groups (0 = absent) and what in the
 * group headers decides sizes (a variable LBR count, the counters
 * bitmaps: s's masks, metrics or not). A record with the same header and
 * the same such words has the same groups at the same offsets. Kept in
 * struct ds_pmi for the PMI drains (arch_pebs.h struct ds__apebs_layout):
 * l->valid says it describes @s as it is (record() rewrites @s: walk
 * clears it first; run_same keeps every field it depends on).
 */
#define ap_layout ds__apebs_layout

static void layout_of(const struct ds_pebs_sample *s, struct ap_layout *l)
{
    uint64_t h = s->header;
    uint32_t at = DS_APEBS_HDR_BYTES + DS_APEBS_BASIC_BYTES;
    l->h = h;
    l->size = (uint32_t)(h & DS_APEBS_HDR_SIZE_MASK);
    l->aux = l->gpr = l->vecr = l->lbr = l->cntr = 0;
    l->lbr_var = false;
    if (h & DS_APEBS_HDR_AUX)
        l->aux = at, at += DS_APEBS_AUX_BYTES;
    if (h & DS_APEBS_HDR_GPR)
        l->gpr = at, at += DS_APEBS_GPR_BYTES;
    if (h & DS_APEBS_HDR_VECR) {
        l->vecr = at;
        at += DS_APEBS_XER_BYTES + ((h & DS_APEBS_HDR_XMM) ? DS_APEBS_XMM_BYTES : 0) +
              ((h & DS_APEBS_HDR_YMMH) ? DS_APEBS_YMMH_BYTES : 0) + ((h & DS_APEBS_HDR_OPMASK) ? DS_APEBS_OPMASK_BYTES : 0) +
              ((h & DS_APEBS_HDR_ZMMH) ? DS_APEBS_ZMMH_BYTES : 0) + ((h & DS_APEBS_HDR_H16ZMM) ? DS_APEBS_H16ZMM_BYTES : 0);
    }
    if (h & DS_APEBS_HDR_LBR) {
        l->lbr = at;
        l->lbr_var = ((h & DS_APEBS_HDR_LBR) >> DS_APEBS_HDR_LBR_SHIFT) == DS_APEBS_LBR_NUM_VAR;
        at += DS_APEBS_LBR_HDR_BYTES + s->lbr_count * DS_APEBS_LBR_ENTRY_BYTES;
    }
    /* gp, fx, cw, met are read only with cntr set */
    if (h & DS_APEBS_HDR_CNTR) {
        l->cntr = at;
        l->gp = s->cntr_gp_mask;
        l->fx = s->cntr_fixed_mask;
        l->cw = (uint64_t)l->fx << 32 | l->gp; /* GP 16+ / fixed 8+ set: never equal, validated */
        l->met = (s->present & DS_SAMPLE_METRICS) != 0;
    }
    l->valid = true;
}

/*
 * After a validated single-fragment record decoded into @s (or, at a
 * drain's start, the previous drain's last record in ds_pmi's scratch
 * sample): the records at *@at that follow with the same layout
 * (layout_of) are decoded without validation or clearing (the same groups
 * rewrite the same fields; the retire latency, valid per record, is
 * written either way). Stops at the first other record or when fewer than
 * its size remain before @end. Returns the records walked; counts
 * taken/rejected and present into @st; *@pp advances. Six arguments, all
 * in registers on x86_64 (no outgoing argument in the drain's frame).
 */
static inline __attribute__((always_inline)) uint32_t run_same(const unsigned char **pp, const unsigned char *end,
                                                               struct ds__pmi_scratch *scr, ds_pebs_sink sink,
                                                               void *arg, struct ds_drain_stats *st)
{
    struct ds_pebs_sample *s = &scr->s;
    struct ap_layout *lp = &scr->lay;
    uint64_t h = s->header;
    if (s->fragments != 1 || continued(h) || !(h & DS_APEBS_HDR_BASIC))
        return 0;
    if (!lp->valid)
        layout_of(s, lp);
    const struct ap_layout *const l = lp; /* not copied: no layout in this frame */
    uint32_t present = s->present & ~DS_SAMPLE_RETIRE_LAT, n = 0;
    const unsigned char *p = *pp;
    while ((size_t)(end - p) >= l->size) {
        if (ds__ld64(p) != h || (l->lbr_var && ds__ld64(p + l->lbr + 16) != s->lbr_count) ||
            (l->cntr && (ds__ld64(p + l->cntr) != l->cw ||
                        (ds__ld32(p + l->cntr + 8) == DS_PEBS_CNTR_METRICS) != l->met)))
            break;
        const unsigned char *q = p + DS_APEBS_HDR_BYTES;
        s->ip = ds__ld64(q);
        s->eventing_ip = s->ip;
        s->counters = ds__ld64(q + 8);
        s->tsc = ds__ld64(q + 16);
        uint64_t r = ds__ld64(q + 24); /* retire [15:0], valid [16] */
        bool rv = (r & (1ull << 16)) != 0;
        s->retire_latency = rv ? (uint32_t)(r & 0xFFFF) : 0;
        s->present = present | (rv ? DS_SAMPLE_RETIRE_LAT : 0);
        if (l->aux)
            aux_group(p + l->aux, s);
        if (l->gpr)
            gpr_group(p + l->gpr, s);
        if (l->vecr) {
            int e;
            (void)vecr_group(p + l->vecr, l->size - l->vecr, h, s, &e); /* fits: the same layout */
        }
        if (l->lbr)
            s->lbr = (const struct ds_pebs_lbr_entry *)(const void *)(p + l->lbr + DS_APEBS_LBR_HDR_BYTES);
        if (l->cntr) { /* cntr_group's values, the bitmaps known */
            const unsigned char *v = p + l->cntr + DS_APEBS_CNTR_HDR_BYTES;
            for (uint32_t m = l->gp; m; m &= m - 1, v += 8)
                s->cntr_gp[__builtin_ctz(m)] = ds__ld64(v);
            for (uint32_t m = l->fx; m; m &= m - 1, v += 8)
                s->cntr_fixed[__builtin_ctz(m)] = ds__ld64(v);
            if (l->met)
                s->topdown_slots = ds__ld64(v), s->perf_metrics = ds__ld64(v + 8);
        }
        if (sink(arg, s) == 0)
            st->records++;
        else
            st->lost_rejected++;
        p += l->size;
        n++;
    }
    *pp = p;
    st->present += n;
    return n;
}

/*
 * Walk records in mem[at, top): deliver to @sink and account. Ends at the
 * first undecodable bytes (one lost record).
 */
static inline __attribute__((always_inline)) void walk(const unsigned char *mem, uint32_t top,
                                                        struct ds__pmi_scratch *scr, ds_pebs_sink sink, void *arg,
                                                        struct ds_drain_stats *st)
{
    struct ds_pebs_sample *s = &scr->s;
    struct ap_layout *l = &scr->lay;
    const unsigned char *p = mem, *end = mem + top;
    uint32_t at = 0;
    /* s->present: ds_pmi's scratch holds the previous drain's last,
     * validated record; then each record decoded fine. One run_same call
     * site (inlined: no frame of its own, issue 28 item 3). */
    for (bool fast = s->present != 0;;) {
        if (fast) { /* the records that follow with its layout */
            p = mem + at;
            (void)run_same(&p, end, scr, sink, arg, st);
            at = (uint32_t)(p - mem);
        }
        if (at >= top)
            break;
        uint32_t used = 0;
        l->valid = false; /* record() rewrites s */
        int e = record(mem + at, top - at, s, &used);
        st->present++;
        if (e == DS_OK) {
            if (sink(arg, s) == 0)
                st->records++;
            else
                st->lost_rejected++;
        } else {
            st->lost_corrupt++;
            st->anomalies |= e == DS_ERR_APEBS_NO_BASIC ? DS_DRAIN_APEBS_ORPHAN : DS_DRAIN_SIZE_LIE;
        }
        if (e != DS_OK && e != DS_ERR_APEBS_NO_BASIC)
            return;
        at += used;
        fast = e == DS_OK;
    }
}

/*
 * The bytes of one fragment's groups as frag_groups checks them, nothing
 * decoded: DS_OK when every group lies inside p[0, sz) (and is aligned
 * where frag_groups requires it), else its error. For race(): records
 * written during a drain are counted, not decoded (no sample, no record()
 * frame under the drain's: issue 29 item 3).
 */
static int frag_span(const unsigned char *p, uint32_t sz)
{
    uint64_t h = ds__ld64(p);
    uint32_t at = DS_APEBS_HDR_BYTES + ((h & DS_APEBS_HDR_BASIC) ? DS_APEBS_BASIC_BYTES : 0) +
                  ((h & DS_APEBS_HDR_AUX) ? DS_APEBS_AUX_BYTES : 0) + ((h & DS_APEBS_HDR_GPR) ? DS_APEBS_GPR_BYTES : 0);
    if (at > sz)
        return DS_ERR_APEBS_REC_SIZE;
    if (h & DS_APEBS_HDR_VECR) {
        uint32_t n = DS_APEBS_XER_BYTES + ((h & DS_APEBS_HDR_XMM) ? DS_APEBS_XMM_BYTES : 0) +
                     ((h & DS_APEBS_HDR_YMMH) ? DS_APEBS_YMMH_BYTES : 0) +
                     ((h & DS_APEBS_HDR_OPMASK) ? DS_APEBS_OPMASK_BYTES : 0) +
                     ((h & DS_APEBS_HDR_ZMMH) ? DS_APEBS_ZMMH_BYTES : 0) +
                     ((h & DS_APEBS_HDR_H16ZMM) ? DS_APEBS_H16ZMM_BYTES : 0);
        if (n > sz - at)
            return DS_ERR_APEBS_REC_SIZE;
        if ((uintptr_t)(p + at) & 7u)
            return DS_ERR_APEBS_REC_ALIGN;
        at += n;
    }
    if (h & DS_APEBS_HDR_LBR) {
        if ((uintptr_t)(p + at) & 7u)
            return DS_ERR_APEBS_REC_ALIGN;
        if (sz - at < DS_APEBS_LBR_HDR_BYTES)
            return DS_ERR_APEBS_REC_SIZE;
        uint64_t sel = (h & DS_APEBS_HDR_LBR) >> DS_APEBS_HDR_LBR_SHIFT;
        uint64_t n = sel == DS_APEBS_LBR_NUM_VAR ? ds__ld64(p + at + 16) : sel * 8;
        if (n > (sz - at - DS_APEBS_LBR_HDR_BYTES) / DS_APEBS_LBR_ENTRY_BYTES)
            return DS_ERR_APEBS_REC_SIZE;
        at += DS_APEBS_LBR_HDR_BYTES + (uint32_t)n * DS_APEBS_LBR_ENTRY_BYTES;
    }
    if (h & DS_APEBS_HDR_CNTR) {
        if (sz - at < DS_APEBS_CNTR_HDR_BYTES)
            return DS_ERR_APEBS_REC_SIZE;
        const unsigned char *q = p + at;
        uint32_t n = popcnt32(ds__ld32(q)) + popcnt32(ds__ld32(q + 4)) +
                     (ds__ld32(q + 8) == DS_PEBS_CNTR_METRICS ? 2u : 0u);
        if (n > (sz - at - DS_APEBS_CNTR_HDR_BYTES) / 8)
            return DS_ERR_APEBS_REC_SIZE;
    }
    return DS_OK;
}

/* record() without the decode: the same result and *@used (frag_span). */
static int rec_span(const unsigned char *p, uint32_t avail, uint32_t *used)
{
    uint32_t at = 0;
    for (bool first = true;; first = false) {
        if (avail - at < DS_APEBS_HDR_BYTES)
            return DS_ERR_APEBS_REC_SHORT;
        uint64_t h = ds__ld64(p + at);
        uint32_t sz = (uint32_t)(h & DS_APEBS_HDR_SIZE_MASK);
        if (sz < DS_APEBS_HDR_BYTES || sz > avail - at)
            return DS_ERR_APEBS_REC_SHORT;
        if (sz & 7u)
            return DS_ERR_APEBS_REC_ALIGN;
        if (first && !(h & DS_APEBS_HDR_BASIC)) {
            *used = sz;
            return DS_ERR_APEBS_NO_BASIC;
        }
        int e = frag_span(p + at, sz);
        if (e)
            return e;
        at += sz;
        if (!continued(h))
            break;
    }
    *used = at;
    return DS_OK;
}

/* Records written between the first INDEX read (@first) and now (@now):
 * counted as lost_race up to the first one record() would refuse (counted
 * too), as walk() without a sink did; @s and its layout are left as the
 * drain left them. */
static __attribute__((noinline)) void race(const struct ds_arch_pebs *ap, uint64_t first, uint64_t now,
                                           struct ds_drain_stats *st)
{
    uint64_t a = first & DS_APEBS_INDEX_WR_MASK, b = now & DS_APEBS_INDEX_WR_MASK;
    if (now & DS_APEBS_INDEX_FULL)
        st->anomalies |= DS_DRAIN_FULL;
    if (a == b)
        return;
    st->anomalies |= DS_DRAIN_RACE;
    uint64_t before = st->lost_race;
    if (b > a && a < ap->bytes) {
        uint32_t at = (uint32_t)a, top = (uint32_t)(b < ap->bytes ? b : ap->bytes);
        while (at < top) {
            uint32_t used = 0;
            int e = rec_span(ap->mem + at, top - at, &used);
            st->present++;
            st->lost_race++;
            if (e != DS_OK && e != DS_ERR_APEBS_NO_BASIC)
                break;
            at += used;
        }
    }
    if (st->lost_race == before) { /* changed, but nothing countable: at least one */
        st->present++;
        st->lost_race++;
    }
}

static int drain_done(struct ds_drain_stats *st, struct ds_drain_stats *out, int e)
{
    if (out)
        *out = *st;
    return e;
}

/*
 * The drain, counts added into @st, decoding into @s (a cleared sample or
 * one this function left; s->fmt set). @frozen: the counters cannot
 * assist while it runs (ds_pmi_handle under a freeze mode, before its
 * ack): IA32_PEBS_INDEX is read once and reset, as Linux
 * intel_pmu_drain_arch_pebs does (its handler disabled the PMU); else it
 * is read again after the walk, the records written meanwhile counted as
 * lost_race (DS_DRAIN_RACE), and the second value is what the reset keeps.
 */
static inline __attribute__((always_inline)) int drain_into(struct ds_arch_pebs *ap, ds_pebs_sink sink, void *arg, struct ds_drain_stats *st,
                      struct ds__pmi_scratch *scr, bool frozen)
{
    uint64_t idx, idx2;
    int e = ds__msr_rd(ap->cpu, DS_MSR_IA32_PEBS_INDEX, &idx);
    if (e)
        return e;
    uint64_t claimed = idx & DS_APEBS_INDEX_WR_MASK; /* [26:4] x 16 = bytes */
    uint64_t top = claimed;
    if (claimed > ap->bytes) {
        top = ap->bytes;
        st->present++;
        st->lost_beyond++;
        st->anomalies |= DS_DRAIN_INDEX_PAST_MAX;
    }
    if (idx & DS_APEBS_INDEX_FULL)
        st->anomalies |= DS_DRAIN_FULL;
    if (!claimed && !(idx & DS_APEBS_INDEX_FULL))
        return DS_OK; /* Linux: nothing written, no reset */
    walk(ap->mem, (uint32_t)top, scr, sink, arg, st);
    idx2 = idx;
    if (!frozen) {
        e = ds__msr_rd(ap->cpu, DS_MSR_IA32_PEBS_INDEX, &idx2);
        if (e)
            return e;
        race(ap, idx, idx2, st);
    }
    /* offset 0, FULL 0; EN and threshold kept; reserved bits 0 */
    return ds__msr_wr(ap->cpu, DS_MSR_IA32_PEBS_INDEX, idx2 & (DS_APEBS_INDEX_EN | DS_APEBS_INDEX_THRESH_MASK));
}

int ds_arch_pebs_drain(struct ds_arch_pebs *ap, ds_pebs_sink sink, void *arg, struct ds_drain_stats *out)
{
    struct ds_drain_stats st;
    ds__zero(&st, sizeof(st));
    if (out)
        *out = st;
    if (!ap || !sink)
        return DS_ERR_NULL;
    if (!ap->installed)
        return DS_ERR_APEBS_NOT_INSTALLED;
    struct ds__pmi_scratch scr; /* its key unused */
    clear_sample(&scr.s); /* once per drain: record() clears only what the last record held */
    scr.s.fmt = DS_PEBS_FMT_ARCH;
    scr.lay.valid = false;
    return drain_done(&st, out, drain_into(ap, sink, arg, &st, &scr, false));
}

void ds__arch_pebs_drain_pmi(struct ds_arch_pebs *ap, ds_pebs_sink sink, void *arg, struct ds_drain_stats *st,
                             struct ds__pmi_scratch *scr, bool frozen)
{
    DS_ASSERT(ap->installed);
    if (scr->key != DS__SCRATCH_ARCH) {
        clear_sample(&scr->s);
        scr->s.fmt = DS_PEBS_FMT_ARCH;
        scr->lay.valid = false;
        scr->key = DS__SCRATCH_ARCH;
    }
    (void)drain_into(ap, sink, arg, st, scr, frozen);
}

struct apebs_arr {
    struct ds_pebs_sample *arr;
    size_t cap, n;
};

static int arr_sink(void *arg, const struct ds_pebs_sample *s)
{
    struct apebs_arr *a = arg;
    if (a->n >= a->cap)
        return 1;
    a->arr[a->n++] = *s;
    return 0;
}

int ds_arch_pebs_drain_array(struct ds_arch_pebs *ap, struct ds_pebs_sample *arr, size_t cap, size_t *out_n,
                             struct ds_drain_stats *out)
{
    if (out_n)
        *out_n = 0;
    if (!out_n || (!arr && cap)) {
        if (out)
            ds__zero(out, sizeof(*out));
        return DS_ERR_NULL;
    }
    struct apebs_arr a = { arr, cap, 0 };
    int e = ds_arch_pebs_drain(ap, arr_sink, &a, out);
    *out_n = a.n;
    return e;
}

#else /* !DS_CONFIG_PEBS: compiled out (ds/config.h) */

int ds_arch_pebs_decode(const void *rec, size_t avail, struct ds_pebs_sample *out, uint32_t *out_consumed)
{
    (void)rec;
    (void)avail;
    if (out)
        ds__zero(out, sizeof(*out));
    if (out_consumed)
        *out_consumed = 0;
    return DS_ERR_UNSUPPORTED;
}

int ds_arch_pebs_drain(struct ds_arch_pebs *ap, ds_pebs_sink sink, void *arg, struct ds_drain_stats *out)
{
    (void)ap;
    (void)sink;
    (void)arg;
    if (out)
        ds__zero(out, sizeof(*out));
    return DS_ERR_UNSUPPORTED;
}

int ds_arch_pebs_drain_array(struct ds_arch_pebs *ap, struct ds_pebs_sample *arr, size_t cap, size_t *out_n,
                             struct ds_drain_stats *out)
{
    (void)ap;
    (void)arr;
    (void)cap;
    if (out_n)
        *out_n = 0;
    if (out)
        ds__zero(out, sizeof(*out));
    return DS_ERR_UNSUPPORTED;
}

#endif /* DS_CONFIG_PEBS */
