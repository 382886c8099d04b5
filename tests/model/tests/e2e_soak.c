/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * libds soak against the model (issue 4): on every PEBS-capable profile,
 * random periods, thresholds and buffer sizes; the PMI goes through
 * ds_pmi_handle() except when the "kernel" is randomly late (the PMI is
 * dropped, as with a masked LVT), so the buffer fills and the model skips
 * records. Checks: records delivered + records libds reports lost = records
 * the model wrote (no silent loss; records the model had to skip because
 * the buffer was full are the hardware's loss, visible in its statistics);
 * assists = written + skipped; every
 * sample decodes to the stream's registers. Architectural PEBS (Panther
 * Lake P/E, run_apebs): random buffer size code, threshold, record groups
 * and fragment size; late PMIs fill the buffer (INDEX.FULL, the model drops
 * records); the sink randomly refuses records and randomly lets the "CPU"
 * retire more instructions while libds walks the buffer (records written
 * during the drain: lost_race); the same delivered + lost = written, and
 * every drain after a model drop reports DS_DRAIN_FULL. Default 10^7 events; seed
 * printed; DSM_SOAK_SEED / DSM_SOAK_EVENTS override. Built only when libds
 * core's headers are in the tree.
 */
#include <stdio.h>
#include <stdlib.h>
#include "check.h"
#include "ds_model_ops.h"
#include "dsm_stream.h"
#include "model_util.h"
#include <ds/cpu.h>
#include <ds/area.h>
#include <ds/pebs.h>
#include <ds/pmi.h>
#include <ds/pmc.h>
#include <ds/arch_pebs.h>

#define LIN 0xFFFF800000100000ull
#define LIN32 0x00400000ull
static _Alignas(4096) uint8_t blk[2u << 20];
static struct fake_mem mem;

static const unsigned gpr_model_index[DS_GPR__COUNT] = {
    DSM_R_AX, DSM_R_CX, DSM_R_DX, DSM_R_BX, DSM_R_SP, DSM_R_BP, DSM_R_SI, DSM_R_DI,
    10, 11, 12, 13, 14, 15, 16, 17 };

struct soak {
    struct dsm_cpu m;
    struct ds_cpu c;
    struct ds_ctx ctx;
    struct ds_pmi pmi;
    uint64_t rng;
    unsigned late_pct;
    uint32_t nrec, mask_left;     /* PMIs still to drop in the current "late" burst */
    bool missed;                  /* a PMI was dropped and not yet serviced */
    uint64_t delivered, lost, bad, handled, dropped;
    int err;
};
static struct soak S;
static uint64_t tot_skipped, tot_written;
static uint64_t A_frags, A_rejected, A_raced, A_full, A_race_lost; /* arch-PEBS totals */

static int sink(void *a, const struct ds_pebs_sample *s)
{
    (void)a;
    S.delivered++;
    if (s->present & DS_SAMPLE_GPRS) {
        unsigned n = (s->present & DS_SAMPLE_GPRS32) ? 8 : DS_GPR__COUNT;
        uint64_t base = s->gpr[0] ^ dsm_stream_reg(0, gpr_model_index[0]);
        uint64_t m = (s->present & DS_SAMPLE_GPRS32) ? 0xFFFFFFFFull : ~0ull;
        for (unsigned k = 0; k < n; k++)
            if (((s->gpr[k] ^ dsm_stream_reg(0, gpr_model_index[k])) & m) != (base & m))
                S.bad++;
        if ((s->present & DS_SAMPLE_EVENTING_IP) && s->eventing_ip != base)
            S.bad++;
    }
    return 0;
}

static void add_lost(const struct ds_drain_stats *d)
{
    S.lost += d->lost_beyond + d->lost_corrupt + d->lost_rejected + d->lost_race;
}

static void on_pmi(void *ctx, uint32_t why)
{
    (void)ctx;
    (void)why;
    if (S.mask_left == 0 && dsm_rand_range(&S.rng, 0, 99) < S.late_pct)
        S.mask_left = (uint32_t)dsm_rand_range(&S.rng, 1, S.nrec);   /* the kernel is late for a while */
    if (S.mask_left) {
        S.mask_left--;
        S.dropped++;
        S.missed = true;
        return;
    }
    S.missed = false;
    struct ds_pmi_result r;
    int e = ds_pmi_handle(&S.pmi, &r);
    if (e && !S.err)
        S.err = e;
    add_lost(&r.pebs);
    S.handled++;
}

