/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Sessions (session.h, issue 16): the building blocks wired in the order of
 * the kernel's hand-wired e2e flows, choosing counters, formats, buffers
 * and the PMI configuration for the caller. Only public libds functions are
 * called (plus ds_msr_read/_write to save and restore MSRs).
 *
 * This file: the lifecycle (init, add, start, stop, teardown); placement,
 * MSR save/restore, PMI routing and describe are in the session_*.c files
 * (session_int.h, issue 26).
 */
#include "session_int.h"
#include <ds/probe.h>

static void uarch_of(const struct ds_cpu *cpu, enum ds_uarch *u)
{
    if (ds_uarch_of(cpu, u) != DS_OK)
        *u = DS_UARCH_UNKNOWN;
}

/* --- init ------------------------------------------------------------------ */

/* Does [a, a + an) meet [b, b + bn)? (both non-wrapping) */
static bool meets(uintptr_t a, size_t an, uintptr_t b, size_t bn)
{
    return a < b + bn && b < a + an;
}

/* Linear-address width: CPUID 80000008H:EAX[15:8] (SDM Vol. 2A), 48 where
 * the leaf is absent or says less; the DS area and buffers are canonical
 * at that width (SDM Vol. 3B "DS Save Area": 64-bit linear addresses). */
DS_COLD bool ds__ses_lin_la57(const struct ds_cpu *cpu)
{
    uint32_t r[4] = { 0, 0, 0, 0 };
    ds_cpuid(cpu, 0x80000000u, 0, r);
    if (r[0] < 0x80000008u || r[0] > 0x8000FFFFu)
        return false;
    ds_cpuid(cpu, 0x80000008u, 0, r);
    return ((r[0] >> 8) & 0xFF) >= 57;
}

/* The region of @c: no wrap (pointer, linear, physical), within the
 * linear-address width (64-bit DS layout: both ends canonical, one half),
 * not over @s or @cpu (setting up the DS area there would wipe them).
 * The 32-bit layout's 4 GiB limit (of the parts carved: an overflow-only
 * session uses none) and MAXPHYADDR are ds_area_setup's and
 * ds_arch_pebs_setup's, at start before any MSR access. */
static int region_ok(const struct ds_session *s, const struct ds_cpu *cpu, const struct ds_session_config *c)
{
    if (!c->mem)
        return DS_OK;
    uintptr_t m = (uintptr_t)c->mem;
    uint64_t lin = c->mem_linear ? c->mem_linear : (uint64_t)m, last = lin + c->bytes - 1;
    if (!c->bytes)
        return DS_OK; /* nothing carved: start refuses a buffer (DS_ERR_SESSION_BUF_SMALL) */
    if (m + c->bytes - 1 < m || last < lin || (c->mem_phys && c->mem_phys + c->bytes - 1 < c->mem_phys))
        return DS_ERR_SESSION_MEM_RANGE;
    enum ds_layout l = DS_LAYOUT_NONE;
    bool la57 = ds__ses_lin_la57(cpu);
    (void)ds_area_layout(cpu, &l);
    if (l != DS_LAYOUT_32 && (!ds_linear_canonical(lin, la57) || !ds_linear_canonical(last, la57) ||
                              (lin >> 63) != (last >> 63)))
        return DS_ERR_SESSION_MEM_RANGE;
    if (meets(m, c->bytes, (uintptr_t)s, sizeof(*s)) || meets(m, c->bytes, (uintptr_t)cpu, sizeof(*cpu)))
        return DS_ERR_SESSION_MEM_OVERLAP;
    return DS_OK;
}

/* What ds_pmi_init and ds_pmc_pebs_enable_ex would refuse at start, known now. */
static int config_ok(const struct ds_cpu *cpu, const struct ds_session_config *c)
{
    if (c->pebs_flags & ~DS_PMC_PEBS_ALLOW_ERRATA)
        return DS_ERR_BAD_FLAGS;
    return c->freeze_set ? ds_pmi_freeze_check(cpu, c->freeze) : DS_OK;
}

