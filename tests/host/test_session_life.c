/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A session's life cycle as a porting kernel meets it (issue 29, session.h
 * "Life cycle"): ds_session_pmi on a zeroed, initialised, stopped and
 * torn-down session (which MSRs it touches, which callbacks it calls, what
 * it returns), and whether a struct whose init, add or start failed can be
 * used again. Fake CPUs as in test_session.c: expected values from the SDM
 * register layouts (IA32_PERF_GLOBAL_STATUS 38EH, GLOBAL_CTRL 38FH,
 * GLOBAL_OVF_CTRL 390H, IA32_PMCx C1H+, IA32_PERFEVTSELx 186H+).
 */
#include "check.h"
#include "fake_pmu.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

static struct fake_pmu F;
static struct ds_cpu cpu;
static struct ds_session S;
static _Alignas(4096) unsigned char mem[64 * 1024];
static unsigned nsamples;
static uint64_t last_ip;

/* GLOBAL_OVF_CTRL writes clear those GLOBAL_STATUS bits; IA32_PMCx take
 * bits 31:0 sign-extended to the counter width without full-width writes
 * (SDM "IA32_PERF_GLOBAL_OVF_CTRL", "Full-Width Writes"). */
static int t_write(void *ctx, uint32_t msr, uint64_t v)
{
    if (msr >= 0xC1 && msr < 0xC5)
        v = (uint64_t)(int64_t)(int32_t)(uint32_t)v & ((1ull << 48) - 1);
    int e = fp_write(ctx, msr, v);
    int i;
    if (!e && msr == 0x390 && (i = fp_find(&F, 0x38E)) >= 0)
        F.msrs[i].val &= ~v;
    return e;
}
static const struct ds_msr_ops t_ops = { fp_read, t_write, fp_cpuid };

/* Nehalem 06_1AH: perfmon v3 (legacy freeze: a PMI clears GLOBAL_CTRL and
 * the handler restores it), 4 GP counters of 48 bits, PEBS format 1. */
static void nehalem(void)
{
    fp_reset(&F);
    fp_intel(&F, 0xA, 0x000106A5, (1u << 2) | (1u << 4) | (1u << 15), 1u << 21);
    fp_cpuid_set(&F, 0xA, 0, 0x07300403, 0, 0, 0x00000603);
    fp_set(&F, DS_MSR_IA32_MISC_ENABLE, 1u << 7);
    fp_set(&F, DS_MSR_IA32_PERF_CAPABILITIES, 0x1C3);
    for (unsigned i = 0; i < 4; i++) {
        fp_set(&F, 0xC1 + i, 0);
        fp_set(&F, 0x186 + i, 0);
    }
    for (unsigned i = 0; i < 3; i++)
        fp_set(&F, 0x309 + i, 0);
    const uint32_t m[] = { 0x38D, 0x38E, 0x38F, 0x390, 0x3F1, 0x3F6, 0x600, 0x1D9 };
    for (unsigned i = 0; i < N(m); i++)
        fp_set(&F, m[i], 0);
    CHECK_EQ(ds_cpu_init(&cpu, &t_ops, &F), DS_OK, "cpu init");
    ds_cpu_set_ia32e(&cpu, true);
    CHECK_EQ(ds_cpu_identify(&cpu), DS_OK, "identify");
    fp_clear_log(&F);
}

static void on_sample(void *arg, const struct ds_session_sample *s)
{
    (void)arg;
    nsamples++;
    last_ip = s->ip;
}

static struct ds_session_config cfg(void)
{
    struct ds_session_config c;
    memset(&c, 0, sizeof c);
    c.mem = mem;
    c.bytes = sizeof mem;
    c.on_sample = on_sample;
    return c;
}

static struct ds_request ovf(uint64_t period)
{
    struct ds_request r;
    memset(&r, 0, sizeof r);
    r.raw.set = true;
    r.raw.evsel = 0xC4; /* BR_INST_RETIRED.ALL_BRANCHES: not precise on Nehalem */
    r.raw.nb_metric = -1;
    r.period = period;
    r.mode = DS_SAMPLE_OVERFLOW;
    return r;
}

/* ds_session_pmi on a session that cannot own a PMI: DS_ERR_SESSION_SPURIOUS,
 * no MSR access, no callback, @res cleared. */
