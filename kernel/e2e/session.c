/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * One run through the session API (issue 16), the run driver of every
 * flow: the request from the run table, init / add / start, the workload,
 * stop, the family's checks, teardown, and (model) every MSR as before the
 * run. See flow.h.
 */
#include "flow.h"
#include "dscheck.h"

/* --- session runs (issue 16) ------------------------------------------------
 *
 * Which runs the session API expresses (decided per run kind of run_all's
 * table; the building blocks stay tested by tests/host):
 *  - plain PEBS sampling (pebs-loop-fixed: INST_RETIRED C0H; pebs-chase-*:
 *    MEM_INST_RETIRED.ALL_LOADS D0H/81H or C0H, data-address checks),
 *    DS-area, NetBurst (replay_event NBOGUS + 1stL_cache_load_miss tagging
 *    as a raw NetBurst request) and architectural PEBS: session, with the
 *    generic event the run means (run_cfg.generic: instructions, loads;
 *    libds picks encoding and counter: PREC_DIST on PMC1, FIXED0, ...),
 *    else the raw event/umask (C0H where the format has no load event);
 *  - BTS linear with threshold PMIs (bts-int) and circular (bts-circular):
 *    session, DS_TRACE_BTS / DS_TRACE_BTS_CIRCULAR;
 *  - counter overflow with an LBR snapshot at each PMI (lbr-calls:
 *    DS_EVENT_BRANCHES): session, DS_SAMPLE_OVERFLOW with cfg.lbr;
 *  - what the session hides is driven from outside it: hold_first (LVT PC
 *    masking) and NMI vs fixed vector are the kernel's LVT, not libds, so
 *    they stay as they are; the explicit legacy/streamlined freeze checks
 *    use the session's freeze override (cfg.freeze_set) on the model, auto
 *    on hardware (the old path froze wherever the CPU can, too).
 *  - the format 6 counters group (pebs-loop-cntr): the PEBS request with
 *    DS_GROUP_CNTR (| DS_GROUP_METRICS with PERF_METRICS) plus two DS_COUNT
 *    requests (the run's event on PMC1, instructions on FIXED0), checked
 *    by check_cntr as before.
 * Every run goes through the session; the building blocks themselves stay
 * tested by tests/host.
 */

static void reset_run(void)
{
    E.active = false;
    E.pmi_pending = false;
    E.raised = E.held = E.delivered = 0;
    E.handled = 0;
    E.pmi_err = 0;
    E.nmi_timeouts = 0;
    E.bad_steps = E.dsm_err = 0;
    uint8_t *p = (uint8_t *)&E.pst;
    for (size_t i = 0; i < sizeof E.pst; i++)
        p[i] = 0;
    p = (uint8_t *)&E.bst;
    for (size_t i = 0; i < sizeof E.bst; i++)
        p[i] = 0;
    E.npebs = E.pebs_over = E.nbts = E.bts_over = E.nsnap = E.snap_over = 0;
}

/* The session's sinks: PEBS records and overflow samples, BTS branches, LBR. */
static void ses_on_sample(void *arg, const struct ds_session_sample *s)
{
    (void)arg;
    if (s->pebs)
        (void)pebs_sink(NULL, s->pebs);
    else
        E.ctr_ovf++; /* overflow sample: the counter was reloaded by the session */
}

static void ses_on_branch(void *arg, const struct ds_bts_branch *b)
{
    (void)arg;
    (void)bts_sink(NULL, b);
}

/* ds_session_pmi hands the snapshot it read while frozen (take_snapshot reads lbr_step_buf). */
static void ses_on_lbr(void *arg, const struct ds_lbr_entry *e, size_t n)
{
    (void)arg;
    for (size_t i = 0; i < n && i < LBR_CAP; i++)
        E.lbr_step_buf[i] = e[i];
}

