/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * PEBS: record sizes, the public decode and drain entry points (SDM Vol.
 * 3B "Precise Event Based Sampling (PEBS)" per microarchitecture,
 * "Adaptive PEBS"; reference pebs-records.md). The decoders and walks:
 * pebs_fixed.c (NetBurst, formats 0-3) and pebs_adaptive.c (formats 4-6);
 * their shared helpers: pebs_int.h. The format choice, which also asks
 * architectural PEBS, is a level up in pebs_select.c (issue 26 item 5).
 */
#include <ds/pebs.h>
#include "drain_int.h"
#include "pebs_int.h"

#if DS_CONFIG_PEBS

/* Record size of a fixed-size format (NetBurst, 0-3), else 0. Inline: the
 * drain checks it on every PMI (issue 10 item 21). */
uint32_t ds__pebs_fixed_size(enum ds_pebs_fmt fmt)
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
    default: return 0;
    }
}

uint32_t ds_pebs_record_size(enum ds_pebs_fmt fmt, uint64_t data_cfg)
{
    switch (fmt) {
    case DS_PEBS_FMT_4:
    case DS_PEBS_FMT_5:
        if (data_cfg & ~DS_PEBS_DATA_CFG_VALID)
            return 0;
        return ds__pebs_adaptive_size(data_cfg);
    case DS_PEBS_FMT_6: {
        if (data_cfg & ~DS_PEBS_DATA_CFG_VALID6)
            return 0;
        uint32_t sz = ds__pebs_adaptive_size(data_cfg);
        if (data_cfg & (DS_PEBS_DATA_CFG_CNTRS | DS_PEBS_DATA_CFG_METRICS))
            sz += ds__pebs_cntr_group_size((uint32_t)((data_cfg & DS_PEBS_DATA_CFG_GP_MASK) >> DS_PEBS_DATA_CFG_GP_SHIFT),
                                  (uint32_t)((data_cfg & DS_PEBS_DATA_CFG_FIX_MASK) >> DS_PEBS_DATA_CFG_FIX_SHIFT),
                                  (data_cfg & DS_PEBS_DATA_CFG_METRICS) != 0);
        return sz;
    }
    default:
        return ds__pebs_fixed_size(fmt);
    }
}

/* Every field zero (see clear_rest, pebs_int.h). */
void ds__pebs_clear_sample(struct ds_pebs_sample *s)
{
    uint64_t *g = s->gpr;
    s->ip = 0;
    s->flags = 0;
    g[0] = 0, g[1] = 0, g[2] = 0, g[3] = 0, g[4] = 0, g[5] = 0, g[6] = 0, g[7] = 0;
    g[8] = 0, g[9] = 0, g[10] = 0, g[11] = 0, g[12] = 0, g[13] = 0, g[14] = 0, g[15] = 0;
    clear_rest(s);
}

int ds_pebs_decode(enum ds_pebs_fmt fmt, const void *rec, size_t avail, bool pebs_trap,
                   struct ds_pebs_sample *out)
{
    const unsigned char *p = rec;
    if (!rec || !out)
        return DS_ERR_NULL;
    ds__pebs_clear_sample(out);
    if (ds_pebs_fmt_adaptive(fmt))
        return ds__pebs_decode_adaptive(fmt, p, avail, DS__RL_NONZERO, false, out);
#if !DS_CONFIG_NETBURST
    if (fmt == DS_PEBS_FMT_NB32 || fmt == DS_PEBS_FMT_NB64)
        return DS_ERR_UNSUPPORTED; /* NetBurst records compiled out (ds/config.h) */
#endif
    uint32_t size = ds_pebs_record_size(fmt, 0);
    if (!size)
        return DS_ERR_PEBS_FORMAT;
    if (avail < size)
        return DS_ERR_REC_SHORT;
    ds__pebs_decode_fixed(fmt, p, size, pebs_trap, out);
    return DS_OK;
}

bool ds_pebs_latency_split(const struct ds_cpu *cpu)
{
    /* Linux intel_pmu_init: models with PMU_FL_INSTR_LATENCY (see pebs.h). */
    static const uint8_t fam6[] = {
        0x8F, 0xCF, 0xAD, 0xAE,             /* SPR, EMR, GNR-X, GNR-D */
        0x97, 0x9A, 0xB7, 0xBA, 0xBF,       /* ADL, ADL-L, RPL, RPL-P, RPL-S */
        0xBE, 0xAF, 0xB6,                   /* ADL-N (Gracemont), SRF, GRR (Crestmont) */
        0xAA, 0xAC, 0xBD, 0xC5, 0xC6, 0xB5, /* MTL, MTL, LNL, ARL-H/S/U */
        0xCC, 0xD5, 0xDD,                   /* PTL, WCL (with PTL in Linux), CWF */
    };
    if (!cpu || !cpu->identified || cpu->caps.vendor != DS_VENDOR_INTEL || cpu->caps.display_family != 6)
        return false;
    for (unsigned i = 0; i < sizeof(fam6); i++)
        if (cpu->caps.display_model == fam6[i])
            return true;
    return false;
}