static void expect_inert(const char *what)
{
    struct ds_pmi_result res;
    memset(&res, 0xFF, sizeof res);
    fp_set(&F, 0x38E, 1ull << 3); /* even with a counter's status bit set */
    fp_clear_log(&F);
    nsamples = 0;
    CHECK_EQ(ds_session_pmi(&S, 0x1234, &res), DS_ERR_SESSION_SPURIOUS, "%s: spurious", what);
    CHECK_EQ(F.nlog, 0, "%s: no MSR touched", what);
    CHECK_EQ(nsamples, 0, "%s: no callback", what);
    CHECK(!res.handled && !res.pebs_drained && !res.bts_drained && res.status == 0, "%s: result cleared", what);
    CHECK_EQ(ds_session_pmi(&S, 0x1234, NULL), DS_ERR_SESSION_SPURIOUS, "%s: spurious (no result)", what);
    CHECK_EQ(F.nlog, 0, "%s: still no MSR touched", what);
    fp_set(&F, 0x38E, 0);
}

static void test_pmi_states(void)
{
    nehalem();
    memset(&S, 0, sizeof S);
    expect_inert("zeroed struct");
    struct ds_session_config c = cfg();
    CHECK_EQ(ds_session_init(&S, &cpu, &c), DS_OK, "init");
    expect_inert("initialised");
    struct ds_request r = ovf(100);
    unsigned id = 99;
    CHECK_EQ(ds_session_add(&S, &r, &id), DS_OK, "add");
    expect_inert("request added, not started");
    CHECK_EQ(ds_session_start(&S), DS_OK, "start");
    CHECK_EQ(S.freeze, DS_FREEZE_LEGACY, "perfmon v3 with PDCM: legacy freeze (the PMI restores GLOBAL_CTRL)");
    unsigned idx = S.req[id].idx;
    uint64_t gctl = fp_get(&F, 0x38F);
    CHECK(gctl & (1ull << idx), "GLOBAL_CTRL enables PMC%u", idx);
    CHECK_EQ(ds_session_stop(&S), DS_OK, "stop");
    CHECK_EQ(fp_get(&F, 0x38F), 0, "stopped: GLOBAL_CTRL 0");

    /* Stopped: a PMI latched before the stop (its status bit set) is still
     * the session's: acked, the overflow counter reloaded and the sample
     * delivered with the interrupted IP; the legacy-freeze restore of
     * GLOBAL_CTRL does NOT happen (counters stay stopped). */
    fp_set(&F, 0x38E, 1ull << idx);
    fp_set(&F, 0xC1 + idx, 3);
    fp_clear_log(&F);
    nsamples = 0;
    struct ds_pmi_result res;
    CHECK_EQ(ds_session_pmi(&S, 0xABCD, &res), DS_OK, "stopped: a late PMI of the session is handled");
    CHECK(res.handled, "stopped: handled");
    CHECK_EQ(nsamples, 1, "stopped: its sample delivered");
    CHECK_EQ(last_ip, 0xABCD, "stopped: with the interrupted IP");
    CHECK_EQ(fp_get(&F, 0x38E), 0, "stopped: status acknowledged");
    CHECK_EQ(fp_get(&F, 0xC1 + idx), 0x1000000000000ull - 100, "stopped: counter reloaded with -period");
    CHECK_EQ(fp_get(&F, 0x38F), 0, "stopped: GLOBAL_CTRL still 0 (not restarted)");
    CHECK_EQ(fp_nwrites(&F, 0x38F), 0, "stopped: GLOBAL_CTRL not written");
    /* Stopped, status 0 (a foreign NMI): one read of GLOBAL_STATUS, nothing else. */
    fp_clear_log(&F);
    nsamples = 0;
    CHECK_EQ(ds_session_pmi(&S, 0xABCD, &res), DS_ERR_SESSION_SPURIOUS, "stopped: foreign NMI");
    CHECK_EQ(F.writes, 0, "stopped, foreign NMI: no MSR written");
    CHECK_EQ(nsamples, 0, "stopped, foreign NMI: no callback");

    CHECK_EQ(ds_session_teardown(&S), DS_OK, "teardown");
    expect_inert("torn down");
    /* torn down = READY with the requests: start again works */
    CHECK_EQ(ds_session_start(&S), DS_OK, "start after teardown");
    CHECK_EQ(ds_session_teardown(&S), DS_OK, "teardown (running: stops first)");
    expect_inert("torn down from running");
}

/* A failed init leaves the struct as it was: a zeroed one stays zeroed (and
 * takes a correct init next), a READY one keeps its configuration and
 * requests. */
