/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Sessions: placement (session_int.h). A request's event resolved, the
 * PEBS format, record groups, load latency and counter chosen at add; at
 * start the plan (freeze, GLOBAL_CTRL, PEBS and data_cfg bits) and the
 * buffers carved from the caller's region.
 */
#include "session_int.h"

/* The generic-event table (event.h, event.c). */
static int lookup_event(const struct ds_cpu *cpu, enum ds_event ev, struct ds_event_desc *d)
{
    return ds_event_lookup(cpu, ev, d);
}

static uint64_t align_up(uint64_t v, uint64_t a) { return (v + a - 1) & ~(a - 1); }

/* --- add: request resolution and counter choice ------------------------------- */

/* The event of @rq as a table row (generic) or a row built from raw. */
static int resolve_event(const struct ds_session *s, const struct ds_request *rq, struct ds_event_desc *d)
{
    ds__zero(d, sizeof(*d));
    d->fixed = -1; /* a raw event has no fixed counter (the table rows set theirs) */
    if (rq->raw.set) {
        d->evsel = rq->raw.evsel;
        d->umask = rq->raw.umask;
        d->cmask = rq->raw.cmask;
        d->inv = rq->raw.inv;
        d->nb_event = rq->raw.nb_event;
        d->nb_mask = rq->raw.nb_mask;
        d->nb_metric = rq->raw.nb_metric;
        d->precise = fam6(s->cpu) ? DS_PRECISE_GP : DS_PRECISE_NETBURST;
        d->ldlat = rq->ldlat != 0;
        d->name = "raw";
        if (fam6(s->cpu) ? rq->raw.evsel == 0 : !rq->raw.nb_event)
            return DS_ERR_SESSION_RAW;
        /* family 6: the NetBurst fields unset (nb_metric 0 of a zeroed
         * request, or -1), never silently ignored */
        if (fam6(s->cpu) && (rq->raw.nb_event || rq->raw.nb_mask || (rq->raw.nb_metric != 0 && rq->raw.nb_metric != -1)))
            return DS_ERR_SESSION_RAW;
        return DS_OK;
    }
    /* (event NONE without raw never gets here: ds_session_add's
     * check_request refuses it with DS_ERR_SESSION_NO_EVENT first; a second
     * guard here was an equivalent mutant site, issue 10 seed 9112 M32) */
    int e = lookup_event(s->cpu, rq->event, d);
    if (e)
        return e;
    if (rq->ldlat && !d->ldlat) {
        if (rq->event != DS_EVENT_LOADS || (!d->ll_evsel && !d->ll_umask))
            return DS_ERR_SESSION_NO_LDLAT;
        d->evsel = d->ll_evsel;   /* the load-latency variant of the loads row */
        d->umask = d->ll_umask;
        d->ldlat = true;
        /* The variant is PEBS even where the plain loads row is not: Nehalem
         * 0BH/10H is Linux ds.c intel_nehalem_pebs_event_constraints
         * INTEL_PLD_CONSTRAINT(0x100b, 0xf) and perfmon NehalemEP_core.json
         * MEM_INST_RETIRED.LATENCY_ABOVE_THRESHOLD_* "PEBS": "2". */
        if (d->precise == DS_PRECISE_NONE)
            d->precise = DS_PRECISE_GP;
    }
    return DS_OK;
}

static uint64_t ring_bits(const struct ds_request *rq)
{
    unsigned r = rq->rings ? rq->rings : (DS_RING_KERNEL | DS_RING_USER);
    return ((r & DS_RING_KERNEL) ? DS_EVTSEL_OS : 0) | ((r & DS_RING_USER) ? DS_EVTSEL_USR : 0);
}

static uint64_t evtsel_of(const struct ds_event_desc *d, const struct ds_request *rq)
{
    return DS_EVTSEL(d->evsel, d->umask) | ((uint64_t)d->cmask << DS_EVTSEL_CMASK_SHIFT) |
           (d->inv ? DS_EVTSEL_INV : 0) | ring_bits(rq) | DS_EVTSEL_EN;
}

/* Counters already taken by the session's requests. */
static void used_counters(const struct ds_session *s, uint32_t *gp, uint32_t *fixed)
{
    *gp = *fixed = 0;
    SES_FOR_REQ(s, i, true) {
        const struct ds_session_req *r = &s->req[i];
        if (r->how == DS_HOW_BTS || r->how == DS_HOW_NB_PEBS || r->how == DS_HOW_NB_OVERFLOW)
            continue;
        if (r->kind == DS_CTR_FIXED)
            *fixed |= 1u << r->idx;
        else
            *gp |= 1u << r->idx;
        if (r->rq.groups & DS_GROUP_METRICS)
            *fixed |= 1u << SES_SLOTS_FIXED; /* TOPDOWN.SLOTS for the metrics group */
    }
}

/* Counters the PMI handler accepts (ds_pmi_init refuses others in
 * global_ctrl / pebs_counters: DS_ERR_PMI_CTRL_MASK); without global MSRs
 * every counter. Since pmi.c counter_bits follows caps.gp_mask this is
 * every counter that exists (GP8-9 of CPUID.23H.1 on Lunar/Panther Lake
 * included); kept as the single place that ties the pick to ds_pmi_init. */
static bool pmi_takes(const struct ds_session *s, enum ds_ctr_kind k, unsigned idx)
{
    const struct ds_caps *c = &s->cpu->caps;
    if (s->cpu->caps.netburst || c->perfmon_version < 2)
        return true;
    unsigned bit = k == DS_CTR_FIXED ? 32 + idx : idx;
    /* bit < 64 only guards the shift: every caller asks for a counter it
     * found in gp_mask / fixed_mask (ds_arch_pebs_detect refuses 23H.5
     * bits outside 23H.1) with idx < 32 and fixed idx from the event rows
     * (0-3), whose ack bits all exist; mutants of the guard (< 65, ||) are
     * equivalent (issue 10, main ed7cc46 :160) */
    return bit < 64 && ((ds_pmi_ack_mask(c) >> bit) & 1);
}

