/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * PEBS: format choice, record sizes, decoder, drain (SDM Vol. 3B "Precise
 * Event Based Sampling (PEBS)" per microarchitecture, "Adaptive PEBS";
 * reference pebs-records.md).
 */
#include <ds/pebs.h>
#include "internal.h"

#if DS_CONFIG_PEBS

int ds_pebs_format_select(const struct ds_cpu *cpu, enum ds_layout layout, enum ds_pebs_fmt *out_fmt)
{
    if (!cpu || !out_fmt)
        return DS_ERR_NULL;
    if (layout != DS_LAYOUT_32 && layout != DS_LAYOUT_64)
        return DS_ERR_INVAL;
    if (!cpu->identified)
        return DS_ERR_NOT_IDENTIFIED;
    const struct ds_caps *c = &cpu->caps;
    if (c->vendor != DS_VENDOR_INTEL)
        return DS_ERR_NOT_INTEL;
    if (!c->ds)
        return DS_ERR_NO_DS;
    if (!c->pebs_advertised)
        return DS_ERR_PEBS_UNAVAILABLE;
    /* NetBurst has no PERF_CAPABILITIES: the record follows the DS layout
     * (SDM "DS Save Area": 40-byte records in the 32-bit format, 144 bytes
     * in the 64-bit one). */
    if (c->netburst) {
#if DS_CONFIG_NETBURST
        *out_fmt = layout == DS_LAYOUT_32 ? DS_PEBS_FMT_NB32 : DS_PEBS_FMT_NB64;
        return DS_OK;
#else
        *out_fmt = DS_PEBS_FMT_NONE;
        return DS_ERR_UNSUPPORTED; /* NetBurst records compiled out (ds/config.h) */
#endif
    }
    if (!c->has_perf_caps)
        return DS_ERR_NO_PDCM;
    enum ds_pebs_fmt f;
    switch (c->pebs_format) {
    case 0: f = DS_PEBS_FMT_0; break;
    case 1: f = DS_PEBS_FMT_1; break;
    case 2: f = DS_PEBS_FMT_2; break;
    case 3: f = DS_PEBS_FMT_3; break;
    case 4: f = DS_PEBS_FMT_4; break;
    case 5: f = DS_PEBS_FMT_5; break;
    default: return DS_ERR_PEBS_FORMAT;
    }
    /* Formats 0-5 only exist on DTES64 parts, which always use the 64-bit
     * layout (Core 2 and Atom use 64-bit records in every mode). */
    if (layout != DS_LAYOUT_64)
        return DS_ERR_LAYOUT;
    *out_fmt = f;
    return DS_OK;
}

static uint32_t adaptive_size(uint64_t groups_and_lbr)
{
    uint32_t s = (uint32_t)sizeof(struct ds_pebs_basic);
    if (groups_and_lbr & DS_PEBS_DATA_CFG_MEMINFO)
        s += (uint32_t)sizeof(struct ds_pebs_meminfo);
    if (groups_and_lbr & DS_PEBS_DATA_CFG_GPRS)
        s += (uint32_t)sizeof(struct ds_pebs_gprs);
    if (groups_and_lbr & DS_PEBS_DATA_CFG_XMMS)
        s += (uint32_t)sizeof(struct ds_pebs_xmms);
    if (groups_and_lbr & DS_PEBS_DATA_CFG_LBRS)
        s += (uint32_t)sizeof(struct ds_pebs_lbr_entry) *
             (uint32_t)(((groups_and_lbr & DS_PEBS_DATA_CFG_LBR_MASK) >> DS_PEBS_DATA_CFG_LBR_SHIFT) + 1);
    return s;
}

uint32_t ds_pebs_record_size(enum ds_pebs_fmt fmt, uint64_t data_cfg)
{
    switch (fmt) {
#if DS_CONFIG_NETBURST
    case DS_PEBS_FMT_NB32: return sizeof(struct ds_pebs_nb32);
    case DS_PEBS_FMT_NB64: return sizeof(struct ds_pebs_nb64);
#endif
    case DS_PEBS_FMT_0: return sizeof(struct ds_pebs_fmt0);
    case DS_PEBS_FMT_1: return sizeof(struct ds_pebs_fmt1);
    case DS_PEBS_FMT_2: return sizeof(struct ds_pebs_fmt2);
    case DS_PEBS_FMT_3: return sizeof(struct ds_pebs_fmt3);
    case DS_PEBS_FMT_4:
    case DS_PEBS_FMT_5:
        if (data_cfg & ~DS_PEBS_DATA_CFG_VALID)
            return 0;
        return adaptive_size(data_cfg);
    default:
        return 0;
    }
}

