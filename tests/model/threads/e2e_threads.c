/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Several libds contexts at once, one per host thread, each against its own
 * reference-model CPU (issue 13, library side): the way an SMP kernel runs
 * libds, one struct ds_cpu / ds_ctx / ds_pmi per logical CPU, each identified
 * "on that CPU" (its own model instance), PMIs taken concurrently.
 *
 * Built with -fsanitize=thread and NOT ASan (the two cannot be combined), so
 * libds, the model and the adapter are compiled a second time for this target
 * (tests/model/threads/CMakeLists.txt). TSan reports any data race: a hidden
 * static or shared cache in libds written from two contexts would be one.
 *
 * Per thread: ds_cpu_identify, ds_probe, ds_area_setup/install, PEBS through
 * ds_pmi_handle() on 200000 retired events, final drain. Each thread uses its
 * own linear window and its own IP range, so a record delivered to the wrong
 * context (cross-CPU attribution) or lost shows in the per-thread counts,
 * which main() checks after the join (check.h's counters are not shared
 * between threads).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include "check.h"
#include "ds_model_ops.h"
#include "dsm_stream.h"
#include "model_util.h"
#include <ds/cpu.h>
#include <ds/area.h>
#include <ds/pebs.h>
#include <ds/bts.h>
#include <ds/pmi.h>
#include <ds/probe.h>

#define NTHREADS 6
#define EVENTS 200000
#define BLK (1u << 20)

struct run {
    int idx;
    enum dsm_profile prof;
    uint64_t period;
    unsigned nrec, thr;
    bool bts;
    uint8_t *blk;
    struct fake_mem mem;
    struct dsm_cpu m;
    struct ds_cpu c;
    struct ds_ctx ctx;
    struct ds_pmi pmi;
    uint64_t ip_lo, ip_hi;
    /* results, read by main() after pthread_join */
    int err_identify, err_probe, err_setup, err_pmi_init, herr;
    bool probe_working;
    uint64_t occ, taken, samples, foreign_ip, bts_recs, lost, handles;
    uint64_t written, skipped, bts_written;
};

static pthread_barrier_t start_line;

static int psink(void *a, const struct ds_pebs_sample *s)
{
    struct run *r = a;
    r->samples++;
    if ((s->present & DS_SAMPLE_IP) && (s->ip < r->ip_lo || s->ip > r->ip_hi))
        r->foreign_ip++;
    return 0;
}

static int bsink(void *a, const struct ds_bts_branch *b)
{
    struct run *r = a;
    (void)b;
    r->bts_recs++;
    return 0;
}

static void add_lost(struct run *r, const struct ds_drain_stats *d)
{
    r->lost += d->lost_beyond + d->lost_corrupt + d->lost_race;
}

/* The model raises the PMI synchronously inside dsm_retire(), on the thread
 * that retired the event: the host analogue of a PMI on the CPU itself. */
static void on_pmi(void *arg, uint32_t why)
{
    struct run *r = arg;
    struct ds_pmi_result res;
    (void)why;
    int e = ds_pmi_handle(&r->pmi, &res);
    if (e)
        r->herr = e;
    add_lost(r, &res.pebs);
    if (res.bts_drained) /* pmi.h: result.bts is written when BTS was drained */
        add_lost(r, &res.bts);
    r->handles++;
}

static void exercise(void *arg)
{
    struct dsm_cpu *m = arg;
    for (int i = 0; i < 4; i++) {
        struct dsm_event b = ev_branch(0x401000 + 16 * i, 0x402000 + 16 * i, false);
        b.cpl = 0;
        dsm_retire(m, &b);
    }
}

static bool is_nb(enum dsm_profile p) { return p == DSM_NETBURST_M3 || p == DSM_NETBURST_M4_64; }

/* Counter programming straight into the model (SDM 18.4.4 / 18.6.3.8.2
 * NetBurst IQ_COUNTER4 + ESCRs; 18.4.4.1 PMC0 PEBS on Core and later). */
static void program(struct run *r, uint64_t wm)
{
    uint64_t P = r->period;
    if (is_nb(r->prof)) {
        dsm_wrmsr(&r->m, 0x3BC, (0x02ull << 25) | (1ull << 10) | (1 << 4) | (1 << 2));
        dsm_wrmsr(&r->m, 0x3CC, (0x08ull << 25) | (1ull << 9) | (1 << 2));
        dsm_wrmsr(&r->m, 0x310, (-P) & wm);
        dsm_wrmsr(&r->m, 0x370, 0x0003B000);
        dsm_wrmsr(&r->m, 0x3F1, 1ull << 25);
    } else {
        dsm_wrmsr(&r->m, 0x186, 0xC0 | (1 << 16) | (1 << 22) | (r->prof == DSM_ICELAKE ? (1ull << 34) : 0));
        dsm_wrmsr(&r->m, 0xC1, (uint32_t)-P);
        dsm_wrmsr(&r->m, 0x3F1, 1);
        dsm_wrmsr(&r->m, 0x38F, 1);
    }
}