/* The counters group (session.h DS_GROUP_CNTR / _METRICS): format 6 with
 * PEBS_BASELINE (MSR_PEBS_DATA_CFG bits 4, 5; Linux
 * intel_pmu_has_pebs_counter_group: pebs_format >= 6 && pebs_baseline) or
 * arch PEBS with the CFG_C bits in CPUID.(23H,4) (36 GP, 37 fixed, 38
 * metrics: Linux masks ARCH_PEBS_CNTR_* with the caps). Metrics also need
 * PERF_CAPABILITIES.PERF_METRICS (format 6: pmc.h ds_pmc_pebs_data_cfg; both:
 * GLOBAL_CTRL bit 48, plan)
 * and a free fixed counter 3 for TOPDOWN.SLOTS. */
static int cntr_group_ok(const struct ds_session *s, enum ds_pebs_fmt f, uint32_t g)
{
    const struct ds_caps *c = &s->cpu->caps;
    uint64_t ac = (uint64_t)c->arch_pebs_caps << 32;
    if (!(g & (DS_GROUP_CNTR | DS_GROUP_METRICS)))
        return DS_OK;
    bool fmt6 = f == DS_PEBS_FMT_6 && c->pebs_baseline, arch = f == DS_PEBS_FMT_ARCH;
    if (!fmt6 && !arch)
        return DS_ERR_SESSION_NO_CNTR_GROUP;
    if (arch && (g & DS_GROUP_CNTR) && (ac & (DS_APEBS_CFG_CNTR_GP | DS_APEBS_CFG_CNTR_FIXED)) !=
                                          (DS_APEBS_CFG_CNTR_GP | DS_APEBS_CFG_CNTR_FIXED))
        return DS_ERR_SESSION_NO_CNTR_GROUP;
    /* every member needs CNTR_ALLOW (35) in its CFG_C (apebs_groups, member_allow) */
    if (arch && !(ac & DS_APEBS_CFG_CNTR_ALLOW))
        return DS_ERR_SESSION_NO_CNTR_GROUP;
    if (!(g & DS_GROUP_METRICS))
        return DS_OK;
    /* PERF_METRICS on arch PEBS too: Linux reaches CNTR_METRICS only through
     * a topdown group, which needs intel_cap.perf_metrics */
    if (!c->perf_metrics || (arch && !(ac & DS_APEBS_CFG_CNTR_METRICS)))
        return DS_ERR_SESSION_NO_METRICS;
    if (!((c->fixed_mask >> SES_SLOTS_FIXED) & 1))
        return DS_ERR_SESSION_NO_METRICS;
    SES_FOR_REQ(s, i, true)
        if (s->req[i].rq.groups & DS_GROUP_METRICS)
            return DS_OK; /* fixed 3 already counts slots for the session */
    /* Fixed 3 is free here: only this group takes it (event rows name fixed
     * 0-2, raw requests none), and fixed_mask bit 3 (checked above) puts
     * ack bit 35 in ds_pmi_ack_mask, so pmi_takes holds. A "taken or no
     * PMI" guard here was unreachable (issue 10 seed 9111 M73, equivalent). */
    return DS_OK;
}

/* Which record groups a PEBS format can give (adaptive: MSR_PEBS_DATA_CFG;
 * formats 0-3 always record the GPRs, 1+ the memory fields; arch PEBS:
 * CPUID.(23H,4) CFG_C groups; NetBurst: GPRs only). */
static int groups_ok(const struct ds_session *s, enum ds_pebs_fmt f, uint32_t g)
{
    uint32_t ok;
    if (g & ~SES_GROUPS_KNOWN)
        return DS_ERR_SESSION_GROUPS;
    int e = cntr_group_ok(s, f, g);
    if (e)
        return e;
    g &= DS_GROUP_ALL;
    if (ds_pebs_fmt_adaptive(f))
        ok = s->cpu->caps.pebs_baseline ? (DS_GROUP_MEM | DS_GROUP_GPRS | DS_GROUP_XMM |
                                           (s->lbrm ? DS_GROUP_LBR : 0)) : 0;
    else if (f == DS_PEBS_FMT_ARCH) {
        uint64_t c = (uint64_t)s->cpu->caps.arch_pebs_caps << 32;
        ok = ((c & DS_APEBS_CFG_AUX) ? DS_GROUP_MEM : 0) | ((c & DS_APEBS_CFG_GPR) ? DS_GROUP_GPRS : 0) |
             ((c & DS_APEBS_CFG_XMM) ? DS_GROUP_XMM : 0) | ((c & DS_APEBS_CFG_LBR) ? DS_GROUP_LBR : 0);
    } else if (f == DS_PEBS_FMT_0 || f == DS_PEBS_FMT_NB32 || f == DS_PEBS_FMT_NB64)
        ok = DS_GROUP_GPRS;
    else
        ok = DS_GROUP_GPRS | DS_GROUP_MEM;
    return (g & ~ok) ? DS_ERR_SESSION_GROUPS : DS_OK;
}

/* Load latency (MSR_PEBS_LD_LAT, Nehalem+): every format 1-6 through
 * ds_pmc_pebs_ldlat (which also checks the core's load-latency counters on
 * adaptive parts); one threshold per CPU. Not on format 0, NetBurst, or arch PEBS (not modelled here). */
static int ldlat_ok(const struct ds_session *s, enum ds_pebs_fmt f, const struct ds_request *rq)
{
    if (!rq->ldlat)
        return DS_OK;
    if (f < DS_PEBS_FMT_1 || f > DS_PEBS_FMT_6)
        return DS_ERR_SESSION_NO_LDLAT;
    if (rq->ldlat < DS_PEBS_LDLAT_MIN || rq->ldlat > DS_PEBS_LDLAT_MAX)
        return DS_ERR_PMC_LDLAT_RANGE;
    SES_FOR_REQ(s, i, true)
        if (s->req[i].rq.ldlat && s->req[i].rq.ldlat != rq->ldlat)
            return DS_ERR_SESSION_NO_LDLAT;
    return DS_OK;
}

