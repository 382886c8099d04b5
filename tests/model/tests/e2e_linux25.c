/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Issue 25 items 1, 2, 5 and 14: libds sessions against the model where the
 * model is as strict as the hardware and Linux takes a step libds did not.
 *
 *  - test_bts_legacy_freeze (item 5): perfmon v2/v3 with legacy freeze. A
 *    BTS threshold PMI sets no GLOBAL_STATUS bit, yet FREEZE_PERFMON_ON_PMI
 *    "clears each of the ENABLE field of MSR_PERF_GLOBAL_CTRL" on a PMI
 *    request (SDM Vol. 3B, IA32_DEBUGCTL bit 12; the model does so on every
 *    PMI request). Linux intel_pmu_handle_irq ends every PMI with
 *    __intel_pmu_enable_all, which rewrites GLOBAL_CTRL. A DS_COUNT counter
 *    must therefore count every instruction across BTS-only PMIs, and
 *    GLOBAL_CTRL must hold the session's enables afterwards. Skylake (v4,
 *    streamlined: the freeze is CTR_Frz in the status) is the control.
 *  - test_metrics_enable (item 2): DS_GROUP_METRICS. Linux intel_set_masks
 *    sets GLOBAL_CTRL bit 48 (EN_PERF_METRICS, INTEL_PMC_IDX_METRIC_BASE) for
 *    a topdown group; the model updates IA32_PERF_METRICS only with it
 *    (Retiring FFH: every slot retires in the model, dsmodel.h), so every
 *    record's perf_metrics must read FFH, not the stale 0.
 *  - test_cntr_allow (item 1): architectural PEBS counters group. Linux
 *    intel_pmu_enable_event_ext sets ARCH_PEBS_CNTR_ALLOW (CFG_C bit 35) on
 *    every member of a PEBS counter group, the counting ones without EN; the
 *    model records only counters with it. The DS_COUNT counter (and fixed 3
 *    counting slots for metrics) must carry CFG_C = CNTR_ALLOW exactly and
 *    appear in every record; teardown restores their CFG_C.
 * Expectations: the SDM / Linux facts above and the model's documented
 * rules, never libds's own tables.
 */
#include <stdio.h>
#include "check.h"
#include "ds_model_ops.h"
#include "model_util.h"
#include <ds/cpu.h>
#include <ds/event.h>
#include <ds/session.h>

#define LIN 0x10000000ull
static _Alignas(4096) uint8_t blk[1 << 18];
static struct fake_mem mem;

static struct {
    struct dsm_cpu m;
    struct ds_cpu c;
    struct ds_session s;
    uint64_t ip, branches, recs, met_recs, met_bad, cnt_missing, gctl_bad;
    int pmi_err;
    bool want_cnt;            /* test_cntr_allow: the DS_COUNT counter in every record */
    enum ds_ctr_kind ckind;
    unsigned cidx;
    uint64_t cprev;
} T;

static void on_pmi(void *ctx, uint32_t why)
{
    (void)ctx;
    (void)why;
    int e = ds_session_pmi(&T.s, T.ip, NULL);
    if (e != DS_OK && e != DS_ERR_SESSION_SPURIOUS && !T.pmi_err)
        T.pmi_err = e;
}

static void on_branch(void *arg, const struct ds_bts_branch *b)
{
    (void)arg;
    (void)b;
    T.branches++;
}

static void on_sample(void *arg, const struct ds_session_sample *s)
{
    (void)arg;
    const struct ds_pebs_sample *p = s->pebs;
    if (!p)
        return;
    T.recs++;
    if (p->present & DS_SAMPLE_METRICS) {
        T.met_recs++;
        /* model: Retiring (bits 7:0) = FFH of the slots, the rest 0 */
        if (p->perf_metrics != 0xFF || p->topdown_slots == 0)
            T.met_bad++;
    }
    if (T.want_cnt) {
        uint32_t mask = T.ckind == DS_CTR_FIXED ? p->cntr_fixed_mask : p->cntr_gp_mask;
        uint64_t v = T.ckind == DS_CTR_FIXED ? p->cntr_fixed[T.cidx] : p->cntr_gp[T.cidx];
        if (!((p->present & DS_SAMPLE_CNTRS) && (mask >> T.cidx & 1)) || v < T.cprev)
            T.cnt_missing++;
        T.cprev = v;
    }
}

static int prepare(enum dsm_profile p, size_t bytes)
{
    memset(&T, 0, sizeof T);
    fm_cpu_init(&T.m, p, &mem, blk, sizeof blk, LIN);
    dsm_set_pmi(&T.m, on_pmi, NULL);
    CHECK_EQ(ds_model_cpu_init(&T.c, &T.m), DS_OK, "libds init %s", dsm_profile_name(p));
    CHECK_EQ(ds_cpu_identify(&T.c), DS_OK, "identify %s", dsm_profile_name(p));
    struct ds_session_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.mem = blk;
    cfg.bytes = bytes;
    cfg.mem_linear = LIN;
    cfg.mem_phys = LIN;
    cfg.on_sample = on_sample;
    cfg.on_branch = on_branch;
    cfg.pebs_flags = DS_PMC_PEBS_ALLOW_ERRATA;
    return ds_session_init(&T.s, &T.c, &cfg);
}

