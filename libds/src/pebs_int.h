/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Private to the PEBS sources (pebs.c, pebs_fixed.c, pebs_adaptive.c),
 * also read by arch_pebs.c (the scratch-sample keys) and the PMI handler
 * (pmi.c): the decoders' shared helpers and the DS-area PEBS drain entries.
 * Knows no architectural PEBS type: arch_pebs depends on pebs, never the
 * other way round (issue 26 item 5; arch_pebs_int.h). Not installed.
 */
#ifndef DS_PEBS_INT_H
#define DS_PEBS_INT_H

#include <ds/pebs.h>
#include <ds/area.h>

/* How the retire latency in adaptive header bits 47:32 is read (struct
 * ds__adopt, pebs_adaptive.c): */
#define DS__RL_NEVER   0u /* no timed PEBS: retire latency not recorded */
#define DS__RL_ALWAYS  1u /* timed PEBS: bits 47:32 are the retire latency */
#define DS__RL_NONZERO 2u /* CPU unknown: reported when non-zero */

/* Record sizes (pebs.c): the basic + meminfo/GPR/XMM/LBR groups of
 * @groups_and_lbr; the format 6 counters group; a fixed-size format (0 for
 * adaptive or unknown formats). */
static inline uint32_t ds__pebs_adaptive_size(uint64_t groups_and_lbr)
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

/* Inline: adaptive_body calls neither (no leaf frame under the PMI
 * drain's, issue 29 item 3). */
static inline uint32_t ds__pebs_cntr_group_size(uint32_t gp, uint32_t fixed, bool metrics)
{
    uint32_t n = 0;
    for (; gp; gp &= gp - 1)
        n++;
    for (; fixed; fixed &= fixed - 1)
        n++;
    return (uint32_t)sizeof(struct ds_pebs_cntr_hdr) + 8u * n + (metrics ? 16u : 0u);
}
uint32_t ds__pebs_fixed_size(enum ds_pebs_fmt fmt);

/*
 * Every field zero, by explicit stores: no per-byte loop and no memset()
 * call a freestanding build would have to provide. The drain clears its
 * one sample once per drain, not per record: each record then writes every
 * field its format can carry (the others stay zero).
 * clear_rest: all but flags, ip and the 16 GPRs, which every 64-bit
 * fixed-size record (NetBurst 64-bit, formats 0-3) writes (fixed_body):
 * the fixed drain skips those 18 stores.
 */
static inline __attribute__((always_inline)) void clear_rest(struct ds_pebs_sample *s)
{
    s->fmt = DS_PEBS_FMT_NONE;
    s->present = 0;
    s->size = 0;
    s->ip_is_next = false;
    s->eventing_ip = 0;
    s->counters = 0;
    s->data_addr = 0;
    s->data_source = 0;
    s->latency = 0;
    s->tsx = 0;
    s->tsc = 0;
    s->header = 0;
    s->retire_latency = 0;
    s->lbr_count = 0;
    s->instr_latency = 0;
    s->cache_latency = 0;
    s->cntr_gp_mask = 0;
    s->cntr_fixed_mask = 0;
    /* Unrolled: a loop here became "rep stosq", one instruction per word. */
    uint64_t *c = s->cntr_gp, *x = s->cntr_fixed;
    c[0] = 0, c[1] = 0, c[2] = 0, c[3] = 0, c[4] = 0, c[5] = 0, c[6] = 0, c[7] = 0;
    c[8] = 0, c[9] = 0, c[10] = 0, c[11] = 0, c[12] = 0, c[13] = 0, c[14] = 0, c[15] = 0;
    x[0] = 0, x[1] = 0, x[2] = 0, x[3] = 0, x[4] = 0, x[5] = 0, x[6] = 0, x[7] = 0;
    s->topdown_slots = 0;
    s->perf_metrics = 0;
    s->xmm = NULL;
    s->lbr = NULL;
    s->ssp = 0;
    s->fragments = 0;
    s->xstate = 0;
    s->ymmh = NULL;
    s->opmask = NULL;
    s->zmmh = NULL;
    s->h16zmm = NULL;
}

/* Every field zero (pebs.c). */
void ds__pebs_clear_sample(struct ds_pebs_sample *s);

/* ds_pebs_decode's paths, @out cleared: a fixed-size record of @size
 * readable bytes (pebs_fixed.c); an adaptive one with the retire-latency
 * rule @rl (DS__RL_*) and the meminfo latency split (pebs_adaptive.c; @out
 * cleared again on error). */
void ds__pebs_decode_fixed(enum ds_pebs_fmt fmt, const unsigned char *p, uint32_t size, bool trap,
                           struct ds_pebs_sample *out);
int ds__pebs_decode_adaptive(enum ds_pebs_fmt fmt, const unsigned char *p, size_t avail, unsigned rl, bool lat_split,
                             struct ds_pebs_sample *out);