/* The PEBS format all PEBS requests of the session share; NO_DS when the
 * CPU has no PEBS at all. */
DS_COLD int ds__ses_pebs_format(struct ds_session *s, enum ds_pebs_fmt *f)
{
    if (s->fmt != DS_PEBS_FMT_NONE) {
        *f = s->fmt;
        return DS_OK;
    }
    if (s->layout == DS_LAYOUT_NONE || ds_pebs_format_select(s->cpu, s->layout, f) != DS_OK)
        return DS_ERR_SESSION_NO_DS;
    if (*f == DS_PEBS_FMT_ARCH && ds_arch_pebs_detect(s->cpu, &s->ap.caps) != DS_OK)
        return DS_ERR_SESSION_NO_DS;
    return DS_OK;
}

/* Classify a failed counter search: a counter that would take the event
 * but is in use -> NO_COUNTER; else the event is refused somewhere ->
 * NOT_PRECISE; else the first other error (e.g. reserved EVTSEL bits). */
static int pebs_search_err(int ev_err, int other, bool any_capable)
{
    if (any_capable)
        return DS_ERR_SESSION_NO_COUNTER;
    if (ev_err)
        return DS_ERR_SESSION_NOT_PRECISE;
    return other ? other : DS_ERR_SESSION_NO_COUNTER;
}

static bool counter_err(int e)
{
    return e == DS_ERR_PMC_PEBS_COUNTER || e == DS_ERR_PMC_PEBS_PMC0_ONLY || e == DS_ERR_PMC_BAD_COUNTER;
}

static bool event_err(int e)
{
    return e == DS_ERR_PMC_PEBS_EVENT || e == DS_ERR_UNSUPPORTED || e == DS_ERR_PMC_PEBS_EVENT_COUNTER;
}

/* DS-area PEBS (formats 0-6): a fixed counter where the row says the event
 * has one and fixed PEBS exists (adaptive, Goldmont Plus), else the first
 * free GP counter ds_pmc_pebs_check accepts. */
static int pick_ds_pebs(struct ds_session *s, struct ds_session_req *r, const struct ds_event_desc *d)
{
    uint32_t ugp, ufx;
    used_counters(s, &ugp, &ufx);
    const struct ds_caps *c = &s->cpu->caps;
    if (d->precise == DS_PRECISE_FIXED && d->fixed >= 0 && !((ufx >> d->fixed) & 1) &&
        pmi_takes(s, DS_CTR_FIXED, (unsigned)d->fixed) && ds_pmc_pebs_check_fixed(s->cpu, (unsigned)d->fixed) == DS_OK) {
        r->kind = DS_CTR_FIXED;
        r->idx = (unsigned)d->fixed;
        return DS_OK;
    }
    int ev = DS_OK, other = DS_OK;
    bool any = false;
    /* Load latency before the adaptive formats: PMC3 first. Perfmon gives
     * the load-latency events "Counter": "3" on Nehalem/Westmere (0BH/10H),
     * Sandy/Ivy Bridge, Haswell and Broadwell (CDH/01H); Linux ds.c allows
     * 0x8 (intel_snb_/ivb_pebs_event_constraints) or 0xf
     * (intel_nehalem_/hsw_/bdw_pebs_event_constraints): PMC3 satisfies both
     * (Skylake "0,1,2,3" too). ds_pmc_pebs_check still decides. */
    unsigned first = r->rq.ldlat && c->pebs_format < 4 ? 3u : 0u;
    for (unsigned k = 0; k < 32; k++) {
        unsigned i = (first + k) & 31u;
        if (!((c->gp_mask >> i) & 1) || !pmi_takes(s, DS_CTR_GP, i))
            continue;
        int ec = ds_pmc_pebs_check(s->cpu, i, r->evtsel);
        if (event_err(ec) && !ev)
            ev = ec;
        else if (ec && !counter_err(ec) && !other)
            other = ec;
        if (ec)
            continue;
        any = true;
        if (!((ugp >> i) & 1)) {
            r->kind = DS_CTR_GP;
            r->idx = i;
            return DS_OK;
        }
    }
    return pebs_search_err(ev, other, any);
}

/* Architectural PEBS: CPUID.(23H,5) PEBS-capable counters; the PDIST ones
 * for a pdist request (Linux intel_pmu_hw_config: precise_ip >= 3 ?
 * pebs_cap.pdists : pebs_cap.counters). */
static int pick_apebs(struct ds_session *s, struct ds_session_req *r, const struct ds_event_desc *d)
{
    uint32_t ugp, ufx;
    used_counters(s, &ugp, &ufx);
    const struct ds_arch_pebs_caps *ac = &s->ap.caps;
    uint32_t fxm = r->rq.pdist ? ac->pdist_fixed_mask : ac->fixed_mask;
    if (d->precise == DS_PRECISE_FIXED && d->fixed >= 0 && d->fixed < 32 && ((fxm >> d->fixed) & 1) &&
        !((ufx >> d->fixed) & 1) && pmi_takes(s, DS_CTR_FIXED, (unsigned)d->fixed)) {
        r->kind = DS_CTR_FIXED;
        r->idx = (unsigned)d->fixed;
        return DS_OK;
    }
    uint32_t cand = (r->rq.pdist ? ac->pdist_gp_mask : ac->gp_mask) & s->cpu->caps.gp_mask, ev;
    if (!cand)
        return DS_ERR_SESSION_NOT_PRECISE;
    /* the event's own counters (pmc.h: Cougar/Coyote Cove loads, stores PMC0-3, ldlat PMC2-9 / 2-7) */
    int e = ds_pmc_pebs_event_counters(s->cpu, r->evtsel, &ev);
    if (e)
        return e;
    if (!(cand &= ev))
        return DS_ERR_PMC_PEBS_EVENT_COUNTER;
    for (unsigned i = 0; i < 32; i++)
        if (((cand >> i) & 1) && !((ugp >> i) & 1) && pmi_takes(s, DS_CTR_GP, i)) {
            r->kind = DS_CTR_GP;
            r->idx = i;
            return DS_OK;
        }
    return DS_ERR_SESSION_NO_COUNTER;
}

