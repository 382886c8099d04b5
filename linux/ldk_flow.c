// SPDX-License-Identifier: BSD-2-Clause
/*
 * The flows of libds.ko on one CPU, over libds's public session API
 * (session.h): PEBS on instructions over wl_loop (with the adaptive
 * record groups), on loads over wl_chase (NetBurst: replay-tagged), PEBS
 * format 6's counters group over wl_loop, BTS with threshold PMIs over
 * wl_loop, circular BTS over wl_calls, LBR snapshots at counter overflows
 * over wl_calls; the test kernel's held-PMI run is a SKIP line with its
 * reason (one_log). Each run is checked (TAP lines "ok N - cpuN
 * ...") against independent expectations: kernel/workloads/workloads.h
 * (exact instruction and branch counts of the assembly) and the model's
 * documented sampling rule (dsm_pebs_expected); on hardware with the
 * tolerances the test kernel uses. Records go out as DSLOG lines
 * (kernel/records), one log per CPU and profile, for dsdump.
 *
 * The same runs as the test kernel's session flow (kernel/e2e), written
 * here over the public API instead of compiling kernel/e2e (which needs the
 * test kernel's IDT, LAPIC and console); the workloads, the single-step
 * classifier, the DSLOG printer with its sample copy (dsrec_ds.h) and the
 * record checks of kernel/records/dscheck.c are the same sources.
 */
#include <linux/kernel.h>
#include <linux/string.h>
#include <asm/msr.h>
#include <asm/cpufeature.h>
#include "ldk.h"
#include "dscheck.h"
#include "dsrec_ds.h"

#define LDK_SETUP_FAILED (-1)  /* open_run: a "not ok" line said why (not a DS_ERR_*) */

/* The runs of the test kernel's flows (kernel/e2e), by the module's names:
 * pebs-loop = pebs-loop-fixed (memory, GPR and LBR groups where adaptive),
 * pebs-chase = pebs-chase-nmi-freeze (loads; NetBurst: pebs-chase-fixed /
 * -nmi, replay tagging), pebs-loop-cntr, bts-loop = bts-int, bts-circ =
 * bts-circular, lbr-calls. The test kernel's -fixed / -nmi pairs differ in
 * the LVT PC delivery mode only, which is Linux's here (NMI). */
static const struct ldk_run ldk_runs[] = {
    {"pebs-loop", "pebs", LDK_LOOP, 300, DS_SAMPLE_PRECISE, DS_EVENT_INSTRUCTIONS, 47, 8, .lbr_group = true},
    {"pebs-chase", "pebs", LDK_CHASE, 200, DS_SAMPLE_PRECISE, DS_EVENT_LOADS, 9, 8},
    /* PMC0 samples raw INST_RETIRED C0H (the counters group takes PMC1 and fixed 0) */
    {"pebs-loop-cntr", "pebs", LDK_LOOP, 300, DS_SAMPLE_PRECISE, DS_EVENT_INSTRUCTIONS, 47, 8, .evsel = 0xC0,
     .cntr = true},
    {"bts-loop", "bts", LDK_LOOP, 100, DS_TRACE_BTS, DS_EVENT_NONE, 0, 32},
    {"bts-circ", "bts-circular", LDK_CALLS, 12, DS_TRACE_BTS_CIRCULAR, DS_EVENT_NONE, 0, 16},
    {"lbr-calls", "lbr", LDK_CALLS, 12, DS_SAMPLE_OVERFLOW, DS_EVENT_BRANCHES, 23, 0},
};

/* --- the log ------------------------------------------------------------- */

static void log_put(struct ldk_cpu *c, const char *s, size_t n)
{
    if (c->log_over || c->loglen + n > c->logcap) {
        /* full: the line being written goes too (a line is several writes),
         * and so does everything after; ldk_publish ends the log with a
         * "not ok" line that counts the dropped writes */
        while (!c->log_over && c->loglen && c->log[c->loglen - 1] != '\n')
            c->loglen--;
        c->log_over++;
        return;
    }
    memcpy(c->log + c->loglen, s, n);
    c->loglen += n;
}

static void rec_write(void *ctx, const char *s, size_t n) { log_put(ctx, s, n); }