/* The request of run @rc (raw event, as the run table means it). */
static void ses_request(const struct run_cfg *rc, enum ds_pebs_fmt fmt, struct ds_request *rq)
{
    zero(rq, sizeof *rq);
    rq->raw.set = true;
    rq->raw.nb_metric = -1;
    rq->period = rc->period;
    if (rc->bts) {
        rq->mode = rc->bts_int ? DS_TRACE_BTS : DS_TRACE_BTS_CIRCULAR;
        return;
    }
    rq->mode = rc->pebs ? DS_SAMPLE_PRECISE : DS_SAMPLE_OVERFLOW;
    if (E.cpu->caps.netburst) {
        dscheck_nb_tagged_loads(rq); /* replay_event NBOGUS, 1stL_cache_load_miss tagging */
        return;
    }
    if (rc->generic != DS_EVENT_NONE) {
        /* the generic event: libds picks encoding and counter per uarch (event.c) */
        rq->raw.set = false;
        rq->event = rc->generic;
    } else {
        rq->raw.evsel = rc->event;
        rq->raw.umask = rc->umask;
    }
    /* Record groups where the format has them (adaptive with PEBS_BASELINE,
     * architectural: what CPUID.(23H,4) offers); older formats record a fixed layout. */
    if (rc->pebs && ds_pebs_fmt_adaptive(fmt) && E.cpu->caps.pebs_baseline)
        rq->groups = DS_GROUP_MEM | DS_GROUP_GPRS | (rc->adaptive_lbr && E.lbrm ? DS_GROUP_LBR : 0);
    if (rc->cntr) /* format 6: the counters group (and the metrics with PERF_METRICS) */
        rq->groups |= DS_GROUP_CNTR | (E.cpu->caps.perf_metrics ? DS_GROUP_METRICS : 0);
    else if (rc->pebs && fmt == DS_PEBS_FMT_ARCH) {
        struct ds_arch_pebs_caps ac;
        if (ds_arch_pebs_detect(E.cpu, &ac) == DS_OK)
            rq->groups = ((ac.cfg_c_caps & DS_APEBS_CFG_AUX) ? DS_GROUP_MEM : 0) |
                         ((ac.cfg_c_caps & DS_APEBS_CFG_GPR) ? DS_GROUP_GPRS : 0);
    }
}

/* Bytes of the region: sized so that the thresholds raise PMIs during the
 * short workloads (the session sets threshold = records - margin): PEBS
 * PEBS_THR records + the margin, BTS bts_nrec records, arch PEBS one 4 KiB
 * buffer (one record per PMI, arch_pebs.h), overflow only: none. The record
 * size is the one of the groups asked for (ds_pebs_record_size, SDM
 * "Adaptive PEBS Record Format"; LBR group: the stack's depth). */
static size_t ses_bytes(const struct run_cfg *rc, enum ds_pebs_fmt fmt, const struct ds_request *rq)
{
    if (rc->bts) {
        enum ds_layout lay = DS_LAYOUT_NONE;
        (void)ds_area_layout(E.cpu, &lay);
        return 4096u + (size_t)rc->bts_nrec * (lay == DS_LAYOUT_64 ? DS_BTS_REC64_SIZE : DS_BTS_REC32_SIZE);
    }
    if (!rc->pebs)
        return 0;
    if (fmt == DS_PEBS_FMT_ARCH)
        return 4096u;
    unsigned d = E.lbrm ? (E.lbrm->depth ? E.lbrm->depth : E.cpu->caps.arch_lbr_depth) : 0;
    uint64_t dc = dscheck_data_cfg(rq->groups, d);
    uint32_t margin = 1;
    (void)ds_pebs_thresh_margin(E.cpu, fmt, &margin);
    size_t b = 4096u + (size_t)ds_pebs_record_size(fmt, dc) * (PEBS_THR + margin);
    return b > sizeof E.ses_mem ? sizeof E.ses_mem : b;
}

/* The MSRs a run may change (SDM Vol. 4 numbers, independent of the
 * session's own save list): teardown must leave each as found. Counter
 * values are left out (not restorable without full-width writes,
 * session.h). Read straight from the model (dsm_rdmsr). */
static const uint32_t ses_msrs[] = {
    0x1D9u /* DEBUGCTL */, 0x600u /* DS_AREA */, 0x3F1u /* PEBS_ENABLE */, 0x3F2u /* DATA_CFG / MATRIX_VERT */,
    0x3F6u /* LD_LAT */, 0x38Du /* FIXED_CTR_CTRL */, 0x38Fu /* GLOBAL_CTRL */, 0x186u, 0x187u, 0x188u,
    0x189u /* PERFEVTSEL0-3 */, 0x1C8u /* LBR_SELECT */, 0x14CEu /* ARCH LBR_CTL */, 0x3F4u, 0x3F5u /* PEBS_BASE/INDEX */,
    0x1903u, 0x1907u /* GP0/1 CFG_C */, 0x370u, 0x371u /* IQ_CCCR4/5 */, 0x3B2u, 0x3B3u /* CRU_ESCR2/3 */,
};
#define SES_NMSR (sizeof ses_msrs / sizeof ses_msrs[0])
static void ses_msr_snap(uint64_t *v, bool *ok)
{
    for (unsigned i = 0; i < SES_NMSR; i++)
        ok[i] = dsm_rdmsr(&E.m, ses_msrs[i], &v[i]) == DSM_OK;
}