/* Front-end tagging (SDM "Tagging Mechanism for Front_end_event"): the
 * upstream event (uop_type TAGLOADS / TAGSTORES) tags the uops the counted
 * front_end_event then sees. Only its ESCR is written, with Tag Enable: it
 * drives no counter (ds_nb_assign picks one to check the pairing; it is
 * not programmed). The ESCR is marked allocated. */
static int pick_nb_tag(struct ds_session *s, struct ds_session_req *r, const struct ds_event_desc *d)
{
    struct ds_nb_request q = r->nbq;
    q.mask = 0;
    int e = ds_nb_event_find(d->nb_tag_event, &q.event);
    if (!e)
        e = ds_nb_mask_parse(q.event, d->nb_tag_mask ? d->nb_tag_mask : "", &q.mask);
    if (e)
        return e;
    q.escr = q.counter = -1;
    q.pebs = q.pmi = false;
    q.tag_enable = true;
    struct ds_nb_alloc a = s->nba;
    /* the counted event's counter is taken (test_nb_tag_pairing_counter);
     * its ESCR needs no mark: the only tag event, uop_type, has the RAT
     * ESCRs, never the counted front_end_event's CRU_ESCR2/3 (SDM ESCR
     * restrictions; the mark was an equivalent mutant site, issue 10) */
    a.counter_used |= 1u << r->nbas.counter;
    e = ds_nb_assign(&a, &q, &r->nbtag);
    r->nb_tagged = e == DS_OK;
    return e;
}

/* NetBurst request: event and mask by name through the tables, counter
 * through the allocator (pure ds_nb_assign; marked allocated in s->nba). */
static int pick_nb(struct ds_session *s, struct ds_session_req *r, const struct ds_event_desc *d, bool pebs)
{
    struct ds_nb_request q;
    ds__zero(&q, sizeof(q));
    /* d->nb_event is set: resolve_event refuses a raw NetBurst request
     * without one (DS_ERR_SESSION_RAW) and every NetBurst table row names
     * its event (test_event "NetBurst names"); no second check here (its
     * removal was an equivalent mutant, issue 10 seed 9102) */
    int e = ds_nb_event_find(d->nb_event, &q.event);
    if (!e)
        e = ds_nb_mask_parse(q.event, d->nb_mask ? d->nb_mask : "", &q.mask);
    if (e)
        return e;
    q.escr = q.counter = -1;
    q.os = (r->evtsel & DS_EVTSEL_OS) != 0;
    q.usr = (r->evtsel & DS_EVTSEL_USR) != 0;
    q.pebs = pebs;
    q.pmi = !pebs;
    e = ds_nb_assign(&s->nba, &q, &r->nbas);
    r->nbq = q;
    if (!e && d->nb_tag_event)
        e = pick_nb_tag(s, r, d);
    if (e == DS_ERR_NB_NO_FREE || e == DS_ERR_NB_COUNTER_BUSY || e == DS_ERR_NB_ESCR_BUSY)
        return DS_ERR_SESSION_NO_COUNTER;
    if (e == DS_ERR_NB_PEBS_EVENT)
        return DS_ERR_SESSION_NOT_PRECISE;
    if (e)
        return e;
    r->idx = r->nbas.counter;
    r->how = pebs ? DS_HOW_NB_PEBS : DS_HOW_NB_OVERFLOW;
    return ds_nb_period(r->rq.period, &r->start) ? DS_ERR_SESSION_BAD_PERIOD : DS_OK;
}

/* Precise path: format, groups, latency, counter, reset values. */
static int try_pebs(struct ds_session *s, struct ds_session_req *r, const struct ds_event_desc *d)
{
    enum ds_pebs_fmt f;
    int e = ds__ses_pebs_format(s, &f);
    if (e)
        return e;
    if (d->precise == DS_PRECISE_NONE)
        return DS_ERR_SESSION_NOT_PRECISE;
    if (r->rq.pdist && f != DS_PEBS_FMT_ARCH)
        return DS_ERR_SESSION_PDIST; /* no PDIST bitmap: DS-area or NetBurst PEBS */
    /* Merom/Conroe 06_0FH: PEBS errata (pmc.h ds_pmc_pebs_enable_ex; Linux
     * intel_clovertown_quirk), known without an MSR: refused here so that
     * AUTO falls back to overflow (the Sandy Bridge microcode gate needs an
     * MSR read and is applied at start) */
    const struct ds_caps *c = &s->cpu->caps;
    if (!(s->cfg.pebs_flags & DS_PMC_PEBS_ALLOW_ERRATA) && c->display_family == 6 && c->display_model == 0x0F)
        return DS_ERR_PMC_PEBS_ERRATUM;
    if ((e = groups_ok(s, f, r->rq.groups)) != DS_OK || (e = ldlat_ok(s, f, &r->rq)) != DS_OK)
        return e;
    if (!fam6(s->cpu)) {
        if (d->nb_metric < 0 || d->nb_metric >= (int)DS_NB_METRIC__COUNT)
            return DS_ERR_SESSION_NOT_PRECISE; /* NetBurst PEBS = replay tagging */
        r->nb_metric = d->nb_metric;
        e = pick_nb(s, r, d, true);
    } else {
        e = f == DS_PEBS_FMT_ARCH ? pick_apebs(s, r, d) : pick_ds_pebs(s, r, d);
        r->how = f == DS_PEBS_FMT_ARCH ? DS_HOW_APEBS : DS_HOW_PEBS;
    }
    if (e)
        return e;
    s->fmt = f;
    return DS_OK;
}