static int setup(struct run *r)
{
    struct ds_area_config cfg;
    uint8_t *blk = r->blk;
    uint64_t lin = r->mem.base;
    memset(&cfg, 0, sizeof(cfg));
    cfg.area = (union ds_area *)blk;
    cfg.area_linear = lin;
    cfg.pebs.mem = blk + 0x1000;
    cfg.pebs.linear = lin + 0x1000;
    cfg.pebs.bytes = (size_t)dsm_pebs_record_size(&r->m) * r->nrec;
    cfg.pebs.thresh_records = r->thr;
    if (r->bts) {
        cfg.bts.mem = blk + 0x40000;
        cfg.bts.linear = lin + 0x40000;
        cfg.bts.bytes = dsm_bts_record_size(&r->m) * 64;
        cfg.bts.thresh_records = 60;
    }
    return ds_area_setup(&r->ctx, &r->c, &cfg);
}

static void *cpu_main(void *arg)
{
    struct run *r = arg;
    bool nb = is_nb(r->prof);
    uint64_t wm = nb || r->prof == DSM_CORE2 ? 0xFFFFFFFFFFull : 0xFFFFFFFFFFFFull;

    if (dsm_init(&r->m, r->prof, &fm_ops, &r->mem) != 0 || ds_model_cpu_init(&r->c, &r->m) != DS_OK)
        return NULL;
    pthread_barrier_wait(&start_line); /* every context identifies at once */
    r->err_identify = ds_cpu_identify(&r->c);
    struct ds_probe_result pr;
    struct ds_probe_bts_scratch sc = { (union ds_area *)(r->blk + 0x80000), r->mem.base + 0x80000,
        r->blk + 0x81000, r->mem.base + 0x81000, 24 * 16, exercise, &r->m };
    r->err_probe = ds_probe(&r->c, &sc, &pr);
    r->probe_working = pr.ds_area.verdict == DS_PROBE_WORKING && pr.counter.verdict == DS_PROBE_WORKING;
    dsm_stats_reset(&r->m);
    if ((r->err_setup = setup(r)) != DS_OK)
        return NULL;
    ds_area_set_reset(&r->ctx, DS_CTR_GP, 0, (-r->period) & wm);
    ds_area_install(&r->ctx);
    if (r->bts)
        ds_bts_enable(&r->ctx, DS_BTS_INT);
    struct ds_pmi_config pc;
    memset(&pc, 0, sizeof(pc));
    pc.pebs_sink = psink;
    pc.pebs_arg = r;
    pc.bts_sink = bsink;
    pc.bts_arg = r;
    pc.pebs_counters = nb ? 0 : 1;
    pc.freeze = r->c.caps.perfmon_version >= 4 ? DS_FREEZE_STREAMLINED : DS_FREEZE_NONE;
    if ((r->err_pmi_init = ds_pmi_init(&r->pmi, &r->c, &r->ctx, &pc)) != DS_OK)
        return NULL;
    if (pc.freeze == DS_FREEZE_STREAMLINED)
        ds_pmi_set_freeze(&r->pmi);
    dsm_set_pmi(&r->m, on_pmi, r);
    program(r, wm);

    struct dsm_stream st;
    struct dsm_event ev;
    dsm_stream_init(&st, 42 + (uint64_t)r->idx, 0x400000);
    for (int i = 0; i < EVENTS; i++) {
        dsm_stream_next(&st, &ev);
        /* The stream's code lives at 0x400000..0x500000 (+ drift); move it
         * to this CPU's own window so a sample's IP names its CPU. */
        ev.ip += r->ip_lo - 0x400000;
        ev.next_ip += r->ip_lo - 0x400000;
        if (ev.flags & DSM_EV_TAKEN)
            ev.br_to += r->ip_lo - 0x400000;
        r->occ += nb ? !!(ev.flags & DSM_EV_LOAD) : 1;
        r->taken += !!(ev.flags & DSM_EV_TAKEN);
        dsm_retire(&r->m, &ev);
    }
    struct ds_drain_stats d;
    memset(&d, 0, sizeof(d));
    ds_pebs_drain(&r->ctx, psink, r, &d);
    add_lost(r, &d);
    if (r->bts) {
        memset(&d, 0, sizeof(d));
        ds_bts_drain(&r->ctx, bsink, r, &d);
        add_lost(r, &d);
    }
    r->written = dsm_stats(&r->m)->pebs_written;
    r->skipped = dsm_stats(&r->m)->pebs_skipped;
    r->bts_written = dsm_stats(&r->m)->bts_written;
    return NULL;
}