static void zero_sample(struct ds_pebs_sample *s)
{
    ds__zero(s, sizeof(*s));
    s->xmm = NULL;
    s->lbr = NULL;
}

/* The 18-quadword block of NetBurst 64-bit and formats 0-3 (RAX,RBX,RCX,RDX,RSI,RDI,RBP,RSP order). */
static void decode_gpr_block(const unsigned char *p, struct ds_pebs_sample *s)
{
    static const uint8_t order[8] = { DS_GPR_RAX, DS_GPR_RBX, DS_GPR_RCX, DS_GPR_RDX,
                                      DS_GPR_RSI, DS_GPR_RDI, DS_GPR_RBP, DS_GPR_RSP };
    s->flags = ds__ld64(p + 0x00);
    s->ip = ds__ld64(p + 0x08);
    for (unsigned i = 0; i < 8; i++)
        s->gpr[order[i]] = ds__ld64(p + 0x10 + 8 * i);
    for (unsigned i = 0; i < 8; i++)
        s->gpr[DS_GPR_R8 + i] = ds__ld64(p + 0x50 + 8 * i);
    s->present |= DS_SAMPLE_IP | DS_SAMPLE_FLAGS | DS_SAMPLE_GPRS;
}

static int decode_adaptive(enum ds_pebs_fmt fmt, const unsigned char *p, size_t avail, bool trap,
                           struct ds_pebs_sample *s)
{
    if (avail < sizeof(struct ds_pebs_basic))
        return DS_ERR_REC_SHORT;
    uint64_t hdr = ds__ld64(p);
    uint32_t size = (uint32_t)(hdr >> DS_PEBS_HDR_SIZE_SHIFT);
    /* Bits 23:4 would be groups libds does not know: their size is unknown. */
    if (hdr & 0x0000000000FFFFF0ull)
        return DS_ERR_REC_SIZE;
    uint64_t groups = hdr & (0xFull | DS_PEBS_DATA_CFG_LBR_MASK);
    if (!(groups & DS_PEBS_DATA_CFG_LBRS))
        groups &= 0xFull; /* the LBR count is meaningless without the group */
    uint32_t expect = adaptive_size(groups);
    if (size != expect)
        return DS_ERR_REC_SIZE;
    if (size > avail)
        return DS_ERR_REC_SHORT;

    s->fmt = fmt;
    s->size = size;
    s->header = hdr;
    s->ip = ds__ld64(p + 0x08);
    s->eventing_ip = s->ip;
    s->counters = ds__ld64(p + 0x10);
    s->tsc = ds__ld64(p + 0x18);
    s->ip_is_next = false; /* the basic group's IP is the eventing IP */
    (void)trap;
    s->present |= DS_SAMPLE_IP | DS_SAMPLE_EVENTING_IP | DS_SAMPLE_APPLICABLE | DS_SAMPLE_TSC;
    /* Retire latency (PERF_CAPABILITIES[17] parts) in header bits 47:32. */
    s->retire_latency = (uint32_t)((hdr >> DS_PEBS_HDR_RETIRE_LAT_SHIFT) & 0xFFFF);
    if (s->retire_latency)
        s->present |= DS_SAMPLE_RETIRE_LAT;
    size_t off = sizeof(struct ds_pebs_basic);
    if (groups & DS_PEBS_DATA_CFG_MEMINFO) {
        s->data_addr = ds__ld64(p + off + 0x00);
        s->data_source = ds__ld64(p + off + 0x08);
        s->latency = ds__ld64(p + off + 0x10);
        s->tsx = ds__ld64(p + off + 0x18);
        s->present |= DS_SAMPLE_MEM | DS_SAMPLE_TSX;
        off += sizeof(struct ds_pebs_meminfo);
    }
    if (groups & DS_PEBS_DATA_CFG_GPRS) {
        /* GPR group order: RFLAGS, RIP, RAX, RCX, RDX, RBX, RSP, RBP, RSI, RDI, R8..R15
         * = encoding order after RIP. */
        s->flags = ds__ld64(p + off);
        for (unsigned i = 0; i < 16; i++)
            s->gpr[i] = ds__ld64(p + off + 0x10 + 8 * i);
        s->present |= DS_SAMPLE_FLAGS | DS_SAMPLE_GPRS;
        off += sizeof(struct ds_pebs_gprs);
    }
    if (groups & DS_PEBS_DATA_CFG_XMMS) {
        s->xmm = (const struct ds_pebs_xmms *)(const void *)(p + off);
        s->present |= DS_SAMPLE_XMM;
        off += sizeof(struct ds_pebs_xmms);
    }
    if (groups & DS_PEBS_DATA_CFG_LBRS) {
        s->lbr = (const struct ds_pebs_lbr_entry *)(const void *)(p + off);
        s->lbr_count = (uint32_t)((groups & DS_PEBS_DATA_CFG_LBR_MASK) >> DS_PEBS_DATA_CFG_LBR_SHIFT) + 1;
        s->present |= DS_SAMPLE_LBR;
    }
    return DS_OK;
}