/* GP counters a request without PEBS may use. INST_RETIRED.PREC_DIST
 * C0H/01H on Sandy Bridge .. Skylake counts on PMC1 only: perfmon
 * SNB/IVB/HSW/BDW/SKL *_core.json INST_RETIRED.PREC_DIST "Counter": "1",
 * Linux core.c intel_snb_/ivb_/hsw_/skl_event_constraints
 * INTEL_UEVENT_CONSTRAINT(0x01c0, 0x2) (intel_bdw_event_constraints has no
 * row; PMC1 satisfies both). A raw C0H/01H request keeps its encoding and
 * gets PMC1 (generic instructions are rewritten to C0H/00H instead).
 * Elsewhere C0H/01H is another event (Core 2 INST_RETIRED.LOADS, Nehalem
 * ANY_P): every counter. */
static uint32_t nonpebs_gp_ok(const struct ds_session *s, uint64_t evtsel)
{
    bool pd = s->uarch == DS_UARCH_SANDYBRIDGE || s->uarch == DS_UARCH_HASWELL || s->uarch == DS_UARCH_SKYLAKE;
    return pd && (evtsel & 0xFFFF) == 0x01C0 ? 1u << 1 : 0xFFFFFFFFu;
}

/* Counter-overflow sampling: the highest free GP counter (the low ones stay
 * for PEBS), EVTSEL.INT; NetBurst: the allocator with CCCR.OVF_PMI. */
static int pick_overflow(struct ds_session *s, struct ds_session_req *r, const struct ds_event_desc *d)
{
    if (r->rq.groups)
        return DS_ERR_SESSION_GROUPS;
    if (r->rq.ldlat)
        return DS_ERR_SESSION_NO_LDLAT;
    if (!fam6(s->cpu))
        return pick_nb(s, r, d, false);
    if (s->cpu->caps.perfmon_version < 1)
        return DS_ERR_NO_PERFMON;
    /* INST_RETIRED.PREC_DIST (C0H/01H) counts on PMC1 only (perfmon JSON
     * Counter "1"); without PEBS the architectural INST_RETIRED.ANY_P
     * (C0H/00H, any counter: SDM architectural events) counts the same */
    if (!r->rq.raw.set && r->rq.event == DS_EVENT_INSTRUCTIONS && (r->evtsel & 0xFFFF) == 0x01C0)
        r->evtsel &= ~DS_EVTSEL_UMASK_MASK;
    uint32_t ugp, ufx, ok = s->cpu->caps.gp_mask & nonpebs_gp_ok(s, r->evtsel);
    used_counters(s, &ugp, &ufx);
    for (unsigned i = 32; i-- > 0;)
        if (((ok >> i) & 1) && !((ugp >> i) & 1) && (i < 8 || s->cpu->caps.perfmon_version >= 6) &&
            pmi_takes(s, DS_CTR_GP, i)) {
            r->kind = DS_CTR_GP;
            r->idx = i;
            r->how = DS_HOW_OVERFLOW;
            r->evtsel |= DS_EVTSEL_INT;
            return DS_OK;
        }
    return DS_ERR_SESSION_NO_COUNTER;
}

/* Start and reload values of a family-6 counter request (NetBurst: pick_nb
 * did them at add; ds_session_set_period: ds__ses_period_values). */
static int period_values(struct ds_session *s, struct ds_session_req *r)
{
    if (!fam6(s->cpu))
        return DS_OK;
    int e = ds_pmc_gp_period(s->cpu, r->rq.period, &r->start, &r->reset);
    if (e == DS_ERR_PMC_PERIOD_ZERO || e == DS_ERR_PMC_PERIOD_WIDE)
        return DS_ERR_SESSION_BAD_PERIOD;
    if (e)
        return e;
    if (r->kind == DS_CTR_FIXED) {
        unsigned w = s->cpu->caps.fixed_width;
        if (w < 8 || w > 64 || (w < 64 && r->rq.period > (1ull << (w - 1))))
            return DS_ERR_SESSION_BAD_PERIOD;
        r->start = r->reset = (0 - r->rq.period) & (w == 64 ? ~0ull : (1ull << w) - 1);
    }
    /* arch PEBS reload is CFG_C[31:0] (Linux: -period & ARCH_PEBS_RELOAD) */
    if (r->how == DS_HOW_APEBS && r->rq.period > (1ull << 31))
        return DS_ERR_SESSION_BAD_PERIOD;
    return DS_OK;
}

DS_COLD int ds__ses_period_values(struct ds_session *s, struct ds_session_req *r)
{
    if (r->rq.period == 0)
        return DS_ERR_SESSION_BAD_PERIOD; /* check_request's test */
    if (!fam6(s->cpu))
        return ds_nb_period(r->rq.period, &r->start) ? DS_ERR_SESSION_BAD_PERIOD : DS_OK; /* pick_nb's */
    return period_values(s, r);
}

/* DS_COUNT: count from 0 without EVTSEL.INT, for the counters group. The
 * fixed counter of the event's row where it exists and is free (the
 * architectural fixed events: SDM "Fixed-Function Performance Counters"),
 * else the lowest free GP counter; counters the PMI handler refuses
 * (pmi_takes) are skipped as for sampling. */