void ldk_printf(struct ldk_cpu *c, const char *fmt, ...)
{
    char buf[256];
    va_list ap;
    int n;
    va_start(ap, fmt);
    n = vscnprintf(buf, sizeof(buf), fmt, ap);
    va_end(ap);
    log_put(c, buf, n);
}

/* TAP: "ok N - cpuC <what>" / "not ok N - ..." / "ok N - ... # SKIP why". */
static bool vcheck(struct ldk_cpu *c, bool ok, const char *fmt, va_list ap)
{
    char buf[200];
    vscnprintf(buf, sizeof(buf), fmt, ap);
    ldk_printf(c, "%sok %u - cpu%u %s %s\n", ok ? "" : "not ", ++c->tap, c->cpu, c->prof, buf);
    if (ok)
        c->passed++;
    else
        c->failed++;
    return ok;
}

bool ldk_check(struct ldk_cpu *c, bool ok, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    ok = vcheck(c, ok, fmt, ap);
    va_end(ap);
    return ok;
}

/* The check-line function of the shared checks (kernel/records/dscheck.h). */
bool ldk_check_cb(void *ctx, bool ok, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    ok = vcheck(ctx, ok, fmt, ap);
    va_end(ap);
    return ok;
}

/* Errors that say the CPU (or profile) lacks what the run needs: a skip
 * with the reason. Any other error from init/add/start is a failure. */
static bool lacks(int err)
{
    switch (err) {
    case DS_ERR_UNSUPPORTED: case DS_ERR_NO_MSR: case DS_ERR_NOT_INTEL: case DS_ERR_NO_DS:
    case DS_ERR_BTS_UNAVAILABLE: case DS_ERR_PEBS_UNAVAILABLE: case DS_ERR_NO_PERFMON: case DS_ERR_NO_DSCPL:
    case DS_ERR_PMC_NO_ARCH: case DS_ERR_PMC_PEBS_ERRATUM: case DS_ERR_LBR_UNKNOWN_MODEL:
    case DS_ERR_EVENT_UARCH: case DS_ERR_EVENT_UNAVAILABLE: case DS_ERR_SESSION_NO_DS:
    case DS_ERR_SESSION_NOT_PRECISE: case DS_ERR_SESSION_NO_COUNTER: case DS_ERR_SESSION_LBR:
    case DS_ERR_SESSION_NO_PMU: /* issue 29: init names the cause first on a CPU with neither */
        return true;
    default:
        return false;
    }
}

/* "ok N - cpuC prof @what # SKIP <why>". */
static __printf(3, 4) void skip_why(struct ldk_cpu *c, const char *what, const char *fmt, ...)
{
    char buf[256];
    va_list ap;
    va_start(ap, fmt);
    vscnprintf(buf, sizeof(buf), fmt, ap);
    va_end(ap);
    ldk_printf(c, "ok %u - cpu%u %s %s # SKIP %s\n", ++c->tap, c->cpu, c->prof, what, buf);
    c->skipped++;
}

static void skip(struct ldk_cpu *c, const char *run, int err)
{
    if (!lacks(err)) {
        ldk_check(c, false, "%s: session init/add/start: %s (%s)", run, ds_errname(err), ds_strerror(err));
        return;
    }
    skip_why(c, run, "%s (%s)", ds_errname(err), ds_strerror(err));
}

/* --- sinks (PMI context: NMI on hardware, #DB on the model) --------------- */

static void on_sample(void *arg, const struct ds_session_sample *s)
{
    struct ldk_cpu *c = arg;
    if (!s->pebs) {                    /* an overflow sample (lbr-calls): the session reloaded the counter */
        c->ovf++;
        return;
    }
    if (c->npebs >= LDK_MAX_PEBS) {
        c->pebs_over++;
        return;
    }
    dsrec_pebs_of(s->pebs, c->rec_counter, &c->pebs[c->npebs]);
    c->pebs_mem[c->npebs] = (s->pebs->present & DS_SAMPLE_MEM) != 0;
    c->pebs_ip[c->npebs++] = (s->pebs->present & DS_SAMPLE_EVENTING_IP) ? s->pebs->eventing_ip : s->pebs->ip;
}

