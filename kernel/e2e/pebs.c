/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The PEBS flows (DS-area formats 0-6; architectural PEBS: apebs.c,
 * NetBurst's runs: netburst.c): the records as DSLOG lines, the checks of a
 * PEBS run (sample count, IPs, data addresses, drain), the format 6
 * counters group and the PEBS runs of a profile. See flow.h.
 */
#include "flow.h"
#include "dscheck.h"
#include "dsrec_ds.h"

/* --- PEBS records ----------------------------------------------------------- */

static void to_dsrec(const struct ds_pebs_sample *s, struct dsrec_pebs *r)
{
    dsrec_pebs_of(s, E.nb ? -1 : E.rec_counter, r); /* the session's counter; NetBurst: IQ_COUNTER4 */
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

/* --- format 6 counters group (kernel/records/dscheck.h) --------------------- */

static bool check_cb(void *ctx, bool ok, const char *fmt, ...)
{
    va_list ap;
    (void)ctx;
    va_start(ap, fmt);
    ok = vcheck(ok, fmt, ap);
    va_end(ap);
    return ok;
}

/* The MSR_PEBS_DATA_CFG the run means (the record size check_cntr expects):
 * memory info and GPRs as every adaptive session run, the counters group,
 * metrics with PERF_METRICS. */
uint64_t cntr_data_cfg(void)
{
    return dscheck_data_cfg(DS_GROUP_MEM | DS_GROUP_GPRS | DS_GROUP_CNTR |
                                (E.cpu->caps.perf_metrics ? DS_GROUP_METRICS : 0), 0);
}

void check_cntr(const struct run_cfg *rc, uint64_t data_cfg)
{
    struct dscheck_run run = {rc->name, rc->period, E.model, check_cb, NULL};
    dscheck_cntr(&run, E.pebs, E.npebs, data_cfg);
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