DS_COLD int ds__ses_add_count(struct ds_session *s, struct ds_session_req *r)
{
    struct ds_event_desc d;
    if (r->rq.groups)
        return DS_ERR_SESSION_GROUPS;
    if (r->rq.ldlat)
        return DS_ERR_SESSION_NO_LDLAT;
    if (!fam6(s->cpu))
        return DS_ERR_SESSION_NO_CNTR_GROUP; /* NetBurst: no counters group to count into */
    int e = resolve_event(s, &r->rq, &d);
    if (e)
        return e;
    if (s->cpu->caps.perfmon_version < 1)
        return DS_ERR_NO_PERFMON;
    r->name = d.name ? d.name : "raw";
    r->evtsel = evtsel_of(&d, &r->rq);
    r->how = DS_HOW_COUNT;
    uint32_t ugp, ufx;
    used_counters(s, &ugp, &ufx);
    const struct ds_caps *c = &s->cpu->caps;
    if (d.fixed >= 0 && d.fixed < 32 && ((c->fixed_mask >> d.fixed) & 1) && !((ufx >> d.fixed) & 1) &&
        pmi_takes(s, DS_CTR_FIXED, (unsigned)d.fixed)) {
        r->kind = DS_CTR_FIXED;
        r->idx = (unsigned)d.fixed;
        return DS_OK;
    }
    if (!r->rq.raw.set && r->rq.event == DS_EVENT_INSTRUCTIONS && (r->evtsel & 0xFFFF) == 0x01C0)
        r->evtsel &= ~DS_EVTSEL_UMASK_MASK; /* PREC_DIST is PMC1-only: ANY_P counts the same (pick_overflow) */
    uint32_t ok = c->gp_mask & nonpebs_gp_ok(s, r->evtsel);
    for (unsigned i = 0; i < 32; i++)
        if (((ok >> i) & 1) && !((ugp >> i) & 1) && (i < 8 || c->perfmon_version >= 6) &&
            pmi_takes(s, DS_CTR_GP, i)) {
            r->kind = DS_CTR_GP;
            r->idx = i;
            return DS_OK;
        }
    return DS_ERR_SESSION_NO_COUNTER;
}

/* Choose how to serve a counting request: PEBS (AUTO, PRECISE), else overflow. */
DS_COLD int ds__ses_add_counter_req(struct ds_session *s, struct ds_session_req *r)
{
    struct ds_event_desc d;
    int e = resolve_event(s, &r->rq, &d);
    if (e)
        return e;
    r->name = d.name ? d.name : "raw";
    r->evtsel = evtsel_of(&d, &r->rq);
    struct ds_nb_alloc keep = s->nba;
    enum ds_pebs_fmt kfmt = s->fmt;
    e = DS_ERR_SESSION_NOT_PRECISE;
    if (r->rq.mode != DS_SAMPLE_OVERFLOW)
        e = try_pebs(s, r, &d);
    if (e && r->rq.mode == DS_SAMPLE_PRECISE)
        return e;
    if (e == DS_ERR_SESSION_BAD_PERIOD || e == DS_ERR_SESSION_GROUPS || e == DS_ERR_PMC_LDLAT_RANGE ||
        e == DS_ERR_SESSION_NO_CNTR_GROUP || e == DS_ERR_SESSION_NO_METRICS)
        return e; /* overflow sampling has no record groups either: the specific error */
    if (e) {
        s->nba = keep;
        s->fmt = kfmt;
        r->how = DS_HOW_NONE;
        e = pick_overflow(s, r, &d);
    }
    return e ? e : period_values(s, r);
}

/* --- start: the plan ---------------------------------------------------------- */

/* Freeze: streamlined on perfmon v4+, legacy on v2/v3, none on v1 and
 * NetBurst (no global MSRs). Both modes set DEBUGCTL[12], which exists only
 * with PDCM (SDM Vol. 4 IA32_DEBUGCTL; ds_pmi_set_freeze refuses it): none
 * where CPUID hides PDCM, at any version (a VM may). */
static enum ds_freeze_mode auto_freeze(const struct ds_session *s)
{
    const struct ds_caps *c = &s->cpu->caps;
    if (s->cfg.freeze_set)
        return s->cfg.freeze;
    if (!v2(s) || !c->pdcm)
        return DS_FREEZE_NONE;
    return c->perfmon_version >= 4 ? DS_FREEZE_STREAMLINED : DS_FREEZE_LEGACY;
}

/* Adaptive MSR_PEBS_DATA_CFG bits of a request's groups. */
static uint64_t data_cfg_of(const struct ds_session *s, uint32_t g)
{
    uint64_t v = ((g & DS_GROUP_MEM) ? DS_PEBS_DATACFG_MEMINFO : 0) | ((g & DS_GROUP_GPRS) ? DS_PEBS_DATACFG_GPRS : 0) |
                 ((g & DS_GROUP_XMM) ? DS_PEBS_DATACFG_XMMS : 0);
    if ((g & DS_GROUP_LBR) && s->lbrm) {
        unsigned depth = s->lbrm->depth ? s->lbrm->depth : s->cpu->caps.arch_lbr_depth;
        v |= DS_PEBS_DATACFG_LBRS | ((uint64_t)((depth ? depth : 1) - 1) << DS_PEBS_DATACFG_LBR_SHIFT);
    }
    return v;
}

/* Arch-PEBS CFG_C groups of a request (Linux intel_pmu_enable_event_ext:
 * CNTR_GP / CNTR_FIXED where the group's GP / fixed masks are not empty,
 * CNTR_METRICS with metrics, CNTR_ALLOW on every member of a counter group,
 * all masked with the CPUID.(23H,4) caps: cntr_group_ok checked). */