static void on_branch(void *arg, const struct ds_bts_branch *b)
{
    struct ldk_cpu *c = arg;
    if (c->nbts < LDK_MAX_BTS)
        c->bts[c->nbts++] = *b;
    else
        c->bts_over++;
}

static void on_lbr(void *arg, const struct ds_lbr_entry *e, size_t n)
{
    struct ldk_cpu *c = arg;
    if (c->nsnap >= LDK_MAX_SNAP) {
        c->snap_over++;
        return;
    }
    c->snap_n[c->nsnap] = n < LDK_LBR_CAP ? n : LDK_LBR_CAP;
    c->snap_taken[c->nsnap] = c->taken;
    memcpy(c->snap[c->nsnap], e, c->snap_n[c->nsnap] * sizeof(*e));
    c->nsnap++;
}

/* --- workloads ------------------------------------------------------------ */

static u32 call_loop(struct ldk_cpu *c, u32 n) { (void)c; return wl_loop(n); }
static u32 call_calls(struct ldk_cpu *c, u32 n) { (void)c; return wl_calls(n); }
static u32 call_chase(struct ldk_cpu *c, u32 n) { return wl_chase(c->chase, 0, n); }

static void wl_of(const struct ldk_run *r, u64 *lo, u64 *hi, struct wl_expect *x)
{
    if (r->wl == LDK_LOOP) {
        *lo = (uintptr_t)wl_loop;
        *hi = (uintptr_t)wl_loop_end;
        wl_loop_expect(r->n, x);
    } else if (r->wl == LDK_CHASE) {
        *lo = (uintptr_t)wl_chase;
        *hi = (uintptr_t)wl_chase_end;
        wl_chase_expect(r->n, x);
    } else {
        *lo = (uintptr_t)wl_calls;
        *hi = (uintptr_t)wl_calls_end;
        wl_calls_expect(r->n, x);
    }
}

/* The workload, natively or single-stepped into the model (the caller has
 * interrupts off). */
static void run_wl(struct ldk_cpu *c, const struct ldk_run *r, u64 lo, u64 hi)
{
    u32 (*fn)(struct ldk_cpu *, u32) = r->wl == LDK_LOOP ? call_loop : r->wl == LDK_CHASE ? call_chase : call_calls;
    c->insns = c->loads = c->branches = c->taken = c->bad_steps = c->dsm_err = 0;
    if (c->model)
        ldk_step_run(c, fn, r->n, lo, hi);
    else
        fn(c, r->n);
}

/* The session's region: small enough that the thresholds raise PMIs
 * within the short workloads (as the test kernel sizes it). */
static size_t region_bytes(struct ldk_cpu *c, const struct ldk_run *r, u32 groups)
{
    enum ds_layout lay = DS_LAYOUT_NONE;
    enum ds_pebs_fmt fmt = DS_PEBS_FMT_NONE;
    const struct ds_lbr_model *lm = NULL;
    unsigned depth = 0;
    u32 margin = 1;
    if (ds_area_layout(c->dc, &lay) != DS_OK)
        return LDK_MEM_BYTES;
    if (r->mode == DS_TRACE_BTS || r->mode == DS_TRACE_BTS_CIRCULAR)
        return 4096u + (size_t)r->nrec * (lay == DS_LAYOUT_64 ? DS_BTS_REC64_SIZE : DS_BTS_REC32_SIZE);
    if (r->mode != DS_SAMPLE_PRECISE || ds_pebs_format_select(c->dc, lay, &fmt) != DS_OK)
        return LDK_MEM_BYTES;
    if (fmt == DS_PEBS_FMT_ARCH)
        return 4096u;
    (void)ds_pebs_thresh_margin(c->dc, fmt, &margin);
    if ((groups & DS_GROUP_LBR) && ds_lbr_cpu_model(c->dc, &lm) == DS_OK)
        depth = lm->depth ? lm->depth : c->dc->caps.arch_lbr_depth;
    return 4096u + (size_t)ds_pebs_record_size(fmt, dscheck_data_cfg(groups, depth)) * (r->nrec + margin);
}