int main(void)
{
    static const struct { enum dsm_profile p; uint64_t period; unsigned nrec, thr; bool bts; } plan[NTHREADS] = {
        { DSM_SKYLAKE, 97, 64, 40, true },  { DSM_SKYLAKE, 89, 64, 40, true },
        { DSM_HASWELL, 50, 64, 40, false }, { DSM_ICELAKE, 50, 24, 8, false },
        { DSM_CORE2, 50, 16, 8, false },    { DSM_NETBURST_M4_64, 20, 16, 8, false },
    };
    static struct run R[NTHREADS];
    pthread_t th[NTHREADS];
    pthread_barrier_init(&start_line, NULL, NTHREADS);
    for (int i = 0; i < NTHREADS; i++) {
        struct run *r = &R[i];
        r->idx = i;
        r->prof = plan[i].p;
        r->period = plan[i].period;
        r->nrec = plan[i].nrec;
        r->thr = plan[i].thr;
        r->bts = plan[i].bts;
        r->blk = aligned_alloc(4096, BLK);
        memset(r->blk, 0, BLK);
        /* Distinct linear windows and IP ranges per "CPU". */
        r->mem.base = 0xFFFF800000100000ull + (uint64_t)i * 0x10000000ull;
        r->mem.buf = r->blk;
        r->mem.size = BLK;
        r->ip_lo = 0x400000ull + (uint64_t)i * 0x1000000ull;
        r->ip_hi = r->ip_lo + 0x200000ull;
        CHECK_EQ(pthread_create(&th[i], NULL, cpu_main, r), 0, "thread %d", i);
    }
    for (int i = 0; i < NTHREADS; i++)
        pthread_join(th[i], NULL);
    for (int i = 0; i < NTHREADS; i++) {
        struct run *r = &R[i];
        const char *n = dsm_profile_name(r->prof);
        printf("# cpu %d %s: occ %llu written %llu skipped %llu samples %llu foreign %llu lost %llu pmis %llu bts %llu/%llu\n",
               i, n, (unsigned long long)r->occ, (unsigned long long)r->written, (unsigned long long)r->skipped,
               (unsigned long long)r->samples, (unsigned long long)r->foreign_ip, (unsigned long long)r->lost,
               (unsigned long long)r->handles, (unsigned long long)r->bts_recs, (unsigned long long)r->taken);
        CHECK_EQ(r->err_identify, DS_OK, "cpu %d %s: identify", i, n);
        CHECK_EQ(r->err_probe, DS_OK, "cpu %d %s: probe", i, n);
        CHECK(r->probe_working, "cpu %d %s: probe finds its model working", i, n);
        CHECK_EQ(r->err_setup, DS_OK, "cpu %d %s: area setup", i, n);
        CHECK_EQ(r->err_pmi_init, DS_OK, "cpu %d %s: pmi init", i, n);
        CHECK_EQ(r->herr, DS_OK, "cpu %d %s: every ds_pmi_handle succeeded", i, n);
        CHECK(r->handles > 0, "cpu %d %s: PMIs were taken", i, n);
        CHECK_EQ(r->written + r->skipped, dsm_pebs_expected(r->occ, r->period), "cpu %d %s: assists", i, n);
        CHECK_EQ(r->samples, r->written, "cpu %d %s: delivered = written (no cross-context loss)", i, n);
        CHECK_EQ(r->foreign_ip, 0, "cpu %d %s: every sampled IP in this CPU's own range", i, n);
        CHECK_EQ(r->lost, 0, "cpu %d %s: nothing lost", i, n);
        if (r->bts) {
            CHECK_EQ(r->bts_recs, r->taken, "cpu %d %s: BTS: every taken branch delivered", i, n);
            CHECK_EQ(r->bts_written, r->taken, "cpu %d %s: BTS: model wrote one per taken branch", i, n);
        }
        free(r->blk);
    }
    pthread_barrier_destroy(&start_line);
    return check_summary();
}
