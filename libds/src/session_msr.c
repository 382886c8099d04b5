/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Sessions: MSR save, programming and restore (session_int.h). Every MSR
 * start writes is read first (save_all), then written in the order of the
 * kernel's e2e do_run (program_all), and written back at teardown.
 */
#include "session_int.h"

/* The most MSRs a start saves (DS_SESSION_MAX_SAVED must hold them, so
 * DS_ERR_SESSION_SAVE stays unreachable). Family 6: the 10 of save_all
 * (GLOBAL_CTRL, DEBUGCTL, DS_AREA, PEBS_ENABLE, DATA_CFG, LD_LAT,
 * PEBS_BASE, PEBS_INDEX, LBR_DEPTH, LBR_CTL), 3 per request (save_req:
 * CFG_C or the counters group's allow, EVTSEL or FIXED_CTR_CTRL, the
 * counter), 3 for the metrics' slots counter, 8 for Nehalem's EVTSEL/PMC0-3;
 * NetBurst: DEBUGCTL, DS_AREA, PEBS_ENABLE, MATRIX_VERT and 4 per request
 * (CCCR, ESCR, counter, the tagging ESCR). A new save1 call site raises
 * these. */
_Static_assert(DS_SESSION_MAX_SAVED >= 10 + 3 * DS_SESSION_MAX_REQ + 3 + 8, "family-6 saves");
_Static_assert(DS_SESSION_MAX_SAVED >= 4 + 4 * DS_SESSION_MAX_REQ, "NetBurst saves");

/* Read @msr once and remember it; restore_msr(@msr) writes it back at
 * teardown. Every read precedes every write (save_all runs before
 * carve/program), so a second save of an MSR would hold the same value:
 * the search only keeps the table small. It walks a pointer to the end of
 * this start's entries, never past it: entries beyond nsaved are a
 * previous start's and must not count as saved (test_restore's second
 * cycle). (An index loop from 0 gave an equivalent mutant, 0 -> 1: entry 0
 * is always save_all's first MSR, GLOBAL_CTRL or DEBUGCTL, saved once.) */
static int save1(struct ds_session *s, uint32_t msr)
{
    for (const uint32_t *p = s->saved_msr; p != s->saved_msr + s->nsaved; p++)
        if (*p == msr)
            return DS_OK;
    if (s->nsaved >= DS_SESSION_MAX_SAVED)
        return DS_ERR_SESSION_SAVE;
    uint64_t v;
    if (ds_msr_read(s->cpu, msr, &v))
        return DS_ERR_MSR_FAULT;
    s->saved_msr[s->nsaved] = msr;
    s->saved_val[s->nsaved] = v;
    s->nsaved++;
    return DS_OK;
}

/* The MSR a saved value is written back through: IA32_PMCx through its
 * full-width alias IA32_A_PMCx where PERF_CAPABILITIES.FW_WRITE is set
 * before perfmon v6 (a write to IA32_PMCx keeps only bits 31:0, sign
 * extended; pmc.c writes A_PMCx there too), else the MSR read. Derived
 * from the CPU's caps, not stored: they do not change while a session
 * lives. */
static uint32_t restore_msr(const struct ds_session *s, uint32_t m)
{
    const struct ds_caps *c = &s->cpu->caps;
    bool pmc = m >= DS_MSR_IA32_PMC0 && m < DS_MSR_IA32_PMC0 + 8;
    return pmc && c->perfmon_version < 6 && c->fw_write ? m - DS_MSR_IA32_PMC0 + DS_MSR_IA32_A_PMC0 : m;
}

/* The MSRs pmc.c writes for a GP / fixed counter (its perfmon v6, full-width
 * write rules: pmc.h ds_pmc_gp_program, ds_pmc_fixed_program). */
static int save_counter(struct ds_session *s, const struct ds_session_req *r)
{
    const struct ds_caps *c = &s->cpu->caps;
    bool v6 = c->perfmon_version >= 6;
    unsigned n = r->idx;
    int e;
    if (r->kind == DS_CTR_FIXED) {
        uint32_t m = v6 ? DS_PMC_MSR_FIXED_CTR(n) : DS_MSR_IA32_FIXED_CTR0 + n;
        e = save1(s, DS_MSR_IA32_FIXED_CTR_CTRL);
        return e ? e : save1(s, m);
    }
    uint32_t sel = v6 ? DS_PMC_MSR_GP_CFG_A(n) : DS_MSR_IA32_PERFEVTSEL0 + n;
    e = save1(s, sel);
    return e ? e : save1(s, v6 ? DS_PMC_MSR_GP_CTR(n) : DS_MSR_IA32_PMC0 + n); /* restore_msr: A_PMCx */
}

