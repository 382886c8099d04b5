/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Branch Trace Store (SDM Vol. 3B "Branch Trace Store (BTS)", "IA32_DEBUGCTL
 * MSR", "MSR_DEBUGCTLA MSR"; reference bts.md).
 */
#include <ds/bts.h>
#include "drain_int.h"
#include "bts_int.h"

#if DS_CONFIG_BTS

DS_COLD uint64_t ds_bts_debugctl_bits(const struct ds_cpu *cpu, uint32_t flags)
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

DS_COLD int ds_bts_enable(struct ds_ctx *ctx, uint32_t flags)
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
    /*
     * The mode the hardware will run in decides the threshold field, written
     * before BTS starts: without BTINT the CPU wraps at the maximum, and the
     * SDM's BTS set-up note puts the threshold beyond the absolute maximum
     * so that no threshold interrupt is requested; with BTINT, the caller's
     * threshold. The drain follows the same mode (bts_circular).
     */
    bool was_circular = ctx->bts_circular;
    ctx->bts_circular = !(flags & DS_BTS_INT);
    ds__area_put(ctx, false, DS__THRESH, ds__buf_thresh_field(ctx, false));
    e = ds_msr_write(ctx->cpu, DS_MSR_IA32_DEBUGCTL, v);
    if (e) {
        ctx->bts_circular = was_circular;
        ds__area_put(ctx, false, DS__THRESH, ds__buf_thresh_field(ctx, false));
        return e;
    }
    ctx->bts_enabled = true;
    ctx->bts_flags = flags;
    return DS_OK;
}

DS_COLD int ds_bts_disable(struct ds_ctx *ctx)
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

static inline __attribute__((always_inline)) void bts_read(bool l32, const unsigned char *p, struct ds_bts_branch *b)
{
    if (l32) {
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

/*
 * Hand @n consecutive records at @p to the sink; the layout is a constant
 * where this is inlined (no per-record layout test, no per-record division
 * or multiplication: the pointer advances by the record size). Returns how
 * many the sink took.
 */
static inline __attribute__((always_inline)) uint32_t walk_bts(bool l32, const unsigned char *p, uint32_t n,
                                                               ds_bts_sink sink, void *arg)
{
    const uint32_t rsz = l32 ? DS_BTS_REC32_SIZE : DS_BTS_REC64_SIZE;
    struct ds_bts_branch br;
    uint32_t taken = 0;
    for (uint32_t i = 0; i < n; i++, p += rsz) {
        bts_read(l32, p, &br);
        taken += sink(arg, &br) == 0;
    }
    return taken;
}

/* Records [first, first + n) of the buffer (first + n <= nrec) into @st. */
static void run_bts(const struct ds_ctx *ctx, uint32_t first, uint32_t n, ds_bts_sink sink, void *arg,
                    struct ds_drain_stats *st)
{
    const struct ds_buf_state *b = &ctx->bts;
    const unsigned char *p = b->mem + (size_t)first * b->rec_size;
    uint32_t taken;
    bool l32 = ctx->layout == DS_LAYOUT_32;
    if (!n)
        return;
    if (b->rec_size != (l32 ? DS_BTS_REC32_SIZE : DS_BTS_REC64_SIZE)) {
        /* A corrupted context: walking would not match the buffer bounds. */
        st->lost_corrupt += n;
        return;
    }
    if (l32)
        taken = walk_bts(true, p, n, sink, arg);
    else
        taken = walk_bts(false, p, n, sink, arg);
    st->records += taken;
    st->lost_rejected += n - taken;
}

static bool rec_written(const struct ds_ctx *ctx, const unsigned char *p)
{
    struct ds_bts_branch b;
    bts_read(ctx->layout == DS_LAYOUT_32, p, &b);
    return b.from != 0 || b.to != 0;
}

/*
 * Circular mode: the CPU wraps the index to base at the maximum. Records
 * [index, end) are older than [base, index) when the ring wrapped, which
 * the zero-filled buffer reveals.
 */
static void drain_circular(struct ds_ctx *ctx, ds_bts_sink sink, void *arg, struct ds_drain_stats *st)
{
    const struct ds_buf_state *b = &ctx->bts;
    uint64_t idx;
    /* The span's accounting (present = claimed, lost_beyond) holds for the
     * newest records [0, head); the wrapped older ones are added below. */
    uint32_t head = ds__drain_span(ctx, false, st, &idx);
    st->anomalies &= ~DS_DRAIN_FULL; /* index == max is no loss here: the CPU wraps */
    uint32_t older = 0;
    if (idx >= b->linear && head < b->nrec && rec_written(ctx, b->mem + (size_t)head * b->rec_size)) {
        st->anomalies |= DS_DRAIN_WRAPPED;
        older = b->nrec - head;
    }
    st->present += older;
    run_bts(ctx, head, older, sink, arg, st);
    run_bts(ctx, 0, head, sink, arg, st);
    ds__drain_finish(ctx, false, idx, st);
    ds__zero(b->mem, (size_t)b->bytes);
}

/* Threshold mode: records [0, index) of the linear buffer. */
static void drain_linear(struct ds_ctx *ctx, ds_bts_sink sink, void *arg, struct ds_drain_stats *st)
{
    uint64_t idx;
    uint32_t n = ds__drain_span(ctx, false, st, &idx);
    run_bts(ctx, 0, n, sink, arg, st);
    ds__drain_finish(ctx, false, idx, st);
}

__attribute__((noinline)) void ds__bts_drain_add(struct ds_ctx *ctx, ds_bts_sink sink, void *arg,
                                                 struct ds_drain_stats *st)
{
    DS_ASSERT(ctx->setup && ctx->bts.mem);
    if (ctx->bts_circular) /* the programmed mode, not whether a threshold was configured */
        drain_circular(ctx, sink, arg, st);
    else
        drain_linear(ctx, sink, arg, st);
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
    ds__bts_drain_add(ctx, sink, arg, &st);
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
    if (!ctx->bts.thresh_records || ctx->bts_circular)
        return DS_OK; /* circular mode: no threshold interrupt exists to claim */
    uint64_t idx = ds__area_get(ctx, false, DS__INDEX);
    *out = idx >= ds__thresh_value(&ctx->bts);
    return DS_OK;
}

#else /* !DS_CONFIG_BTS: Branch Trace Store compiled out (ds/config.h) */

DS_COLD uint64_t ds_bts_debugctl_bits(const struct ds_cpu *cpu, uint32_t flags)
{
    (void)cpu;
    (void)flags;
    return 0; /* as for invalid input: no bits to set */
}

DS_COLD int ds_bts_enable(struct ds_ctx *ctx, uint32_t flags)
{
    (void)ctx;
    (void)flags;
    return DS_ERR_UNSUPPORTED;
}

DS_COLD int ds_bts_disable(struct ds_ctx *ctx)
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