/* The drains of a set-up context's PEBS buffer, counts added into @st,
 * decoding into @s: fixed-size formats (pebs_fixed.c; @key NULL: @s is
 * prepared here) and adaptive ones (pebs_adaptive.c; @s cleared unless
 * *@key is the context's adaptive key). @key: ds_pmi's pebs_scratch_key. */
void ds__pebs_drain_fixed(struct ds_ctx *ctx, ds_pebs_sink sink, void *arg, struct ds_drain_stats *st,
                          struct ds_pebs_sample *s, uint32_t *key);
void ds__pebs_drain_adaptive(struct ds_ctx *ctx, ds_pebs_sink sink, void *arg, struct ds_drain_stats *st,
                             struct ds_pebs_sample *s, uint32_t *key);

/* ds_pebs_drain's walk, no argument checks, counts added into @st (pebs.c;
 * DS_CONFIG_PEBS only). @ctx must be set up with a PEBS buffer. */
void ds__pebs_drain_add(struct ds_ctx *ctx, ds_pebs_sink sink, void *arg, struct ds_drain_stats *st);
/* The same for ds_pmi_handle, with the caller's persistent sample @scratch
 * for fixed formats: prepared (cleared, per-format fields) only when *@key
 * does not name the context's format, then *@key names it. Inline: the
 * handler calls the format's drain itself, no frame between them (issue
 * 29 item 3: an i386 tail call still saved four registers). */
static inline __attribute__((always_inline)) void ds__pebs_drain_pmi(struct ds_ctx *ctx, ds_pebs_sink sink, void *arg,
                                                                      struct ds_drain_stats *st,
                                                                      struct ds_pebs_sample *scratch, uint32_t *key)
{
    DS_ASSERT(ctx->setup && ctx->pebs.mem);
    DS_ASSERT(ctx->pebs.rec_size == ds_pebs_record_size(ctx->pebs_fmt, ctx->pebs_data_cfg));
    if (ds_pebs_fmt_adaptive(ctx->pebs_fmt))
        ds__pebs_drain_adaptive(ctx, sink, arg, st, scratch, key); /* no sample in this frame (issue 29 item 3) */
    else
        ds__pebs_drain_fixed(ctx, sink, arg, st, scratch, key);
}

/*
 * The scratch sample of struct ds_pmi (pebs_scratch) is kept between PMIs;
 * pebs_scratch_key says what it holds, so that a PMI does not clear or
 * prepare it again:
 *   0                      nothing (ds_pmi_init): cleared and prepared first;
 *   0x80000000 | trap<<16 | fmt   a fixed format's prepared sample (pebs.c fixed_key);
 *   DS__SCRATCH_ADAPTIVE | opts   an adaptive drain's last record (opts: format<<16,
 *                          latency split<<8, timed PEBS; pebs_adaptive.c DS__OPT_*):
 *                          the fields of the groups it did not carry are zero;
 *   DS__SCRATCH_ARCH       an architectural PEBS drain's last record, same rule.
 * The adaptive and arch drains leave the sample in that state after every
 * record (they clear what the previous record carried and the next does not).
 */
#define DS__SCRATCH_ADAPTIVE 0x40000000u
#define DS__SCRATCH_ARCH     0x20000000u

/* PEBS record attribution, the one implementation: ds_pebs_attribute
 * (pebs.c) adds its error codes around it, the session's PMI sink
 * (session_pmi.c ses_pebs_sink) inlines it. The counters a PEBS record names among @en, the PEBS-enabled counter bits
 * (GLOBAL_STATUS layout): ds_pebs_attribute's *out (formats 1/2 with several
 * candidates: all of them, DS_ERR_PEBS_AMBIGUOUS there; an unknown format,
 * or NetBurst compiled out: 0), and for architectural PEBS the record's
 * applicable counters & @en. Pure, no out-parameter, no call: the PMI
 * sink's frame holds nothing for it (issue 29 item 3). ctest
 * host.test_pebs test_attribute checks ds_pebs_attribute against the SDM's
 * rules, host.test_session the routing's use of this on every format. */
static inline __attribute__((always_inline)) uint64_t ds__pebs_ctrs(const struct ds_pebs_sample *p, uint64_t en)
{
    uint64_t c = p->counters & en;
    switch (p->fmt) {
    case DS_PEBS_FMT_0:
        return 1; /* Core 2 / Atom: PEBS only on IA32_PMC0 (not masked) */
    case DS_PEBS_FMT_NB32:
    case DS_PEBS_FMT_NB64:
        return DS_CONFIG_NETBURST ? en : 0; /* the one PEBS counter */
    case DS_PEBS_FMT_1:
    case DS_PEBS_FMT_2:
        /* status 0 with one PEBS counter enabled: that one */
        return !c && en && !(en & (en - 1)) ? en : c;
    case DS_PEBS_FMT_3:
    case DS_PEBS_FMT_4:
    case DS_PEBS_FMT_5:
    case DS_PEBS_FMT_6:
    case DS_PEBS_FMT_ARCH:
        return c;
    default:
        return 0;
    }
}

#endif /* DS_PEBS_INT_H */
