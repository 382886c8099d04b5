/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Sessions: PMI routing (session_int.h). The drain sinks that route PEBS
 * records and BTS branches to the caller's callbacks, the overflow hook,
 * ds_pmi_init's configuration, ds_session_pmi's out-of-line rest and
 * ds_session_drain_now.
 */
#include "session_int.h"
#include "pebs_int.h"

static void deliver(struct ds_session *s, unsigned i, const struct ds_pebs_sample *p, uint64_t ip)
{
    s->ev.req = i;
    s->ev.pebs = p;
    s->ev.ip = ip;
    s->ev.eip_exact = p && (p->present & DS_SAMPLE_EVENTING_IP);
    s->ev.eip = s->ev.eip_exact ? p->eventing_ip : ip;
    if (s->cfg.on_sample)
        s->cfg.on_sample(s->cfg.arg, &s->ev);
}

/* The drain's sink with one PEBS request and an on_sample (one PEBS
 * counter enabled: start cleared every other): every record is its own.
 * The bench.sh section 6 "on_sample" path: s->pev.req was set at start, the record is
 * not copied, one indirect call. */
static int ses_one_sink(void *arg, const struct ds_pebs_sample *p)
{
    struct ds_session *s = arg;
    s->pev.pebs = p;
    s->pev.ip = p->ip;
    s->pev.eip_exact = (p->present & DS_SAMPLE_EVENTING_IP) != 0;
    s->pev.eip = s->pev.eip_exact ? p->eventing_ip : p->ip;
    s->cfg.on_sample(s->cfg.arg, &s->pev);
    return 0;
}

/* The drain's sink otherwise: the one PEBS request's, else each record to
 * the request(s) of the counter(s) that produced it (ds__pebs_ctrs:
 * ds_pebs_attribute's answer; arch PEBS: the record's applicable counters).
 * A record no request claims is refused (counted lost_rejected by the
 * drain). One frame under the drain, nothing of the attribution in it
 * (issue 29 item 3: was this sink, pebs_dispatch and ds_pebs_attribute,
 * 144 bytes on i386). */
static int ses_pebs_sink(void *arg, const struct ds_pebs_sample *p)
{
    struct ds_session *s = arg;
    if (s->one_pebs < DS_SESSION_MAX_REQ) {
        deliver(s, s->one_pebs, p, p->ip);
        return 0;
    }
    /* req_bit(r) & ctrs as two 32-bit words (GP bits 31:0, fixed 32 + m):
     * no 64-bit shift and mask in this frame on i386 */
    uint64_t ctrs = ds__pebs_ctrs(p, s->pebs_bits);
    uint32_t gp = (uint32_t)ctrs, fixed = (uint32_t)(ctrs >> 32);
    int miss = 1;
    SES_FOR_REQ(s, i, true) {
        const struct ds_session_req *r = &s->req[i];
        if (r->how == DS_HOW_NB_PEBS || (is_pebs(r) && (((r->kind == DS_CTR_FIXED ? fixed : gp) >> r->idx) & 1))) {
            deliver(s, i, p, p->ip);
            miss = 0;
        }
    }
    return miss;
}

/* The drain's sink and its argument: the caller's on_pebs as is, else the
 * session's routing to on_sample. */
static ds_pebs_sink pebs_sink_of(const struct ds_session *s)
{
    if (s->cfg.on_pebs)
        return s->cfg.on_pebs;
    return s->one_pebs < DS_SESSION_MAX_REQ && s->cfg.on_sample ? ses_one_sink : ses_pebs_sink;
}

static void *pebs_arg_of(struct ds_session *s)
{
    return s->cfg.on_pebs ? s->cfg.arg : s;
}

static int ses_bts_sink(void *arg, const struct ds_bts_branch *b)
{
    struct ds_session *s = arg;
    if (s->cfg.on_branch)
        s->cfg.on_branch(s->cfg.arg, b);
    return 0;
}