DS_COLD int ds_session_init(struct ds_session *s, struct ds_cpu *cpu, const struct ds_session_config *c)
{
    if (!s || !cpu || !c)
        return DS_ERR_NULL;
    /* running, stopped, or with MSRs still to restore: teardown first (the
     * saved values would be lost) */
    if (s->state == DS_SESSION_RUNNING || s->state == DS_SESSION_STOPPED || s->started)
        return DS_ERR_SESSION_STATE;
    if (!cpu->identified)
        return DS_ERR_NOT_IDENTIFIED;
    if (cpu->caps.vendor != DS_VENDOR_INTEL)
        return DS_ERR_NOT_INTEL;
    /* the cause first (issue 29): neither architectural perfmon nor DS
     * (QEMU's qemu32): no request could ever be added */
    if (fam6(cpu) && cpu->caps.perfmon_version < 1 && !cpu->caps.bts_advertised)
        return DS_ERR_SESSION_NO_PMU;
    if (!c->on_sample && !c->on_branch && !c->on_pebs)
        return DS_ERR_SESSION_NO_SINK;
    if (c->bytes && !c->mem)
        return DS_ERR_SESSION_MEM;
    int e = region_ok(s, cpu, c);
    if (!e)
        e = config_ok(cpu, c);
    if (e)
        return e;
    if (c->lbr && !c->on_lbr)
        return DS_ERR_SESSION_LBR;
    const struct ds_lbr_model *m = NULL;
    unsigned lf = 0;
    if (c->lbr && (ds_lbr_cpu_model(cpu, &m) != DS_OK || ds_lbr_format(cpu, m, &lf) != DS_OK))
        return DS_ERR_SESSION_LBR;
    ds__zero(s, sizeof(*s));
    s->cpu = cpu;
    s->cfg = *c;
    s->lbrm = m;
    s->lbrfmt = lf;
    if (ds_area_layout(cpu, &s->layout) != DS_OK)
        s->layout = DS_LAYOUT_NONE;
    uarch_of(cpu, &s->uarch);
    if (cpu->caps.netburst)
        ds_nb_alloc_init(&s->nba, cpu->caps.display_model, false);
    s->state = DS_SESSION_READY;
    return DS_OK;
}

/* --- add ------------------------------------------------------------------- */

static int add_bts(struct ds_session *s, struct ds_session_req *r)
{
    const struct ds_caps *c = &s->cpu->caps;
    if (has_how(s, DS_HOW_BTS))
        return DS_ERR_SESSION_BTS_TWICE;
    if (r->rq.groups)
        return DS_ERR_SESSION_GROUPS;
    if (r->rq.ldlat)
        return DS_ERR_SESSION_NO_LDLAT;
    if (!c->bts_advertised || s->layout == DS_LAYOUT_NONE)
        return DS_ERR_SESSION_NO_DS;
    unsigned rg = r->rq.rings;
    if (rg && rg != (DS_RING_KERNEL | DS_RING_USER) && !c->ds_cpl)
        return DS_ERR_NO_DSCPL;
    r->how = DS_HOW_BTS;
    r->name = "taken branches";
    return DS_OK;
}

static bool is_bts_mode(enum ds_sample_mode m)
{
    return m == DS_TRACE_BTS || m == DS_TRACE_BTS_CIRCULAR;
}

static int check_request(const struct ds_request *rq)
{
    if (rq->mode > DS_COUNT)
        return DS_ERR_SESSION_BAD_MODE;
    if (!is_bts_mode(rq->mode) && rq->event == DS_EVENT_NONE && !rq->raw.set)
        return DS_ERR_SESSION_NO_EVENT;
    if (rq->rings & ~(DS_RING_KERNEL | DS_RING_USER))
        return DS_ERR_SESSION_BAD_RINGS;
    if (rq->mode < DS_TRACE_BTS && rq->period == 0)
        return DS_ERR_SESSION_BAD_PERIOD;
    if (rq->pdist && rq->mode != DS_SAMPLE_PRECISE)
        return DS_ERR_SESSION_PDIST;
    return DS_OK;
}

/* Every sample needs a callback: overflow samples go to on_sample, PEBS
 * records to on_pebs or on_sample (BTS branches without on_branch are
 * drained and counted, as before). */
static int callback_check(const struct ds_session *s, const struct ds_session_req *r)
{
    bool ovf = r->how == DS_HOW_OVERFLOW || r->how == DS_HOW_NB_OVERFLOW;
    bool pebs = r->how == DS_HOW_PEBS || r->how == DS_HOW_APEBS || r->how == DS_HOW_NB_PEBS;
    if (ovf && !s->cfg.on_sample)
        return DS_ERR_SESSION_NO_CALLBACK;
    if (pebs && !s->cfg.on_sample && !s->cfg.on_pebs)
        return DS_ERR_SESSION_NO_CALLBACK;
    return DS_OK;
}

/* What the CPU lacks for the request, before the event lookup (issue 29:
 * the cause, not DS_ERR_EVENT_UARCH): DS and PEBS for PRECISE (BTS:
 * add_bts, first), then architectural perfmon for any counter (NetBurst
 * has its own counters). */
static int caps_first(struct ds_session *s, const struct ds_request *rq)
{
    enum ds_pebs_fmt f;
    if (is_bts_mode(rq->mode))
        return DS_OK;
    if (rq->mode == DS_SAMPLE_PRECISE && ds__ses_pebs_format(s, &f) != DS_OK)
        return DS_ERR_SESSION_NO_DS;
    if (fam6(s->cpu) && s->cpu->caps.perfmon_version < 1)
        return DS_ERR_NO_PERFMON;
    return DS_OK;
}