DS_COLD uint64_t ds__ses_apebs_groups(const struct ds_session *s, uint32_t g)
{
    uint64_t v = ((g & DS_GROUP_MEM) ? DS_APEBS_CFG_AUX : 0) | ((g & DS_GROUP_GPRS) ? DS_APEBS_CFG_GPR : 0) |
                 ((g & DS_GROUP_XMM) ? DS_APEBS_CFG_XMM : 0) |
                 ((g & DS_GROUP_LBR) ? ((uint64_t)DS_APEBS_LBR_NUM_VAR << DS_APEBS_CFG_LBR_SHIFT) : 0);
    uint64_t ac = (uint64_t)s->cpu->caps.arch_pebs_caps << 32;
    if (g & DS_GROUP_CNTR) {
        v |= (s->gctl & 0xFFFFFFFFull) ? DS_APEBS_CFG_CNTR_GP : 0;
        v |= (SES_FIXED_BITS(s->gctl) & ~(s->slots ? 1ull << SES_SLOTS_FIXED : 0)) ? DS_APEBS_CFG_CNTR_FIXED : 0;
    }
    if (g & DS_GROUP_METRICS)
        v |= DS_APEBS_CFG_CNTR_METRICS;
    /* CNTR_ALLOW on the PEBS counters here, on the counting members through
     * ds_arch_pebs_counter_allow (program_req, program_all): Linux
     * is_pebs_counter_event_group -> ARCH_PEBS_CNTR_ALLOW on every member */
    if (apebs_cntr(s))
        v |= DS_APEBS_CFG_CNTR_ALLOW & ac;
    return v;
}

/* Format 6 MSR_PEBS_DATA_CFG counters group (Linux PEBS_DATACFG_CNTR,
 * _METRICS, CNTR_SHIFT 32 (16 bits), FIX_SHIFT 48 (8 bits)): the session's
 * counters (gctl: PEBS, overflow, DS_COUNT), fixed 3 left to the metrics
 * part when the session counts slots there. */
static uint64_t data_cfg_cntr(const struct ds_session *s, uint32_t g)
{
    uint64_t v = 0;
    if (g & DS_GROUP_CNTR) {
        uint64_t gp = s->gctl & 0xFFFFull;
        uint64_t fx = (s->gctl >> 32) & 0xFFull & ~(s->slots ? 1ull << SES_SLOTS_FIXED : 0);
        v |= DS_PEBS_DATA_CFG_CNTRS | (gp << DS_PEBS_DATA_CFG_GP_SHIFT) | (fx << DS_PEBS_DATA_CFG_FIX_SHIFT);
    }
    return v | ((g & DS_GROUP_METRICS) ? DS_PEBS_DATA_CFG_METRICS : 0);
}

DS_COLD uint64_t ds__ses_data_cfg(const struct ds_session *s)
{
    uint64_t d = 0;
    SES_FOR_REQ(s, i, true) {
        const struct ds_session_req *r = &s->req[i];
        if (r->how == DS_HOW_PEBS && ds_pebs_fmt_adaptive(s->fmt) && s->cpu->caps.pebs_baseline)
            d |= data_cfg_of(s, r->rq.groups) | data_cfg_cntr(s, r->rq.groups);
    }
    return d;
}

DS_COLD void ds__ses_plan(struct ds_session *s)
{
    s->freeze = auto_freeze(s);
    s->gctl = s->pebs_bits = s->ovf_bits = s->cnt_bits = s->data_cfg = 0;
    s->nb_armed = 0;
    s->slots = false;
    SES_FOR_REQ(s, i, true) {
        const struct ds_session_req *r = &s->req[i];
        if (r->how == DS_HOW_PEBS || r->how == DS_HOW_APEBS)
            s->pebs_bits |= req_bit(r);
        if (r->how == DS_HOW_OVERFLOW)
            s->ovf_bits |= req_bit(r);
        if (r->how == DS_HOW_COUNT)
            s->cnt_bits |= req_bit(r);
        if (r->how == DS_HOW_NB_OVERFLOW)
            s->nb_armed |= 1u << r->idx;
        s->slots |= (r->rq.groups & DS_GROUP_METRICS) != 0;
    }
    if (s->slots)
        s->cnt_bits |= 1ull << (32 + SES_SLOTS_FIXED);
    s->gctl = v2(s) ? (s->pebs_bits | s->ovf_bits | s->cnt_bits) : 0;
    /* DS_GROUP_METRICS: GLOBAL_CTRL bit 48 EN_PERF_METRICS, without which
     * PERF_METRICS is not updated (Linux intel_set_masks sets it for
     * INTEL_PMC_IDX_METRIC_BASE; intel_ctrl has it with perf_metrics) */
    if (s->slots && v2(s) && s->cpu->caps.perf_metrics)
        s->gctl |= SES_EN_PERF_METRICS;
    s->data_cfg = ds__ses_data_cfg(s);
    unsigned npebs = 0;
    SES_FOR_REQ(s, i, true)
        if (is_pebs(&s->req[i])) {
            s->one_pebs = i;
            npebs++;
        }
    if (npebs != 1)
        s->one_pebs = DS_SESSION_MAX_REQ;
    s->pev.req = s->one_pebs; /* ses_one_sink's sample: req fixed, pebs/ip per record */
    s->pev.pebs = NULL; /* (pev.ip is set with pev.pebs per record: ses_one_sink) */
    s->use_area = has_how(s, DS_HOW_PEBS) || has_how(s, DS_HOW_NB_PEBS) || has_how(s, DS_HOW_BTS);
    s->use_apebs = has_how(s, DS_HOW_APEBS);
}

/* --- start: buffers carved from the region ------------------------------------ */

/* Records of @d bytes in @bytes, with a 32-bit division (an i386 build
 * must not call libgcc's __udivdi3); parts above 4 GiB count as 4 GiB. */
static uint32_t div32(uint64_t bytes, uint32_t d)
{
    return (bytes > 0xFFFFFFFFu ? 0xFFFFFFFFu : (uint32_t)bytes) / d;
}

/* The PEBS part's records (DS-area or NetBurst PEBS): Core 2/Atom format
 * 0 at most 4 KiB (DS_ERR_PEBS_BUF_4K), the threshold margin records short. */