/* The CFG_C member_allow writes (arch PEBS with a counters group). */
static int save_allow(struct ds_session *s, const struct ds_session_req *r)
{
    uint32_t m = ds_arch_pebs_cfg_c_msr(r->kind, r->idx);
    return apebs_cntr(s) ? save1(s, m) : DS_OK;
}

static int save_req(struct ds_session *s, const struct ds_session_req *r)
{
    int e = DS_OK;
    switch (r->how) {
    case DS_HOW_NB_PEBS:
    case DS_HOW_NB_OVERFLOW:
        e = save1(s, r->nbas.cccr_msr);
        if (!e)
            e = save1(s, r->nbas.escr_msr);
        if (!e)
            e = save1(s, r->nbas.counter_msr);
        if (!e && r->nb_tagged)
            e = save1(s, r->nbtag.escr_msr);
        return e;
    case DS_HOW_APEBS: {
        uint32_t m = ds_arch_pebs_cfg_c_msr(r->kind, r->idx);
        e = save1(s, m);
        return e ? e : save_counter(s, r);
    }
    case DS_HOW_OVERFLOW:
    case DS_HOW_COUNT:
        e = save_allow(s, r);
        return e ? e : save_counter(s, r);
    case DS_HOW_PEBS:
        return save_counter(s, r);
    default:
        return DS_OK;
    }
}

DS_COLD int ds__ses_save_all(struct ds_session *s)
{
    int e = DS_OK;
    bool nbp = has_how(s, DS_HOW_NB_PEBS), ldl = false;
    SES_FOR_REQ(s, i, true)
        ldl |= s->req[i].rq.ldlat != 0;
#define SAVE(m) do { if (!e) e = save1(s, (m)); } while (0)
    if (v2(s))
        SAVE(DS_MSR_IA32_PERF_GLOBAL_CTRL);
    SAVE(DS_MSR_IA32_DEBUGCTL);
    if (s->use_area)
        SAVE(DS_MSR_IA32_DS_AREA);
    if (has_how(s, DS_HOW_PEBS) || nbp)
        SAVE(DS_MSR_IA32_PEBS_ENABLE);
    if (s->data_cfg || nbp)
        SAVE(DS_MSR_PEBS_DATA_CFG); /* = MSR_PEBS_MATRIX_VERT on NetBurst */
    if (ldl)
        SAVE(DS_MSR_PEBS_LD_LAT);
    if (s->use_apebs) {
        SAVE(DS_MSR_IA32_PEBS_BASE);
        SAVE(DS_MSR_IA32_PEBS_INDEX);
    }
    if (s->cfg.lbr && (s->lbrm->flags & DS_LBR_F_ARCH)) {
        SAVE(DS_MSR_IA32_LBR_DEPTH);
        SAVE(DS_MSR_IA32_LBR_CTL);
    }
#undef SAVE
    SES_FOR_REQ(s, i, !e)
        e = save_req(s, &s->req[i]);
    if (!e && s->slots) {
        struct ds_session_req sl = { .kind = DS_CTR_FIXED, .idx = SES_SLOTS_FIXED };
        e = save_allow(s, &sl);
        if (!e)
            e = save_counter(s, &sl);
    }
    /* ds_pmc_nhm_workaround (program_all) writes EVTSEL0-3 and PMC0-3 of
     * Nehalem/Westmere whatever the requests use: a fault in its middle
     * left them changed (issue 31 fault sweep) */
    for (unsigned i = 0; !e && i < 4 && s->uarch == DS_UARCH_NEHALEM && has_how(s, DS_HOW_PEBS); i++) {
        struct ds_session_req gp = { .kind = DS_CTR_GP, .idx = i };
        e = save_counter(s, &gp);
    }
    return e;
}