/* Print ds_session_describe as "# session: " lines (dsdump skips '#' lines). */
static void ses_describe(const struct run_cfg *rc)
{
    char buf[640]; /* on the stack: the CPUs run at once (16 KiB stacks) */
    int e = ds_session_describe(&E.ses, buf, sizeof buf);
    if (e != DS_OK && e != DS_ERR_BUFSZ) {
        kprintf("# session: %s%s: (%s)\n", E.tag, rc->name, ds_errname(e));
        return;
    }
    char *p = buf;
    while (*p) {
        char *q = p;
        while (*q && *q != '\n')
            q++;
        char c = *q;
        *q = 0;
        kprintf("# session: %s%s: %s\n", E.tag, rc->name, p);
        if (!c)
            break;
        p = q + 1;
    }
}

/* A session run's fresh state: counters of the last run cleared, the
 * workload range, the PEBS format the session will choose (for the request
 * and the buffer size), the model's statistics and arch-PEBS fragmenting
 * (model E-core: 2 fragments per record). Returns the fragments expected. */
static uint32_t ses_begin(const struct run_cfg *rc, enum ds_pebs_fmt *fmt)
{
    enum ds_layout lay = DS_LAYOUT_NONE;
    *fmt = DS_PEBS_FMT_NONE;
    reset_run();
    wl_range(rc->wl, &E.lo, &E.hi);
    E.nb = rc->pebs && E.cpu->caps.netburst;
    if (rc->pebs)
        (void)(ds_area_layout(E.cpu, &lay) == DS_OK && ds_pebs_format_select(E.cpu, lay, fmt) == DS_OK);
    uint32_t want_frags = E.model && E.prof == DSM_PTL_E ? 2u : 1u;
    if (E.model) {
        dsm_stats_reset(&E.m);
        if (*fmt == DS_PEBS_FMT_ARCH)
            dsm_apebs_set_fragment(&E.m, want_frags == 2 ? 128u : 0u);
    }
    E.ctr_ovf = 0;
    zero(E.ses_mem, sizeof E.ses_mem);
    return want_frags;
}

/* The session's configuration for run @rc: the region, LBR snapshots, the
 * freeze mode, the errata override, the sinks. */
static void ses_config(const struct run_cfg *rc, enum ds_pebs_fmt fmt, const struct ds_request *rq,
                       struct ds_session_config *c)
{
    zero(c, sizeof *c);
    c->bytes = ses_bytes(rc, fmt, rq);
    c->mem = c->bytes ? E.ses_mem : NULL;
    c->lbr = rc->lbr && E.lbrm;
    c->freeze_set = E.model; /* model: the run's freeze mode, checked exactly */
    c->freeze = rc->freeze;
    /* 06_0FH (AJ67-69/106): the session refuses PEBS there by default; the
     * model has no errata. Hardware keeps the refusal (the building-block
     * flow used to retry with the override on hardware too). */
    c->pebs_flags = E.model ? DS_PMC_PEBS_ALLOW_ERRATA : 0;
    c->on_sample = ses_on_sample;
    c->on_branch = ses_on_branch;
    c->on_lbr = c->lbr ? ses_on_lbr : NULL;
}

/* init and add (the counters group's counting requests too); the DSLOG
 * counter= of the records is the counter the session chose. */
static bool ses_open(const struct run_cfg *rc, enum ds_pebs_fmt fmt)
{
    struct ds_request rq;
    struct ds_session_config c;
    ses_request(rc, fmt, &rq);
    ses_config(rc, fmt, &rq, &c);
    unsigned id = 0;
    zero(&E.ses, sizeof E.ses); /* session.h: init takes a zeroed session */
    int e = ds_session_init(&E.ses, E.cpu, &c);
    if (e == DS_OK)
        e = ds_session_add(&E.ses, &rq, &id);
    if (!need(e == DS_OK, "%s: ds_session_init/add (%s)", rc->name, ds_errname(e)))
        return false;
    if (rc->cntr && !need(dscheck_cntr_requests(&E.ses, rc->event, rc->umask), "%s: PMC1 %02x/%02x and fixed counter 0 from 0 for the counters group",
                          rc->name, rc->event, rc->umask))
        return false;
    const struct ds_session_req *sr = &E.ses.req[id];
    E.rec_counter = sr->kind == DS_CTR_FIXED ? (int32_t)(32u + sr->idx) : (int32_t)sr->idx;
    return true;
}