int ds_pebs_decode(enum ds_pebs_fmt fmt, const void *rec, size_t avail, bool pebs_trap,
                   struct ds_pebs_sample *out)
{
    const unsigned char *p = rec;
    if (!rec || !out)
        return DS_ERR_NULL;
    zero_sample(out);
    if (fmt == DS_PEBS_FMT_4 || fmt == DS_PEBS_FMT_5) {
        int e = decode_adaptive(fmt, p, avail, pebs_trap, out);
        if (e)
            zero_sample(out);
        return e;
    }
#if !DS_CONFIG_NETBURST
    if (fmt == DS_PEBS_FMT_NB32 || fmt == DS_PEBS_FMT_NB64)
        return DS_ERR_UNSUPPORTED; /* NetBurst records compiled out (ds/config.h) */
#endif
    uint32_t size = ds_pebs_record_size(fmt, 0);
    if (!size)
        return DS_ERR_PEBS_FORMAT;
    if (avail < size)
        return DS_ERR_REC_SHORT;
    out->fmt = fmt;
    out->size = size;

#if DS_CONFIG_NETBURST
    if (fmt == DS_PEBS_FMT_NB32) {
        static const uint8_t order[8] = { DS_GPR_RAX, DS_GPR_RBX, DS_GPR_RCX, DS_GPR_RDX,
                                          DS_GPR_RSI, DS_GPR_RDI, DS_GPR_RBP, DS_GPR_RSP };
        out->flags = ds__ld32(p + 0x00);
        out->ip = ds__ld32(p + 0x04);
        for (unsigned i = 0; i < 8; i++)
            out->gpr[order[i]] = ds__ld32(p + 0x08 + 4 * i);
        out->present = DS_SAMPLE_IP | DS_SAMPLE_FLAGS | DS_SAMPLE_GPRS | DS_SAMPLE_GPRS32;
        out->ip_is_next = true; /* NetBurst PEBS is trap-like: IP after the instruction */
        return DS_OK;
    }
#endif
    decode_gpr_block(p, out);
#if DS_CONFIG_NETBURST
    if (fmt == DS_PEBS_FMT_NB64) {
        out->ip_is_next = true;
        return DS_OK;
    }
#endif
    out->ip_is_next = pebs_trap;
    if (fmt == DS_PEBS_FMT_0)
        return DS_OK;
    /* fmt 1..3 */
    out->counters = ds__ld64(p + 0x90);
    out->data_addr = ds__ld64(p + 0x98);
    out->data_source = ds__ld64(p + 0xA0);
    out->latency = ds__ld64(p + 0xA8);
    out->present |= DS_SAMPLE_MEM | (fmt == DS_PEBS_FMT_3 ? DS_SAMPLE_APPLICABLE : DS_SAMPLE_STATUS);
    if (fmt == DS_PEBS_FMT_1)
        return DS_OK;
    out->eventing_ip = ds__ld64(p + 0xB0);
    out->tsx = ds__ld64(p + 0xB8);
    out->present |= DS_SAMPLE_EVENTING_IP | DS_SAMPLE_TSX;
    if (fmt == DS_PEBS_FMT_2)
        return DS_OK;
    out->tsc = ds__ld64(p + 0xC0);
    out->present |= DS_SAMPLE_TSC;
    return DS_OK;
}

static bool one_bit(uint64_t v)
{
    return v && !(v & (v - 1));
}