DS_COLD int ds_session_add(struct ds_session *s, const struct ds_request *rq, unsigned *out_id)
{
    if (!s || !rq)
        return DS_ERR_NULL;
    if (s->state != DS_SESSION_READY)
        return DS_ERR_SESSION_STATE;
    if (s->nreq >= DS_SESSION_MAX_REQ)
        return DS_ERR_SESSION_TOO_MANY;
    int e = check_request(rq);
    if (!e)
        e = caps_first(s, rq);
    if (e)
        return e;
    struct ds_session_req r;
    ds__zero(&r, sizeof(r));
    r.rq = *rq;
    struct ds_nb_alloc nba = s->nba;
    enum ds_pebs_fmt fmt = s->fmt;
    if (rq->mode == DS_COUNT)
        e = ds__ses_add_count(s, &r);
    else
        e = is_bts_mode(rq->mode) ? add_bts(s, &r) : ds__ses_add_counter_req(s, &r);
    if (!e)
        e = callback_check(s, &r);
    if (e) {
        s->nba = nba; /* nothing added */
        s->fmt = fmt;
        return e;
    }
    if (r.how == DS_HOW_NB_PEBS || r.how == DS_HOW_NB_OVERFLOW) {
        s->nba.escr_used |= 1ull << r.nbas.escr;
        s->nba.counter_used |= 1u << r.nbas.counter;
        if (r.nb_tagged)
            s->nba.escr_used |= 1ull << r.nbtag.escr;
    }
    s->req[s->nreq] = r;
    if (out_id)
        *out_id = s->nreq;
    s->nreq++;
    return DS_OK;
}

/* --- start, stop, teardown ------------------------------------------------- */

/* Forget the building blocks' state of a start (memory only; the
 * arch-PEBS caps are kept). */
static void forget_hw(struct ds_session *s)
{
    ds__zero(&s->ctx, sizeof(s->ctx));
    ds__zero(&s->pmi, sizeof(s->pmi));
    struct ds_arch_pebs_caps ac = s->ap.caps;
    ds__zero(&s->ap, sizeof(s->ap));
    s->ap.caps = ac;
}

/* Undo start: building blocks' own cleanup, then every saved MSR written
 * back in reverse order. Every step is tried; the first error is returned.
 * MSRs whose write failed stay saved: the session stays started (STOPPED)
 * and the next teardown tries them again (ds_session_unrestored). */
static int unwind(struct ds_session *s)
{
    int first = DS_OK, e;
#define KEEP(x) do { e = (x); if (!first) first = e; } while (0) /* the first error: a DS_OK e keeps first DS_OK */
    if (s->ctx.bts_enabled)
        KEEP(ds_bts_disable(&s->ctx));
    if (s->lbr_on)
        KEEP(ds_lbr_disable(s->cpu, s->lbrm));
    s->lbr_on = false;
    if (s->ctx.installed)
        KEEP(ds_area_uninstall(&s->ctx));
    if (s->ap.installed)
        KEEP(ds_arch_pebs_uninstall(&s->ap));
    SES_FOR_REQ(s, i, s->nb_live)
        if (s->req[i].how == DS_HOW_NB_PEBS || s->req[i].how == DS_HOW_NB_OVERFLOW)
            (void)ds_nb_release(s->cpu, &s->nba, &s->req[i].nbas); /* the restore below rewrites them */
    KEEP(ds__ses_restore_saved(s));
#undef KEEP
    s->nb_live = false;
    s->started = s->nsaved != 0; /* MSRs still to restore: teardown again */
    forget_hw(s);
    /* the add-time allocation marks, for a later start */
    if (!fam6(s->cpu)) {
        ds_nb_alloc_init(&s->nba, s->cpu->caps.display_model, false);
        SES_FOR_REQ(s, i, true)
            if (s->req[i].how == DS_HOW_NB_PEBS || s->req[i].how == DS_HOW_NB_OVERFLOW) {
                s->nba.escr_used |= 1ull << s->req[i].nbas.escr;
                s->nba.counter_used |= 1u << s->req[i].nbas.counter;
                if (s->req[i].nb_tagged)
                    s->nba.escr_used |= 1ull << s->req[i].nbtag.escr;
            }
    }
    s->state = s->started ? DS_SESSION_STOPPED : DS_SESSION_READY;
    return first;
}

DS_COLD unsigned ds_session_unrestored(const struct ds_session *s)
{
    return s && s->started ? s->nsaved : 0;
}

/* cfg.probe: ds_probe (it restores what it wrote), then the verdicts of
 * what the session will use: INERT -> DS_ERR_NOT_WORKING (written values
 * dropped: an emulator's PMU), FAULT -> its reason. */