/* DS-area PEBS on one counter (e2e do_run order: reset slot, counter, enable). */
static int program_ds_pebs(struct ds_session *s, const struct ds_session_req *r)
{
    struct ds_cpu *cpu = s->cpu;
    bool adaptive = s->data_cfg != 0;
    int e = ds_area_set_reset(&s->ctx, r->kind, r->idx, r->reset);
    if (r->kind == DS_CTR_FIXED) {
        if (!e)
            e = ds_pmc_fixed_program(cpu, r->idx, ses_fixed_ctrl(r), adaptive, r->start);
        return e ? e : ds_pmc_pebs_enable_fixed(cpu, r->idx);
    }
    uint64_t ev = r->evtsel | (adaptive ? DS_EVTSEL_ADAPTIVE : 0);
    if (!e)
        e = ds_pmc_gp_program(cpu, r->idx, ev, r->start);
    if (!e && r->rq.ldlat)
        e = ds_pmc_pebs_ldlat(cpu, r->idx, r->rq.ldlat);
    return e ? e : ds_pmc_pebs_enable_ex(cpu, r->idx, ev, s->cfg.pebs_flags);
}

/* A counting member (overflow, DS_COUNT) of an arch-PEBS counters group:
 * CFG_C = CNTR_ALLOW without EN (Linux intel_pmu_enable_event_ext on every
 * member of a PEBS counter group); nothing without arch PEBS. */
static int member_allow(struct ds_session *s, const struct ds_session_req *r)
{
    return apebs_cntr(s) ? ds_arch_pebs_counter_allow(&s->ap, r->kind, r->idx, true) : DS_OK;
}

static int program_req(struct ds_session *s, struct ds_session_req *r)
{
    struct ds_cpu *cpu = s->cpu;
    int e;
    switch (r->how) {
    case DS_HOW_PEBS:
        return program_ds_pebs(s, r);
    case DS_HOW_APEBS:
        e = r->kind == DS_CTR_FIXED ? ds_pmc_fixed_program(cpu, r->idx, ses_fixed_ctrl(r), false, r->start)
                                    : ds_pmc_gp_program(cpu, r->idx, r->evtsel, r->start);
        /* CFG_C reload [31:0]: -period (Linux -period & ARCH_PEBS_RELOAD) */
        return e ? e : ds_arch_pebs_counter_enable(&s->ap, r->kind, r->idx, (uint32_t)r->reset,
                                                    ds__ses_apebs_groups(s, r->rq.groups));
    case DS_HOW_NB_PEBS:
    case DS_HOW_NB_OVERFLOW:
        r->nbq.escr = r->nbas.escr;
        r->nbq.counter = r->nbas.counter;
        e = ds_nb_program(cpu, &s->nba, &r->nbq, r->start, &r->nbas);
        if (e)
            return e;
        s->nb_live = true;
        if (r->nb_tagged && ds_msr_write(cpu, r->nbtag.escr_msr, r->nbtag.escr_val))
            return DS_ERR_MSR_FAULT;
        if (r->how == DS_HOW_NB_OVERFLOW)
            return DS_OK;
        /* NetBurst: the DS reset slot of the PEBS counter is its start (e2e do_run) */
        e = ds_area_set_reset(&s->ctx, DS_CTR_GP, 0, r->start);
        return e ? e : ds_nb_replay_tag(cpu, (unsigned)r->nb_metric, true);
    case DS_HOW_OVERFLOW:
        e = ds_pmc_gp_program(cpu, r->idx, r->evtsel, r->start);
        return e ? e : member_allow(s, r);
    case DS_HOW_COUNT: /* from 0, no EVTSEL.INT / FIXED_CTR_CTRL PMI bit */
        e = r->kind == DS_CTR_FIXED ? ds_pmc_fixed_program(cpu, r->idx, ses_fixed_ctrl(r), false, 0)
                                    : ds_pmc_gp_program(cpu, r->idx, r->evtsel, 0);
        return e ? e : member_allow(s, r);
    default:
        return DS_OK;
    }
}