static void run_one(enum dsm_profile p, uint64_t seed, uint64_t nev)
{
    memset(&S, 0, sizeof(S));
    memset(blk, 0, sizeof(blk));
    S.rng = seed;
    bool nb = p == DSM_NETBURST_M3 || p == DSM_NETBURST_M4_64;
    mem.base = p == DSM_NETBURST_M3 ? LIN32 : LIN;
    mem.buf = blk;
    mem.size = sizeof(blk);
    const char *n = dsm_profile_name(p);
    CHECK_EQ(dsm_init(&S.m, p, &fm_ops, &mem), DSM_OK, "model %s", n);
    CHECK_EQ(ds_model_cpu_init(&S.c, &S.m), DS_OK, "libds cpu %s", n);
    CHECK_EQ(ds_cpu_identify(&S.c), DS_OK, "identify %s", n);
    uint64_t P = dsm_rand_range(&S.rng, 1, 300);
    uint32_t mg = 2; /* libds: one record per PEBS counter, ds_pebs_thresh_margin() */
    enum ds_layout lay;
    enum ds_pebs_fmt pf;
    if (!ds_area_layout(&S.c, &lay) && !ds_pebs_format_select(&S.c, lay, &pf))
        ds_pebs_thresh_margin(&S.c, pf, &mg);
    uint32_t maxrec = p == DSM_CORE2 || p == DSM_ATOM ? 4096 / 144 : 200; /* fmt0: 4 KiB (DS_ERR_PEBS_BUF_4K) */
    uint32_t nrec = (uint32_t)dsm_rand_range(&S.rng, mg + 1, maxrec);
    uint32_t thr = (uint32_t)dsm_rand_range(&S.rng, 1, nrec - mg);
    S.late_pct = (unsigned)dsm_rand_range(&S.rng, 0, 40);
    S.nrec = nrec;
    uint64_t cfg = 0;
    if (p == DSM_ICELAKE) {
        cfg = dsm_rand_range(&S.rng, 0, 7);   /* meminfo/GPR/XMM groups */
        dsm_wrmsr(&S.m, 0x3F2, cfg);
    }
    printf("# %s seed=0x%llx P=%llu nrec=%u thr=%u late=%u%% cfg=0x%llx\n", n, (unsigned long long)seed,
           (unsigned long long)P, nrec, thr, S.late_pct, (unsigned long long)cfg);
    struct ds_area_config ac;
    memset(&ac, 0, sizeof(ac));
    ac.area = (union ds_area *)blk;
    ac.area_linear = mem.base;
    ac.pebs.mem = blk + 0x1000;
    ac.pebs.linear = mem.base + 0x1000;
    ac.pebs.bytes = (size_t)dsm_pebs_record_size(&S.m) * nrec;
    ac.pebs.thresh_records = thr;
    ac.pebs_data_cfg = cfg;
    int e = ds_area_setup(&S.ctx, &S.c, &ac);
    CHECK_EQ(e, DS_OK, "area setup %s", n);
    if (e)
        return;
    uint64_t wm = nb || p == DSM_CORE2 || p == DSM_ATOM ? 0xFFFFFFFFFFull : 0xFFFFFFFFFFFFull;
    CHECK_EQ(ds_area_set_reset(&S.ctx, DS_CTR_GP, 0, (-P) & wm), DS_OK, "reset %s", n);
    CHECK_EQ(ds_area_install(&S.ctx), DS_OK, "install %s", n);
    struct ds_pmi_config pc;
    memset(&pc, 0, sizeof(pc));
    pc.pebs_sink = sink;
    pc.pebs_counters = nb ? 0 : 1;
    pc.freeze = S.c.caps.perfmon_version >= 4 ? DS_FREEZE_STREAMLINED : DS_FREEZE_NONE;
    CHECK_EQ(ds_pmi_init(&S.pmi, &S.c, &S.ctx, &pc), DS_OK, "pmi init %s", n);
    if (pc.freeze == DS_FREEZE_STREAMLINED)
        CHECK_EQ(ds_pmi_set_freeze(&S.pmi), DS_OK, "freeze %s", n);
    dsm_set_pmi(&S.m, on_pmi, NULL);
    if (nb) {
        dsm_wrmsr(&S.m, 0x3BC, (0x02ull << 25) | (1ull << 10) | (1 << 4) | (1 << 2));
        dsm_wrmsr(&S.m, 0x3CC, (0x08ull << 25) | (1ull << 9) | (1 << 2));
        dsm_wrmsr(&S.m, 0x310, (-P) & wm);
        dsm_wrmsr(&S.m, 0x370, 0x0003B000);
        dsm_wrmsr(&S.m, 0x3F1, 1ull << 25);
    } else {
        dsm_wrmsr(&S.m, 0x186, 0xC0 | (1 << 16) | (1 << 22) | (p == DSM_ICELAKE ? (1ull << 34) : 0));
        dsm_wrmsr(&S.m, 0xC1, (uint32_t)-P);
        dsm_wrmsr(&S.m, 0x3F1, 1);
        dsm_wrmsr(&S.m, 0x38F, 1);
    }
    CHECK_EQ(dsm_stats(&S.m)->wrmsr_gp, 0, "programming without faults %s", n);
    struct dsm_stream st;
    struct dsm_event ev;
    dsm_stream_init(&st, seed ^ 0x5A5A, 0x400000);
    uint64_t occ = 0;
    for (uint64_t i = 0; i < nev; i++) {
        dsm_stream_next(&st, &ev);
        occ += nb ? (ev.flags & DSM_EV_LOAD) != 0 : 1;
        dsm_retire(&S.m, &ev);
        /* the late kernel catches up at its next tick: it services the
         * overflow it missed (a full buffer raises no further PMI, and a v4
         * freeze stops the counters, so without this nothing would) */
        if ((i % 4096) == 4095 && S.missed) {
            S.mask_left = 0;
            S.missed = false;
            struct ds_pmi_result r;
            if (ds_pmi_handle(&S.pmi, &r) == DS_OK)
                S.handled++;
            add_lost(&r.pebs);
        }
    }
    struct ds_drain_stats d;
    memset(&d, 0, sizeof(d));
    CHECK_EQ(ds_pebs_drain(&S.ctx, sink, NULL, &d), DS_OK, "final drain %s", n);
    add_lost(&d);
    const struct dsm_stats *x = dsm_stats(&S.m);
    printf("#   occ=%llu written=%llu skipped=%llu delivered=%llu lost=%llu pmis=%llu handled=%llu dropped=%llu\n",
           (unsigned long long)occ, (unsigned long long)x->pebs_written, (unsigned long long)x->pebs_skipped,
           (unsigned long long)S.delivered, (unsigned long long)S.lost, (unsigned long long)x->pmis,
           (unsigned long long)S.handled, (unsigned long long)S.dropped);
    CHECK_EQ(S.err, DS_OK, "handler errors %s", n);
    CHECK_EQ(S.delivered + S.lost, x->pebs_written, "delivered + lost = written (no silent loss) %s", n);
    CHECK_EQ(S.bad, 0, "samples decode to the stream's registers %s", n);
    if (pc.freeze != DS_FREEZE_STREAMLINED)
        CHECK_EQ(x->pebs_written + x->pebs_skipped, dsm_pebs_expected(occ, P), "assists = written + skipped %s", n);
    CHECK_EQ(x->mem_faults, 0, "no memory faults %s", n);
    tot_skipped += x->pebs_skipped;
    tot_written += x->pebs_written;
}