/* The LBRs the session would take (session.c: a row and its format). */
static bool has_lbr(struct ldk_cpu *c)
{
    const struct ds_lbr_model *lm = NULL;
    unsigned f = 0;
    return ds_lbr_cpu_model(c->dc, &lm) == DS_OK && ds_lbr_format(c->dc, lm, &f) == DS_OK;
}

/* The record groups of a PEBS run where the format has them, as the test
 * kernel asks (kernel/e2e session.c ses_request): adaptive with
 * PEBS_BASELINE the memory and GPR groups, the LBR group for lbr_group
 * runs on a CPU with LBRs, the counters group (and the metrics with
 * PERF_METRICS) for the cntr run; arch PEBS what CPUID.(23H,4) offers of
 * AUX and GPR. Older formats record a fixed layout. */
u32 ldk_groups(struct ldk_cpu *c, const struct ldk_run *r)
{
    enum ds_layout lay = DS_LAYOUT_NONE;
    enum ds_pebs_fmt fmt = DS_PEBS_FMT_NONE;
    struct ds_arch_pebs_caps ac;
    u32 g;
    if (r->mode != DS_SAMPLE_PRECISE || ds_area_layout(c->dc, &lay) != DS_OK ||
        ds_pebs_format_select(c->dc, lay, &fmt) != DS_OK)
        return 0;
    if (ds_pebs_fmt_adaptive(fmt) && c->dc->caps.pebs_baseline) {
        g = DS_GROUP_MEM | DS_GROUP_GPRS | (r->lbr_group && has_lbr(c) ? DS_GROUP_LBR : 0);
        if (r->cntr)
            g |= DS_GROUP_CNTR | (c->dc->caps.perf_metrics ? DS_GROUP_METRICS : 0);
        return g;
    }
    if (fmt == DS_PEBS_FMT_ARCH && ds_arch_pebs_detect(c->dc, &ac) == DS_OK)
        return ((ac.cfg_c_caps & DS_APEBS_CFG_AUX) ? DS_GROUP_MEM : 0) |
               ((ac.cfg_c_caps & DS_APEBS_CFG_GPR) ? DS_GROUP_GPRS : 0);
    return 0;
}

/* The request's event: raw (evsel), NetBurst's replay-tagged loads, or
 * the generic event (libds picks encoding and counter). */
static void run_event(struct ldk_cpu *c, const struct ldk_run *r, struct ds_request *rq)
{
    if (r->evsel) {
        rq->raw.set = true;
        rq->raw.evsel = r->evsel;
        rq->raw.umask = r->umask;
        rq->raw.nb_metric = -1;
    } else if (c->dc->caps.netburst && r->mode == DS_SAMPLE_PRECISE && r->event == DS_EVENT_LOADS) {
        dscheck_nb_tagged_loads(rq); /* no generic PEBS load event on NetBurst (event.c) */
    } else {
        rq->event = r->event;
    }
}

static int open_run(struct ldk_cpu *c, const struct ldk_run *r)
{
    struct ds_session_config cfg = {0};
    struct ds_request rq = {0};
    unsigned id = 0;
    int e;
    cfg.mem = c->mem;
    rq.groups = ldk_groups(c, r);
    cfg.bytes = min_t(size_t, region_bytes(c, r, rq.groups), LDK_MEM_BYTES);
    cfg.mem_phys = c->phys;            /* arch PEBS writes physical memory */
    cfg.lbr = r->kind[0] == 'l' || (rq.groups & DS_GROUP_LBR);
    cfg.pebs_flags = c->model ? DS_PMC_PEBS_ALLOW_ERRATA : 0; /* the model has no errata */
    cfg.on_sample = on_sample;
    cfg.on_branch = on_branch;
    cfg.on_lbr = cfg.lbr ? on_lbr : NULL;
    cfg.arg = c;
    run_event(c, r, &rq);
    rq.period = r->period;
    rq.mode = r->mode;
    rq.rings = DS_RING_KERNEL;         /* KPTI: see docs/design.md "On Linux" */
    memset(&c->ses, 0, sizeof(c->ses));
    e = ds_session_init(&c->ses, c->dc, &cfg);
    if (e == DS_OK)
        e = ds_session_add(&c->ses, &rq, &id);
    if (e == DS_OK && r->cntr &&
        !ldk_check(c, dscheck_cntr_requests(&c->ses, r->evsel, r->umask),
                   "%s: PMC1 %02x/%02x and fixed counter 0 from 0 for the counters group", r->name, r->evsel, r->umask))
        return LDK_SETUP_FAILED;
    if (e == DS_OK) {
        const struct ds_session_req *sr = &c->ses.req[id];
        c->rec_counter = sr->kind == DS_CTR_FIXED ? (int)(32u + sr->idx) : (int)sr->idx;
        if (c->dc->caps.netburst)
            c->rec_counter = -1; /* IQ_COUNTER4, not printed (as the test kernel) */
    }
    return e;
}