static int start_probe(struct ds_session *s)
{
    struct ds_probe_result p;
    int e = ds_probe(s->cpu, NULL, &p);
    if (e)
        return e;
    bool ctr = false;
    SES_FOR_REQ(s, i, !ctr)
        ctr = s->req[i].how != DS_HOW_BTS;
    const struct ds_probe_item *need[3] = { ctr ? &p.counter : NULL, s->use_area ? &p.ds_area : NULL,
                                            s->use_apebs ? &p.arch_pebs : NULL };
    for (unsigned i = 0; i < 3; i++) {
        if (need[i] && need[i]->verdict == DS_PROBE_INERT)
            return DS_ERR_NOT_WORKING;
        if (need[i] && need[i]->verdict == DS_PROBE_FAULT)
            return need[i]->reason ? need[i]->reason : DS_ERR_MSR_FAULT;
    }
    return DS_OK;
}

DS_COLD int ds_session_start(struct ds_session *s)
{
    if (!s)
        return DS_ERR_NULL;
    if (s->state != DS_SESSION_READY || s->nreq == 0)
        return DS_ERR_SESSION_STATE;
    ds__ses_plan(s);
    s->nsaved = 0;
    ds__zero(&s->pebs_stats, sizeof(s->pebs_stats)); /* session.h: cleared at start */
    ds__zero(&s->bts_stats, sizeof(s->bts_stats));
    /* memory only (ds_area_setup, ds_arch_pebs_setup): every refusal of
     * the region comes before the first MSR access */
    int e = ds__ses_carve(s);
    /* the PEBS errata gates (Sandy Bridge microcode: IA32_BIOS_SIGN_ID
     * only) before any PMU MSR, not after programming the counters */
    if (!e && has_how(s, DS_HOW_PEBS))
        e = ds_pmc_pebs_errata_check(s->cpu, s->cfg.pebs_flags);
    if (!e && s->cfg.probe)
        e = start_probe(s);
    if (!e)
        e = ds__ses_save_all(s); /* reads only */
    if (e) {
        forget_hw(s); /* nothing written: nothing to undo (not started: teardown refuses) */
        return e;
    }
    s->started = true;
    e = ds__ses_program_all(s);
    if (e) {
        (void)unwind(s);
        return e;
    }
    s->state = DS_SESSION_RUNNING;
    return DS_OK;
}

DS_COLD int ds_session_stop(struct ds_session *s)
{
    if (!s)
        return DS_ERR_NULL;
    if (s->state != DS_SESSION_RUNNING)
        return DS_ERR_SESSION_STATE;
    int first = DS_OK, e;
#define KEEP(x) do { e = (x); if (!first) first = e; } while (0) /* the first error: a DS_OK e keeps first DS_OK */
    if (v2(s))
        KEEP(ds_pmi_pmu_enable(&s->pmi, false));
    SES_FOR_REQ(s, i, true) {
        const struct ds_session_req *r = &s->req[i];
        if (!v2(s) && fam6(s->cpu) && (is_pebs(r) || r->how == DS_HOW_OVERFLOW || r->how == DS_HOW_COUNT) &&
            r->kind == DS_CTR_GP)
            KEEP(ds_pmc_gp_program(s->cpu, r->idx, 0, r->start)); /* v1: EVTSEL.EN off */
        if (r->how == DS_HOW_NB_PEBS || r->how == DS_HOW_NB_OVERFLOW)
            KEEP(ds_nb_release(s->cpu, &s->nba, &r->nbas));
        if (r->nb_tagged)
            KEEP(ds_msr_write(s->cpu, r->nbtag.escr_msr, 0) ? DS_ERR_MSR_FAULT : DS_OK);
        if (r->how == DS_HOW_NB_PEBS)
            KEEP(ds_nb_replay_untag(s->cpu));
    }
    s->nb_live = false;
    if (s->use_apebs)
        KEEP(ds_arch_pebs_disable(&s->ap));
    if (s->ctx.bts_enabled)
        KEEP(ds_bts_disable(&s->ctx));
    if (s->lbr_on)
        KEEP(ds_lbr_disable(s->cpu, s->lbrm));
    s->lbr_on = false;
    s->state = DS_SESSION_STOPPED;
    KEEP(ds_session_drain_now(s));
#undef KEEP
    return first;
}

DS_COLD int ds_session_teardown(struct ds_session *s)
{
    if (!s)
        return DS_ERR_NULL;
    if (!s->started)
        return DS_ERR_SESSION_STATE;
    int first = s->state == DS_SESSION_RUNNING ? ds_session_stop(s) : DS_OK;
    int e = unwind(s);
    return first ? first : e;
}
