/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * End to end (issue 16): libds sessions (session.h) against the model, for
 * EVERY model profile x every generic event x DS_SAMPLE_PRECISE and
 * DS_SAMPLE_AUTO, sampling every P over a synthetic stream with known counts
 * of instructions, branches, mispredicts, loads (some above a latency
 * threshold) and stores:
 *  - a request libds accepts must sample: floor((n-1)/P) PEBS samples (the
 *    model's rule, dsm_pebs_expected) or floor(n/P) overflow samples, each
 *    on one of the event's instructions;
 *  - PRECISE must be served by PEBS where the model's core has a precise
 *    PEBS encoding for the event (ev_expect.h, the tests' own transcription
 *    from perfmon/SDM/Linux, not libds's table), and refused with a
 *    specific error where it has none (NOT_PRECISE, NO_DS, EVENT_NONE);
 *  - AUTO must be served wherever the core counts the event;
 *  - teardown leaves every MSR the session wrote as a fresh CPU has it.
 * Plus LOADS with a latency threshold: PEBS load-latency samples where the
 * profile has load latency, DS_ERR_SESSION_NO_LDLAT where it has not.
 * Never a silent pass: every refusal is checked against the expectation.
 */
#include <stdio.h>
#include "check.h"
#include "ds_model_ops.h"
#include "model_util.h"
#include "ev_expect.h"
#include <ds/cpu.h>
#include <ds/event.h>
#include <ds/session.h>

#define LIN 0xFFFF800000100000ull
#define IP0 0x400000ull
#define STRIDE 16u
#define NI 1200u
#define PERIOD 7u
#define LAT_THR 50u
static _Alignas(4096) uint8_t blk[1 << 20];
static struct fake_mem mem;

/* Instruction i at IP0 + 16 i, next_ip + 16: every 3rd a branch (taken to
 * the next instruction; every 2nd of those mispredicted), every 4th a load
 * (latency 100, or 2 for every 3rd load), every 5th a store. */
static struct dsm_event wl_ev(unsigned i)
{
    struct dsm_event e = ev_plain(IP0 + (uint64_t)STRIDE * i);
    e.next_ip = e.ip + STRIDE;
    if (i % 3 == 1) {
        e = ev_branch(e.ip, e.ip + STRIDE, (i / 3) % 2 == 0);
    } else if (i % 4 == 2) {
        e = ev_load(e.ip, 0x900000 + 64ull * i, (i / 4) % 3 == 0 ? 2 : 100, 1);
        e.next_ip = e.ip + STRIDE;
    } else if (i % 5 == 3) {
        e.flags = DSM_EV_STORE;
    }
    return e;
}

static bool wl_is(unsigned g, const struct dsm_event *e)
{
    switch (g) {
    case G_INST: case G_CYC: return true;
    case G_BR: return e->flags & DSM_EV_BRANCH;
    case G_MISP: return e->flags & DSM_EV_MISPRED;
    case G_LOAD: return e->flags & DSM_EV_LOAD;
    case G_STORE: return e->flags & DSM_EV_STORE;
    case G_LL: return (e->flags & DSM_EV_LOAD) && e->load_latency > LAT_THR;
    default: return false;
    }
}

static unsigned wl_count(unsigned g)
{
    unsigned n = 0;
    for (unsigned i = 0; i < NI; i++) {
        struct dsm_event e = wl_ev(i);
        n += wl_is(g, &e);
    }
    return n;
}

static const struct { enum ds_event ev; unsigned g; } GEN[] = {
    { DS_EVENT_INSTRUCTIONS, G_INST }, { DS_EVENT_BRANCHES, G_BR }, { DS_EVENT_BRANCH_MISSES, G_MISP },
    { DS_EVENT_LOADS, G_LOAD }, { DS_EVENT_STORES, G_STORE }, { DS_EVENT_CYCLES, G_CYC },
};

struct tstate {
    struct dsm_cpu m;
    struct ds_cpu c;
    struct ds_session s;
    unsigned g;
    uint64_t last_next;              /* next IP of the last retired instruction: the interrupted IP */
    uint64_t samples, pebs, bad_ip, pmis;
    uint64_t first_bad;
    int pmi_err;
};
static struct tstate T;

/* The instruction a sample names: the eventing IP where the record has
 * one, the instruction before a trap-like IP, the interrupted IP's
 * predecessor for an overflow sample (the PMI follows the instruction). */
static void on_sample(void *arg, const struct ds_session_sample *s)
{
    (void)arg;
    uint64_t ip;
    T.samples++;
    if (s->pebs) {
        const struct ds_pebs_sample *p = s->pebs;
        T.pebs++;
        if (p->present & DS_SAMPLE_EVENTING_IP)
            ip = p->eventing_ip;
        else
            ip = p->ip_is_next ? p->ip - STRIDE : p->ip;
    } else {
        ip = s->ip - STRIDE;
    }
    uint64_t i = (ip - IP0) / STRIDE;
    struct dsm_event e = wl_ev((unsigned)(i < NI ? i : 0));
    if (ip < IP0 || (ip - IP0) % STRIDE || i >= NI || !wl_is(T.g, &e)) {
        if (!T.bad_ip)
            T.first_bad = ip;
        T.bad_ip++;
    }
}

static void on_pmi(void *ctx, uint32_t why)
{
    (void)ctx;
    (void)why;
    T.pmis++;
    int e = ds_session_pmi(&T.s, T.last_next, NULL);
    if (e != DS_OK && e != DS_ERR_SESSION_SPURIOUS && !T.pmi_err)
        T.pmi_err = e;
}

/* Every MSR the session wrote reads as on a fresh CPU of the profile. */
static void check_restored(enum dsm_profile p, const char *what)
{
    struct dsm_cpu f;
    dsm_init(&f, p, NULL, NULL);
    unsigned bad = 0;
    for (uint32_t k = 0; k < T.m.msr_st_used; k++) {
        uint32_t msr = T.m.msr_st[k].msr;
        uint64_t a = 0, b = 0;
        if (!T.m.msr_st[k].writes)
            continue;
        int ra = dsm_rdmsr(&T.m, msr, &a), rb = dsm_rdmsr(&f, msr, &b);
        if (ra != rb || a != b) {
            bad++;
            CHECK(0, "%s %s: MSR 0x%X after teardown 0x%llx (rc %d), fresh CPU 0x%llx (rc %d)", dsm_profile_name(p),
                  what, msr, (unsigned long long)a, ra, (unsigned long long)b, rb);
        }
    }
    CHECK_EQ(bad, 0, "%s %s: teardown leaves every written MSR as found (%u MSRs written)", dsm_profile_name(p), what,
             (unsigned)T.m.msr_st_used);
}

/* Set up a fresh model + libds CPU + session; returns ds_session_add's result. */
static int prepare(enum dsm_profile p, const struct ds_request *rq, unsigned g)
{
    memset(&T, 0, sizeof T);
    T.g = g;
    fm_cpu_init(&T.m, p, &mem, blk, sizeof blk, LIN);
    dsm_set_pmi(&T.m, on_pmi, NULL);
    CHECK_EQ(ds_model_cpu_init(&T.c, &T.m), DS_OK, "libds init %s", dsm_profile_name(p));
    CHECK_EQ(ds_cpu_identify(&T.c), DS_OK, "identify %s", dsm_profile_name(p));
    struct ds_session_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.mem = blk;
    cfg.bytes = sizeof blk;
    cfg.mem_linear = LIN;
    cfg.mem_phys = LIN;   /* the fake memory answers physical (arch PEBS) and linear alike */
    cfg.on_sample = on_sample;
    int e = ds_session_init(&T.s, &T.c, &cfg);
    CHECK_EQ(e, DS_OK, "session init %s (%s)", dsm_profile_name(p), ds_errname(e));
    if (e != DS_OK)
        return e;
    return ds_session_add(&T.s, rq, NULL);
}

/* Start, feed the stream, stop, teardown; then the sample checks. */
static void run_and_check(enum dsm_profile p, const char *what, unsigned n, bool expect_pebs)
{
    const char *pn = dsm_profile_name(p);
    int e = ds_session_start(&T.s);
    CHECK_EQ(e, DS_OK, "%s %s: start (%s)", pn, what, ds_errname(e));
    if (e != DS_OK)
        return;
    for (unsigned i = 0; i < NI; i++) {
        struct dsm_event ev = wl_ev(i);
        T.last_next = ev.next_ip;
        dsm_retire(&T.m, &ev);
    }
    e = ds_session_stop(&T.s);
    CHECK_EQ(e, DS_OK, "%s %s: stop (%s)", pn, what, ds_errname(e));
    e = ds_session_teardown(&T.s);
    CHECK_EQ(e, DS_OK, "%s %s: teardown (%s)", pn, what, ds_errname(e));
    enum ds_session_how how = T.s.req[0].how;
    bool pebs = how == DS_HOW_PEBS || how == DS_HOW_APEBS || how == DS_HOW_NB_PEBS;
    if (expect_pebs)
        CHECK(pebs, "%s %s: served by PEBS (how %d)", pn, what, (int)how);
    uint64_t want = pebs ? dsm_pebs_expected(n, PERIOD) : n / PERIOD;
    CHECK_EQ(T.samples, want, "%s %s: %s samples for %u events every %u (%s)", pn, what, pebs ? "PEBS" : "overflow",
             n, PERIOD, T.s.req[0].name ? T.s.req[0].name : "?");
    CHECK_EQ(T.pebs, pebs ? T.samples : 0, "%s %s: sample kind matches how", pn, what);
    CHECK(T.bad_ip == 0, "%s %s: every sampled IP is one of the event's instructions (%llu bad, first 0x%llx)", pn,
          what, (unsigned long long)T.bad_ip, (unsigned long long)T.first_bad);
    CHECK_EQ(T.pmi_err, DS_OK, "%s %s: every PMI handled (%s)", pn, what, ds_errname(T.pmi_err));
    check_restored(p, what);
}

static bool is_nb(enum dsm_profile p)
{
    return p == DSM_NETBURST_M2 || p == DSM_NETBURST_M3 || p == DSM_NETBURST_M4_64;
}

static void one(enum dsm_profile p, enum ds_event ev, unsigned g, enum ds_sample_mode mode)
{
    const char *pn = dsm_profile_name(p);
    const struct prof_exp *x = ev_expect_of(p);   /* NULL: NetBurst, no-DS */
    char what[64];
    snprintf(what, sizeof what, "%s %s", gname[g], mode == DS_SAMPLE_PRECISE ? "PRECISE" : "AUTO");
    struct ds_request rq;
    memset(&rq, 0, sizeof rq);
    rq.event = ev;
    rq.period = PERIOD;
    rq.mode = mode;
    int e = prepare(p, &rq, g);
    bool has_pebs = T.m.pebs_fmt >= 0 || T.m.ap.on;
    char kind = x ? x->e[g].kind : 0;
    if (e == DS_OK) {
        if (x && mode == DS_SAMPLE_PRECISE)
            CHECK(kind == 'P' && has_pebs, "%s %s: libds accepts PRECISE where the model has no precise encoding",
                  pn, what);
        run_and_check(p, what, wl_count(g), mode == DS_SAMPLE_PRECISE);
        return;
    }
    printf("# %s %s: refused: %s\n", pn, what, ds_errname(e));
    if (p == DSM_NONE_DS) {   /* no leaf 0AH: nothing to count with */
        CHECK(e == DS_ERR_SESSION_NO_COUNTER || e == DS_ERR_SESSION_NO_DS || e == DS_ERR_EVENT_UNAVAILABLE ||
              e == DS_ERR_EVENT_UARCH, "%s %s: specific refusal (%s)", pn, what, ds_errname(e));
        return;
    }
    if (is_nb(p)) {   /* model: no per-core table; a refusal must still be specific */
        CHECK(mode == DS_SAMPLE_PRECISE && (e == DS_ERR_SESSION_NOT_PRECISE || e == DS_ERR_EVENT_NONE),
              "%s %s: NetBurst refusal is NOT_PRECISE/EVENT_NONE for PRECISE only (%s)", pn, what, ds_errname(e));
        return;
    }
    if (kind == 0) {
        CHECK_EQ(e, DS_ERR_EVENT_NONE, "%s %s: the core has no such event: EVENT_NONE (%s)", pn, what, ds_errname(e));
        return;
    }
    CHECK(mode == DS_SAMPLE_PRECISE, "%s %s: AUTO refused where the core counts the event (%s)", pn, what,
          ds_errname(e));
    if (!has_pebs)
        CHECK_EQ(e, DS_ERR_SESSION_NO_DS, "%s %s: no PEBS: NO_DS (%s)", pn, what, ds_errname(e));
    else
        CHECK(kind != 'P' && e == DS_ERR_SESSION_NOT_PRECISE,
              "%s %s: refused with NOT_PRECISE only where the core has no precise encoding (kind %c, %s)", pn, what,
              kind, ds_errname(e));
}

/* LOADS with a latency threshold, PRECISE: load-latency PEBS or NO_LDLAT. */
static void one_ldlat(enum dsm_profile p)
{
    const char *pn = dsm_profile_name(p);
    const struct prof_exp *x = ev_expect_of(p);
    struct ds_request rq;
    memset(&rq, 0, sizeof rq);
    rq.event = DS_EVENT_LOADS;
    rq.period = PERIOD;
    rq.mode = DS_SAMPLE_PRECISE;
    rq.ldlat = LAT_THR;
    int e = prepare(p, &rq, G_LL);
    bool can = x && x->e[G_LL].kind == 'P' && T.m.ll && (T.m.pebs_fmt >= 0 || T.m.ap.on);
    if (can) {
        CHECK_EQ(e, DS_OK, "%s loads ldlat %u: accepted (%s)", pn, LAT_THR, ds_errname(e));
        if (e == DS_OK)
            run_and_check(p, "load-latency PRECISE", wl_count(G_LL), true);
    } else {
        printf("# %s loads ldlat: refused: %s\n", pn, ds_errname(e));
        CHECK(e == DS_ERR_SESSION_NO_LDLAT || e == DS_ERR_SESSION_NO_DS || (p == DSM_NONE_DS && e != DS_OK),
              "%s loads ldlat: NO_LDLAT / NO_DS where the model has no load latency (%s)", pn, ds_errname(e));
    }
}

int main(void)
{
    CHECK(wl_count(G_BR) && wl_count(G_MISP) && wl_count(G_LOAD) && wl_count(G_STORE) && wl_count(G_LL) &&
          wl_count(G_LL) < wl_count(G_LOAD), "workload mix");
    for (int p = 0; p < DSM_PROFILE__COUNT; p++) {
        for (size_t k = 0; k < sizeof GEN / sizeof GEN[0]; k++) {
            one((enum dsm_profile)p, GEN[k].ev, GEN[k].g, DS_SAMPLE_PRECISE);
            one((enum dsm_profile)p, GEN[k].ev, GEN[k].g, DS_SAMPLE_AUTO);
        }
        one_ldlat((enum dsm_profile)p);
    }
    return check_summary();
}