/* --- Architectural PEBS (arch_pebs.h; model dsm_archpebs.c) ------------------ */

#define APHYS 0x00200000ull /* the buffer's "physical" address in the fake memory */

struct asoak {
    struct dsm_stream st;
    uint64_t occ;
    unsigned reject_pct, race_pct;
    bool in_drain;
    uint64_t full_seen, full_missed, raced, rejected, race_lost;
};
static struct asoak A;

static void aretire(void)
{
    struct dsm_event ev;
    dsm_stream_next(&A.st, &ev);
    ev.cpl = 3;
    A.occ++;
    dsm_retire(&S.m, &ev);
}

/* arch-PEBS sink: the record decodes to the stream (dsm_stream: TSC = 2 *
 * ip, registers from the ip); randomly refused (lost_rejected) and randomly
 * racing: more instructions retire while libds walks (the model writes
 * records behind the offset libds read: lost_race). */
static int asink(void *a, const struct ds_pebs_sample *s)
{
    (void)a;
    bool ok = s->fmt == DS_PEBS_FMT_ARCH && (s->present & DS_SAMPLE_IP) && s->tsc == 2 * s->ip;
    if ((s->present & DS_SAMPLE_YMMH) && (!s->ymmh || s->ymmh[31] != 0)) /* the stream has no vector state */
        ok = false;
    if (s->present & DS_SAMPLE_GPRS)
        for (unsigned k = 0; k < DS_GPR__COUNT; k++)
            if (s->gpr[k] != dsm_stream_reg(s->ip, gpr_model_index[k]))
                ok = false;
    if (!ok)
        S.bad++;
    if (dsm_rand_range(&S.rng, 0, 99) < A.race_pct) {
        uint64_t n = dsm_rand_range(&S.rng, 1, 3);
        A.raced += n;
        for (uint64_t i = 0; i < n; i++)
            aretire();
    }
    if (dsm_rand_range(&S.rng, 0, 99) < A.reject_pct) {
        A.rejected++;
        return 1;
    }
    S.delivered++;
    return 0;
}

