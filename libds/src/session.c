/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Sessions (session.h, issue 16): the building blocks wired in the order of
 * the kernel's hand-wired e2e flows, choosing counters, formats, buffers
 * and the PMI configuration for the caller. Only public libds functions are
 * called (plus ds_msr_read/_write to save and restore MSRs).
 */
#include <ds/session.h>
#include <ds/msr.h>
#include "internal.h"

/* The generic-event table (event.h, event.c). */
static int lookup_event(const struct ds_cpu *cpu, enum ds_event ev, struct ds_event_desc *d)
{
    return ds_event_lookup(cpu, ev, d);
}

static void uarch_of(const struct ds_cpu *cpu, enum ds_uarch *u)
{
    if (ds_uarch_of(cpu, u) != DS_OK)
        *u = DS_UARCH_UNKNOWN;
}

#define SES_PAGE 4096u
#define SES_SLOTS_FIXED 3u /* TOPDOWN.SLOTS: fixed counter 3 (SDM "Performance Metrics"; Linux INTEL_PMC_IDX_FIXED_SLOTS) */
#define SES_EN_PERF_METRICS (1ull << 48) /* IA32_PERF_GLOBAL_CTRL (Linux GLOBAL_CTRL_EN_PERF_METRICS) */
#define SES_FIXED_BITS(g) (((g) >> 32) & 0xFFFFull) /* fixed counters of a GLOBAL_CTRL value, not bit 48 */
#define SES_GROUPS_KNOWN (DS_GROUP_ALL | DS_GROUP_CNTR | DS_GROUP_METRICS)

static uint64_t align_up(uint64_t v, uint64_t a) { return (v + a - 1) & ~(a - 1); }

static bool fam6(const struct ds_cpu *cpu) { return !cpu->caps.netburst; }

/* Request i of @s, in the order added, while @go holds: the one request
 * loop of this file. Slots from nreq on are always zero (ds_session_add
 * fills req[nreq] only on success) and most loops skip DS_HOW_NONE, so a
 * bound mutated in one loop alone (< -> <=) was equivalent there; written
 * once, every loop (used_counters among them) sees it (issue 10). */
#define SES_FOR_REQ(s, i, go) for (unsigned i = 0; (go) && i < (s)->nreq; i++)

/* --- init ------------------------------------------------------------------ */

/* Does [a, a + an) meet [b, b + bn)? (both non-wrapping) */
static bool meets(uintptr_t a, size_t an, uintptr_t b, size_t bn)
{
    return a < b + bn && b < a + an;
}

/* Linear-address width: CPUID 80000008H:EAX[15:8] (SDM Vol. 2A), 48 where
 * the leaf is absent or says less; the DS area and buffers are canonical
 * at that width (SDM Vol. 3B "DS Save Area": 64-bit linear addresses). */
static bool lin_la57(const struct ds_cpu *cpu)
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
    bool la57 = lin_la57(cpu);
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

int ds_session_init(struct ds_session *s, struct ds_cpu *cpu, const struct ds_session_config *c)
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

/* --- request resolution -------------------------------------------------- */

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