static uint64_t counter_of(const struct ds_session_req *r)
{
    return r->kind == DS_CTR_FIXED ? T.m.fixed[r->idx] : T.m.pmc[r->idx];
}

/* The workload of the e2e tests (ev_expect.h style): instruction i at
 * 0x400000 + 16 i, every one a taken branch when @all_br, else every 3rd. */
static void run(unsigned n, bool all_br)
{
    for (unsigned i = 0; i < n; i++) {
        uint64_t ip = 0x400000ull + 16ull * i;
        struct dsm_event ev = (all_br || i % 3 == 1) ? ev_branch(ip, ip + 16, false) : ev_plain(ip);
        ev.next_ip = ip + 16;
        T.ip = ev.next_ip;
        dsm_retire(&T.m, &ev);
    }
}

#define NBR 3000u
static void bts_freeze_one(enum dsm_profile p)
{
    const char *pn = dsm_profile_name(p);
    struct ds_request bq, cq;
    memset(&bq, 0, sizeof bq);
    bq.mode = DS_TRACE_BTS;
    memset(&cq, 0, sizeof cq);
    cq.event = DS_EVENT_INSTRUCTIONS;
    cq.mode = DS_COUNT;
    unsigned cid = 0;
    /* 16 KiB: the DS area page and a 12 KiB BTS buffer, 512 records of 24 bytes */
    int e = prepare(p, 16384);
    if (!e)
        e = ds_session_add(&T.s, &bq, NULL);
    if (!e)
        e = ds_session_add(&T.s, &cq, &cid);
    if (!e)
        e = ds_session_start(&T.s);
    CHECK_EQ(e, DS_OK, "%s BTS + DS_COUNT instructions: start (%s)", pn, ds_errname(e));
    if (e)
        return;
    printf("# %s: perfmon v%u, freeze %s\n", pn, (unsigned)T.m.version,
           T.s.freeze == DS_FREEZE_LEGACY ? "legacy" : T.s.freeze == DS_FREEZE_STREAMLINED ? "streamlined" : "none");
    if (T.m.version < 4)
        CHECK_EQ(T.s.freeze, DS_FREEZE_LEGACY, "%s: auto freeze is legacy on v2/v3 with PDCM", pn);
    run(NBR, true);
    const struct ds_session_req *c = &T.s.req[cid];
    uint64_t v = counter_of(c);
    CHECK(dsm_stats(&T.m)->pmi_bts >= 2, "%s: BTS threshold PMIs happened (%llu)", pn,
          (unsigned long long)dsm_stats(&T.m)->pmi_bts);
    CHECK_EQ(T.m.gctrl, T.s.gctl, "%s: GLOBAL_CTRL holds the session's enables after BTS-only PMIs", pn);
    CHECK_EQ(v, NBR, "%s: the DS_COUNT counter (%s%u) counted every instruction across the BTS PMIs", pn,
             c->kind == DS_CTR_FIXED ? "FIXED" : "PMC", c->idx);
    CHECK_EQ(T.pmi_err, DS_OK, "%s: every PMI handled (%s)", pn, ds_errname(T.pmi_err));
    CHECK_EQ(ds_session_stop(&T.s), DS_OK, "%s: stop", pn);
    CHECK_EQ(T.branches, NBR, "%s: every taken branch delivered", pn);
    CHECK_EQ(ds_session_teardown(&T.s), DS_OK, "%s: teardown", pn);
}

static void test_bts_legacy_freeze(void)
{
    static const enum dsm_profile ps[] = { DSM_CORE2, DSM_ATOM, DSM_NEHALEM, DSM_HASWELL, DSM_SKYLAKE };
    for (size_t k = 0; k < sizeof ps / sizeof ps[0]; k++)
        bts_freeze_one(ps[k]);
}

#define NI 1200u
#define PERIOD 7u
/* A PRECISE instructions request with @groups, optionally a DS_COUNT
 * branches request; started. Returns the DS_COUNT request's id in *cid. */
static int start_cntr(enum dsm_profile p, uint32_t groups, bool count, unsigned *cid)
{
    struct ds_request rq, cq;
    memset(&rq, 0, sizeof rq);
    rq.event = DS_EVENT_INSTRUCTIONS;
    rq.period = PERIOD;
    rq.mode = DS_SAMPLE_PRECISE;
    rq.groups = groups;
    memset(&cq, 0, sizeof cq);
    cq.event = DS_EVENT_BRANCHES;
    cq.mode = DS_COUNT;
    int e = prepare(p, sizeof blk);
    if (!e)
        e = ds_session_add(&T.s, &rq, NULL);
    if (!e && count)
        e = ds_session_add(&T.s, &cq, cid);
    return e ? e : ds_session_start(&T.s);
}

