/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * PEBS fixed-size records: NetBurst 32/64-bit and formats 0-3 (SDM Vol. 3B
 * "PEBS Record Format" per microarchitecture; reference pebs-records.md):
 * the record fields, the per-drain sample preparation (the fields a format
 * does not carry are cleared once per context, not per record) and the
 * walk. Entry points in pebs_int.h; the public API in pebs.c.
 */
#include <ds/pebs.h>
#include "drain_int.h"
#include "pebs_int.h"

#if DS_CONFIG_PEBS

/* The present bits of a fixed-size format (NetBurst, 0-3). */
static uint32_t fixed_present(enum ds_pebs_fmt fmt)
{
    uint32_t v = DS_SAMPLE_IP | DS_SAMPLE_FLAGS | DS_SAMPLE_GPRS;
    switch (fmt) {
    case DS_PEBS_FMT_NB32: return v | DS_SAMPLE_GPRS32;
    case DS_PEBS_FMT_1: return v | DS_SAMPLE_MEM | DS_SAMPLE_STATUS;
    case DS_PEBS_FMT_2: return v | DS_SAMPLE_MEM | DS_SAMPLE_STATUS | DS_SAMPLE_EVENTING_IP | DS_SAMPLE_TSX;
    case DS_PEBS_FMT_3:
        return v | DS_SAMPLE_MEM | DS_SAMPLE_APPLICABLE | DS_SAMPLE_EVENTING_IP | DS_SAMPLE_TSX | DS_SAMPLE_TSC;
    default: return v;
    }
}

/* The per-drain constant part of a fixed-format sample (after clear_sample). */
static void fixed_meta(enum ds_pebs_fmt fmt, uint32_t size, bool trap, struct ds_pebs_sample *s)
{
    s->fmt = fmt;
    s->size = size;
    s->present = fixed_present(fmt);
    /* NetBurst PEBS is trap-like: IP after the instruction */
    s->ip_is_next = fmt == DS_PEBS_FMT_NB32 || fmt == DS_PEBS_FMT_NB64 ? true : trap;
}

/*
 * The record fields of a fixed-size format: every field the format
 * carries, nothing else. @nb32 is a constant where this is inlined (two
 * copies: the 32-bit NetBurst record and the 64-bit block formats).
 * Reads [p, p + record size of fmt).
 */
static inline __attribute__((always_inline)) void fixed_body(bool nb32, enum ds_pebs_fmt fmt, const unsigned char *p,
                                                             struct ds_pebs_sample *s)
{
    uint64_t *g = s->gpr;
    if (nb32) {
        /* EFLAGS, EIP, EAX, EBX, ECX, EDX, ESI, EDI, EBP, ESP */
        s->flags = ds__ld32(p + 0x00);
        s->ip = ds__ld32(p + 0x04);
        g[DS_GPR_RAX] = ds__ld32(p + 0x08);
        g[DS_GPR_RBX] = ds__ld32(p + 0x0C);
        g[DS_GPR_RCX] = ds__ld32(p + 0x10);
        g[DS_GPR_RDX] = ds__ld32(p + 0x14);
        g[DS_GPR_RSI] = ds__ld32(p + 0x18);
        g[DS_GPR_RDI] = ds__ld32(p + 0x1C);
        g[DS_GPR_RBP] = ds__ld32(p + 0x20);
        g[DS_GPR_RSP] = ds__ld32(p + 0x24);
        return;
    }
    /* The 18-quadword block of NetBurst 64-bit and formats 0-3:
     * RFLAGS, RIP, RAX, RBX, RCX, RDX, RSI, RDI, RBP, RSP, R8..R15. */
    s->flags = ds__ld64(p + 0x00);
    s->ip = ds__ld64(p + 0x08);
    g[DS_GPR_RAX] = ds__ld64(p + 0x10);
    g[DS_GPR_RBX] = ds__ld64(p + 0x18);
    g[DS_GPR_RCX] = ds__ld64(p + 0x20);
    g[DS_GPR_RDX] = ds__ld64(p + 0x28);
    g[DS_GPR_RSI] = ds__ld64(p + 0x30);
    g[DS_GPR_RDI] = ds__ld64(p + 0x38);
    g[DS_GPR_RBP] = ds__ld64(p + 0x40);
    g[DS_GPR_RSP] = ds__ld64(p + 0x48);
    g[DS_GPR_R8] = ds__ld64(p + 0x50);
    g[DS_GPR_R9] = ds__ld64(p + 0x58);
    g[DS_GPR_R10] = ds__ld64(p + 0x60);
    g[DS_GPR_R11] = ds__ld64(p + 0x68);
    g[DS_GPR_R12] = ds__ld64(p + 0x70);
    g[DS_GPR_R13] = ds__ld64(p + 0x78);
    g[DS_GPR_R14] = ds__ld64(p + 0x80);
    g[DS_GPR_R15] = ds__ld64(p + 0x88);
    if (fmt == DS_PEBS_FMT_NB64 || fmt == DS_PEBS_FMT_0)
        return;
    /* fmt 1..3 */
    s->counters = ds__ld64(p + 0x90);
    s->data_addr = ds__ld64(p + 0x98);
    s->data_source = ds__ld64(p + 0xA0);
    s->latency = ds__ld64(p + 0xA8);
    if (fmt == DS_PEBS_FMT_1)
        return;
    s->eventing_ip = ds__ld64(p + 0xB0);
    s->tsx = ds__ld64(p + 0xB8);
    if (fmt == DS_PEBS_FMT_2)
        return;
    s->tsc = ds__ld64(p + 0xC0);
}