/* One ds_pmi_handle (bit 54 -> ds_arch_pebs_drain) with the FULL check. */
static void apmi_service(void)
{
    struct ds_pmi_result r;
    A.in_drain = true;
    int e = ds_pmi_handle(&S.pmi, &r);
    A.in_drain = false;
    if (e && !S.err)
        S.err = e;
    add_lost(&r.pebs);
    A.race_lost += r.pebs.lost_race;
    if (r.pebs_drained) {
        S.handled++;
        if (S.m.ap.dropped_full != A.full_seen && !(r.pebs.anomalies & DS_DRAIN_FULL))
            A.full_missed++;
        A.full_seen = S.m.ap.dropped_full;
    }
}

static void on_apmi(void *ctx, uint32_t why)
{
    (void)ctx;
    (void)why;
    if (A.in_drain) { /* raised while the handler runs: serviced by its next pass or the next tick */
        S.missed = true;
        return;
    }
    if (S.mask_left == 0 && dsm_rand_range(&S.rng, 0, 99) < S.late_pct)
        S.mask_left = (uint32_t)dsm_rand_range(&S.rng, 1, S.nrec);
    if (S.mask_left) {
        S.mask_left--;
        S.dropped++;
        S.missed = true;
        return;
    }
    S.missed = false;
    apmi_service();
}

/* Program the run: buffer, CFG_C of GP0 with random groups, PMC0 through pmc.h. */
static bool apebs_arm(enum dsm_profile p, uint64_t P, unsigned code, uint64_t thresh, uint64_t groups, uint32_t frag)
{
    const char *n = dsm_profile_name(p);
    static struct ds_arch_pebs ap;
    CHECK_EQ(dsm_init(&S.m, p, &fm_ops, &mem), DSM_OK, "model %s", n);
    if (frag)
        CHECK_EQ(dsm_apebs_set_fragment(&S.m, frag), DSM_OK, "fragments %s", n);
    CHECK_EQ(ds_model_cpu_init(&S.c, &S.m), DS_OK, "libds cpu %s", n);
    CHECK_EQ(ds_cpu_identify(&S.c), DS_OK, "identify %s", n);
    struct ds_arch_pebs_config cfg = { blk, APHYS, code, thresh };
    int e = ds_arch_pebs_setup(&ap, &S.c, &cfg);
    CHECK_EQ(e, DS_OK, "arch-PEBS setup %s", n);
    if (e)
        return false;
    CHECK_EQ(ds_arch_pebs_install(&ap), DS_OK, "install %s", n);
    CHECK_EQ(ds_arch_pebs_counter_enable(&ap, DS_CTR_GP, 0, (uint32_t)(0 - P), groups), DS_OK, "CFG_C %s", n);
    CHECK_EQ(ds_arch_pebs_enable(&ap), DS_OK, "enable %s", n);
    struct ds_pmi_config pc;
    memset(&pc, 0, sizeof(pc));
    pc.pebs_sink = asink;
    pc.apebs = &ap;
    pc.pebs_counters = 1;
    CHECK_EQ(ds_pmi_init(&S.pmi, &S.c, NULL, &pc), DS_OK, "pmi init %s", n);
    dsm_set_pmi(&S.m, on_apmi, NULL);
    uint64_t start = 0, reset = 0;
    CHECK_EQ(ds_pmc_gp_period(&S.c, P, &start, &reset), DS_OK, "period %s", n);
    CHECK_EQ(ds_pmc_gp_program(&S.c, 0, DS_EVTSEL(0xC0, 0) | DS_EVTSEL_USR | DS_EVTSEL_EN, start), DS_OK,
             "PMC0 %s", n);
    CHECK_EQ(ds_pmc_global_ctrl(&S.c, 1), DS_OK, "GLOBAL_CTRL %s", n);
    CHECK_EQ(dsm_stats(&S.m)->wrmsr_gp, 0, "programming without faults %s", n);
    return true;
}

