/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Branch Trace Store (SDM Vol. 3B "Branch Trace Store (BTS)", "IA32_DEBUGCTL
 * MSR", "MSR_DEBUGCTLA MSR"; reference bts.md).
 */
#include <ds/bts.h>
#include "internal.h"

#if DS_CONFIG_BTS

uint64_t ds_bts_debugctl_bits(const struct ds_cpu *cpu, uint32_t flags)
{
    if (!cpu || (flags & ~DS_BTS_FLAGS_VALID))
        return 0;
    if (cpu->caps.netburst) {
#if !DS_CONFIG_NETBURST
        return 0; /* MSR_DEBUGCTLA layout compiled out (ds/config.h) */
#else
        /* NetBurst MSR_DEBUGCTLA: TR bit 2, BTS 3, BTINT 4, BTS_OFF_OS 5, BTS_OFF_USR 6. */
        uint64_t v = DS_NB_DEBUGCTLA_TR | DS_NB_DEBUGCTLA_BTS;
        if (flags & DS_BTS_INT)
            v |= DS_NB_DEBUGCTLA_BTINT;
        if (flags & DS_BTS_OFF_OS)
            v |= DS_NB_DEBUGCTLA_BTS_OFF_OS;
        if (flags & DS_BTS_OFF_USR)
            v |= DS_NB_DEBUGCTLA_BTS_OFF_USR;
        return v;
#endif
    }
    uint64_t v = DS_DEBUGCTL_TR | DS_DEBUGCTL_BTS;
    if (flags & DS_BTS_INT)
        v |= DS_DEBUGCTL_BTINT;
    if (flags & DS_BTS_OFF_OS)
        v |= DS_DEBUGCTL_BTS_OFF_OS;
    if (flags & DS_BTS_OFF_USR)
        v |= DS_DEBUGCTL_BTS_OFF_USR;
    return v;
}

static uint64_t all_bts_bits(const struct ds_cpu *cpu)
{
    return ds_bts_debugctl_bits(cpu, DS_BTS_FLAGS_VALID);
}

static int bts_common(const struct ds_ctx *ctx)
{
    if (!ctx)
        return DS_ERR_NULL;
    if (!ctx->setup)
        return DS_ERR_NOT_SETUP;
    if (!ctx->bts.mem)
        return DS_ERR_NO_BTS_BUFFER;
    return DS_OK;
}

/* Enabling/disabling on NetBurst writes MSR_DEBUGCTLA's layout: NetBurst-only. */
static int bts_msr_layout(const struct ds_ctx *ctx)
{
#if DS_CONFIG_NETBURST
    (void)ctx;
    return DS_OK;
#else
    return ctx->cpu->caps.netburst ? DS_ERR_UNSUPPORTED : DS_OK;
#endif
}

int ds_bts_enable(struct ds_ctx *ctx, uint32_t flags)
{
    uint64_t v;
    int e = bts_common(ctx);
    if (e)
        return e;
    if (!ctx->installed)
        return DS_ERR_NOT_INSTALLED;
    if (flags & ~DS_BTS_FLAGS_VALID)
        return DS_ERR_BAD_FLAGS;
    e = bts_msr_layout(ctx);
    if (e)
        return e;
    const struct ds_caps *c = &ctx->cpu->caps;
    if (!c->bts_advertised)
        return DS_ERR_BTS_UNAVAILABLE;
    if ((flags & (DS_BTS_OFF_OS | DS_BTS_OFF_USR)) && !c->ds_cpl)
        return DS_ERR_NO_DSCPL;
    if ((flags & DS_BTS_INT) && !ctx->bts.thresh_records)
        return DS_ERR_BTS_MODE;
    e = ds_msr_read(ctx->cpu, DS_MSR_IA32_DEBUGCTL, &v);
    if (e)
        return e;
    DS_ASSERT(ds_bts_debugctl_bits(ctx->cpu, flags) != 0);
    v &= ~all_bts_bits(ctx->cpu);
    v |= ds_bts_debugctl_bits(ctx->cpu, flags);
    e = ds_msr_write(ctx->cpu, DS_MSR_IA32_DEBUGCTL, v);
    if (e)
        return e;
    ctx->bts_enabled = true;
    ctx->bts_flags = flags;
    return DS_OK;
}

int ds_bts_disable(struct ds_ctx *ctx)
{
    uint64_t v;
    int e = bts_common(ctx);
    if (e)
        return e;
    e = bts_msr_layout(ctx);
    if (e)
        return e;
    e = ds_msr_read(ctx->cpu, DS_MSR_IA32_DEBUGCTL, &v);
    if (e)
        return e;
    e = ds_msr_write(ctx->cpu, DS_MSR_IA32_DEBUGCTL, v & ~all_bts_bits(ctx->cpu));
    if (e)
        return e;
    ctx->bts_enabled = false;
    return DS_OK;
}

static void bts_read(const struct ds_ctx *ctx, const unsigned char *p, struct ds_bts_branch *b)
{
    if (ctx->layout == DS_LAYOUT_32) {
        b->from = ds__ld32(p);
        b->to = ds__ld32(p + 4);
        b->flags = ds__ld32(p + 8);
    } else {
        b->from = ds__ld64(p);
        b->to = ds__ld64(p + 8);
        b->flags = ds__ld64(p + 16);
    }
    b->predicted = (b->flags & DS_BTS_FLAG_PREDICTED) != 0;
}

struct bts_emit {
    const struct ds_ctx *ctx;
    ds_bts_sink sink;
    void *arg;
};

static int emit_bts(void *e, const unsigned char *rec, uint32_t size)
{
    struct bts_emit *be = e;
    struct ds_bts_branch b;
    (void)size;
    bts_read(be->ctx, rec, &b);
    return be->sink(be->arg, &b) == 0 ? 0 : 1;
}

static bool rec_written(const struct ds_ctx *ctx, const unsigned char *p)
{
    struct ds_bts_branch b;
    bts_read(ctx, p, &b);
    return b.from != 0 || b.to != 0;
}

/*
 * Circular mode: the CPU wraps the index to base at the maximum. Records
 * [index, end) are older than [base, index) when the ring wrapped, which
 * the zero-filled buffer reveals.
 */
static void drain_circular(struct ds_ctx *ctx, struct bts_emit *be, struct ds_drain_stats *st)
{
    const struct ds_buf_state *b = &ctx->bts;
    uint64_t idx = ds__area_get(ctx, false, DS__INDEX);

    ds__drain_check_fields(ctx, false, st);
    if (idx < b->linear) {
        st->anomalies |= DS_DRAIN_INDEX_BELOW_BASE;
        ds__drain_finish(ctx, false, idx, st);
        ds__zero(b->mem, (size_t)b->bytes);
        return;
    }
    uint64_t off = idx - b->linear;
    uint64_t rem;
    uint64_t claimed = ds__div64(off, b->rec_size, &rem);
    if (rem)
        st->anomalies |= DS_DRAIN_INDEX_MISALIGNED;
    uint64_t head = claimed; /* records [0, head) are the newest */
    if (claimed > b->nrec) {
        st->anomalies |= DS_DRAIN_INDEX_PAST_MAX;
        st->lost_beyond += claimed - b->nrec;
        st->present += claimed - b->nrec;
        head = b->nrec;
    }
    uint64_t older = 0;
    if (head < b->nrec && rec_written(ctx, b->mem + head * b->rec_size)) {
        st->anomalies |= DS_DRAIN_WRAPPED;
        older = b->nrec - head;
    }
    st->present += head + older;
    for (uint64_t i = 0; i < older + head; i++) {
        uint64_t slot = i < older ? head + i : i - older;
        int r = emit_bts(be, b->mem + slot * b->rec_size, b->rec_size);
        if (r == 0)
            st->records++;
        else
            st->lost_rejected++;
    }
    ds__drain_finish(ctx, false, idx, st);
    ds__zero(b->mem, (size_t)b->bytes);
}

int ds_bts_drain(struct ds_ctx *ctx, ds_bts_sink sink, void *arg, struct ds_drain_stats *out)
{
    struct ds_drain_stats st;
    int e = bts_common(ctx);
    if (e)
        return e;
    if (!sink)
        return DS_ERR_NULL;
    ds__zero(&st, sizeof(st));
    struct bts_emit be = { ctx, sink, arg };
    if (ctx->bts.thresh_records == 0)
        drain_circular(ctx, &be, &st);
    else
        ds__drain_fixed(ctx, false, emit_bts, &be, &st);
    if (out)
        *out = st;
    return DS_OK;
}

struct bts_arr {
    struct ds_bts_branch *arr;
    size_t cap, n;
};

static int arr_sink(void *arg, const struct ds_bts_branch *b)
{
    struct bts_arr *a = arg;
    if (a->n >= a->cap)
        return 1;
    a->arr[a->n++] = *b;
    return 0;
}

int ds_bts_drain_array(struct ds_ctx *ctx, struct ds_bts_branch *arr, size_t cap, size_t *out_n,
                       struct ds_drain_stats *out)
{
    if (!out_n || (!arr && cap))
        return DS_ERR_NULL;
    struct bts_arr a = { arr, cap, 0 };
    int e = ds_bts_drain(ctx, arr_sink, &a, out);
    *out_n = a.n;
    return e;
}

int ds_bts_threshold_reached(const struct ds_ctx *ctx, bool *out)
{
    int e = bts_common(ctx);
    if (e)
        return e;
    if (!out)
        return DS_ERR_NULL;
    *out = false;
    if (!ctx->bts.thresh_records)
        return DS_OK;
    uint64_t idx = ds__area_get(ctx, false, DS__INDEX);
    *out = idx >= ds__thresh_value(&ctx->bts);
    return DS_OK;
}

#else /* !DS_CONFIG_BTS: Branch Trace Store compiled out (ds/config.h) */

uint64_t ds_bts_debugctl_bits(const struct ds_cpu *cpu, uint32_t flags)
{
    (void)cpu;
    (void)flags;
    return 0; /* as for invalid input: no bits to set */
}

int ds_bts_enable(struct ds_ctx *ctx, uint32_t flags)
{
    (void)ctx;
    (void)flags;
    return DS_ERR_UNSUPPORTED;
}

int ds_bts_disable(struct ds_ctx *ctx)
{
    (void)ctx;
    return DS_ERR_UNSUPPORTED;
}

int ds_bts_drain(struct ds_ctx *ctx, ds_bts_sink sink, void *arg, struct ds_drain_stats *out)
{
    (void)ctx;
    (void)sink;
    (void)arg;
    if (out)
        ds__zero(out, sizeof(*out));
    return DS_ERR_UNSUPPORTED;
}

int ds_bts_drain_array(struct ds_ctx *ctx, struct ds_bts_branch *arr, size_t cap, size_t *out_n,
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

int ds_bts_threshold_reached(const struct ds_ctx *ctx, bool *out)
{
    (void)ctx;
    if (out)
        *out = false;
    return DS_ERR_UNSUPPORTED;
}

#endif /* DS_CONFIG_BTS */