/* Everything after the saves, in do_run's order; counters stopped first. */
DS_COLD int ds__ses_program_all(struct ds_session *s)
{
    struct ds_cpu *cpu = s->cpu;
    int e = v2(s) ? ds_pmc_global_ctrl(cpu, 0) : DS_OK;
    if (!e && has_how(s, DS_HOW_PEBS))
        e = ds_pmc_pebs_disable(cpu, ~0ull); /* no stale PEBS enables of others */
    if (!e && s->use_area)
        e = ds_area_install(&s->ctx);
    if (!e && s->use_apebs)
        e = ds_arch_pebs_install(&s->ap);
    if (!e && s->data_cfg)
        e = ds_pmc_pebs_data_cfg(cpu, s->data_cfg);
    if (!e && !fam6(cpu))
        e = ds_nb_alloc_init(&s->nba, cpu->caps.display_model, false);
    SES_FOR_REQ(s, i, !e)
        e = program_req(s, &s->req[i]);
    /* DS_GROUP_METRICS: TOPDOWN.SLOTS on fixed 3 from 0, OS and USR (the
     * metrics part of the counters group reports it; Linux counts slots on
     * INTEL_PMC_IDX_FIXED_SLOTS for every topdown group); GLOBAL_CTRL bit 48
     * is in s->gctl (plan), written by ds_pmi_pmu_enable below; arch PEBS:
     * fixed 3 is a counting member of the counters group (member_allow) */
    if (!e && s->slots)
        e = ds_pmc_fixed_program(cpu, SES_SLOTS_FIXED, DS_FIXED_OS | DS_FIXED_USR, false, 0);
    if (!e && s->slots && apebs_cntr(s))
        e = ds_arch_pebs_counter_allow(&s->ap, DS_CTR_FIXED, SES_SLOTS_FIXED, true);
    if (!e && has_how(s, DS_HOW_PEBS))
        e = ds_pmc_nhm_workaround(cpu); /* Nehalem/Westmere errata; DS_OK elsewhere */
    if (!e)
        e = ds__ses_pmi_setup(s);
    if (!e && s->cfg.lbr) {
        /* no LBR_SELECT, default Arch LBR_CTL (lbr.h: arch_ctl 0); the unnamed
         * fields zero (a written-out select 0 was an equivalent mutant site) */
        struct ds_lbr_config lc = { .freeze_on_pmi = s->freeze != DS_FREEZE_NONE };
        e = ds_lbr_enable(cpu, s->lbrm, &lc);
        s->lbr_on = e == DS_OK;
    }
    SES_FOR_REQ(s, i, !e) {
        const struct ds_session_req *r = &s->req[i];
        unsigned rg = r->rq.rings ? r->rq.rings : (DS_RING_KERNEL | DS_RING_USER);
        if (r->how == DS_HOW_BTS)
            e = ds_bts_enable(&s->ctx, (r->rq.mode == DS_TRACE_BTS ? DS_BTS_INT : 0) |
                                           (!(rg & DS_RING_KERNEL) ? DS_BTS_OFF_OS : 0) |
                                           (!(rg & DS_RING_USER) ? DS_BTS_OFF_USR : 0));
    }
    if (!e && s->use_apebs)
        e = ds_arch_pebs_enable(&s->ap);
    if (!e && v2(s))
        e = ds_pmi_pmu_enable(&s->pmi, true);
    return e;
}

/* ds_session_set_period on a running family-6 counter, in Linux
 * perf_event_period's order (x86_pmu_stop, new sample_period,
 * x86_pmu_start with PERF_EF_RELOAD: x86_perf_event_set_period writes
 * -period to the counter, intel_pmu_pebs_enable the DS reset slot, arch
 * PEBS the CFG_C reload): the counter stopped (its GLOBAL_CTRL bit off;
 * perfmon v1: EVTSEL.EN off), the new start written, the new reload, the
 * counter restarted (ds_pmi_pmu_enable: the session's GLOBAL_CTRL). */