/* LVT PC armed (or masked for hold_first), start, the workload, a held
 * model PMI delivered, stop; the drain accounting is the session's own
 * (session.h pebs_stats / bts_stats: every PMI drain plus stop's final
 * drain), model and hardware. */
static bool ses_go(const struct run_cfg *rc, enum ds_pebs_fmt fmt)
{
    k_pmi_set_mode(rc->nmi ? K_PMI_NMI : K_PMI_FIXED);
    E.hold_steps = E.model && rc->hold_first ? HOLD_STEPS : 0; /* LVT PC stays masked */
    if (!E.hold_steps)
        k_pmi_arm();
    E.hb_pmi = 0;
    E.hb_fed = E.hb_mark = 0;
    E.active = true;
    int e = ds_session_start(&E.ses);
    if (!need(e == DS_OK, "%s: ds_session_start (%s)", rc->name, ds_errname(e))) {
        E.active = false;
        k_pmi_disarm();
        E.rec_counter = 0;
        return false;
    }
    E.lbr_on = E.ses.lbr_on;
    E.lbr_freeze = E.ses.freeze != DS_FREEZE_NONE;
    /* Model: the handler's own branches where no counted event sees them (hb_feed). */
    E.feed_hb = E.model && E.lbr_on && E.lbr_freeze && rc->loads && !rc->bts && !rc->ctr_pmi &&
                fmt != DS_PEBS_FMT_ARCH;
    (void)run_workload(rc->wl, rc->n);
    /* A model PMI still pending (LVT masked) is delivered now (nothing retires meanwhile). */
    if (E.model && E.pmi_pending) {
        k_pmi_arm();
        deliver_pmi();
    }
    e = ds_session_stop(&E.ses);
    need(e == DS_OK, "%s: ds_session_stop (%s)", rc->name, ds_errname(e));
    E.pst = E.ses.pebs_stats;
    E.bst = E.ses.bts_stats;
    E.active = false;
    k_pmi_disarm();
    return true;
}

/* Model: every MSR of ses_msrs after teardown as @before (read before init). */
static void ses_restored(const struct run_cfg *rc, const uint64_t *before, const bool *okb)
{
    uint64_t after[SES_NMSR];
    bool oka[SES_NMSR];
    ses_msr_snap(after, oka);
    unsigned same = 0;
    for (unsigned i = 0; i < SES_NMSR; i++) {
        same += okb[i] == oka[i] && (!okb[i] || before[i] == after[i]);
        if (okb[i] != oka[i] || (okb[i] && before[i] != after[i]))
            kprintf("# session: %s%s: MSR %x was %llx, after teardown %llx\n", E.tag, rc->name, ses_msrs[i],
                    (unsigned long long)before[i], (unsigned long long)after[i]);
    }
    check(same == SES_NMSR, "%s: ds_session_teardown left %u of %u perfmon/DS/LBR MSRs as found", rc->name, same,
          (unsigned)SES_NMSR);
}

/* One run through the session API: request from the run table, init / add /
 * start, the workload, stop, the same checks as the building-block flows had,
 * teardown, and (model) every MSR of ses_msrs as before the run. */
void do_session_run(const struct run_cfg *rc)
{
    enum ds_pebs_fmt fmt;
    uint32_t want_frags = ses_begin(rc, &fmt);
    uint64_t before[SES_NMSR];
    bool okb[SES_NMSR];
    if (E.model)
        ses_msr_snap(before, okb);
    if (!ses_open(rc, fmt) || !ses_go(rc, fmt))
        return;
    ses_describe(rc); /* after stop: on hardware the counters would count the printing */
    if (fmt == DS_PEBS_FMT_ARCH) {
        apebs_run_checks(rc, want_frags);
    } else {
        uint64_t events, expect;
        run_checks(rc, &events, &expect);
        if (rc->cntr)
            check_cntr(rc, cntr_data_cfg());
        print_run(rc, events, expect);
    }
    int e = ds_session_teardown(&E.ses);
    check(e == DS_OK, "%s: ds_session_teardown (%s)", rc->name, ds_errname(e));
    E.rec_counter = 0;
    if (E.model)
        ses_restored(rc, before, okb);
}
