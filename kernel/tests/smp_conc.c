/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * libds on every CPU at once (issue 13): each CPU (BSP and every running
 * AP) drives its own reference-model CPU (model/) with its own
 * struct ds_cpu/ds_ctx/ds_pmi, DS area and PEBS buffer, concurrently. Each
 * model PMI is delivered through THAT CPU's local APIC (a self-IPI on
 * K_VEC_SMP_PMI); the handler finds its context from the APIC ID and calls
 * ds_pmi_handle on it. No CPU prints or touches another's state while the
 * runs go on; the BSP checks every CPU's counts after all are done:
 * assists = floor((n-1)/P), delivered = written, every sampled IP in that
 * CPU's own IP window (a record in the wrong context fails this), nothing
 * lost, PMIs taken through the LVT path. The kernel's e2e flows run on every
 * CPU at once too (group smp_e2e); this group is libds alone, without the
 * single-stepping and printing.
 */
#include <k/ktest.h>
#include <k/kernel.h>
#include <k/console.h>
#include <k/io.h>
#include <k/lapic.h>
#include <k/smp.h>
#include <k/string.h>
#include <k/trap.h>
#include <k/safe.h>
#include <ds/area.h>
#include <ds/pebs.h>
#include <ds/pmi.h>
#include "ds_model_ops.h"
#include "dsm_stream.h"

#define EVENTS 20000u
#define AREA_BYTES 0x10000u

struct conc {
    uint8_t mem[AREA_BYTES] __attribute__((aligned(4096)));
    struct dsm_cpu m;
    struct ds_cpu c;
    struct ds_ctx ctx;
    struct ds_pmi pmi;
    enum dsm_profile prof;
    uint64_t period, ip_lo, ip_hi;
    uint32_t apic_id;
    volatile unsigned pending;
    int err, herr;
    uint64_t occ, samples, foreign, lost, pmis, written, skipped;
    bool done;
    uint64_t t0, t1;  /* TSC at start and end, for the overlap line */
};

K_PERCPU(struct conc, runs);
static const enum dsm_profile profs[] = {DSM_SKYLAKE, DSM_HASWELL, DSM_ICELAKE, DSM_CORE2};

static struct conc *mine(void)
{
    uint32_t id = k_lapic_id();
    for (unsigned i = 0; i < k_smp_slots(); i++)
        if (runs[i].apic_id == id)
            return &runs[i];
    return 0;
}

static int sink(void *a, const struct ds_pebs_sample *s)
{
    struct conc *r = a;
    r->samples++;
    if ((s->present & DS_SAMPLE_IP) && (s->ip < r->ip_lo || s->ip >= r->ip_hi))
        r->foreign++;
    return 0;
}

static void add_lost(struct conc *r, const struct ds_drain_stats *d)
{
    r->lost += d->lost_beyond + d->lost_corrupt + d->lost_race;
}

/* K_VEC_SMP_PMI on whichever CPU took it: that CPU's context only. */
static void pmi_vec(struct k_trap_frame *f, void *ctx)
{
    (void)f;
    (void)ctx;
    struct conc *r = mine();
    if (r) {
        struct ds_pmi_result res;
        int e = ds_pmi_handle(&r->pmi, &res);
        if (e)
            r->herr = e;
        add_lost(r, &res.pebs);
        r->pmis++;
        r->pending = 0;
    }
    k_lapic_eoi();
}

/* The model raised its PMI: deliver it through this CPU's APIC, wait for it. */
static void model_pmi(void *ctx, uint32_t why)
{
    struct conc *r = ctx;
    (void)why;
    r->pending = 1;
    k_lapic_self_ipi(K_VEC_SMP_PMI);
    for (unsigned long i = 0; r->pending && i < 100000000ul; i++)
        k_pause();
}

static int setup(struct conc *r)
{
    uint64_t wm = r->prof == DSM_CORE2 ? 0xFFFFFFFFFFull : 0xFFFFFFFFFFFFull;
    int e = dsm_init(&r->m, r->prof, &dsm_identity_mem_ops, NULL);
    if (e != 0)
        return DS_ERR_NOT_WORKING;
    if ((e = ds_model_cpu_init(&r->c, &r->m)) != DS_OK || (e = ds_cpu_identify(&r->c)) != DS_OK)
        return e;
    struct ds_area_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.area = (union ds_area *)r->mem;
    cfg.pebs.mem = r->mem + 0x1000;
    cfg.pebs.bytes = (size_t)dsm_pebs_record_size(&r->m) * 24;
    cfg.pebs.thresh_records = 8;
    if ((e = ds_area_setup(&r->ctx, &r->c, &cfg)) != DS_OK ||
        (e = ds_area_set_reset(&r->ctx, DS_CTR_GP, 0, (-r->period) & wm)) != DS_OK ||
        (e = ds_area_install(&r->ctx)) != DS_OK)
        return e;
    struct ds_pmi_config pc;
    memset(&pc, 0, sizeof pc);
    pc.pebs_sink = sink;
    pc.pebs_arg = r;
    pc.pebs_counters = 1;
    pc.freeze = r->c.caps.perfmon_version >= 4 ? DS_FREEZE_STREAMLINED : DS_FREEZE_NONE;
    if ((e = ds_pmi_init(&r->pmi, &r->c, &r->ctx, &pc)) != DS_OK)
        return e;
    if (pc.freeze == DS_FREEZE_STREAMLINED && (e = ds_pmi_set_freeze(&r->pmi)) != DS_OK)
        return e;
    dsm_set_pmi(&r->m, model_pmi, r);
    /* SDM 18.4.4.1: PMC0 counting, PEBS on PMC0, global enable. */
    dsm_wrmsr(&r->m, 0x186, 0xC0 | (1 << 16) | (1 << 22) | (r->prof == DSM_ICELAKE ? (1ull << 34) : 0));
    dsm_wrmsr(&r->m, 0xC1, (uint32_t)-r->period);
    dsm_wrmsr(&r->m, 0x3F1, 1);
    dsm_wrmsr(&r->m, 0x38F, 1);
    return DS_OK;
}