static bool has_how(const struct ds_session *s, enum ds_session_how h)
{
    SES_FOR_REQ(s, i, true)
        if (s->req[i].how == h)
            return true;
    return false;
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
static int pebs_format(struct ds_session *s, enum ds_pebs_fmt *f)
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
    int e = pebs_format(s, &f);
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

/* Start and reload values of a family-6 counter request. */
static int period_values(struct ds_session *s, struct ds_session_req *r)
{
    if (!fam6(s->cpu))
        return DS_OK; /* pick_nb did it */
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

/* DS_COUNT: count from 0 without EVTSEL.INT, for the counters group. The
 * fixed counter of the event's row where it exists and is free (the
 * architectural fixed events: SDM "Fixed-Function Performance Counters"),
 * else the lowest free GP counter; counters the PMI handler refuses
 * (pmi_takes) are skipped as for sampling. */
static int add_count(struct ds_session *s, struct ds_session_req *r)
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

/* Choose how to serve a counting request: PEBS (AUTO, PRECISE), else overflow. */
static int add_counter_req(struct ds_session *s, struct ds_session_req *r)
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

int ds_session_add(struct ds_session *s, const struct ds_request *rq, unsigned *out_id)
{
    if (!s || !rq)
        return DS_ERR_NULL;
    if (s->state != DS_SESSION_READY)
        return DS_ERR_SESSION_STATE;
    if (s->nreq >= DS_SESSION_MAX_REQ)
        return DS_ERR_SESSION_TOO_MANY;
    int e = check_request(rq);
    if (e)
        return e;
    struct ds_session_req r;
    ds__zero(&r, sizeof(r));
    r.rq = *rq;
    struct ds_nb_alloc nba = s->nba;
    enum ds_pebs_fmt fmt = s->fmt;
    if (rq->mode == DS_COUNT)
        e = add_count(s, &r);
    else
        e = is_bts_mode(rq->mode) ? add_bts(s, &r) : add_counter_req(s, &r);
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

/* --- start: plan, save, carve, program ------------------------------------- */

static bool v2(const struct ds_session *s)
{
    return fam6(s->cpu) && s->cpu->caps.perfmon_version >= 2;
}

static uint64_t req_bit(const struct ds_session_req *r)
{
    return r->kind == DS_CTR_FIXED ? 1ull << (32 + r->idx) : 1ull << r->idx;
}

static bool is_pebs(const struct ds_session_req *r)
{
    return r->how == DS_HOW_PEBS || r->how == DS_HOW_APEBS || r->how == DS_HOW_NB_PEBS;
}

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

/* Arch PEBS with a counters group in some request: every counter of the
 * session is a member of it (the group records s->gctl's counters). */
static bool apebs_cntr(const struct ds_session *s)
{
    SES_FOR_REQ(s, i, s->use_apebs)
        if (s->req[i].how == DS_HOW_APEBS && (s->req[i].rq.groups & (DS_GROUP_CNTR | DS_GROUP_METRICS)))
            return true;
    return false;
}

/* Arch-PEBS CFG_C groups of a request (Linux intel_pmu_enable_event_ext:
 * CNTR_GP / CNTR_FIXED where the group's GP / fixed masks are not empty,
 * CNTR_METRICS with metrics, CNTR_ALLOW on every member of a counter group,
 * all masked with the CPUID.(23H,4) caps: cntr_group_ok checked). */
static uint64_t apebs_groups(const struct ds_session *s, uint32_t g)
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

static void plan(struct ds_session *s)
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
    SES_FOR_REQ(s, i, true) {
        const struct ds_session_req *r = &s->req[i];
        if (r->how == DS_HOW_PEBS && ds_pebs_fmt_adaptive(s->fmt) && s->cpu->caps.pebs_baseline)
            s->data_cfg |= data_cfg_of(s, r->rq.groups) | data_cfg_cntr(s, r->rq.groups);
    }
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

/* Read @msr once and remember it, restored through @wmsr at teardown.
 * Every read precedes every write (save_all runs before carve/program), so
 * a second save of an MSR would hold the same value: the search only keeps
 * the table small. It walks a pointer to the end of this start's entries,
 * never past it: entries beyond nsaved are a previous start's and must not
 * count as saved (test_restore's second cycle). (An index loop from 0 gave
 * an equivalent mutant, 0 -> 1: entry 0 is always save_all's first MSR,
 * GLOBAL_CTRL or DEBUGCTL, saved once.) */
static int save1(struct ds_session *s, uint32_t msr, uint32_t wmsr)
{
    for (const __typeof__(*s->saved) *p = s->saved; p != s->saved + s->nsaved; p++)
        if (p->msr == msr)
            return DS_OK;
    if (s->nsaved >= DS_SESSION_MAX_SAVED)
        return DS_ERR_SESSION_SAVE;
    uint64_t v;
    if (ds_msr_read(s->cpu, msr, &v))
        return DS_ERR_MSR_FAULT;
    s->saved[s->nsaved].msr = msr;
    s->saved[s->nsaved].wmsr = wmsr;
    s->saved[s->nsaved].val = v;
    s->nsaved++;
    return DS_OK;
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
        e = save1(s, DS_MSR_IA32_FIXED_CTR_CTRL, DS_MSR_IA32_FIXED_CTR_CTRL);
        return e ? e : save1(s, m, m);
    }
    uint32_t sel = v6 ? DS_PMC_MSR_GP_CFG_A(n) : DS_MSR_IA32_PERFEVTSEL0 + n;
    uint32_t rd = v6 ? DS_PMC_MSR_GP_CTR(n) : DS_MSR_IA32_PMC0 + n;
    uint32_t wr = v6 ? rd : (c->fw_write ? DS_MSR_IA32_A_PMC0 + n : rd);
    e = save1(s, sel, sel);
    return e ? e : save1(s, rd, wr);
}

/* The CFG_C member_allow writes (arch PEBS with a counters group). */
static int save_allow(struct ds_session *s, const struct ds_session_req *r)
{
    uint32_t m = ds_arch_pebs_cfg_c_msr(r->kind, r->idx);
    return apebs_cntr(s) ? save1(s, m, m) : DS_OK;
}

static int save_req(struct ds_session *s, const struct ds_session_req *r)
{
    int e = DS_OK;
    switch (r->how) {
    case DS_HOW_NB_PEBS:
    case DS_HOW_NB_OVERFLOW:
        e = save1(s, r->nbas.cccr_msr, r->nbas.cccr_msr);
        if (!e)
            e = save1(s, r->nbas.escr_msr, r->nbas.escr_msr);
        if (!e)
            e = save1(s, r->nbas.counter_msr, r->nbas.counter_msr);
        if (!e && r->nb_tagged)
            e = save1(s, r->nbtag.escr_msr, r->nbtag.escr_msr);
        return e;
    case DS_HOW_APEBS: {
        uint32_t m = ds_arch_pebs_cfg_c_msr(r->kind, r->idx);
        e = save1(s, m, m);
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

static int save_all(struct ds_session *s)
{
    int e = DS_OK;
    bool nbp = has_how(s, DS_HOW_NB_PEBS), ldl = false;
    SES_FOR_REQ(s, i, true)
        ldl |= s->req[i].rq.ldlat != 0;
#define SAVE(m) do { if (!e) e = save1(s, (m), (m)); } while (0)
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

/* Records of @d bytes in @bytes, with a 32-bit division (an i386 build
 * must not call libgcc's __udivdi3); parts above 4 GiB count as 4 GiB. */
static uint32_t div32(uint64_t bytes, uint32_t d)
{
    return (bytes > 0xFFFFFFFFu ? 0xFFFFFFFFu : (uint32_t)bytes) / d;
}

/* DS area in the first page, then the PEBS part, then the BTS part. */
static int setup_area(struct ds_session *s, unsigned char *m, uint64_t lin, uint64_t pp, uint64_t bp)
{
    struct ds_area_config ac;
    ds__zero(&ac, sizeof(ac));
    ac.area = (union ds_area *)(void *)m;
    ac.area_linear = lin;
    ac.la57 = lin_la57(s->cpu); /* the width init checked the region against */
    if (has_how(s, DS_HOW_PEBS) || has_how(s, DS_HOW_NB_PEBS)) {
        uint32_t rsz = ds_pebs_record_size(s->fmt, s->data_cfg), margin = 0;
        int e = ds_pebs_thresh_margin(s->cpu, s->fmt, &margin);
        if (e)
            return e;
        if (s->fmt == DS_PEBS_FMT_0 && pp > SES_PAGE)
            pp = SES_PAGE; /* Core 2/Atom: PEBS buffer <= 4 KiB (DS_ERR_PEBS_BUF_4K) */
        uint64_t n = rsz ? div32(pp, rsz) : 0;
        if (n > 0xFFFF0000u)
            n = 0xFFFF0000u;
        if (n < margin + 1u)
            return DS_ERR_SESSION_BUF_SMALL;
        ac.pebs = (struct ds_buf_config){ m + SES_PAGE, lin + SES_PAGE, (size_t)(n * rsz), (uint32_t)(n - margin) };
        ac.pebs_data_cfg = s->data_cfg;
    }
    SES_FOR_REQ(s, i, true) {
        if (s->req[i].how != DS_HOW_BTS)
            continue;
        uint32_t bsz = s->layout == DS_LAYOUT_64 ? DS_BTS_REC64_SIZE : DS_BTS_REC32_SIZE;
        bool intr = s->req[i].rq.mode == DS_TRACE_BTS;
        uint64_t n = div32(bp, bsz);
        if (n > 0xFFFF0000u)
            n = 0xFFFF0000u;
        if (n < (intr ? DS_THRESH_MARGIN + 1u : 1u))
            return DS_ERR_SESSION_BUF_SMALL;
        ac.bts = (struct ds_buf_config){ m + SES_PAGE + pp, lin + SES_PAGE + pp, (size_t)(n * bsz),
                                         intr ? (uint32_t)(n - DS_THRESH_MARGIN) : 0 };
    }
    return ds_area_setup(&s->ctx, s->cpu, &ac);
}

/* Architectural PEBS buffer: the largest 4 KiB << code that fits; default
 * threshold (arch_pebs.h: buffer - 4 KiB, or one record per PMI at 4 KiB). */
static int setup_apebs(struct ds_session *s, unsigned char *m, uint64_t phys, uint64_t pp)
{
    if (pp < SES_PAGE)
        return DS_ERR_SESSION_BUF_SMALL;
    unsigned code = 0;
    while (code < DS_APEBS_SIZE_CODE_MAX && ((uint64_t)SES_PAGE << (code + 1)) <= pp)
        code++;
    struct ds_arch_pebs_config ac = { m, phys, code, 0 };
    return ds_arch_pebs_setup(&s->ap, s->cpu, &ac);
}

/* Split the caller's region into 4 KiB aligned parts (the alignment is taken
 * on the linear address; mem_phys must be aligned alike). */
static int carve(struct ds_session *s)
{
    bool pebs = s->use_apebs || has_how(s, DS_HOW_PEBS) || has_how(s, DS_HOW_NB_PEBS);
    bool bts = has_how(s, DS_HOW_BTS);
    if (!s->use_area && !s->use_apebs)
        return DS_OK;
    uint64_t lin0 = s->cfg.mem_linear ? s->cfg.mem_linear : (uint64_t)(uintptr_t)s->cfg.mem;
    uint64_t off = align_up(lin0, SES_PAGE) - lin0;
    uint64_t area = s->use_area ? SES_PAGE : 0;
    if (!s->cfg.mem || s->cfg.bytes < off + area)
        return DS_ERR_SESSION_BUF_SMALL;
    uint64_t rest = s->cfg.bytes - off - area, pp = 0, bp = 0;
    if (pebs && bts) {
        pp = (rest / 2) & ~(uint64_t)(SES_PAGE - 1);
        bp = rest - pp;
    } else if (bts)
        bp = rest;
    else
        pp = rest;
    unsigned char *m = (unsigned char *)s->cfg.mem + off;
    int e = s->use_area ? setup_area(s, m, lin0 + off, pp, bp) : DS_OK;
    if (!e && s->use_apebs) {
        uint64_t ph = s->cfg.mem_phys ? s->cfg.mem_phys : (uint64_t)(uintptr_t)s->cfg.mem;
        e = setup_apebs(s, m + area, ph + off + area, pp);
    }
    return e;
}

static unsigned fixed_ctrl(const struct ds_session_req *r)
{
    return ((r->evtsel & DS_EVTSEL_OS) ? DS_FIXED_OS : 0) | ((r->evtsel & DS_EVTSEL_USR) ? DS_FIXED_USR : 0);
}

/* DS-area PEBS on one counter (e2e do_run order: reset slot, counter, enable). */
static int program_ds_pebs(struct ds_session *s, const struct ds_session_req *r)
{
    struct ds_cpu *cpu = s->cpu;
    bool adaptive = s->data_cfg != 0;
    int e = ds_area_set_reset(&s->ctx, r->kind, r->idx, r->reset);
    if (r->kind == DS_CTR_FIXED) {
        if (!e)
            e = ds_pmc_fixed_program(cpu, r->idx, fixed_ctrl(r), adaptive, r->start);
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
        e = r->kind == DS_CTR_FIXED ? ds_pmc_fixed_program(cpu, r->idx, fixed_ctrl(r), false, r->start)
                                    : ds_pmc_gp_program(cpu, r->idx, r->evtsel, r->start);
        /* CFG_C reload [31:0]: -period (Linux -period & ARCH_PEBS_RELOAD) */
        return e ? e : ds_arch_pebs_counter_enable(&s->ap, r->kind, r->idx, (uint32_t)r->reset,
                                                    apebs_groups(s, r->rq.groups));
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
        e = r->kind == DS_CTR_FIXED ? ds_pmc_fixed_program(cpu, r->idx, fixed_ctrl(r), false, 0)
                                    : ds_pmc_gp_program(cpu, r->idx, r->evtsel, 0);
        return e ? e : member_allow(s, r);
    default:
        return DS_OK;
    }
}

/* --- PMI delivery ------------------------------------------------------------- */

static void deliver(struct ds_session *s, unsigned i, const struct ds_pebs_sample *p, uint64_t ip)
{
    s->ev.req = i;
    s->ev.pebs = p;
    s->ev.ip = ip;
    if (s->cfg.on_sample)
        s->cfg.on_sample(s->cfg.arg, &s->ev);
}

/* PEBS record -> the request(s) of the counter(s) that produced it
 * (ds_pebs_attribute; arch PEBS: the record's applicable counters). A record
 * no request claims is refused (counted lost_rejected by the drain). */
__attribute__((noinline)) static int pebs_dispatch(struct ds_session *s, const struct ds_pebs_sample *p)
{
    uint64_t ctrs = 0;
    if (p->fmt == DS_PEBS_FMT_ARCH)
        ctrs = p->counters & s->pebs_bits;
    else if (ds_pebs_attribute(p, s->pebs_bits, &ctrs) != DS_OK)
        ctrs &= s->pebs_bits;
    bool any = false;
    SES_FOR_REQ(s, i, true) {
        const struct ds_session_req *r = &s->req[i];
        if (r->how == DS_HOW_NB_PEBS || (is_pebs(r) && (ctrs & req_bit(r)))) {
            deliver(s, i, p, p->ip);
            any = true;
        }
    }
    return any ? 0 : 1;
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
    s->cfg.on_sample(s->cfg.arg, &s->pev);
    return 0;
}

/* The drain's sink otherwise: route each record (pebs_dispatch). */
static int ses_pebs_sink(void *arg, const struct ds_pebs_sample *p)
{
    struct ds_session *s = arg;
    if (s->one_pebs >= DS_SESSION_MAX_REQ)
        return pebs_dispatch(s, p);
    deliver(s, s->one_pebs, p, p->ip);
    return 0;
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

static int pmi_setup(struct ds_session *s)
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

/* Everything after the saves, in do_run's order; counters stopped first. */
static int program_all(struct ds_session *s)
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
        e = pmi_setup(s);
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

/* Write every saved MSR back, newest first; the ones whose write fails
 * stay saved (in order) for the next teardown, the others are forgotten. */
_Static_assert(DS_SESSION_MAX_SAVED <= 64, "restore_saved keeps a 64-bit mask");
static int restore_saved(struct ds_session *s)
{
    uint64_t failed = 0;
    for (unsigned i = s->nsaved; i-- > 0;)
        if (ds_msr_write(s->cpu, s->saved[i].wmsr, s->saved[i].val))
            failed |= 1ull << i;
    unsigned n = 0;
    for (unsigned i = 0; i < s->nsaved; i++)
        if ((failed >> i) & 1)
            s->saved[n++] = s->saved[i];
    s->nsaved = n;
    return n ? DS_ERR_MSR_FAULT : DS_OK;
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
    KEEP(restore_saved(s));
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

unsigned ds_session_unrestored(const struct ds_session *s)
{
    return s && s->started ? s->nsaved : 0;
}

int ds_session_start(struct ds_session *s)
{
    if (!s)
        return DS_ERR_NULL;
    if (s->state != DS_SESSION_READY || s->nreq == 0)
        return DS_ERR_SESSION_STATE;
    plan(s);
    s->nsaved = 0;
    ds__zero(&s->pebs_stats, sizeof(s->pebs_stats)); /* session.h: cleared at start */
    ds__zero(&s->bts_stats, sizeof(s->bts_stats));
    /* memory only (ds_area_setup, ds_arch_pebs_setup): every refusal of
     * the region comes before the first MSR access */
    int e = carve(s);
    /* the PEBS errata gates (Sandy Bridge microcode: IA32_BIOS_SIGN_ID
     * only) before any PMU MSR, not after programming the counters */
    if (!e && has_how(s, DS_HOW_PEBS))
        e = ds_pmc_pebs_errata_check(s->cpu, s->cfg.pebs_flags);
    if (!e)
        e = save_all(s); /* reads only */
    if (e) {
        forget_hw(s); /* nothing written: nothing to undo (not started: teardown refuses) */
        return e;
    }
    s->started = true;
    e = program_all(s);
    if (e) {
        (void)unwind(s);
        return e;
    }
    s->state = DS_SESSION_RUNNING;
    return DS_OK;
}

/* --- PMI, stop, drain, teardown ----------------------------------------------- */

/* Sum one drain's ds_drain_stats (pebs.h) into the session's totals
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

int ds_session_stop(struct ds_session *s)
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

int ds_session_teardown(struct ds_session *s)
{
    if (!s)
        return DS_ERR_NULL;
    if (!s->started)
        return DS_ERR_SESSION_STATE;
    int first = s->state == DS_SESSION_RUNNING ? ds_session_stop(s) : DS_OK;
    int e = unwind(s);
    return first ? first : e;
}

/* --- describe ------------------------------------------------------------------ */

#if DS_CONFIG_FORMAT
static const char *fmt_name(enum ds_pebs_fmt f)
{
    switch (f) {
    case DS_PEBS_FMT_0: return "PEBS format 0";
    case DS_PEBS_FMT_1: return "PEBS format 1";
    case DS_PEBS_FMT_2: return "PEBS format 2";
    case DS_PEBS_FMT_3: return "PEBS format 3";
    case DS_PEBS_FMT_4: return "PEBS format 4 (adaptive)";
    case DS_PEBS_FMT_5: return "PEBS format 5 (adaptive)";
    case DS_PEBS_FMT_6: return "PEBS format 6 (adaptive)";
    case DS_PEBS_FMT_NB32: return "NetBurst PEBS (32-bit DS)";
    case DS_PEBS_FMT_NB64: return "NetBurst PEBS (64-bit DS)";
    case DS_PEBS_FMT_ARCH: return "architectural PEBS";
    default: return "no PEBS";
    }
}

static const char *how_name(const struct ds_session_req *r)
{
    switch (r->how) {
    case DS_HOW_PEBS: return "PEBS";
    case DS_HOW_APEBS: return "arch PEBS";
    case DS_HOW_NB_PEBS: return "NetBurst PEBS, replay tagging";
    case DS_HOW_OVERFLOW: return "overflow PMI";
    case DS_HOW_NB_OVERFLOW: return "overflow PMI (CCCR.OVF_PMI)";
    case DS_HOW_BTS: return r->rq.mode == DS_TRACE_BTS ? "BTS linear, threshold PMI" : "BTS circular";
    case DS_HOW_COUNT: return "count only (counters group)";
    default: return "?";
    }
}

static const char *const freeze_names[] = { "none", "legacy", "streamlined" };

static void describe_req(struct ds__sb *b, const struct ds_session *s, unsigned i)
{
    const struct ds_session_req *r = &s->req[i];
    ds__sb_puts(b, "req ");
    ds__sb_dec(b, i);
    ds__sb_puts(b, ": ");
    ds__sb_puts(b, r->rq.raw.set ? "raw" : (r->rq.event == DS_EVENT_NONE ? "-" : r->name));
    if (r->how == DS_HOW_BTS) {
        ds__sb_puts(b, ", ");
        ds__sb_puts(b, how_name(r));
        ds__sb_putc(b, '\n');
        return;
    }
    if (r->how == DS_HOW_NB_PEBS || r->how == DS_HOW_NB_OVERFLOW) {
        ds__sb_puts(b, " ESCR ");
        ds__sb_hex(b, r->nbas.escr_msr, 0);
        ds__sb_puts(b, "=");
        ds__sb_hex(b, r->nbas.escr_val, 0);
        ds__sb_puts(b, " on counter ");
        ds__sb_dec(b, r->idx);
        ds__sb_puts(b, r->idx == 16 ? " (IQ_COUNTER4)" : "");
    } else {
        ds__sb_puts(b, " evtsel ");
        ds__sb_hex(b, r->evtsel, 0);
        ds__sb_puts(b, r->kind == DS_CTR_FIXED ? " on FIXED" : " on PMC");
        ds__sb_dec(b, r->idx);
    }
    ds__sb_puts(b, ", ");
    ds__sb_puts(b, how_name(r));
    ds__sb_puts(b, ", period ");
    ds__sb_dec(b, r->rq.period);
    ds__sb_puts(b, " start ");
    ds__sb_hex(b, r->start, 0);
    ds__sb_putc(b, '\n');
}

static void describe_bufs(struct ds__sb *b, const struct ds_session *s)
{
    if (s->ctx.setup && s->ctx.pebs.mem) {
        ds__sb_puts(b, "PEBS buffer: ");
        ds__sb_dec(b, s->ctx.pebs.nrec);
        ds__sb_puts(b, " records of ");
        ds__sb_dec(b, s->ctx.pebs.rec_size);
        ds__sb_puts(b, " bytes, threshold ");
        ds__sb_dec(b, s->ctx.pebs.thresh_records);
        ds__sb_puts(b, " records, data_cfg ");
        ds__sb_hex(b, s->data_cfg, 0);
        ds__sb_putc(b, '\n');
    }
    if (s->ap.setup) {
        ds__sb_puts(b, "arch PEBS buffer: ");
        ds__sb_dec(b, s->ap.bytes);
        ds__sb_puts(b, " bytes, threshold ");
        ds__sb_dec(b, s->ap.thresh);
        ds__sb_puts(b, " bytes\n");
    }
    if (s->ctx.setup && s->ctx.bts.mem) {
        ds__sb_puts(b, "BTS buffer: ");
        ds__sb_dec(b, s->ctx.bts.nrec);
        ds__sb_puts(b, " records, threshold ");
        ds__sb_dec(b, s->ctx.bts.thresh_records);
        ds__sb_puts(b, s->ctx.bts.thresh_records ? "\n" : " (circular)\n");
    }
}

int ds_session_describe(const struct ds_session *s, char *buf, size_t len)
{
    if (!s || !buf)
        return DS_ERR_NULL;
    struct ds__sb b;
    ds__sb_init(&b, buf, len);
    ds__sb_puts(&b, "uarch ");
    ds__sb_puts(&b, ds_uarch_name(s->uarch));
    ds__sb_puts(&b, " (family ");
    ds__sb_hex(&b, s->cpu ? s->cpu->caps.display_family : 0, 2);
    ds__sb_puts(&b, " model ");
    ds__sb_hex(&b, s->cpu ? s->cpu->caps.display_model : 0, 2);
    ds__sb_puts(&b, "), ");
    ds__sb_puts(&b, fmt_name(s->fmt));
    ds__sb_puts(&b, ", freeze ");
    ds__sb_puts(&b, s->state == DS_SESSION_RUNNING || s->state == DS_SESSION_STOPPED
                        ? freeze_names[s->freeze <= DS_FREEZE_STREAMLINED ? s->freeze : 0] : "(chosen at start)");
    ds__sb_putc(&b, '\n');
    for (unsigned i = 0; i < s->nreq && i < DS_SESSION_MAX_REQ; i++)
        describe_req(&b, s, i);
    describe_bufs(&b, s);
    return b.truncated ? DS_ERR_BUFSZ : DS_OK;
}
#else
int ds_session_describe(const struct ds_session *s, char *buf, size_t len)
{
    (void)s;
    if (buf && len)
        buf[0] = '\0';
    return DS_ERR_UNSUPPORTED;
}
#endif