/* Whether the CPU has what run @r needs beyond libds's own refusals; if
 * not, a SKIP line with the reason. The counters group run is the test
 * kernel's: DS-area PEBS format 6 with PEBS_BASELINE only (Lunar Lake,
 * Arrow Lake; architectural PEBS has its own CFG_C counters group, not run
 * there either). */
static bool run_applies(struct ldk_cpu *c, const struct ldk_run *r)
{
    const struct ds_caps *k = &c->dc->caps;
    if (r->wl == LDK_CALLS && cpu_feature_enabled(X86_FEATURE_IBT)) {
        skip(c, r->name, DS_ERR_UNSUPPORTED); /* wl_calls' CALL r has no ENDBR64 */
        return false;
    }
    if (r->cntr && (k->netburst || !k->pebs_advertised || k->pebs_format != 6 || !k->pebs_baseline)) {
        skip_why(c, r->name, "no PEBS format 6 counters group (PEBS %s, format %u, PEBS_BASELINE %d)",
                 k->pebs_advertised ? "advertised" : "not advertised", k->pebs_format, k->pebs_baseline);
        return false;
    }
    return true;
}

/* What the session chose (event, counter, format, buffers), as "# session:"
 * lines (dsdump skips them); printed after stop, so not counted. */
static void describe(struct ldk_cpu *c, const struct ldk_run *r)
{
    char *p = c->text, *q;
    c->text[0] = 0;
    (void)ds_session_describe(&c->ses, c->text, sizeof(c->text));
    for (; *p; p = *q ? q + 1 : q) {
        q = p + strcspn(p, "\n");
        ldk_printf(c, "# session: cpu%u %s %s: %.*s\n", c->cpu, c->prof, r->name, (int)(q - p), p);
    }
}

/* One run: init/add/start, the workload, stop, checks, records, teardown,
 * every MSR as before. */
static void do_run(struct ldk_cpu *c, const struct ldk_run *r)
{
    struct ldk_msrs before, after; /* (on the stack: 2 x 21 MSRs) */
    struct wl_expect x;
    unsigned long fl;
    u64 lo, hi;
    int e;
    c->npebs = c->pebs_over = c->nbts = c->bts_over = c->nsnap = c->snap_over = 0;
    c->pmis = c->spurious = c->pmi_err = c->ovf = 0;
    wl_of(r, &lo, &hi, &x);
    if (!run_applies(c, r))
        return;
    memset(c->mem, 0, LDK_MEM_BYTES);
    if (c->model)
        dsm_stats_reset(c->m);
    ldk_msr_snap(c, &before);
    /* Interrupts off from start to teardown: nothing else runs on this CPU
     * while the session is live, user code included (KPTI, design.md). */
    local_irq_save(fl);
    e = open_run(c, r);
    if (e == DS_OK) {
        c->live = true;
        e = ds_session_start(&c->ses);
        if (e != DS_OK)
            c->live = false;
    }
    if (e != DS_OK) {
        local_irq_restore(fl);
        if (e != LDK_SETUP_FAILED)
            skip(c, r->name, e);
        ldk_msr_snap(c, &after);
        ldk_msr_check(c, r, &before, &after);
        return;
    }
    run_wl(c, r, lo, hi);
    e = ds_session_stop(&c->ses);
    ldk_check(c, e == DS_OK, "%s: ds_session_stop (%s)", r->name, ds_errname(e));
    describe(c, r);
    ldk_run_checks(c, r, &x, lo, hi);
    ldk_records(c, r, &x);
    e = ds_session_teardown(&c->ses);
    c->live = false;
    local_irq_restore(fl);
    ldk_check(c, e == DS_OK, "%s: ds_session_teardown (%s)", r->name, ds_errname(e));
    ldk_msr_snap(c, &after);
    ldk_msr_check(c, r, &before, &after);
}