int ds_pebs_attribute(const struct ds_pebs_sample *s, uint64_t pebs_enabled, uint64_t *out)
{
    if (!s || !out)
        return DS_ERR_NULL;
    *out = 0;
    switch (s->fmt) {
    case DS_PEBS_FMT_0:
        *out = 1; /* Core 2 / Atom: PEBS only on IA32_PMC0 */
        return DS_OK;
#if DS_CONFIG_NETBURST
    case DS_PEBS_FMT_NB32:
    case DS_PEBS_FMT_NB64:
        *out = pebs_enabled; /* one PEBS counter (IQ_COUNTER4/5) */
        return DS_OK;
#else
    case DS_PEBS_FMT_NB32:
    case DS_PEBS_FMT_NB64:
        return DS_ERR_UNSUPPORTED;
#endif
    case DS_PEBS_FMT_1:
    case DS_PEBS_FMT_2: {
        uint64_t c = s->counters & pebs_enabled;
        if (!c && one_bit(pebs_enabled))
            c = pebs_enabled;
        *out = c;
        return one_bit(c) ? DS_OK : DS_ERR_PEBS_AMBIGUOUS;
    }
    case DS_PEBS_FMT_3:
    case DS_PEBS_FMT_4:
    case DS_PEBS_FMT_5:
        *out = s->counters & pebs_enabled;
        return DS_OK;
    default:
        return DS_ERR_PEBS_FORMAT;
    }
}

/* --- drain ------------------------------------------------------------------ */

struct pebs_emit {
    enum ds_pebs_fmt fmt;
    bool trap;
    ds_pebs_sink sink;
    void *arg;
};

static int emit_fixed(void *e, const unsigned char *rec, uint32_t size)
{
    struct pebs_emit *pe = e;
    struct ds_pebs_sample s;
    if (ds_pebs_decode(pe->fmt, rec, size, pe->trap, &s) != DS_OK)
        return 2;
    return pe->sink(pe->arg, &s) == 0 ? 0 : 1;
}

static void drain_adaptive(struct ds_ctx *ctx, struct pebs_emit *pe, struct ds_drain_stats *st)
{
    const struct ds_buf_state *b = &ctx->pebs;
    uint64_t idx = ds__area_get(ctx, true, DS__INDEX);

    ds__drain_check_fields(ctx, true, st);
    if (idx < b->linear) {
        st->anomalies |= DS_DRAIN_INDEX_BELOW_BASE;
        ds__drain_finish(ctx, true, idx, st);
        return;
    }
    uint64_t claimed = idx - b->linear;
    uint64_t readable = claimed < b->bytes ? claimed : b->bytes;
    if (claimed > b->bytes) {
        uint64_t excess = claimed - b->bytes;
        uint64_t rem;
        uint64_t n = ds__div64(excess, b->rec_size, &rem) + (rem ? 1 : 0);
        st->anomalies |= DS_DRAIN_INDEX_PAST_MAX;
        st->lost_beyond += n;
        st->present += n;
    } else if (claimed == b->bytes) {
        st->anomalies |= DS_DRAIN_FULL;
    }
    uint64_t pos = 0;
    while (pos < readable) {
        struct ds_pebs_sample s;
        int e = ds_pebs_decode(pe->fmt, b->mem + pos, (size_t)(readable - pos), pe->trap, &s);
        st->present++;
        if (e != DS_OK) {
            /* The size field cannot be trusted: the rest is one lost record. */
            if (readable - pos < sizeof(struct ds_pebs_basic))
                st->anomalies |= DS_DRAIN_INDEX_MISALIGNED;
            else
                st->anomalies |= DS_DRAIN_SIZE_LIE;
            st->lost_corrupt++;
            break;
        }
        if (pe->sink(pe->arg, &s) == 0)
            st->records++;
        else
            st->lost_rejected++;
        pos += s.size;
    }
    /* The race check needs fixed sizes: use the configured record size. */
    ds__drain_finish(ctx, true, idx, st);
}