/* Perfmon v1 (no GLOBAL_STATUS): a counter started at -period overflowed
 * when its top bit is clear (pmc.h ds_pmc_period_values). The width is
 * 8..64: period_values (ds_pmc_gp_period) refused any other gp_width when
 * the request was added (no second check here: its mutants, < 7, > 65,
 * were equivalent; issue 10, main ed7cc46 :1127). */
static bool v1_overflowed(struct ds_session *s, const struct ds_session_req *r)
{
    uint64_t v = 0;
    unsigned w = s->cpu->caps.fw_write ? s->cpu->caps.gp_width : 32;
    if (ds_pmc_gp_read(s->cpu, r->idx, &v) != DS_OK)
        return false;
    return !((v >> (w - 1)) & 1);
}

/* ds_pmi_handle's counter hook: reload each overflowed sampling counter
 * and deliver an overflow sample with the interrupted IP. */
static int ses_ovf_hook(void *arg, uint64_t ovf, bool no_global, uint32_t *out_handled)
{
    struct ds_session *s = arg;
    uint32_t nbo = 0, n = 0;
    int e = DS_OK;
    /* nb_armed holds DS_HOW_NB_OVERFLOW counters, which only NetBurst has
     * (pick_overflow -> pick_nb): no separate family test (its && -> ||
     * mutant was equivalent, issue 10, main ed7cc46 :1139) */
    if (s->nb_armed)
        e = ds_nb_pmi_scan(s->cpu, s->nb_armed, &nbo);
    SES_FOR_REQ(s, i, !e) {
        const struct ds_session_req *r = &s->req[i];
        bool hit = false;
        if (r->how == DS_HOW_OVERFLOW) {
            hit = no_global ? v1_overflowed(s, r) : ((ovf >> r->idx) & 1) != 0;
            if (hit)
                e = ds_pmc_gp_write(s->cpu, r->idx, r->start);
        } else if (r->how == DS_HOW_NB_OVERFLOW && ((nbo >> r->idx) & 1)) {
            hit = true;
            e = ds_nb_rearm(s->cpu, r->idx, r->start);
        }
        if (hit) {
            deliver(s, i, NULL, s->pmi_ip);
            n++;
        }
    }
    *out_handled = n;
    return e;
}

DS_COLD int ds__ses_pmi_setup(struct ds_session *s)
{
    struct ds_pmi_config pc;
    ds__zero(&pc, sizeof(pc));
    pc.freeze = s->freeze;
    pc.global_ctrl = s->gctl;
    pc.pebs_counters = fam6(s->cpu) ? s->pebs_bits : 0;
    pc.pebs_sink = pebs_sink_of(s);
    pc.pebs_arg = pebs_arg_of(s);
    pc.bts_sink = ses_bts_sink;
    pc.bts_arg = s;
    if (s->ovf_bits || s->nb_armed) {
        pc.ovf_hook = ses_ovf_hook;
        pc.ovf_arg = s;
    }
    if (s->cfg.lbr) {
        pc.lbr.model = s->lbrm;
        pc.lbr.format = s->lbrfmt;
        pc.lbr.buf = s->lbr_buf;
        pc.lbr.cap = DS_SESSION_LBR_CAP;
    }
    pc.apebs = s->use_apebs ? &s->ap : NULL;
    int e = ds_pmi_init(&s->pmi, s->cpu, s->use_area ? &s->ctx : NULL, &pc);
    /* DEBUGCTL[12] set for a freeze mode, cleared otherwise (a stale bit
     * would freeze counters nobody unfreezes) */
    if (!e && v2(s) && (s->freeze != DS_FREEZE_NONE || s->cpu->caps.pdcm))
        e = ds_pmi_set_freeze(&s->pmi);
    /* auto freeze where DEBUGCTL[12] faults (a KVM guest does, issue 14):
     * run without freezing, as the e2e kernel does there (freeze_writable) */
    if (e == DS_ERR_MSR_FAULT && !s->cfg.freeze_set && s->freeze != DS_FREEZE_NONE) {
        s->freeze = pc.freeze = DS_FREEZE_NONE;
        e = ds_pmi_init(&s->pmi, s->cpu, s->use_area ? &s->ctx : NULL, &pc);
    }
    return e;
}