/*
 * The per-record walk of a fixed format: decode in place into the one
 * sample @s (cleared, fixed_meta set), call the sink. No division, no
 * per-record validation (the caller guarantees n whole records of
 * rsz >= the format's size at @p), no per-record call but the sink's.
 * Returns how many the sink took.
 */
static inline __attribute__((always_inline)) uint32_t walk_fixed(bool nb32, enum ds_pebs_fmt fmt,
                                                                  const unsigned char *p, uint32_t n, uint32_t rsz,
                                                                  struct ds_pebs_sample *s, ds_pebs_sink sink,
                                                                  void *arg)
{
    uint32_t taken = 0;
    for (uint32_t i = 0; i < n; i++, p += rsz) {
        fixed_body(nb32, fmt, p, s);
        taken += sink(arg, s) == 0;
    }
    return taken;
}

/* ds_pebs_decode's fixed-size path: @size bytes at @p are readable. */
void ds__pebs_decode_fixed(enum ds_pebs_fmt fmt, const unsigned char *p, uint32_t size, bool trap,
                           struct ds_pebs_sample *out)
{
    fixed_meta(fmt, size, trap, out);
    if (fmt == DS_PEBS_FMT_NB32)
        fixed_body(true, fmt, p, out);
    else
        fixed_body(false, fmt, p, out);
}

/* One out-of-line frame per PMI: the span, the sample set-up and the walk
 * are inlined here (issue 10 item 21). */
/* The sample a fixed-format walk decodes into: zero but for the fields
 * the format's records write (fixed_body), per-drain fields set. */
static void fixed_prep(const struct ds_ctx *ctx, struct ds_pebs_sample *s)
{
    enum ds_pebs_fmt fmt = ctx->pebs_fmt;
    if (fmt == DS_PEBS_FMT_NB32)
        ds__pebs_clear_sample(s); /* 32-bit record: GPRs 8-15 stay zero */
    else
        clear_rest(s); /* fixed_body writes flags, ip, GPRs per record */
    fixed_meta(fmt, ds__pebs_fixed_size(fmt), ctx->pebs_trap, s);
}

/* The fixed-format key of ds_pmi's scratch sample: what fixed_prep depends
 * on (format, trap-like IP), never 0. */
static uint32_t fixed_key(const struct ds_ctx *ctx)
{
    return 0x80000000u | ((uint32_t)ctx->pebs_trap << 16) | ((uint32_t)ctx->pebs_fmt & 0xFFFFu);
}

/* Drain a fixed-size format (NetBurst, 0-3) into @s. @key NULL: @s is
 * prepared here (fixed_prep); else only unless *@key says it was
 * (ds__pebs_drain_pmi's scratch sample), then *@key names it. */
void ds__pebs_drain_fixed(struct ds_ctx *ctx, ds_pebs_sink sink, void *arg, struct ds_drain_stats *st,
                          struct ds_pebs_sample *s, uint32_t *key)
{
    const struct ds_buf_state *b = &ctx->pebs;
    enum ds_pebs_fmt fmt = ctx->pebs_fmt;
    uint64_t idx;
    if (!key) {
        fixed_prep(ctx, s);
    } else if (*key != fixed_key(ctx)) {
        fixed_prep(ctx, s);
        *key = fixed_key(ctx);
    }
    uint32_t n = ds__drain_span_inl(ctx, true, st, &idx);
    uint32_t rsz = b->rec_size;
    uint32_t size = s->size;

    if (n && (!size || rsz < size)) {
        /* Configured size shorter than the format's record (a corrupted
         * context): decoding would read past each record; all are corrupt. */
        st->lost_corrupt += n;
    } else if (n) {
        /* One walk per format, @fmt a constant in each: fixed_body's
         * format tests fold away (and nothing format-wise stays live
         * across the sink call). */
        const unsigned char *m = b->mem;
        uint32_t taken;
        switch (fmt) {
        case DS_PEBS_FMT_NB32: taken = walk_fixed(true, DS_PEBS_FMT_NB32, m, n, rsz, s, sink, arg); break;
        case DS_PEBS_FMT_1: taken = walk_fixed(false, DS_PEBS_FMT_1, m, n, rsz, s, sink, arg); break;
        case DS_PEBS_FMT_2: taken = walk_fixed(false, DS_PEBS_FMT_2, m, n, rsz, s, sink, arg); break;
        case DS_PEBS_FMT_3: taken = walk_fixed(false, DS_PEBS_FMT_3, m, n, rsz, s, sink, arg); break;
        default: taken = walk_fixed(false, DS_PEBS_FMT_0, m, n, rsz, s, sink, arg); break; /* NB64, 0 */
        }
        st->records += taken;
        st->lost_rejected += n - taken;
    }
    ds__drain_finish_inl(ctx, true, idx, st);
}

#endif /* DS_CONFIG_PEBS */