int ds_pebs_decode_cpu(const struct ds_cpu *cpu, enum ds_pebs_fmt fmt, const void *rec, size_t avail,
                       struct ds_pebs_sample *out)
{
    if (!cpu || !rec || !out)
        return DS_ERR_NULL;
    if (!cpu->identified) {
        ds__pebs_clear_sample(out);
        return DS_ERR_NOT_IDENTIFIED;
    }
    if (!ds_pebs_fmt_adaptive(fmt))
        return ds_pebs_decode(fmt, rec, avail, cpu->caps.pebs_trap, out);
    ds__pebs_clear_sample(out);
    return ds__pebs_decode_adaptive(fmt, rec, avail, cpu->caps.pebs_timing_info ? DS__RL_ALWAYS : DS__RL_NEVER,
                                    ds_pebs_latency_split(cpu), out);
}

static bool one_bit(uint64_t v)
{
    return v && !(v & (v - 1));
}

int ds_pebs_attribute(const struct ds_pebs_sample *s, uint64_t pebs_enabled, uint64_t *out)
{
    if (!s || !out)
        return DS_ERR_NULL;
    *out = ds__pebs_ctrs(s, pebs_enabled); /* pebs_int.h: the rules per format */
    switch (s->fmt) {
    case DS_PEBS_FMT_0:
    case DS_PEBS_FMT_3:
    case DS_PEBS_FMT_4:
    case DS_PEBS_FMT_5:
    case DS_PEBS_FMT_6:
        return DS_OK;
    case DS_PEBS_FMT_NB32:
    case DS_PEBS_FMT_NB64:
        return DS_CONFIG_NETBURST ? DS_OK : DS_ERR_UNSUPPORTED;
    case DS_PEBS_FMT_1:
    case DS_PEBS_FMT_2:
        return one_bit(*out) ? DS_OK : DS_ERR_PEBS_AMBIGUOUS;
    default:
        *out = 0; /* architectural PEBS included: its records name their counters */
        return DS_ERR_PEBS_FORMAT;
    }
}

/* --- drain ------------------------------------------------------------------ */

/* ds_pebs_drain's walk without its argument checks, added into @st (not
 * cleared): ds_pmi_handle drains straight into its result (issue 10 item 21:
 * no ds__zero, copy-out and add per PMI). @ctx set up with a PEBS buffer. */
void ds__pebs_drain_add(struct ds_ctx *ctx, ds_pebs_sink sink, void *arg, struct ds_drain_stats *st)
{
    DS_ASSERT(ctx->setup && ctx->pebs.mem);
    DS_ASSERT(ctx->pebs.rec_size == ds_pebs_record_size(ctx->pebs_fmt, ctx->pebs_data_cfg));
    struct ds_pebs_sample s;
    uint32_t key = 0;
    if (ds_pebs_fmt_adaptive(ctx->pebs_fmt))
        ds__pebs_drain_adaptive(ctx, sink, arg, st, &s, &key);
    else
        ds__pebs_drain_fixed(ctx, sink, arg, st, &s, NULL);
}

int ds_pebs_drain(struct ds_ctx *ctx, ds_pebs_sink sink, void *arg, struct ds_drain_stats *out)
{
    struct ds_drain_stats local, *st = out ? out : &local;
    if (!ctx || !sink)
        return DS_ERR_NULL;
    if (!ctx->setup)
        return DS_ERR_NOT_SETUP;
    if (!ctx->pebs.mem)
        return DS_ERR_NO_PEBS_BUFFER;
    ds__stats_clear(st);
    ds__pebs_drain_add(ctx, sink, arg, st);
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
        *out_records = ds__div_rec(idx - ctx->pebs.linear, ctx->pebs.rec_size, NULL);
    return DS_OK;
}

#else /* !DS_CONFIG_PEBS: PEBS compiled out (ds/config.h) */

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

int ds_pebs_decode_cpu(const struct ds_cpu *cpu, enum ds_pebs_fmt fmt, const void *rec, size_t avail,
                       struct ds_pebs_sample *out)
{
    (void)cpu;
    (void)fmt;
    (void)rec;
    (void)avail;
    if (out)
        ds__zero(out, sizeof(*out));
    return DS_ERR_UNSUPPORTED;
}

bool ds_pebs_latency_split(const struct ds_cpu *cpu)
{
    (void)cpu;
    return false;
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