int ds_pebs_drain(struct ds_ctx *ctx, ds_pebs_sink sink, void *arg, struct ds_drain_stats *out)
{
    struct ds_drain_stats st;
    if (!ctx || !sink)
        return DS_ERR_NULL;
    if (!ctx->setup)
        return DS_ERR_NOT_SETUP;
    if (!ctx->pebs.mem)
        return DS_ERR_NO_PEBS_BUFFER;
    ds__zero(&st, sizeof(st));
    DS_ASSERT(ctx->pebs.rec_size == ds_pebs_record_size(ctx->pebs_fmt, ctx->pebs_data_cfg));
    struct pebs_emit pe = { ctx->pebs_fmt, ctx->pebs_trap, sink, arg };
    if (ctx->pebs_fmt == DS_PEBS_FMT_4 || ctx->pebs_fmt == DS_PEBS_FMT_5)
        drain_adaptive(ctx, &pe, &st);
    else
        ds__drain_fixed(ctx, true, emit_fixed, &pe, &st);
    if (out)
        *out = st;
    return DS_OK;
}

struct pebs_arr {
    struct ds_pebs_sample *arr;
    size_t cap, n;
};

static int arr_sink(void *arg, const struct ds_pebs_sample *s)
{
    struct pebs_arr *a = arg;
    if (a->n >= a->cap)
        return 1;
    a->arr[a->n++] = *s;
    return 0;
}

int ds_pebs_drain_array(struct ds_ctx *ctx, struct ds_pebs_sample *arr, size_t cap, size_t *out_n,
                        struct ds_drain_stats *out)
{
    if (!out_n || (!arr && cap))
        return DS_ERR_NULL;
    struct pebs_arr a = { arr, cap, 0 };
    int e = ds_pebs_drain(ctx, arr_sink, &a, out);
    *out_n = a.n;
    return e;
}

int ds_pebs_pending(const struct ds_ctx *ctx, uint64_t *out_records)
{
    if (!ctx || !out_records)
        return DS_ERR_NULL;
    if (!ctx->setup)
        return DS_ERR_NOT_SETUP;
    if (!ctx->pebs.mem)
        return DS_ERR_NO_PEBS_BUFFER;
    uint64_t idx = ds__area_get(ctx, true, DS__INDEX);
    if (idx < ctx->pebs.linear)
        *out_records = 0;
    else
        *out_records = ds__div64(idx - ctx->pebs.linear, ctx->pebs.rec_size, NULL);
    return DS_OK;
}

#else /* !DS_CONFIG_PEBS: PEBS compiled out (ds/config.h) */

int ds_pebs_format_select(const struct ds_cpu *cpu, enum ds_layout layout, enum ds_pebs_fmt *out_fmt)
{
    (void)cpu;
    (void)layout;
    if (out_fmt)
        *out_fmt = DS_PEBS_FMT_NONE;
    return DS_ERR_UNSUPPORTED;
}

uint32_t ds_pebs_record_size(enum ds_pebs_fmt fmt, uint64_t data_cfg)
{
    (void)fmt;
    (void)data_cfg;
    return 0; /* "unknown format": no record is decodable */
}

int ds_pebs_decode(enum ds_pebs_fmt fmt, const void *rec, size_t avail, bool pebs_trap,
                   struct ds_pebs_sample *out)
{
    (void)fmt;
    (void)rec;
    (void)avail;
    (void)pebs_trap;
    if (out)
        ds__zero(out, sizeof(*out));
    return DS_ERR_UNSUPPORTED;
}

int ds_pebs_attribute(const struct ds_pebs_sample *s, uint64_t pebs_enabled, uint64_t *out)
{
    (void)s;
    (void)pebs_enabled;
    if (out)
        *out = 0;
    return DS_ERR_UNSUPPORTED;
}

int ds_pebs_drain(struct ds_ctx *ctx, ds_pebs_sink sink, void *arg, struct ds_drain_stats *out)
{
    (void)ctx;
    (void)sink;
    (void)arg;
    if (out)
        ds__zero(out, sizeof(*out));
    return DS_ERR_UNSUPPORTED;
}

int ds_pebs_drain_array(struct ds_ctx *ctx, struct ds_pebs_sample *arr, size_t cap, size_t *out_n,
                        struct ds_drain_stats *out)
{
    (void)ctx;
    (void)arr;
    (void)cap;
    if (out_n)
        *out_n = 0;
    if (out)
        ds__zero(out, sizeof(*out));
    return DS_ERR_UNSUPPORTED;
}

int ds_pebs_pending(const struct ds_ctx *ctx, uint64_t *out_records)
{
    (void)ctx;
    if (out_records)
        *out_records = 0;
    return DS_ERR_UNSUPPORTED;
}

#endif /* DS_CONFIG_PEBS */