static void run_apebs(enum dsm_profile p, uint64_t seed, uint64_t nev)
{
    memset(&S, 0, sizeof(S));
    memset(&A, 0, sizeof(A));
    memset(blk, 0, sizeof(blk));
    S.rng = seed;
    mem.base = APHYS;
    mem.buf = blk;
    mem.size = sizeof(blk);
    const char *n = dsm_profile_name(p);
    uint64_t P = dsm_rand_range(&S.rng, 1, 300);
    unsigned code = (unsigned)dsm_rand_range(&S.rng, 0, 3); /* 4 .. 32 KiB */
    uint64_t bytes = 4096ull << code;
    uint64_t thresh = 16 * dsm_rand_range(&S.rng, 1, bytes / 16 - 1);
    /* GPR, AUX, XMM, YMMH, counters: each enumerated on both cores (CPUID.(23H,4):EBX) */
    static const uint64_t opt[5] = { DS_APEBS_CFG_GPR, DS_APEBS_CFG_AUX, DS_APEBS_CFG_XMM, DS_APEBS_CFG_YMMH,
                                     DS_APEBS_CFG_CNTR_ALLOW | DS_APEBS_CFG_CNTR_GP };
    uint64_t groups = 0;
    for (unsigned k = 0; k < 5; k++)
        if (dsm_rand_range(&S.rng, 0, 1))
            groups |= opt[k];
    uint32_t frag = dsm_rand_range(&S.rng, 0, 1) ? 8 * (uint32_t)dsm_rand_range(&S.rng, 8, 40) : 0;
    S.late_pct = (unsigned)dsm_rand_range(&S.rng, 0, 40);
    S.nrec = (uint32_t)(bytes / 64);
    A.reject_pct = (unsigned)dsm_rand_range(&S.rng, 0, 10);
    A.race_pct = (unsigned)dsm_rand_range(&S.rng, 0, 10);
    printf("# %s seed=0x%llx P=%llu code=%u thr=%llu groups=0x%llx frag=%u late=%u%% reject=%u%% race=%u%%\n", n,
           (unsigned long long)seed, (unsigned long long)P, code, (unsigned long long)thresh,
           (unsigned long long)groups, frag, S.late_pct, A.reject_pct, A.race_pct);
    if (!apebs_arm(p, P, code, thresh, groups, frag))
        return;
    dsm_stream_init(&A.st, seed ^ 0x5A5A, 0x400000);
    for (uint64_t i = 0; i < nev; i++) {
        aretire();
        if ((i % 4096) == 4095 && S.missed) { /* the late kernel's next tick */
            S.mask_left = 0;
            S.missed = false;
            apmi_service();
        }
    }
    dsm_wrmsr(&S.m, 0x38F, 0); /* counters off: the final drain is exact */
    A.race_pct = 0;            /* (instructions retired now would not be counted) */
    struct ds_drain_stats d;
    memset(&d, 0, sizeof(d));
    CHECK_EQ(ds_arch_pebs_drain(S.pmi.cfg.apebs, asink, NULL, &d), DS_OK, "final drain %s", n);
    add_lost(&d);
    if (S.m.ap.dropped_full != A.full_seen && !(d.anomalies & DS_DRAIN_FULL))
        A.full_missed++;
    const struct dsm_stats *x = dsm_stats(&S.m);
    const struct dsm_apebs *a = &S.m.ap;
    printf("#   occ=%llu written=%llu frags=%llu full-dropped=%llu delivered=%llu lost=%llu rejected=%llu raced=%llu "
           "pmis=%llu handled=%llu dropped=%llu\n",
           (unsigned long long)A.occ, (unsigned long long)a->records, (unsigned long long)a->fragments,
           (unsigned long long)a->dropped_full, (unsigned long long)S.delivered, (unsigned long long)S.lost,
           (unsigned long long)A.rejected, (unsigned long long)A.raced, (unsigned long long)x->pmis,
           (unsigned long long)S.handled, (unsigned long long)S.dropped);
    CHECK_EQ(S.err, DS_OK, "handler errors %s", n);
    CHECK_EQ(a->records, x->pebs_written, "model: records = pebs_written %s", n);
    CHECK_EQ(S.delivered + S.lost, a->records, "delivered + lost = written (no silent loss) %s", n);
    CHECK_EQ(S.bad, 0, "samples decode to the stream %s", n);
    CHECK_EQ(a->records + a->dropped_full + a->dropped_off, dsm_pebs_expected(A.occ, P),
             "assists = written + dropped %s", n);
    CHECK_EQ(A.full_missed, 0, "every drain after a FULL drop reports DS_DRAIN_FULL %s", n);
    CHECK_EQ(x->mem_faults, 0, "no memory faults %s", n);
    tot_skipped += a->dropped_full;
    tot_written += a->records;
    A_frags += a->fragments - a->records;
    A_rejected += A.rejected;
    A_raced += A.raced;
    A_race_lost += A.race_lost;
}