/* What the CPU has, one "# " line per facility with the reason. */
static void facilities(struct ldk_cpu *c)
{
    const struct ds_caps *k = &c->dc->caps;
    const struct ds_lbr_model *lm = NULL;
    int le = ds_lbr_cpu_model(c->dc, &lm);
    char *p = c->text, *q;
    c->text[0] = 0;
    (void)ds_caps_format(k, c->text, sizeof(c->text)); /* truncated is fine: NUL-terminated */
    for (; *p; p = *q ? q + 1 : q) {   /* one "# " line per line of the text */
        q = p + strcspn(p, "\n");
        ldk_printf(c, "# cpu%u %s caps: %.*s\n", c->cpu, c->prof, (int)(q - p), p);
    }
    ldk_printf(c, "# cpu%u %s facility vendor: %s\n", c->cpu, c->prof, k->vendor_str);
    ldk_printf(c, "# cpu%u %s facility ds: %s\n", c->cpu, c->prof,
               k->vendor != DS_VENDOR_INTEL ? "no (not an Intel CPU: DS_ERR_NOT_INTEL)"
               : k->ds ? "yes (CPUID.01H:EDX[21])" : "no (CPUID.01H:EDX[21] DS = 0)");
    ldk_printf(c, "# cpu%u %s facility bts: %s\n", c->cpu, c->prof,
               k->bts_advertised ? "advertised" : !k->ds ? "no (no DS)"
               : k->bts_unavailable ? "no (IA32_MISC_ENABLE[11] BTS_UNAVAILABLE)" : "no");
    ldk_printf(c, "# cpu%u %s facility pebs: %s (format %u)\n", c->cpu, c->prof,
               k->pebs_advertised ? "advertised" : !k->ds ? "no (no DS)"
               : k->pebs_unavailable ? "no (IA32_MISC_ENABLE[12] PEBS_UNAVAILABLE)"
               : !k->perfmon_version ? "no (CPUID.0AH perfmon version 0)" : "no", k->pebs_format);
    ldk_printf(c, "# cpu%u %s facility arch-pebs: %s\n", c->cpu, c->prof,
               k->has_leaf_23 && k->arch_pebs_gp_mask ? "advertised (CPUID.23H)" : "no (CPUID.23H)");
    ldk_printf(c, "# cpu%u %s facility lbr: %s\n", c->cpu, c->prof,
               le == DS_OK ? "yes" : ds_errname(le));
    ldk_printf(c, "# cpu%u %s facility perfmon: version %u, %u GP, %u fixed\n", c->cpu, c->prof,
               k->perfmon_version, k->gp_counters, k->fixed_counters);
}

/* One DSLOG log: header, facilities, every run, END. */
static void one_log(struct ldk_cpu *c, const char *why)
{
    struct dsrec_header h = {0};
    h.arch = "x86_64";
    h.backend = c->model ? "model" : "hw";
    h.profile = c->prof;
    h.kernel = "libds.ko";
    h.why = why;
    h.has_cpu = true;
    h.cpu = c->apic;
    c->passed = c->failed = c->skipped = 0;
    dsrec_init(&c->out, rec_write, c);
    dsrec_header(&c->out, &h);
    facilities(c);
    for (unsigned i = 0; i < ARRAY_SIZE(ldk_runs); i++)
        do_run(c, &ldk_runs[i]);
    /* The test kernel's held-PMI run (pebs-loop-fixed hold_first, model
     * backend) masks LVT PC, lets the model's PMI wait 20 steps and
     * unmasks it: a check of LVT PC's mask, not of libds. */
    skip_why(c, "pebs-loop: held PMI", "LVT PC is Linux's (perf: NMI, unmasked in its PMI handler), never masked "
             "here%s", c->model ? "; model PMIs go to ds_session_pmi from #DB, not through the APIC" : "");
    if (c->model)
        ldk_busy_checks(c);
    dsrec_end(&c->out, c->passed, c->failed, c->skipped);
    c->tot_passed += c->passed;
    c->tot_failed += c->failed;
    c->tot_skipped += c->skipped;
    ldk_printf(c, "# cpu%u %s: %u passed, %u failed, %u skipped\n", c->cpu, c->prof, c->passed, c->failed,
               c->skipped);
}

