/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * End to end, libds core (area, PEBS, BTS, PMI, probe) against the model on
 * every PEBS-capable profile: the functional probe finds the model working;
 * PEBS through ds_pmi_handle() delivers exactly the records the model wrote
 * (count = dsm_pebs_expected(occurrences, period), IPs from the stream, no
 * loss); BTS delivers one branch per taken branch; the handler's MSR cost
 * per PMI is printed. Built only when libds's area/pebs/bts/pmi/probe
 * headers exist (tests/model/CMakeLists.txt). The fuller round-2 tests
 * (registers per record, freeze modes, NetBurst programming through libds,
 * the 10^7 soak) build on this.
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
#include <ds/bts.h>
#include <ds/pmi.h>
#include <ds/probe.h>

#define LIN 0xFFFF800000100000ull
#define LIN32 0x00400000ull
static _Alignas(4096) uint8_t blk[1 << 20];
static struct fake_mem mem;

struct run {
    struct dsm_cpu m; struct ds_cpu c; struct ds_ctx ctx; struct ds_pmi pmi;
    uint64_t samples, bad_ip, bts; uint64_t lost; int herr; uint64_t rd, wr, handles;
};
static struct run R;
static uint64_t expect_ip_lo, expect_ip_hi;

/* The stream derives every register from the eventing IP (dsm_stream_reg)
 * and TSC = 2 * ip. Check the decoded sample against that. */
static const unsigned gpr_model_index[DS_GPR__COUNT] = {
    DSM_R_AX, DSM_R_CX, DSM_R_DX, DSM_R_BX, DSM_R_SP, DSM_R_BP, DSM_R_SI, DSM_R_DI,
    10, 11, 12, 13, 14, 15, 16, 17 };
static int psink(void *a, const struct ds_pebs_sample *s)
{
    (void)a;
    R.samples++;
    bool ok = true;
    if ((s->present & DS_SAMPLE_IP) && (s->ip < expect_ip_lo || s->ip > expect_ip_hi))
        ok = false;
    if (s->present & DS_SAMPLE_GPRS) {
        unsigned n = (s->present & DS_SAMPLE_GPRS32) ? 8 : DS_GPR__COUNT;
        uint64_t base = s->gpr[0] ^ dsm_stream_reg(0, gpr_model_index[0]);
        if (s->present & DS_SAMPLE_GPRS32)
            base &= 0xFFFFFFFFull;
        for (unsigned k = 0; k < n; k++) {
            uint64_t v = s->gpr[k] ^ dsm_stream_reg(0, gpr_model_index[k]);
            if (s->present & DS_SAMPLE_GPRS32)
                v &= 0xFFFFFFFFull;
            if (v != base)
                ok = false;
        }
        if (base < expect_ip_lo || base > expect_ip_hi)
            ok = false;
        if ((s->present & DS_SAMPLE_EVENTING_IP) && s->eventing_ip != base)
            ok = false;
        if ((s->present & DS_SAMPLE_TSC) && s->tsc != 2 * base)
            ok = false;
        if ((s->present & DS_SAMPLE_IP) && s->ip_is_next && s->ip == base)
            ok = false;
    }
    if ((s->present & DS_SAMPLE_FLAGS) && s->flags != 0x202)
        ok = false;
    if ((s->present & DS_SAMPLE_APPLICABLE) && s->counters != 1)
        ok = false;
    if (!ok)
        R.bad_ip++;
    return 0;
}