int main(void)
{
    uint64_t seed = 0x5EED0002ull, total = 10000000ull;
    const char *e = getenv("DSM_SOAK_SEED");
    if (e)
        seed = strtoull(e, NULL, 0);
    e = getenv("DSM_SOAK_EVENTS");
    if (e)
        total = strtoull(e, NULL, 0);
    static const enum dsm_profile profs[] = { DSM_NETBURST_M3, DSM_NETBURST_M4_64, DSM_CORE2, DSM_ATOM,
                                              DSM_NEHALEM, DSM_HASWELL, DSM_SKYLAKE, DSM_ICELAKE };
    const unsigned nprof = sizeof(profs) / sizeof(profs[0]), runs = 3;
    printf("# libds soak: seed=0x%llx events=%llu (replay: DSM_SOAK_SEED=0x%llx)\n", (unsigned long long)seed,
           (unsigned long long)total, (unsigned long long)seed);
    uint64_t rng = seed;
    for (unsigned r = 0; r < runs; r++)
        for (unsigned i = 0; i < nprof; i++)
            run_one(profs[i], dsm_rand(&rng), total / (runs * nprof));
    static const enum dsm_profile aprofs[] = { DSM_PTL_P, DSM_PTL_E };
    uint64_t before = tot_skipped;
    for (unsigned r = 0; r < 4; r++)
        for (unsigned i = 0; i < 2; i++)
            run_apebs(aprofs[i], dsm_rand(&rng), total / (runs * nprof));
    A_full = tot_skipped - before;
    printf("# arch PEBS totals: full-dropped %llu, extra fragments %llu, refused %llu, raced instructions %llu, "
           "records written during a drain %llu\n",
           (unsigned long long)A_full, (unsigned long long)A_frags, (unsigned long long)A_rejected,
           (unsigned long long)A_raced, (unsigned long long)A_race_lost);
    printf("# totals: written %llu, skipped by the model (buffer full) %llu\n", (unsigned long long)tot_written,
           (unsigned long long)tot_skipped);
    if (seed == 0x5EED0002ull && total >= 1000000) {
        CHECK(tot_skipped > 0, "the default soak drives the buffer full");
        CHECK(A_full > 0 && A_frags > 0 && A_rejected > 0 && A_race_lost > 0,
              "the default arch-PEBS soak drives FULL, fragments, refusals and records written during a drain");
    }
    return check_summary();
}