static int plan_pebs(const struct ds_session *s, uint64_t data_cfg, struct ses_bufplan *o)
{
    uint32_t rsz = ds_pebs_record_size(s->fmt, data_cfg), margin = 0;
    int e = ds_pebs_thresh_margin(s->cpu, s->fmt, &margin);
    if (e)
        return e;
    if (s->fmt == DS_PEBS_FMT_0 && o->pp > SES_PAGE)
        o->pp = SES_PAGE;
    uint64_t n = rsz ? div32(o->pp, rsz) : 0;
    if (n > 0xFFFF0000u)
        n = 0xFFFF0000u;
    if (n < margin + 1u)
        return DS_ERR_SESSION_BUF_SMALL;
    o->pebs_n = (uint32_t)n;
    o->pebs_rsz = rsz;
    o->pebs_thr = (uint32_t)(n - margin);
    return DS_OK;
}

/* The BTS part's records: interrupt mode leaves the margin, circular none. */
static int plan_bts(const struct ds_session *s, struct ses_bufplan *o)
{
    SES_FOR_REQ(s, i, true) {
        if (s->req[i].how != DS_HOW_BTS)
            continue;
        uint32_t bsz = s->layout == DS_LAYOUT_64 ? DS_BTS_REC64_SIZE : DS_BTS_REC32_SIZE;
        bool intr = s->req[i].rq.mode == DS_TRACE_BTS;
        uint64_t n = div32(o->bp, bsz);
        if (n > 0xFFFF0000u)
            n = 0xFFFF0000u;
        if (n < (intr ? DS_THRESH_MARGIN + 1u : 1u))
            return DS_ERR_SESSION_BUF_SMALL;
        o->bts_n = (uint32_t)n;
        o->bts_rsz = bsz;
        o->bts_thr = intr ? (uint32_t)(n - DS_THRESH_MARGIN) : 0;
    }
    return DS_OK;
}

DS_COLD int ds__ses_bufplan(const struct ds_session *s, uint64_t data_cfg, struct ses_bufplan *o)
{
    ds__zero(o, sizeof(*o));
    bool pebs_ds = has_how(s, DS_HOW_PEBS) || has_how(s, DS_HOW_NB_PEBS), bts = has_how(s, DS_HOW_BTS);
    o->apebs = has_how(s, DS_HOW_APEBS);
    o->area = pebs_ds || bts;
    if (!o->area && !o->apebs)
        return DS_OK;
    uint64_t lin0 = s->cfg.mem_linear ? s->cfg.mem_linear : (uint64_t)(uintptr_t)s->cfg.mem;
    o->off = align_up(lin0, SES_PAGE) - lin0;
    uint64_t area = o->area ? SES_PAGE : 0;
    if (!s->cfg.mem || s->cfg.bytes < o->off + area)
        return DS_ERR_SESSION_BUF_SMALL;
    uint64_t rest = s->cfg.bytes - o->off - area;
    if ((pebs_ds || o->apebs) && bts) {
        o->pp = (rest / 2) & ~(uint64_t)(SES_PAGE - 1);
        o->bp = rest - o->pp;
    } else if (bts)
        o->bp = rest;
    else
        o->pp = rest;
    int e = pebs_ds ? plan_pebs(s, data_cfg, o) : DS_OK;
    if (!e && bts)
        e = plan_bts(s, o);
    if (e || !o->apebs)
        return e;
    if (o->pp < SES_PAGE)
        return DS_ERR_SESSION_BUF_SMALL;
    while (o->apebs_code < DS_APEBS_SIZE_CODE_MAX && ((uint64_t)SES_PAGE << (o->apebs_code + 1)) <= o->pp)
        o->apebs_code++;
    return DS_OK;
}

/* DS area in the first page, then the PEBS part, then the BTS part. */
static int setup_area(struct ds_session *s, unsigned char *m, uint64_t lin, const struct ses_bufplan *o)
{
    struct ds_area_config ac;
    ds__zero(&ac, sizeof(ac));
    ac.area = (union ds_area *)(void *)m;
    ac.area_linear = lin;
    ac.la57 = ds__ses_lin_la57(s->cpu); /* the width init checked the region against */
    if (o->pebs_n) {
        ac.pebs = (struct ds_buf_config){ m + SES_PAGE, lin + SES_PAGE, (size_t)o->pebs_n * o->pebs_rsz, o->pebs_thr };
        ac.pebs_data_cfg = s->data_cfg;
    }
    if (o->bts_n)
        ac.bts = (struct ds_buf_config){ m + SES_PAGE + o->pp, lin + SES_PAGE + o->pp, (size_t)o->bts_n * o->bts_rsz,
                                         o->bts_thr };
    return ds_area_setup(&s->ctx, s->cpu, &ac);
}

/* Architectural PEBS buffer: the largest 4 KiB << code that fits (the
 * plan's); default threshold (arch_pebs.h: buffer - 4 KiB, or one record
 * per PMI at 4 KiB). */
static int setup_apebs(struct ds_session *s, unsigned char *m, uint64_t phys, unsigned code)
{
    struct ds_arch_pebs_config ac = { m, phys, code, 0 };
    return ds_arch_pebs_setup(&s->ap, s->cpu, &ac);
}

/* Split the caller's region into 4 KiB aligned parts (the alignment is taken
 * on the linear address; mem_phys must be aligned alike): ds__ses_bufplan. */
DS_COLD int ds__ses_carve(struct ds_session *s)
{
    struct ses_bufplan o;
    int e = ds__ses_bufplan(s, s->data_cfg, &o);
    if (e || (!o.area && !o.apebs))
        return e;
    uint64_t lin0 = s->cfg.mem_linear ? s->cfg.mem_linear : (uint64_t)(uintptr_t)s->cfg.mem;
    unsigned char *m = (unsigned char *)s->cfg.mem + o.off;
    e = o.area ? setup_area(s, m, lin0 + o.off, &o) : DS_OK;
    if (!e && o.apebs) {
        uint64_t ph = s->cfg.mem_phys ? s->cfg.mem_phys : (uint64_t)(uintptr_t)s->cfg.mem;
        e = setup_apebs(s, m + (o.area ? SES_PAGE : 0), ph + o.off + (o.area ? SES_PAGE : 0), o.apebs_code);
    }
    return e;
}