static void model_pmi(void *ctx, uint32_t reasons)
{
    struct ldk_cpu *c = ctx;
    (void)reasons;
    c->pmi_pending = true;             /* handled after dsm_retire returns (ldk_step.c) */
}

/* The model's profile names are "skylake (06_5EH)": the first word is the token. */
static int model_profile(const char *name, size_t len, enum dsm_profile *out)
{
    for (unsigned p = 0; p < DSM_PROFILE__COUNT; p++) {
        const char *n = dsm_profile_name((enum dsm_profile)p);
        if (strcspn(n, " ") == len && !strncmp(n, name, len)) {
            *out = (enum dsm_profile)p;
            return 0;
        }
    }
    return -1;
}

static void run_model(struct ldk_cpu *c, const char *p, size_t len)
{
    enum dsm_profile prof;
    int e;
    if (model_profile(p, len, &prof)) {
        ldk_printf(c, "not ok %u - cpu%u model profile '%.*s' unknown\n", ++c->tap, c->cpu, (int)len, p);
        return;
    }
    snprintf(c->proftok, sizeof(c->proftok), "%.*s", (int)len, p);
    c->prof = c->proftok;
    e = ds_model_mem_init(&c->mm, c->mem, c->phys, LDK_MEM_BYTES);
    if (e == DS_OK && dsm_init(c->m, prof, &ds_model_mem_ops, &c->mm) != DSM_OK)
        e = DS_ERR_UNSUPPORTED;
    if (e == DS_OK) {
        dsm_set_pmi(c->m, model_pmi, c);
        e = ds_model_cpu_init(&c->mc, c->m);
    }
    if (e == DS_OK)
        e = ds_cpu_identify(&c->mc);
    c->dc = &c->mc;
    if (e != DS_OK) {
        ldk_printf(c, "not ok %u - cpu%u model %s: %s\n", ++c->tap, c->cpu, c->prof, ds_errname(e));
        return;
    }
    one_log(c, "forced");
}

/* Hybrid parts on the model: "a,b/c,d" gives the first CPU used a and b,
 * the second c and d, the third a and b again, ... (the group of CPU number
 * @seq among those used, modulo the number of groups). */
static const char *cpu_group(const char *p, unsigned seq)
{
    unsigned groups = 1, k;
    for (const char *q = p; *q; q++)
        groups += *q == '/';
    for (k = seq % groups; k; k--)
        p += strcspn(p, "/") + 1;
    return p;
}

/* Every flow of this CPU: the real PMU (backend=hw), or each model profile
 * of its group of @profiles (comma-separated dsm_profile_name tokens,
 * groups separated by '/', cpu_group) on the model. */
void ldk_flows(struct ldk_cpu *c, const char *profiles)
{
    c->tap = 0;
    if (c->bare) {                     /* run-linux.sh --vs-perf: the workload alone, for perf record */
        unsigned long fl;
        for (u32 i = 0; i < c->bare; i++) {
            local_irq_save(fl);
            wl_loop(300);
            local_irq_restore(fl);
        }
        ldk_printf(c, "# cpu%u bare: wl_loop(300) x %u, no libds, no PMU access\n", c->cpu, c->bare);
        return;
    }
    if (!c->model) {
        c->dc = &c->host;
        c->prof = "native";
        if (c->host_err != DS_OK) {
            ldk_printf(c, "not ok %u - cpu%u ds_cpu_identify: %s\n", ++c->tap, c->cpu, ds_errname(c->host_err));
            return;
        }
        one_log(c, c->host.caps.ds ? "probe-advertised" : "no-ds-cpuid");
        return;
    }
    profiles = cpu_group(profiles, c->seq);
    while (*profiles && *profiles != '/') {
        size_t len = strcspn(profiles, ",/");
        if (len)
            run_model(c, profiles, len);
        profiles += len + (profiles[len] == ',');
    }
}