static void test_init_failed(void)
{
    static struct ds_session zero;
    nehalem();
    memset(&S, 0, sizeof S);
    struct ds_session_config c = cfg();
    c.on_sample = NULL;
    CHECK_EQ(ds_session_init(&S, &cpu, &c), DS_ERR_SESSION_NO_SINK, "init without a sink");
    CHECK(memcmp(&S, &zero, sizeof S) == 0, "failed init: the struct still zero");
    c = cfg();
    c.mem = NULL;
    CHECK_EQ(ds_session_init(&S, &cpu, &c), DS_ERR_SESSION_MEM, "init with bytes and no mem");
    CHECK(memcmp(&S, &zero, sizeof S) == 0, "failed init: still zero");
    CHECK_EQ(F.nlog, 0, "failed inits: no MSR touched");
    c = cfg();
    CHECK_EQ(ds_session_init(&S, &cpu, &c), DS_OK, "init after failed inits");
    struct ds_request r = ovf(100);
    CHECK_EQ(ds_session_add(&S, &r, NULL), DS_OK, "add");
    c.on_sample = NULL;
    CHECK_EQ(ds_session_init(&S, &cpu, &c), DS_ERR_SESSION_NO_SINK, "re-init of a READY session fails");
    CHECK_EQ(S.state, DS_SESSION_READY, "still READY");
    CHECK_EQ(S.nreq, 1, "its request kept");
    CHECK(S.cfg.on_sample == on_sample, "its configuration kept");
    CHECK_EQ(ds_session_start(&S), DS_OK, "starts");
    CHECK_EQ(ds_session_teardown(&S), DS_OK, "teardown");
}

/* A failed add adds nothing: the session stays READY, the next add gets
 * the next free id, start programs only the good request. */
static void test_add_failed(void)
{
    nehalem();
    memset(&S, 0, sizeof S);
    struct ds_session_config c = cfg();
    CHECK_EQ(ds_session_init(&S, &cpu, &c), DS_OK, "init");
    struct ds_request bad = ovf(0);
    CHECK_EQ(ds_session_add(&S, &bad, NULL), DS_ERR_SESSION_BAD_PERIOD, "period 0 refused");
    bad = ovf(1ull << 48); /* beyond a 48-bit counter */
    CHECK_EQ(ds_session_add(&S, &bad, NULL), DS_ERR_SESSION_BAD_PERIOD, "period beyond the counter refused");
    CHECK_EQ(S.state, DS_SESSION_READY, "failed adds: READY");
    CHECK_EQ(S.nreq, 0, "failed adds: nothing added");
    struct ds_request r = ovf(100);
    unsigned id = 99;
    CHECK_EQ(ds_session_add(&S, &r, &id), DS_OK, "good add after failed ones");
    CHECK_EQ(id, 0, "gets id 0");
    CHECK_EQ(F.nlog, 0, "init and adds: no MSR touched");
    CHECK_EQ(ds_session_start(&S), DS_OK, "start");
    CHECK_EQ(ds_session_teardown(&S), DS_OK, "teardown");
}

/* A failed start writes every MSR back and leaves the session READY with
 * its requests; teardown then refuses (nothing to undo); start may be
 * retried; init again changes the region. */
static void test_start_failed(void)
{
    nehalem();
    memset(&S, 0, sizeof S);
    struct ds_session_config c = cfg();
    c.bytes = 4096; /* room for the DS area only: no PEBS record */
    CHECK_EQ(ds_session_init(&S, &cpu, &c), DS_OK, "init, small region");
    struct ds_request r;
    memset(&r, 0, sizeof r);
    r.raw.set = true;
    r.raw.evsel = 0xC0; /* INST_RETIRED.ANY_P: PEBS on Nehalem */
    r.raw.nb_metric = -1;
    r.period = 1000;
    r.mode = DS_SAMPLE_PRECISE;
    CHECK_EQ(ds_session_add(&S, &r, NULL), DS_OK, "PEBS request");
    CHECK_EQ(ds_session_start(&S), DS_ERR_SESSION_BUF_SMALL, "start: region too small");
    CHECK_EQ(S.state, DS_SESSION_READY, "failed start: READY");
    CHECK_EQ(S.nreq, 1, "failed start: request kept");
    CHECK_EQ(ds_session_teardown(&S), DS_ERR_SESSION_STATE, "failed start: teardown has nothing to undo");
    CHECK_EQ(ds_session_start(&S), DS_ERR_SESSION_BUF_SMALL, "start retried: same answer");
    c.bytes = sizeof mem;
    CHECK_EQ(ds_session_init(&S, &cpu, &c), DS_OK, "init again with the whole region");
    CHECK_EQ(ds_session_add(&S, &r, NULL), DS_OK, "request again");
    CHECK_EQ(ds_session_start(&S), DS_OK, "start");
    CHECK_EQ(ds_session_teardown(&S), DS_OK, "teardown");
}

int main(void)
{
    test_pmi_states();
    test_init_failed();
    test_add_failed();
    test_start_failed();
    return check_summary();
}