/* Sum one drain's ds_drain_stats (area.h) into the session's totals
 * (inlined: on the PMI path, bench.sh section 6). */
static inline __attribute__((always_inline)) void stats_add(struct ds_drain_stats *acc, const struct ds_drain_stats *d)
{
    acc->present += d->present;
    acc->records += d->records;
    acc->lost_beyond += d->lost_beyond;
    acc->lost_corrupt += d->lost_corrupt;
    acc->lost_rejected += d->lost_rejected;
    acc->lost_race += d->lost_race;
    acc->anomalies |= d->anomalies;
}

/* After ds_pmi_handle with LBR on: hand over the snapshot; pmi.h: before
 * v4 the CPU cleared DEBUGCTL.LBR, and LBR_Frz stays set when the snapshot
 * failed: ds_lbr_unfreeze either way. */
static void lbr_after(struct ds_session *s, const struct ds_pmi_result *res)
{
    if (res->lbr_taken && s->cfg.on_lbr)
        s->cfg.on_lbr(s->cfg.arg, s->lbr_buf, res->lbr_n);
    if (res->handled && s->freeze != DS_FREEZE_NONE && (res->lbr_frozen || s->cpu->caps.perfmon_version < 4))
        (void)ds_lbr_unfreeze(s->cpu, s->lbrm);
}

/* With LBR on: hand the snapshot over, unfreeze (lbr_after); then the
 * result as ds_session_pmi returns it. */
static __attribute__((noinline)) int pmi_lbr(struct ds_session *s, struct ds_pmi_result *res, int e)
{
    lbr_after(s, res);
    if (e)
        return e;
    return res->handled ? DS_OK : DS_ERR_SESSION_SPURIOUS;
}

/* Not initialised: ds_pmi_handle left @res as it was. */
static __attribute__((noinline)) int pmi_uninit(struct ds_pmi_result *res)
{
    ds__zero(res, sizeof(*res));
    return DS_ERR_SESSION_SPURIOUS;
}

/* ds_session_pmi's rest (session.h; the inline part handled the foreign
 * NMI and the clean PEBS drain): not initialised (ds_pmi_handle left @res
 * as it was), the drain accounting with its losses and anomalies
 * (session.h pebs_stats / bts_stats), the LBR hand-over. */
int ds__session_pmi_rest(struct ds_session *s, struct ds_pmi_result *res, int e)
{
    if (!s || !res)
        return DS_ERR_NULL;
    if (!s->pmi.init)
        return pmi_uninit(res);
    if (res->pebs_drained)
        stats_add(&s->pebs_stats, &res->pebs);
    if (res->bts_drained)
        stats_add(&s->bts_stats, &res->bts);
    if (s->lbr_on)
        return pmi_lbr(s, res, e);
    if (e)
        return e;
    return res->handled ? DS_OK : DS_ERR_SESSION_SPURIOUS;
}

int ds_session_drain_now(struct ds_session *s)
{
    if (!s)
        return DS_ERR_NULL;
    if (!s->started)
        return DS_ERR_SESSION_STATE;
    int first = DS_OK, e;
    struct ds_drain_stats st;
    if (s->ctx.setup && s->ctx.pebs.mem) {
        ds__zero(&st, sizeof(st));
        first = ds_pebs_drain(&s->ctx, pebs_sink_of(s), pebs_arg_of(s), &st);
        stats_add(&s->pebs_stats, &st);
    }
    if (s->ap.installed) {
        ds__zero(&st, sizeof(st));
        e = ds_arch_pebs_drain(&s->ap, pebs_sink_of(s), pebs_arg_of(s), &st);
        if (!first)
            first = e; /* the first error (e DS_OK keeps first DS_OK) */
        stats_add(&s->pebs_stats, &st);
    }
    if (s->ctx.setup && s->ctx.bts.mem) {
        ds__zero(&st, sizeof(st));
        e = ds_bts_drain(&s->ctx, ses_bts_sink, s, &st);
        if (!first)
            first = e; /* the first error (e DS_OK keeps first DS_OK) */
        stats_add(&s->bts_stats, &st);
    }
    return first;
}