/* Runs on every CPU at the same time. */
static void conc_run(void)
{
    struct conc *r = mine();
    if (!r)
        return;
    r->t0 = k_rdtsc();
    r->err = setup(r);
    if (r->err == DS_OK) {
        struct dsm_stream st;
        struct dsm_event ev;
        dsm_stream_init(&st, 7 + r->apic_id, 0x400000);
        for (unsigned i = 0; i < EVENTS; i++) {
            dsm_stream_next(&st, &ev);
            ev.ip += r->ip_lo - 0x400000; /* this CPU's own code window */
            ev.next_ip += r->ip_lo - 0x400000;
            if (ev.flags & DSM_EV_TAKEN)
                ev.br_to += r->ip_lo - 0x400000;
            r->occ++;
            dsm_retire(&r->m, &ev);
        }
        struct ds_drain_stats d;
        memset(&d, 0, sizeof d);
        ds_pebs_drain(&r->ctx, sink, r, &d);
        add_lost(r, &d);
        r->written = dsm_stats(&r->m)->pebs_written;
        r->skipped = dsm_stats(&r->m)->pebs_skipped;
    }
    r->t1 = k_rdtsc();
    __atomic_store_n(&r->done, true, __ATOMIC_RELEASE);
}

static void test_conc(void)
{
    unsigned n = k_smp_slots();
    if (!k_smp_enumerated() || k_smp_count() < 2) {
        ktest_skip("one CPU (smp=off, no MADT, or -smp 1): nothing runs concurrently");
        return;
    }
    k_trap_register(K_VEC_SMP_PMI, pmi_vec, 0);
    unsigned posted = 0;
    for (unsigned i = 0; i < n; i++) {
        struct conc *r = &runs[i];
        memset(r, 0, sizeof *r);
        r->apic_id = k_smp_cpu(i)->state == K_SMP_IDENTIFIED ? k_smp_cpu(i)->apic_id : 0xFFFFFFFFu;
        r->prof = profs[i % (sizeof profs / sizeof profs[0])];
        r->period = 37 + 2 * i;
        r->ip_lo = 0x400000ull + (uint64_t)i * 0x1000000ull;
        r->ip_hi = r->ip_lo + 0x200000ull;
    }
    for (unsigned i = 1; i < n; i++)
        posted += k_smp_post(i, conc_run) == 0;
    conc_run(); /* the BSP's share, at the same time */
    for (unsigned i = 1; i < n; i++)
        k_smp_wait(i);
    k_trap_register(K_VEC_SMP_PMI, 0, 0);
    unsigned ran = 0;
    for (unsigned i = 0; i < n; i++) {
        struct conc *r = &runs[i];
        if (!r->done)
            continue;
        ran++;
        const char *pn = dsm_profile_name(r->prof);
        if (!ktest_check(r->err == DS_OK, "cpu %u %s: setup %s", i, pn, ds_strerror(r->err)))
            continue;
        uint64_t want = dsm_pebs_expected(r->occ, r->period);
        ktest_check(r->written + r->skipped == want, "cpu %u %s: %llu PEBS assists = floor((%llu - 1) / %llu) = %llu", i,
                    pn, (unsigned long long)(r->written + r->skipped), (unsigned long long)r->occ,
                    (unsigned long long)r->period, (unsigned long long)want);
        ktest_check(r->samples == r->written && r->lost == 0, "cpu %u %s: %llu delivered = %llu written, %llu lost", i, pn,
                    (unsigned long long)r->samples, (unsigned long long)r->written, (unsigned long long)r->lost);
        ktest_check(r->foreign == 0, "cpu %u %s: every sampled IP in this CPU's window (%llu outside)", i, pn,
                    (unsigned long long)r->foreign);
        ktest_check(r->pmis > 0 && r->herr == DS_OK, "cpu %u %s: %llu PMIs through its own LVT/self-IPI, ds_pmi_handle %s",
                    i, pn, (unsigned long long)r->pmis, ds_strerror(r->herr));
    }
    uint64_t last_start = 0, first_end = ~0ull;
    for (unsigned i = 0; i < n; i++)
        if (runs[i].done) {
            last_start = runs[i].t0 > last_start ? runs[i].t0 : last_start;
            first_end = runs[i].t1 < first_end ? runs[i].t1 : first_end;
        }
    /* Information, not a check: on an overloaded host a vCPU may not be
     * scheduled until another has finished (TSCs assumed synchronized). */
    kprintf("# smp_conc: last start %s first end: all %u runs %s (TSC)\n", last_start < first_end ? "before" : "after",
            ran, last_start < first_end ? "overlapped" : "did not all overlap");
    ktest_check(ran == posted + 1, "%u CPU(s) ran libds at the same time (%u APs posted + the BSP)", ran, posted);
}
KTEST(smp_conc, test_conc);