static int live_period(struct ds_session *s, const struct ds_session_req *r)
{
    struct ds_cpu *cpu = s->cpu;
    bool g = v2(s), adaptive = r->how == DS_HOW_PEBS && s->data_cfg != 0;
    int e = g ? ds_pmc_global_ctrl(cpu, s->gctl & ~req_bit(r)) : ds_pmc_gp_program(cpu, r->idx, 0, r->start);
    if (e)
        return e;
    if (r->kind == DS_CTR_FIXED)
        e = ds_pmc_fixed_program(cpu, r->idx, ses_fixed_ctrl(r), adaptive, r->start);
    else if (g)
        e = ds_pmc_gp_write(cpu, r->idx, r->start);
    if (!e && r->how == DS_HOW_PEBS)
        e = ds_area_set_reset(&s->ctx, r->kind, r->idx, r->reset);
    if (!e && r->how == DS_HOW_APEBS)
        e = ds_arch_pebs_counter_enable(&s->ap, r->kind, r->idx, (uint32_t)r->reset,
                                        ds__ses_apebs_groups(s, r->rq.groups));
    if (!g)
        return e ? e : ds_pmc_gp_program(cpu, r->idx, r->evtsel, r->start); /* v1: overflow on a GP counter only */
    int e2 = ds_pmi_pmu_enable(&s->pmi, true);
    return e ? e : e2;
}

/* ds_session_set_period on a running NetBurst request, as Linux p4.c does
 * for perf_event_period (x86_pmu_stop, then x86_pmu_start with
 * PERF_EF_RELOAD): p4_pmu_disable_event writes the CCCR without Enable and
 * without OVF (an OVF left set asserts the PMI again), p4_pmu_set_period
 * writes -period to the counter twice (erratum N15: ds_nb_rearm), the DS
 * reset slot of NetBurst PEBS takes it too (the CPU reloads the counter
 * from it after each record: program_req's write at start), and
 * __p4_pmu_enable_event writes the CCCR with Enable. Linux's enable also
 * rewrites the ESCR and MSR_PEBS_ENABLE / MATRIX_VERT, shared with the
 * first start: here they still hold the values start wrote. The CCCR is
 * re-enabled after a failed step too (as live_period's GLOBAL_CTRL). */
static int live_nb_period(struct ds_session *s, const struct ds_session_req *r)
{
    const struct ds_nb_assignment *a = &r->nbas;
    if (ds_msr_write(s->cpu, a->cccr_msr, a->cccr_val & ~(DS_NB_CCCR_ENABLE | DS_NB_CCCR_OVF)))
        return DS_ERR_MSR_FAULT;
    int e = ds_nb_rearm(s->cpu, a->counter, r->start);
    if (!e && r->how == DS_HOW_NB_PEBS)
        e = ds_area_set_reset(&s->ctx, DS_CTR_GP, 0, r->start);
    int e2 = ds_msr_write(s->cpu, a->cccr_msr, a->cccr_val) ? DS_ERR_MSR_FAULT : DS_OK;
    return e ? e : e2;
}

DS_COLD int ds_session_set_period(struct ds_session *s, unsigned req_id, uint64_t period)
{
    if (!s)
        return DS_ERR_NULL;
    if (s->state == DS_SESSION_ZERO)
        return DS_ERR_SESSION_STATE;
    if (req_id >= s->nreq || req_id >= DS_SESSION_MAX_REQ)
        return DS_ERR_SESSION_BAD_REQ;
    struct ds_session_req r = s->req[req_id];
    if (r.how == DS_HOW_BTS || r.how == DS_HOW_COUNT)
        return DS_ERR_SESSION_NO_PERIOD;
    r.rq.period = period;
    int e = ds__ses_period_values(s, &r);
    if (e)
        return e;
    s->req[req_id] = r;
    if (s->state != DS_SESSION_RUNNING)
        return DS_OK;
    return fam6(s->cpu) ? live_period(s, &s->req[req_id]) : live_nb_period(s, &s->req[req_id]);
}

/* Write every saved MSR back, newest first; the ones whose write fails
 * stay saved (in order) for the next teardown, the others are forgotten. */
_Static_assert(DS_SESSION_MAX_SAVED <= 64, "restore_saved keeps a 64-bit mask");
DS_COLD int ds__ses_restore_saved(struct ds_session *s)
{
    uint64_t failed = 0;
    for (unsigned i = s->nsaved; i-- > 0;)
        if (ds_msr_write(s->cpu, restore_msr(s, s->saved_msr[i]), s->saved_val[i]))
            failed |= 1ull << i;
    unsigned n = 0;
    for (unsigned i = 0; i < s->nsaved; i++)
        if ((failed >> i) & 1) {
            s->saved_msr[n] = s->saved_msr[i];
            s->saved_val[n++] = s->saved_val[i];
        }
    s->nsaved = n;
    return n ? DS_ERR_MSR_FAULT : DS_OK;
}
