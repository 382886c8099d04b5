/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The PEBS flows (DS-area formats 0-6; architectural PEBS: apebs.c,
 * NetBurst's runs: netburst.c): the records as DSLOG lines, the checks of a
 * PEBS run (sample count, IPs, data addresses, drain), the format 6
 * counters group and the PEBS runs of a profile. See flow.h.
 */
#include "flow.h"
#include "dsrec_ds.h"

/* --- PEBS records ----------------------------------------------------------- */

/* fmt=arch (docs/records.md): one header for the whole record, from the
 * groups libds decoded in all its fragments, and the fragment count. The
 * counters group is not printed, so its bits are left out of hdr. */
static void arch_dsrec(const struct ds_pebs_sample *s, struct dsrec_pebs *r)
{
    uint64_t h = DSREC_ARCH_BASIC;
    uint32_t size = 16u * s->fragments + DS_APEBS_BASIC_BYTES;
    if (s->present & DS_SAMPLE_MEM) {
        h |= DSREC_ARCH_AUX;
        size += DS_APEBS_AUX_BYTES;
    }
    if (s->present & DS_SAMPLE_GPRS) {
        h |= DSREC_ARCH_GPR;
        size += DS_APEBS_GPR_BYTES;
    }
    if ((s->present & DS_SAMPLE_XMM) && s->xmm) {
        h |= DSREC_ARCH_XMM;
        size += DS_APEBS_XER_BYTES + DS_APEBS_XMM_BYTES;
    }
    if (r->lbr_count) {
        h |= (uint64_t)DS_APEBS_LBR_NUM_VAR << DSREC_ARCH_LBR_SHIFT;
        size += DS_APEBS_LBR_HDR_BYTES + DS_APEBS_LBR_ENTRY_BYTES * r->lbr_count;
    }
    r->hdr = h | size;
    r->frags = s->fragments;
    r->ssp = s->ssp;
}

static void dsrec_groups(const struct ds_pebs_sample *s, struct dsrec_pebs *r);

static void to_dsrec(const struct ds_pebs_sample *s, struct dsrec_pebs *r)
{
    dsrec_pebs_from_sample(s, r);
    r->counter = E.nb ? -1 : E.rec_counter; /* the session's counter; NetBurst: IQ_COUNTER4 */
    dsrec_groups(s, r);
    if (s->fmt == DS_PEBS_FMT_ARCH)
        arch_dsrec(s, r);
}

/* The optional groups of a record: XMM, LBR, the format 6 counters group
 * (DSLOG gpN / fixedN) and its metrics. */
static void dsrec_groups(const struct ds_pebs_sample *s, struct dsrec_pebs *r)
{
    if ((s->present & DS_SAMPLE_XMM) && s->xmm) {
        const uint64_t *x = (const uint64_t *)s->xmm;
        for (unsigned i = 0; i < 16; i++) {
            r->xmm[i][0] = x[2 * i];
            r->xmm[i][1] = x[2 * i + 1];
        }
    }
    if ((s->present & DS_SAMPLE_LBR) && s->lbr) {
        r->lbr_count = s->lbr_count > DSREC_PEBS_LBR_MAX ? DSREC_PEBS_LBR_MAX : s->lbr_count;
        for (uint32_t i = 0; i < r->lbr_count; i++) {
            r->lbr[i].from = s->lbr[i].from;
            r->lbr[i].to = s->lbr[i].to;
            r->lbr[i].info = s->lbr[i].info;
        }
    }
    if (s->present & DS_SAMPLE_CNTRS) {   /* fmt 6 counters group (DSLOG gpN / fixedN) */
        r->cntr_gp_mask = s->cntr_gp_mask;
        r->cntr_fixed_mask = s->cntr_fixed_mask;
        for (unsigned i = 0; i < 16; i++)
            r->cntr_gp[i] = s->cntr_gp[i];
        for (unsigned i = 0; i < 8; i++)
            r->cntr_fixed[i] = s->cntr_fixed[i];
    }
    if (s->present & DS_SAMPLE_METRICS) {
        r->has_metrics = true;
        r->slots = s->topdown_slots;
        r->metrics = s->perf_metrics;
    }
}

int pebs_sink(void *arg, const struct ds_pebs_sample *s)
{
    (void)arg;
    if (E.npebs >= MAX_PEBS) {
        E.pebs_over++;
        return 1;
    }
    uint32_t i = E.npebs++;
    to_dsrec(s, &E.pebs[i]);
    bool evip = (s->present & DS_SAMPLE_EVENTING_IP) != 0;
    E.pinfo[i].check_ip = evip ? s->eventing_ip : s->ip;
    E.pinfo[i].next = !evip && s->ip_is_next;
    /* NetBurst and formats 0-2 store the IP after the instruction (the SDM's
     * "trap-like" records; libds's ip_is_next follows PEBS_TRAP only). */
    if (!evip && (s->fmt == DS_PEBS_FMT_NB32 || s->fmt == DS_PEBS_FMT_NB64 || s->fmt == DS_PEBS_FMT_0))
        E.pinfo[i].next = true;
    E.pinfo[i].has_mem = (s->present & DS_SAMPLE_MEM) != 0;
    E.pinfo[i].mode64 = s->fmt == DS_PEBS_FMT_ARCH && (s->header & DS_APEBS_HDR_MODE64);
    E.pinfo[i].data_addr = s->data_addr;
    return 0;
}

/* --- PEBS checks ------------------------------------------------------------ */

/* The IP a sample names must lie in the workload; a trap-like IP may also be
 * the return address (the sampled instruction was the final RET). */
bool ip_ok(uint32_t i, uint64_t ret_to)
{
    uint64_t ip = E.pinfo[i].check_ip;
    if (ip >= E.lo && ip < E.hi)
        return true;
    return E.pinfo[i].next && ip == ret_to;
}

uint64_t ret_to_of_run(void)
{
    if (!E.model || !E.taken_n || E.taken_n > MAX_TAKEN)
        return 0;
    return E.taken[E.taken_n - 1].to;
}

/* Every sampled IP inside the workload (hardware: >= 75 %), every sampled
 * data address inside the chased array. */
static void pebs_ip_checks(const struct run_cfg *rc)
{
    uint64_t ret_to = ret_to_of_run();
    uint32_t inr = 0, mem_ok = 0, mem_n = 0;
    for (uint32_t i = 0; i < E.npebs; i++) {
        if (ip_ok(i, ret_to))
            inr++;
        if (rc->loads && E.pinfo[i].has_mem) {
            mem_n++;
            uint64_t a = E.pinfo[i].data_addr, b = (uintptr_t)E.chase_arr;
            if (a >= b && a < b + sizeof E.chase_arr && !((a - b) & 3))
                mem_ok++;
        }
    }
    if (E.model)
        check(E.npebs > 0 && inr == E.npebs, "%s: all %u sampled IPs inside %s [%p, %p)", rc->name, E.npebs,
              wl_name(rc->wl), (void *)(uintptr_t)E.lo, (void *)(uintptr_t)E.hi);
    else /* kernel code around the workload also counts on hardware */
        check(E.npebs > 0 && inr * 4 >= E.npebs * 3, "%s: %u of %u sampled IPs inside %s (>= 75%%)", rc->name,
              inr, E.npebs, wl_name(rc->wl));
    if (mem_n)
        check(mem_ok == mem_n, "%s: %u of %u sampled data addresses inside the chased array", rc->name, mem_ok,
              mem_n);
}

/* PEBS runs: the sample count (model rule exactly, hardware tolerance), the
 * sampled IPs and data addresses, the drain accounting; returns the
 * expected sample count. */
uint64_t pebs_run_checks(const struct run_cfg *rc, uint64_t events)
{
    uint64_t expect = dsm_pebs_expected(events, rc->period);
    uint64_t got = E.npebs + E.pebs_over;
    if (E.model) {
        check(got == expect, "%s: %u PEBS samples = floor((%u events - 1) / period %u) = %u (model rule, tolerance 0)",
              rc->name, (unsigned)got, (unsigned)events, (unsigned)rc->period, (unsigned)expect);
    } else {
        uint64_t tol = 2 + expect / 4;
        check(got + tol >= expect && got <= expect + tol,
              "%s: %u PEBS samples ~ %u events / period %u = %u (hardware tolerance +-%u)", rc->name,
              (unsigned)got, (unsigned)events, (unsigned)rc->period, (unsigned)expect, (unsigned)tol);
    }
    pebs_ip_checks(rc);
    check(E.pst.records + lost_of(&E.pst) == E.pst.present && lost_of(&E.pst) == 0,
          "%s: PEBS drain: %u present = %u records + %u lost, none lost", rc->name, (unsigned)E.pst.present,
          (unsigned)E.pst.records, (unsigned)lost_of(&E.pst));
    if (E.model)
        check(E.pst.present == dsm_stats(&E.m)->pebs_written && dsm_stats(&E.m)->pebs_skipped == 0,
              "%s: the model wrote %u PEBS records, all drained", rc->name,
              (unsigned)dsm_stats(&E.m)->pebs_written);
    return expect;
}

/* --- format 6 counters group (flow.h: CNTR_*) ------------------------------ */

/* The counters group's counting side as session requests (DS_COUNT, no
 * PMI): the run's event on the lowest free GP counter (PMC1, PMC0 samples)
 * and instructions on fixed 0; the session counts slots on fixed 3 itself
 * (DS_GROUP_METRICS). IA32_PERF_METRICS is seeded here, after the session
 * saved nothing of it: a record still holding the seed was never updated. */
bool cntr_requests(const struct run_cfg *rc)
{
    struct ds_request c;
    zero(&c, sizeof c);
    c.mode = DS_COUNT;
    c.raw.set = true;
    c.raw.evsel = rc->event;
    c.raw.umask = rc->umask;
    c.raw.nb_metric = -1;
    unsigned a = 0, b = 0;
    bool ok = ds_session_add(&E.ses, &c, &a) == DS_OK;
    c.raw.set = false;
    c.event = DS_EVENT_INSTRUCTIONS;
    ok = ok && ds_session_add(&E.ses, &c, &b) == DS_OK;
    ok = ok && E.ses.req[a].kind == DS_CTR_GP && E.ses.req[a].idx == 1 && E.ses.req[b].kind == DS_CTR_FIXED &&
         E.ses.req[b].idx == 0;
    return ok && (!E.cpu->caps.perf_metrics || ds_msr_write(E.cpu, 0x329, CNTR_METRICS_SEED) == DS_OK);
}

/* The MSR_PEBS_DATA_CFG the run means (the record size check_cntr expects):
 * memory info and GPRs as every adaptive session run, the counters group
 * above, metrics with PERF_METRICS. */
uint64_t cntr_data_cfg(void)
{
    return DS_PEBS_DATACFG_MEMINFO | DS_PEBS_DATACFG_GPRS | CNTR_DATA_CFG |
           (E.cpu->caps.perf_metrics ? DS_PEBS_DATA_CFG_METRICS : 0);
}

/* Every record carries the group with exactly the masks asked for, its size
 * counts the group, and PMC1 / fixed 0 grow between records: by exactly one
 * period on the model (the event is instructions: the records are a period
 * apart, and every instruction counts on fixed 0 too), by at least one
 * period on hardware (skid and the PMI path count as well). */
void check_cntr(const struct run_cfg *rc, uint64_t data_cfg)
{
    uint32_t bad_mask = 0, bad_size = 0, bad_step = 0, bad_met = 0;
    uint32_t want_size = ds_pebs_record_size(DS_PEBS_FMT_6, data_cfg);
    bool met = (data_cfg & DS_PEBS_DATA_CFG_METRICS) != 0;
    for (uint32_t i = 0; i < E.npebs; i++) {
        const struct dsrec_pebs *r = &E.pebs[i];
        if (!(r->hdr & DSREC_ADAPTIVE_CNTRS) || r->cntr_gp_mask != CNTR_GP_MASK ||
            r->cntr_fixed_mask != CNTR_FIXED_MASK || r->has_metrics != met)
            bad_mask++;
        /* model: IA32_PERF_METRICS updated (EN_PERF_METRICS), slots a period apart;
         * hardware: updated, so never the seed */
        if (met && i && (E.model ? (r->metrics != CNTR_METRICS_MODEL || r->slots - E.pebs[i - 1].slots != rc->period)
                                 : (r->metrics == CNTR_METRICS_SEED || r->slots - E.pebs[i - 1].slots < rc->period)))
            bad_met++;
        if ((r->hdr >> DSREC_ADAPTIVE_SIZE_SHIFT) != want_size)
            bad_size++;
        if (i) {
            uint64_t d1 = E.pebs[i].cntr_gp[1] - E.pebs[i - 1].cntr_gp[1];
            uint64_t d2 = E.pebs[i].cntr_fixed[0] - E.pebs[i - 1].cntr_fixed[0];
            if (E.model ? (d1 != rc->period || d2 != rc->period) : (d1 < rc->period || d2 < rc->period))
                bad_step++;
        }
    }
    check(E.npebs > 1 && bad_mask == 0, "%s: all %u records carry the counters group of PMC0, PMC1 and fixed 0 (%u without)",
          rc->name, E.npebs, bad_mask);
    check(bad_size == 0, "%s: record size %u = 32 + 32 + 144 + 16 + 3 * 8%s (counters group counted; %u differ)",
          rc->name, want_size, met ? " + 16 (slots, metrics)" : "", bad_size);
    if (met)
        check(E.npebs > 1 && bad_met == 0,
              "%s: metrics in every record: slots (fixed 3) grow by %s%u, PERF_METRICS %s (%u off)", rc->name,
              E.model ? "exactly " : "at least ", (unsigned)rc->period, E.model ? "Retiring FFH" : "updated", bad_met);
    check(E.npebs > 1 && bad_step == 0, "%s: PMC1 and fixed 0 grow by %s%u events from record to record (%u steps off)",
          rc->name, E.model ? "exactly " : "at least ", (unsigned)rc->period, bad_step);
}

/* --- the PEBS runs --------------------------------------------------------- */

/* The PEBS runs of the profile appended to @runs (NetBurst's: nb_runs);
 * returns the new count. */
unsigned pebs_runs(struct run_cfg *runs, unsigned nr, enum ds_freeze_mode fz)
{
    const struct ds_caps *caps = &E.cpu->caps;
    bool nb = caps->netburst;
    bool load_ev = !nb && caps->pebs_format >= 3; /* MEM_INST_RETIRED.ALL_LOADS (D0H/81H) */
    if (!caps->pebs_advertised && E.model) {
        E.skipped++;
        ktest_skip("%s: PEBS runs: PEBS not advertised (CPUID.01H:EDX.DS %d, MISC_ENABLE.PEBS_UNAVAILABLE %d)",
                   E.prof_name, caps->ds, caps->pebs_unavailable);
    }
    if (!caps->pebs_advertised)
        return nr;
    if (nb)
        return nb_runs(runs, nr);
    runs[nr++] = (struct run_cfg){.name = "pebs-loop-fixed", .lbr = true, .kind = "pebs", .wl = WL_LOOP, .n = LOOP_N,
                                  .hold_first = true,
                                  .pebs = true, .event = 0xC0, .umask = 0x00, .period = LOOP_PERIOD,
                                  .adaptive_lbr = true, .generic = DS_EVENT_INSTRUCTIONS};
    runs[nr] = (struct run_cfg){.name = "pebs-chase-nmi-freeze", .lbr = true, .kind = "pebs", .wl = WL_CHASE,
                                .n = CHASE_N, .pebs = true, .period = CHASE_IPERIOD, .nmi = true,
                                .freeze = fz, .event = 0xC0, .umask = 0x00};
    if (load_ev) {
        runs[nr].event = 0xD0;
        runs[nr].umask = 0x81;
        runs[nr].loads = true;
        runs[nr].period = CHASE_PERIOD;
        runs[nr].generic = DS_EVENT_LOADS;
    }
    nr++;
    /* PEBS format 6 (Lunar Lake, Arrow Lake-S): the counters group.
     * Its C0H PEBS counter is PMC0: format 6 parts' cores are Lion Cove /
     * Skymont, whose Linux lnc_/grt_pebs_event_constraints have no
     * C0H row (the glc "0xc0, 0xfe" rule, no PEBS on PMC0, is Golden/
     * Redwood Cove); the PRECISE request fails
     * (DS_ERR_SESSION_NOT_PRECISE) if a core ever refuses it. */
    if (caps->pebs_format == 6 && caps->pebs_baseline)
        runs[nr++] = (struct run_cfg){.name = "pebs-loop-cntr", .kind = "pebs", .wl = WL_LOOP, .n = LOOP_N,
                                      .pebs = true, .event = 0xC0, .umask = 0x00, .period = LOOP_PERIOD,
                                      .cntr = true};
    return nr;
}