static int bsink(void *a, const struct ds_bts_branch *b) { (void)a; (void)b; R.bts++; return 0; }
static void on_pmi(void *ctx, uint32_t why)
{
    (void)ctx; (void)why;
    struct ds_pmi_result res;
    int e = ds_pmi_handle(&R.pmi, &res);
    if (e) R.herr = e;
    R.lost += res.pebs.lost_beyond + res.pebs.lost_corrupt + res.pebs.lost_race;
    if (res.bts_drained) /* pmi.h: result.bts is written when BTS was drained */
        R.lost += res.bts.lost_beyond + res.bts.lost_corrupt + res.bts.lost_race;
    R.rd += res.msr_reads; R.wr += res.msr_writes; R.handles++;
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

static void one(enum dsm_profile p, uint64_t P, unsigned nrec, unsigned thr, bool bts, uint32_t btsflags)
{
    memset(&R, 0, sizeof(R)); memset(blk, 0, sizeof(blk));
    bool nb = p == DSM_NETBURST_M3 || p == DSM_NETBURST_M4_64;
    mem.base = p == DSM_NETBURST_M3 ? LIN32 : LIN; mem.buf = blk; mem.size = sizeof(blk);
    const char *n = dsm_profile_name(p);
    CHECK_EQ(dsm_init(&R.m, p, &fm_ops, &mem), 0, "init");
    CHECK_EQ(ds_model_cpu_init(&R.c, &R.m), DS_OK, "dcpu");
    CHECK_EQ(ds_cpu_identify(&R.c), DS_OK, "identify");
    struct ds_probe_result pr;
    struct ds_probe_bts_scratch sc = { (union ds_area *)(blk + 0x80000), mem.base + 0x80000, blk + 0x81000, mem.base + 0x81000, 24 * 16, exercise, &R.m };
    if (p == DSM_NETBURST_M3)
        sc.buf_bytes = 12 * 16;
    CHECK_EQ(ds_probe(&R.c, &sc, &pr), DS_OK, "probe %s", n);
    CHECK(pr.ds_area.verdict == DS_PROBE_WORKING && pr.counter.verdict == DS_PROBE_WORKING && pr.bts.verdict == DS_PROBE_WORKING, "probe finds the model working %s", n);
    printf("# %s probe: ds_area %d/%d counter %d/%d bts %d/%d\n", n, pr.ds_area.verdict, pr.ds_area.reason, pr.counter.verdict, pr.counter.reason, pr.bts.verdict, pr.bts.reason);
    dsm_stats_reset(&R.m);
    uint32_t rsz = dsm_pebs_record_size(&R.m);
    struct ds_area_config cfg;
    memset(&cfg, 0, sizeof(cfg));
    cfg.area = (union ds_area *)blk; cfg.area_linear = mem.base;
    cfg.pebs.mem = blk + 0x1000; cfg.pebs.linear = mem.base + 0x1000; cfg.pebs.bytes = (size_t)rsz * nrec; cfg.pebs.thresh_records = thr;
    if (bts) { cfg.bts.mem = blk + 0x40000; cfg.bts.linear = mem.base + 0x40000; cfg.bts.bytes = dsm_bts_record_size(&R.m) * 64; cfg.bts.thresh_records = (btsflags & DS_BTS_INT) ? 60 : 0; }
    int e = ds_area_setup(&R.ctx, &R.c, &cfg);
    CHECK_EQ(e, DS_OK, "setup %s", n);
    if (e) return;
    uint64_t wm = nb || p == DSM_CORE2 || p == DSM_ATOM ? 0xFFFFFFFFFFull : 0xFFFFFFFFFFFFull;
    CHECK_EQ(ds_area_set_reset(&R.ctx, DS_CTR_GP, 0, (-P) & wm), DS_OK, "reset");
    CHECK_EQ(ds_area_install(&R.ctx), DS_OK, "install");
    if (bts) CHECK_EQ(ds_bts_enable(&R.ctx, btsflags), DS_OK, "bts enable");
    struct ds_pmi_config pc; memset(&pc, 0, sizeof(pc));
    pc.pebs_sink = psink; pc.bts_sink = bsink;
    pc.pebs_counters = nb ? 0 : 1;
    pc.freeze = R.c.caps.perfmon_version >= 4 ? DS_FREEZE_STREAMLINED : DS_FREEZE_NONE;
    CHECK_EQ(ds_pmi_init(&R.pmi, &R.c, &R.ctx, &pc), DS_OK, "pmi init %s", n);
    if (pc.freeze == DS_FREEZE_STREAMLINED) CHECK_EQ(ds_pmi_set_freeze(&R.pmi), DS_OK, "freeze");
    dsm_set_pmi(&R.m, on_pmi, NULL);
    if (nb) {
        dsm_wrmsr(&R.m, 0x3BC, (0x02ull << 25) | (1ull << 10) | (1 << 4) | (1 << 2));
        dsm_wrmsr(&R.m, 0x3CC, (0x08ull << 25) | (1ull << 9) | (1 << 2));
        dsm_wrmsr(&R.m, 0x310, (-P) & wm); dsm_wrmsr(&R.m, 0x370, 0x0003B000); dsm_wrmsr(&R.m, 0x3F1, 1ull << 25);
    } else {
        dsm_wrmsr(&R.m, 0x186, 0xC0 | (1 << 16) | (1 << 22) | (p == DSM_ICELAKE ? (1ull << 34) : 0));
        dsm_wrmsr(&R.m, 0xC1, (uint32_t)-P); dsm_wrmsr(&R.m, 0x3F1, 1); dsm_wrmsr(&R.m, 0x38F, 1);
    }
    struct dsm_stream st; dsm_stream_init(&st, 42, 0x400000); struct dsm_event ev;
    uint64_t occ = 0, taken = 0; expect_ip_lo = 0x400000; expect_ip_hi = 0x500000;
    for (int i = 0; i < 200000; i++) { dsm_stream_next(&st, &ev); occ += nb ? !!(ev.flags & DSM_EV_LOAD) : 1; taken += !!(ev.flags & DSM_EV_TAKEN); dsm_retire(&R.m, &ev); }
    /* final drain */
    struct ds_drain_stats ds; memset(&ds, 0, sizeof(ds));
    ds_pebs_drain(&R.ctx, psink, NULL, &ds);
    R.lost += ds.lost_beyond + ds.lost_corrupt + ds.lost_race;
    if (bts) {
        memset(&ds, 0, sizeof(ds));
        ds_bts_drain(&R.ctx, bsink, NULL, &ds);
        R.lost += ds.lost_beyond + ds.lost_corrupt + ds.lost_race;
        CHECK_EQ(R.bts, taken, "BTS: every taken branch delivered %s", n);
        CHECK_EQ(dsm_stats(&R.m)->bts_written, taken, "BTS: model wrote one per taken branch %s", n);
    }
    const struct dsm_stats *x = dsm_stats(&R.m);
    printf("# %s: occ %llu expected %llu written %llu skipped %llu samples %llu lost %llu bad_ip %llu pmis %llu handles %llu herr %d msr/pmi %.2f bts %llu/%llu\n", n,
        (unsigned long long)occ, (unsigned long long)dsm_pebs_expected(occ, P), (unsigned long long)x->pebs_written, (unsigned long long)x->pebs_skipped,
        (unsigned long long)R.samples, (unsigned long long)R.lost, (unsigned long long)R.bad_ip, (unsigned long long)x->pmis, (unsigned long long)R.handles, R.herr,
        R.handles ? (double)(R.rd + R.wr) / R.handles : 0.0, (unsigned long long)R.bts, (unsigned long long)taken);
    CHECK_EQ(x->pebs_written + x->pebs_skipped, dsm_pebs_expected(occ, P), "assists %s", n);
    CHECK_EQ(R.samples, x->pebs_written, "delivered = written %s", n);
    CHECK_EQ(R.bad_ip, 0, "IPs, registers, flags, TSC, applicable counters as fed %s", n);
}

int main(void)
{
    one(DSM_SKYLAKE, 97, 64, 40, true, DS_BTS_INT);
    one(DSM_HASWELL, 50, 64, 40, false, 0);
    one(DSM_NEHALEM, 50, 64, 40, false, 0);
    one(DSM_CORE2, 50, 16, 8, false, 0);
    one(DSM_ICELAKE, 50, 24, 8, false, 0); /* PEBS margin: 8 GP + 4 fixed records (ds_pebs_thresh_margin) */
    one(DSM_NETBURST_M3, 20, 16, 8, false, 0);
    one(DSM_NETBURST_M4_64, 20, 16, 8, false, 0);
    return check_summary();
}