static void metrics_one(enum dsm_profile p)
{
    const char *pn = dsm_profile_name(p);
    int e = start_cntr(p, DS_GROUP_CNTR | DS_GROUP_METRICS, false, NULL);
    CHECK_EQ(e, DS_OK, "%s counters group + metrics: start (%s)", pn, ds_errname(e));
    if (e)
        return;
    CHECK(T.m.gctrl >> 48 & 1, "%s: GLOBAL_CTRL bit 48 (EN_PERF_METRICS) set (0x%llx)", pn,
          (unsigned long long)T.m.gctrl);
    run(NI, false);
    CHECK_EQ(ds_session_stop(&T.s), DS_OK, "%s: stop", pn);
    CHECK_EQ(ds_session_teardown(&T.s), DS_OK, "%s: teardown", pn);
    CHECK(T.met_recs > 10 && T.met_recs == T.recs, "%s: metrics in every record (%llu of %llu)", pn,
          (unsigned long long)T.met_recs, (unsigned long long)T.recs);
    CHECK_EQ(T.met_bad, 0, "%s: every record's PERF_METRICS updated (Retiring FFH), slots counted", pn);
    CHECK_EQ(T.pmi_err, DS_OK, "%s: every PMI handled (%s)", pn, ds_errname(T.pmi_err));
    CHECK_EQ(T.m.gctrl, 0, "%s: GLOBAL_CTRL restored", pn);
}

static void test_metrics_enable(void)
{
    metrics_one(DSM_LUNARLAKE); /* PEBS format 6 + PERF_METRICS */
    metrics_one(DSM_PTL_P);     /* architectural PEBS, CPUID.(23H,4):EBX[6] */
    /* without PERF_METRICS the session refuses metrics: nothing to enable */
    int e = start_cntr(DSM_PTL_E, DS_GROUP_CNTR | DS_GROUP_METRICS, false, NULL);
    CHECK_EQ(e, DS_ERR_SESSION_NO_METRICS, "ptl-e: no metrics (%s)", ds_errname(e));
}

static uint64_t cfg_c(enum ds_ctr_kind k, unsigned idx)
{
    uint64_t v = ~0ull;
    CHECK_EQ(dsm_rdmsr(&T.m, (k == DS_CTR_FIXED ? 0x1983u : 0x1903u) + 4u * idx, &v), DSM_OK, "CFG_C readable");
    return v;
}

static void cntr_allow_one(enum dsm_profile p, bool met)
{
    const char *pn = dsm_profile_name(p);
    unsigned cid = 0;
    int e = start_cntr(p, DS_GROUP_CNTR | (met ? DS_GROUP_METRICS : 0), true, &cid);
    CHECK_EQ(e, DS_OK, "%s counters group + DS_COUNT branches: start (%s)", pn, ds_errname(e));
    if (e)
        return;
    const struct ds_session_req *c = &T.s.req[cid], *r = &T.s.req[0];
    T.want_cnt = true;
    T.ckind = c->kind;
    T.cidx = c->idx;
    CHECK_EQ(r->how, DS_HOW_APEBS, "%s: served by architectural PEBS", pn);
    CHECK_EQ(cfg_c(c->kind, c->idx), 1ull << 35, "%s: the DS_COUNT counter's CFG_C is CNTR_ALLOW alone", pn);
    CHECK(cfg_c(r->kind, r->idx) >> 35 & 1, "%s: the PEBS counter's CFG_C has CNTR_ALLOW", pn);
    if (met)
        CHECK_EQ(cfg_c(DS_CTR_FIXED, 3), 1ull << 35, "%s: fixed 3 (slots) CFG_C is CNTR_ALLOW alone", pn);
    run(NI, false);
    CHECK_EQ(ds_session_stop(&T.s), DS_OK, "%s: stop", pn);
    CHECK_EQ(ds_session_teardown(&T.s), DS_OK, "%s: teardown", pn);
    CHECK(T.recs > 10, "%s: records (%llu)", pn, (unsigned long long)T.recs);
    CHECK_EQ(T.cnt_missing, 0, "%s: the DS_COUNT counter %s%u in every record's counters group, never going back", pn,
             c->kind == DS_CTR_FIXED ? "FIXED" : "PMC", c->idx);
    CHECK(T.cprev > 0, "%s: it counted branches (%llu)", pn, (unsigned long long)T.cprev);
    CHECK_EQ(cfg_c(c->kind, c->idx), 0, "%s: teardown restores the DS_COUNT counter's CFG_C", pn);
    if (met) {
        CHECK_EQ(cfg_c(DS_CTR_FIXED, 3), 0, "%s: teardown restores fixed 3's CFG_C", pn);
        CHECK_EQ(T.met_bad, 0, "%s: metrics updated in every record", pn);
    }
    CHECK_EQ(T.pmi_err, DS_OK, "%s: every PMI handled (%s)", pn, ds_errname(T.pmi_err));
}

static void test_cntr_allow(void)
{
    cntr_allow_one(DSM_PTL_P, false);
    cntr_allow_one(DSM_PTL_P, true);
    cntr_allow_one(DSM_PTL_E, false);
}

int main(void)
{
    test_bts_legacy_freeze();
    test_metrics_enable();
    test_cntr_allow();
    return check_summary();
}
