/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The test kernel end to end (issue 6): the backend choice (the functional
 * probe, backend=), the entry points (k_e2e_run, k_e2e_run_all) and the
 * ktest group. The flows themselves, one file per family: flow.h. See e2e.h
 * and docs/design.md, "Test kernel end to end".
 */
#include "e2e.h"
#include "flow.h"

/* --- backend choice ----------------------------------------------------------- */

static void probe_exercise(void *arg)
{
    (void)arg;
    (void)wl_loop(16);
}

/* The functional probe on this CPU (E.host), printed; E.why says why the
 * hardware backend is (not) usable. Returns whether DS and a counter work. */
static bool probe_here(void)
{
    char *why = E.why, *buf = E.probe_text;
    struct ds_probe_result pr;
    int pe = DS_ERR_NOT_IDENTIFIED;
    zero(&pr, sizeof pr);
    if (E.host_err == DS_OK) {
        struct ds_probe_bts_scratch sc = {&E.probe_area, 0, E.probe_buf, 0, sizeof E.probe_buf, probe_exercise, NULL};
        pe = ds_probe(&E.host, &sc, &pr);
    }
    if (pe == DS_OK && ds_probe_format(&pr, buf, sizeof E.probe_text) == DS_OK)
        kprintf("# functional probe (ds_probe):\n%s\n", buf);
    else
        kprintf("# functional probe (ds_probe): %s\n", ds_strerror(pe));
    bool hw_ok = pe == DS_OK && pr.ds_area.verdict == DS_PROBE_WORKING && pr.counter.verdict == DS_PROBE_WORKING;
    if (pe != DS_OK) {
        k_snprintf(why, sizeof E.why, "probe-%s", ds_errname(pe));
    } else if (!hw_ok) {
        const char *why_item = pr.ds_area.verdict != DS_PROBE_WORKING ? "ds_area" : "counter";
        enum ds_probe_verdict why_v = pr.ds_area.verdict != DS_PROBE_WORKING ? pr.ds_area.verdict : pr.counter.verdict;
        k_snprintf(why, sizeof E.why, "%s:%s", why_item, ds_probe_verdict_name(why_v));
    } else {
        k_snprintf(why, sizeof E.why, "probe-working");
    }
    return hw_ok;
}

/* backend= overrides the probe's choice (E.why becomes "forced"). */
static bool backend_choice(bool hw_ok)
{
    if (k_opt_is("backend", "hw")) {
        k_snprintf(E.why, sizeof E.why, "forced");
        return true;
    }
    if (k_opt_is("backend", "model")) {
        k_snprintf(E.why, sizeof E.why, "forced");
        return false;
    }
    if (k_opt("backend", NULL) && !k_opt_is("backend", "auto"))
        ktest_fail("backend= must be hw, model or auto");
    return hw_ok;
}

/* The hardware backend: native MSRs, real PMIs, one log. */
static void run_hw(const char *why)
{
    kprintf("# e2e: backend=hw why=%s (native MSRs, real PMIs, no single-stepping)\n", why);
    E.model = false;
    E.cpu = &E.host;
    E.prof_name = "native";
    log_begin("hw", "native", why);
    lbr_setup();
    run_all();
    log_end();
}

/* The flow on the calling CPU, with its own identification (E.host): the
 * probe, the backend choice, the runs. The #DB and PMI handlers are the
 * caller's to register (e2e_handlers): they are global, the state they use
 * is the CPU's own (E). */
static void run_here(void)
{
    bool use_hw = backend_choice(probe_here());
    enum k_pmi_mode old_mode = k_pmi_mode(); /* this CPU's */
    if (use_hw)
        run_hw(E.why);
    else
        run_model(E.why);
    k_pmi_disarm();
    k_pmi_set_mode(old_mode);
}

/* The #DB and PMI handlers of the flows (one registration for all CPUs). */
static void e2e_handlers(bool on)
{
    static void *old_ctx;
    static k_pmi_fn old;
    if (on) {
        k_trap_register(K_VEC_DB, db_handler, NULL);
        old = k_pmi_register(pmi_handler, NULL, &old_ctx);
    } else {
        k_pmi_register(old, old_ctx, NULL);
        k_trap_register(K_VEC_DB, NULL, NULL);
    }
}

void k_e2e_run(void)
{
    E.host = k_cpu;
    E.host_err = k_cpu_identify_err;
    E.override = NULL;
    E.tag[0] = 0;
    E.log_buffered = false;
    e2e_handlers(true);
    run_here();
    e2e_handlers(false);
}

static void run_posted(void)
{
    E.t0 = k_rdtsc();
    run_here();
    E.t1 = k_rdtsc();
    __atomic_store_n(&E.ran, true, __ATOMIC_RELEASE);
}

unsigned k_e2e_run_all(const char *const profiles[], const bool take[], struct k_e2e_cpu_result res[])
{
    unsigned n = k_smp_slots(), ran = 0;
    for (unsigned i = 0; i < n; i++) {
        struct e2e *e = e2e_cpu(i);
        const struct k_smp_cpu *c = k_smp_cpu(i);
        e->ran = false;
        e->logs = e->tot_passed = e->tot_failed = e->tot_skipped = 0;
        e->host = i ? c->cpu : k_cpu;
        e->host_err = i ? c->identify_err : k_cpu_identify_err;
        e->override = profiles[i];
        e->log_buffered = true;
        e->loglen = 0;
        k_snprintf(e->tag, sizeof e->tag, "cpu%u ", i);
    }
    e2e_handlers(true);
    k_console_lines(true); /* from here on every CPU prints: whole lines only */
    for (unsigned i = 1; i < n; i++)
        e2e_cpu(i)->posted = take[i] && k_smp_cpu(i)->state == K_SMP_IDENTIFIED && k_smp_post(i, run_posted) == 0;
    run_posted(); /* the BSP's share, at the same time */
    for (unsigned i = 1; i < n; i++)
        if (e2e_cpu(i)->posted)
            k_smp_wait(i);
    k_console_lines(false);
    e2e_handlers(false);
    for (unsigned i = 0; i < n; i++) {
        struct e2e *e = e2e_cpu(i);
        res[i] = (struct k_e2e_cpu_result){__atomic_load_n(&e->ran, __ATOMIC_ACQUIRE), e->logs, e->tot_passed,
                                           e->tot_failed, e->tot_skipped, e->t0, e->t1};
        ran += res[i].ran;
        e->tag[0] = 0;
        e->log_buffered = false;
    }
    return ran;
}

static void e2e_group(void)
{
    /* PMIs reach the handler through the local APIC (LVT PC, or the self-IPI
     * of deliver_pmi on the model backend): without one, skip the group. */
    if (k_lapic_mode() == K_LAPIC_NONE) {
        ktest_skip("no usable local APIC (%s): no PMI can be delivered, no runs", k_lapic_absent_reason());
        return;
    }
    /* Several CPUs and the smp_e2e group selected: that group runs the flows
     * on every CPU at once, the boot CPU included (issue 13). */
    if (k_smp_count() > 1 && ktest_group_selected("smp_e2e")) {
        ktest_skip("%u CPUs: the flows run on every CPU at once in group smp_e2e", k_smp_count());
        return;
    }
    k_e2e_run();
}
KTEST(e2e, e2e_group);
