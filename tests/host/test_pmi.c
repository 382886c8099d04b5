/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * PMI: status decode, ack masks, and the shared ISR's MSR budget and
 * sequence: perfmon v4 streamlined (2 accesses), v3 legacy freeze (3),
 * NetBurst (0, PEBS found from the index), BTS threshold, non-precise
 * counters through the hook, spurious PMIs.
 */
#include "check.h"
#include "ds_env.h"
#include <ds/ds.h>
#include "../../libds/src/util.h"

static int take(void *a, const struct ds_pebs_sample *s) { (void)s; (*(int *)a)++; return 0; }
static int take_bts(void *a, const struct ds_bts_branch *b) { (void)b; (*(int *)a)++; return 0; }

struct hook_log { uint64_t ovf; bool no_global; int calls; };
static int hook(void *a, uint64_t ovf, bool no_global, uint32_t *handled)
{
    struct hook_log *h = a;
    h->ovf = ovf;
    h->no_global = no_global;
    h->calls++;
    *handled = no_global ? 0 : 1;
    return DS_OK;
}

static void test_decode(void)
{
    static struct env e;
    struct ds_pmi_status s;
    fake_skylake_pmu(&e.f);
    env_identify(&e, 1);
    uint64_t raw = (1ull << 63) | (1ull << 62) | (1ull << 59) | (1ull << 58) | (1ull << 33) | 0x5 | (1ull << 20);
    CHECK_EQ(ds_pmi_decode(raw, &e.cpu.caps, &s), DS_OK, "decode");
    CHECK_EQ(s.gp_ovf, 0x5, "pmc0, pmc2");
    CHECK_EQ(s.fixed_ovf, 0x2, "fixed1");
    CHECK(s.ovf_buf && s.cond_chgd && s.ctr_frz && s.lbr_frz && !s.uncore, "flags");
    CHECK_EQ(s.unknown, 1ull << 20, "bit 20 unknown");
    /* ack mask per version */
    uint64_t m4 = ds_pmi_ack_mask(&e.cpu.caps);
    CHECK_EQ(m4 & 0xF, 0xF, "4 GP");
    CHECK_EQ((m4 >> 32) & 0xF, 0x7, "3 fixed");
    CHECK(m4 & (1ull << 59), "v4: CTR_Frz ackable");
    fake_haswell(&e.f);
    env_identify(&e, 1);
    uint64_t m3 = ds_pmi_ack_mask(&e.cpu.caps);
    CHECK(!(m3 & (1ull << 59)), "v3: no CTR_Frz (reserved: would #GP)");
    CHECK(m3 & (1ull << 61), "v3: uncore");
    fake_core2(&e.f);
    env_identify(&e, 1);
    uint64_t m2 = ds_pmi_ack_mask(&e.cpu.caps);
    CHECK_EQ(m2, 0x3ull | (0x7ull << 32) | (3ull << 62), "v2 mask");
    fake_netburst(&e.f);
    env_identify(&e, 0);
    CHECK_EQ(ds_pmi_ack_mask(&e.cpu.caps), 0, "NetBurst: no global MSRs");
    /* issue 31: a NetBurst whose CPUID reports a leaf 0AH (v2, 2 GP
     * counters) still has no IA32_PERF_GLOBAL_* MSRs (SDM Vol. 3B: the
     * NetBurst PMU is ESCR/CCCR only) */
    struct ds_caps nb = e.cpu.caps;
    nb.has_leaf_0a = true;
    nb.perfmon_version = 2;
    nb.gp_mask = 0x3;
    CHECK_EQ(ds_pmi_ack_mask(&nb), 0, "NetBurst with a leaf 0AH: no global MSRs");
}

/* issue 31: ds_pmi_init refuses a DS context set up for another struct
 * ds_cpu (a copy of the same CPU): the handler would drain through one and
 * program MSRs through the other. */
static void test_ctx_other_cpu(void)
{
    static struct env e;
    static struct ds_cpu copy;
    struct ds_pmi pmi;
    fake_skylake_pmu(&e.f);
    env_identify(&e, 1);
    CHECK_EQ(ds_area_setup(&e.ctx, &e.cpu, &e.cfg), DS_OK, "setup");
    copy = e.cpu;
    struct ds_pmi_config pc = { .freeze = DS_FREEZE_NONE };
    memset(&pmi, 0x5A, sizeof pmi);
    unsigned r0 = e.f.reads, w0 = e.f.writes;
    CHECK_EQ(ds_pmi_init(&pmi, &copy, &e.ctx, &pc), DS_ERR_PMI_CTX_CPU, "context of another ds_cpu");
    CHECK(e.f.reads == r0 && e.f.writes == w0, "no MSR access");
    CHECK_EQ(ds_pmi_init(&pmi, &e.cpu, &e.ctx, &pc), DS_OK, "its own ds_cpu");
    CHECK_EQ(ds_pmi_freeze_check(&e.cpu, (enum ds_freeze_mode)3), DS_ERR_PMI_FREEZE_MODE, "freeze 3");
    CHECK_EQ(ds_pmi_freeze_check(&e.cpu, DS_FREEZE_STREAMLINED), DS_OK, "v4: streamlined");
    CHECK_EQ(ds_pmi_freeze_check(NULL, DS_FREEZE_NONE), DS_ERR_NULL, "NULL cpu");
}

static void test_v4_streamlined_pebs(void)
{
    static struct env e;
    struct ds_pmi pmi;
    struct ds_pmi_result r;
    int got = 0;
    fake_skylake_pmu(&e.f);
    env_identify(&e, 1);
    CHECK_EQ(ds_area_setup(&e.ctx, &e.cpu, &e.cfg), DS_OK, "setup");
    struct ds_pmi_config pc = { .freeze = DS_FREEZE_STREAMLINED, .pebs_counters = 0x1, .pebs_sink = take, .pebs_arg = &got };
    CHECK_EQ(ds_pmi_init(&pmi, &e.cpu, &e.ctx, &pc), DS_OK, "init");
    CHECK_EQ(ds_pmi_set_freeze(&pmi), DS_OK, "freeze bit");
    CHECK_EQ(fake_get_msr(&e.f, DS_MSR_IA32_DEBUGCTL) & (1u << 12), 1u << 12, "FREEZE_PERFMON_ON_PMI set");
    uint64_t base = (uint64_t)(uintptr_t)e.pebs;
    e.area.a64.pebs_index = base + 3 * 0xC8;
    uint64_t status = (1ull << 62) | (1ull << 59) | 0x1;
    fake_set_msr(&e.f, DS_MSR_IA32_PERF_GLOBAL_STATUS, status);
    unsigned r0 = e.f.reads, w0 = e.f.writes;
    e.f.nlog = 0;
    CHECK_EQ(ds_pmi_handle(&pmi, &r), DS_OK, "handle");
    CHECK_EQ(e.f.reads - r0, 2, "2 RDMSR (status, re-read after the ack)");
    CHECK_EQ(e.f.writes - w0, 1, "1 WRMSR: 3 MSR accesses per PEBS PMI on v4");
    CHECK_EQ(r.msr_reads + r.msr_writes, 3, "self-count agrees");
    uint64_t ack = 0;
    CHECK_EQ(fake_writes_to(&e.f, DS_MSR_IA32_PERF_GLOBAL_STATUS_RESET, &ack), 1, "ack via STATUS_RESET");
    CHECK_EQ(ack, status, "acks OvfBuf, CTR_Frz (unfreezes) and PMC0");
    CHECK_EQ(fake_writes_to(&e.f, DS_MSR_IA32_PERF_GLOBAL_CTRL, NULL), 0, "no GLOBAL_CTRL write");
    CHECK_EQ(got, 3, "3 records drained");
    CHECK(r.pebs_drained && r.handled, "handled");
    CHECK_EQ(r.hooked, 0, "PEBS counter not passed to the hook");
    CHECK_EQ(e.area.a64.pebs_index, base, "index reset");
}

static void test_v3_legacy(void)
{
    static struct env e;
    struct ds_pmi pmi;
    struct ds_pmi_result r;
    struct hook_log h = { 0 };
    int got = 0;
    fake_haswell(&e.f);
    env_identify(&e, 1);
    CHECK_EQ(ds_area_setup(&e.ctx, &e.cpu, &e.cfg), DS_OK, "setup");
    struct ds_pmi_config pc = { .freeze = DS_FREEZE_LEGACY, .global_ctrl = 0x3 | (1ull << 33),
                                .pebs_counters = 0x1, .pebs_sink = take, .pebs_arg = &got,
                                .ovf_hook = hook, .ovf_arg = &h };
    CHECK_EQ(ds_pmi_init(&pmi, &e.cpu, &e.ctx, &pc), DS_OK, "init");
    uint64_t base = (uint64_t)(uintptr_t)e.pebs;
    e.area.a64.pebs_index = base + 2 * 0xC0;
    /* PEBS buffer + PMC1 (non-precise) + fixed 1 overflowed + bit 59 (reserved on v3) */
    uint64_t status = (1ull << 62) | 0x2 | (1ull << 33) | (1ull << 59);
    fake_set_msr(&e.f, DS_MSR_IA32_PERF_GLOBAL_STATUS, status);
    unsigned r0 = e.f.reads, w0 = e.f.writes;
    e.f.nlog = 0;
    CHECK_EQ(ds_pmi_handle(&pmi, &r), DS_OK, "handle");
    CHECK_EQ((e.f.reads - r0) + (e.f.writes - w0), 4, "4 MSR accesses on v3 legacy freeze (read, ack, re-read, GLOBAL_CTRL)");
    uint64_t ack = 0, ctrl = 0;
    fake_writes_to(&e.f, DS_MSR_IA32_PERF_GLOBAL_OVF_CTRL, &ack);
    CHECK_EQ(ack, status & ~(1ull << 59), "reserved bit 59 not written (would #GP)");
    CHECK_EQ(r.unacked, 1ull << 59, "reported unacked");
    CHECK_EQ(fake_writes_to(&e.f, DS_MSR_IA32_PERF_GLOBAL_CTRL, &ctrl), 1, "GLOBAL_CTRL rewritten");
    CHECK_EQ(ctrl, 0x3 | (1ull << 33), "with the saved enables");
    CHECK(e.f.log[0].msr == DS_MSR_IA32_PERF_GLOBAL_OVF_CTRL, "ack before re-enable");
    CHECK_EQ(h.calls, 1, "hook called once");
    CHECK_EQ(h.ovf, 0x2 | (1ull << 33), "hook gets PMC1 + fixed1, not PMC0 (PEBS)");
    CHECK(!h.no_global, "global status available");
    CHECK_EQ(got, 2, "2 PEBS records");
    CHECK_EQ(r.hook_handled, 1, "hook handled count");
}

static void test_netburst(void)
{
    static struct env e;
    struct ds_pmi pmi;
    struct ds_pmi_result r;
    struct hook_log h = { 0 };
    int got = 0, gotb = 0;
    fake_netburst(&e.f);
    env_identify(&e, 0);
    CHECK_EQ(ds_area_setup(&e.ctx, &e.cpu, &e.cfg), DS_OK, "setup");
    ds_area_install(&e.ctx);
    CHECK_EQ(ds_bts_enable(&e.ctx, DS_BTS_INT), DS_OK, "bts int");
    struct ds_pmi_config pc = { .pebs_sink = take, .pebs_arg = &got, .bts_sink = take_bts, .bts_arg = &gotb,
                                .ovf_hook = hook, .ovf_arg = &h };
    CHECK_EQ(ds_pmi_init(&pmi, &e.cpu, &e.ctx, &pc), DS_OK, "init");
    unsigned w1 = e.f.writes, r1 = e.f.reads;
    CHECK_EQ(ds_pmi_set_freeze(&pmi), DS_ERR_UNSUPPORTED, "no freeze bit on NetBurst");
    CHECK_EQ(e.f.writes + e.f.reads, w1 + r1, "MSR_DEBUGCTLA untouched");
    e.area.a32.pebs_index = 0x40000 + 40; /* threshold is 1 record */
    e.area.a32.bts_index = 0x20000 + 12 * 40; /* past the 32-record threshold */
    unsigned r0 = e.f.reads, w0 = e.f.writes;
    CHECK_EQ(ds_pmi_handle(&pmi, &r), DS_OK, "handle");
    CHECK_EQ(e.f.reads + e.f.writes, r0 + w0, "0 MSR accesses by libds on NetBurst");
    CHECK(r.pebs_drained && r.bts_drained, "both drained from the indexes");
    CHECK_EQ(got, 1, "1 PEBS record");
    CHECK_EQ(gotb, 40, "40 BTS records");
    CHECK_EQ(h.calls, 1, "hook called to scan CCCRs");
    CHECK(h.no_global, "no global status");
    /* nothing pending: spurious */
    h.calls = 0;
    ds_pmi_handle(&pmi, &r);
    CHECK(!r.handled, "spurious PMI reported as not ours");
}

static void test_spurious(void)
{
    static struct env e;
    struct ds_pmi pmi;
    struct ds_pmi_result r;
    fake_skylake_pmu(&e.f);
    env_identify(&e, 1);
    struct ds_pmi_config pc = { .freeze = DS_FREEZE_NONE };
    CHECK_EQ(ds_pmi_init(&pmi, &e.cpu, NULL, &pc), DS_OK, "counters-only init");
    fake_set_msr(&e.f, DS_MSR_IA32_PERF_GLOBAL_STATUS, 0);
    unsigned w0 = e.f.writes, r0 = e.f.reads;
    CHECK_EQ(ds_pmi_handle(&pmi, &r), DS_OK, "handle");
    CHECK(!r.handled, "status 0: not ours");
    CHECK_EQ(e.f.writes, w0, "nothing acked");
    CHECK_EQ(e.f.reads - r0, 1, "spurious: 1 RDMSR, no re-read");
    CHECK_EQ(r.passes, 1, "one pass");
    /* a counter bit without a hook is still ours and acknowledged */
    fake_set_msr(&e.f, DS_MSR_IA32_PERF_GLOBAL_STATUS, 0x4);
    CHECK_EQ(ds_pmi_handle(&pmi, &r), DS_OK, "handle");
    CHECK_EQ(r.msr_reads, 2, "read, ack, re-read");
    CHECK_EQ(r.msr_writes, 1, "one ack");
    CHECK(r.handled, "counter overflow is ours even without a hook");
    CHECK_EQ(fake_get_msr(&e.f, DS_MSR_IA32_PERF_GLOBAL_STATUS), 0, "status cleared");
}

/* Issue 10 item 2: an overflow that lands while the handler runs (its PMI
 * raised under the masked LVT, never delivered) is found by re-reading
 * GLOBAL_STATUS until it is 0; bounded at DS_PMI_MAX_PASSES (Linux
 * intel_pmu_handle_irq: 100, then reset). The wrapper sets `bits` again
 * after each of the next `left` acknowledgements: a counter that overflows
 * again during the handler. */
static struct { uint64_t bits; unsigned left; } RF;
static int rf_write(void *ctx, uint32_t msr, uint64_t val)
{
    struct fake_cpu *f = ctx;
    int e = fake_write(ctx, msr, val);
    if (msr == DS_MSR_IA32_PERF_GLOBAL_OVF_CTRL && RF.left) {
        RF.left--;
        fake_set_msr(f, DS_MSR_IA32_PERF_GLOBAL_STATUS, fake_get_msr(f, DS_MSR_IA32_PERF_GLOBAL_STATUS) | RF.bits);
    }
    return e;
}
static const struct ds_msr_ops rf_ops = { fake_read, rf_write, fake_cpuid };

static void loop_env(struct env *e, enum ds_freeze_mode fm, struct ds_pmi *pmi, struct hook_log *h)
{
    fake_haswell(&e->f);
    memset(&e->cpu, 0, sizeof(e->cpu));
    ds_cpu_init(&e->cpu, &rf_ops, &e->f);
    ds_cpu_identify(&e->cpu);
    struct ds_pmi_config pc = { .freeze = fm, .global_ctrl = 0x3, .ovf_hook = hook, .ovf_arg = h };
    CHECK_EQ(ds_pmi_init(pmi, &e->cpu, NULL, &pc), DS_OK, "init");
}

static void test_loop_until_clear(void)
{
    static struct env e;
    struct ds_pmi pmi;
    struct ds_pmi_result r;
    struct hook_log h = { 0 };
    loop_env(&e, DS_FREEZE_NONE, &pmi, &h);
    /* PMC0's PMI; PMC1 overflows during the handler, once */
    fake_set_msr(&e.f, DS_MSR_IA32_PERF_GLOBAL_STATUS, 0x1);
    RF.bits = 0x2;
    RF.left = 1;
    CHECK_EQ(ds_pmi_handle(&pmi, &r), DS_OK, "handle");
    CHECK_EQ(r.passes, 2, "second pass for the overflow inside the handler");
    CHECK_EQ(h.calls, 2, "hook called per pass");
    CHECK_EQ(h.ovf, 0x2, "second pass hooks PMC1");
    CHECK_EQ(r.acked, 0x3, "both acknowledged");
    CHECK_EQ(r.msr_reads, 3, "read, re-read, final 0");
    CHECK_EQ(fake_get_msr(&e.f, DS_MSR_IA32_PERF_GLOBAL_STATUS), 0, "nothing left pending");
    /* boundary: refilled by the first 99 acks: the 100th pass ends it, no storm */
    fake_set_msr(&e.f, DS_MSR_IA32_PERF_GLOBAL_STATUS, 0x1);
    RF.left = DS_PMI_MAX_PASSES - 1;
    CHECK_EQ(ds_pmi_handle(&pmi, &r), DS_OK, "100 passes");
    CHECK_EQ(r.passes, DS_PMI_MAX_PASSES, "exactly the maximum");
    CHECK(!r.storm, "not a storm");
    CHECK(pmi.pmu_enabled, "PMU left enabled");
    CHECK_EQ(r.msr_reads, DS_PMI_MAX_PASSES + 1, "final read 0");
    CHECK_EQ(fake_get_msr(&e.f, DS_MSR_IA32_PERF_GLOBAL_STATUS), 0, "cleared");
}

static void test_storm(void)
{
    static struct env e;
    struct ds_pmi pmi;
    struct ds_pmi_result r;
    struct hook_log h = { 0 };
    for (int legacy = 0; legacy < 2; legacy++) {
        loop_env(&e, legacy ? DS_FREEZE_LEGACY : DS_FREEZE_NONE, &pmi, &h);
        fake_set_msr(&e.f, DS_MSR_IA32_PERF_GLOBAL_CTRL, legacy ? 0 : 0x3);
        fake_set_msr(&e.f, DS_MSR_IA32_PERF_GLOBAL_STATUS, 0x1);
        RF.bits = 0x1;
        RF.left = DS_PMI_MAX_PASSES; /* one more than the loop can absorb */
        e.f.nlog = 0;
        CHECK_EQ(ds_pmi_handle(&pmi, &r), DS_ERR_PMI_STORM, "storm legacy=%d", legacy);
        CHECK(r.storm, "reported legacy=%d", legacy);
        CHECK_EQ(r.passes, DS_PMI_MAX_PASSES, "bounded legacy=%d", legacy);
        CHECK_EQ(fake_get_msr(&e.f, DS_MSR_IA32_PERF_GLOBAL_CTRL), 0, "PMU stopped legacy=%d", legacy);
        CHECK(!pmi.pmu_enabled, "flag cleared legacy=%d", legacy);
        CHECK_EQ(fake_get_msr(&e.f, DS_MSR_IA32_PERF_GLOBAL_STATUS), 0, "last status acked legacy=%d", legacy);
        /* (the 64-entry write log is full here; the final GLOBAL_CTRL = 0 above
         * shows that no legacy restore followed the stop) */
    }
    RF.left = 0;
}

static void test_building_blocks(void)
{
    static struct env e;
    struct ds_pmi pmi;
    uint64_t st, un;
    fake_haswell(&e.f);
    env_identify(&e, 1);
    struct ds_pmi_config pc = { .freeze = DS_FREEZE_LEGACY, .global_ctrl = 0xF };
    CHECK_EQ(ds_pmi_init(&pmi, &e.cpu, NULL, &pc), DS_OK, "init");
    fake_set_msr(&e.f, DS_MSR_IA32_PERF_GLOBAL_STATUS, (1ull << 63) | 1 | (1ull << 58));
    CHECK_EQ(ds_pmi_read_status(&pmi, &st), DS_OK, "read");
    e.f.nlog = 0;
    CHECK_EQ(ds_pmi_ack(&pmi, st, &un), DS_OK, "ack");
    CHECK_EQ(un, 1ull << 58, "LBR_Frz reserved on v3");
    CHECK_EQ(e.f.nlog, 2, "ack + GLOBAL_CTRL");
    CHECK_EQ(e.f.log[0].val, (1ull << 63) | 1, "acked bits");
    CHECK_EQ(e.f.log[1].msr, DS_MSR_IA32_PERF_GLOBAL_CTRL, "then GLOBAL_CTRL");
    fake_netburst(&e.f);
    env_identify(&e, 0);
    struct ds_pmi_config pn = { 0 };
    ds_pmi_init(&pmi, &e.cpu, NULL, &pn);
    CHECK_EQ(ds_pmi_read_status(&pmi, &st), DS_ERR_UNSUPPORTED, "no GLOBAL_STATUS on NetBurst");
    CHECK_EQ(ds_pmi_ack(&pmi, 1, NULL), DS_ERR_UNSUPPORTED, "no ack MSR");
    CHECK_EQ(e.f.reads > 0 ? e.f.writes : 0, 0, "nothing written");
}

/* Issue 10 item 3: legacy freeze restores IA32_PERF_GLOBAL_CTRL only for a
 * PMI of this PMU (status != 0) while the PMU is enabled (Linux
 * intel_pmu_handle_irq restores only if cpuc->enabled was set on entry). */
static void test_legacy_restore_only_ours(void)
{
    static struct env e;
    struct ds_pmi pmi;
    struct ds_pmi_result r;
    uint64_t v = 0;
    fake_haswell(&e.f);
    env_identify(&e, 1);
    struct ds_pmi_config pc = { .freeze = DS_FREEZE_LEGACY, .global_ctrl = 0xF };
    CHECK_EQ(ds_pmi_init(&pmi, &e.cpu, NULL, &pc), DS_OK, "init");
    /* foreign NMI: status 0, GLOBAL_CTRL 0 (stopped by the kernel) */
    fake_set_msr(&e.f, DS_MSR_IA32_PERF_GLOBAL_CTRL, 0);
    fake_set_msr(&e.f, DS_MSR_IA32_PERF_GLOBAL_STATUS, 0);
    e.f.nlog = 0;
    CHECK_EQ(ds_pmi_handle(&pmi, &r), DS_OK, "handle foreign NMI");
    CHECK(!r.handled, "status 0: not ours");
    CHECK_EQ(fake_get_msr(&e.f, DS_MSR_IA32_PERF_GLOBAL_CTRL), 0, "foreign NMI: GLOBAL_CTRL stays 0");
    CHECK_EQ(fake_writes_to(&e.f, DS_MSR_IA32_PERF_GLOBAL_CTRL, NULL), 0, "no GLOBAL_CTRL write");
    CHECK_EQ(e.f.nlog, 0, "foreign NMI: no MSR written at all");
    /* the PMU is stopped through ds_pmi_pmu_enable: a stale overflow bit is
     * acknowledged but the counters are not restarted */
    CHECK_EQ(ds_pmi_pmu_enable(&pmi, false), DS_OK, "pmu off");
    CHECK_EQ(fake_get_msr(&e.f, DS_MSR_IA32_PERF_GLOBAL_CTRL), 0, "pmu off writes GLOBAL_CTRL = 0");
    fake_set_msr(&e.f, DS_MSR_IA32_PERF_GLOBAL_STATUS, 0x2);
    e.f.nlog = 0;
    CHECK_EQ(ds_pmi_handle(&pmi, &r), DS_OK, "handle while disabled");
    CHECK(fake_writes_to(&e.f, DS_MSR_IA32_PERF_GLOBAL_OVF_CTRL, &v) >= 1 && v == 0x2, "overflow acked");
    CHECK_EQ(fake_writes_to(&e.f, DS_MSR_IA32_PERF_GLOBAL_CTRL, NULL), 0, "disabled PMU: no GLOBAL_CTRL write");
    CHECK_EQ(fake_get_msr(&e.f, DS_MSR_IA32_PERF_GLOBAL_CTRL), 0, "disabled PMU stays disabled");
    /* enabled again: our PMI with the CPU's legacy freeze (GLOBAL_CTRL 0) is restored */
    CHECK_EQ(ds_pmi_pmu_enable(&pmi, true), DS_OK, "pmu on");
    CHECK_EQ(fake_get_msr(&e.f, DS_MSR_IA32_PERF_GLOBAL_CTRL), 0xF, "pmu on writes the enables");
    fake_set_msr(&e.f, DS_MSR_IA32_PERF_GLOBAL_CTRL, 0); /* frozen by the PMI */
    fake_set_msr(&e.f, DS_MSR_IA32_PERF_GLOBAL_STATUS, 0x1);
    e.f.nlog = 0;
    CHECK_EQ(ds_pmi_handle(&pmi, &r), DS_OK, "handle ours");
    CHECK_EQ(fake_writes_to(&e.f, DS_MSR_IA32_PERF_GLOBAL_CTRL, &v), 1, "one GLOBAL_CTRL write");
    CHECK_EQ(fake_get_msr(&e.f, DS_MSR_IA32_PERF_GLOBAL_CTRL), 0xF, "our PMI: enables restored");
    /* a foreign NMI after that leaves a frozen GLOBAL_CTRL alone too */
    fake_set_msr(&e.f, DS_MSR_IA32_PERF_GLOBAL_CTRL, 0);
    fake_set_msr(&e.f, DS_MSR_IA32_PERF_GLOBAL_STATUS, 0);
    CHECK_EQ(ds_pmi_handle(&pmi, &r), DS_OK, "handle foreign NMI 2");
    CHECK_EQ(fake_get_msr(&e.f, DS_MSR_IA32_PERF_GLOBAL_CTRL), 0, "enabled PMU, status 0: not restored");
    /* no global MSRs: nothing to switch */
    fake_netburst(&e.f);
    env_identify(&e, 0);
    struct ds_pmi_config pn = { 0 };
    CHECK_EQ(ds_pmi_init(&pmi, &e.cpu, NULL, &pn), DS_OK, "init NetBurst");
    CHECK_EQ(ds_pmi_pmu_enable(&pmi, true), DS_ERR_UNSUPPORTED, "NetBurst: no GLOBAL_CTRL");
    CHECK_EQ(ds_pmi_pmu_enable(NULL, true), DS_ERR_NULL, "NULL");
}

/* Clearing path: DS_FREEZE_NONE after LEGACY / STREAMLINED clears
 * IA32_DEBUGCTL.FREEZE_PERFMON_ON_PMI (bit 12) and keeps the other bits
 * (LBR bit 0, FREEZE_LBRS_ON_PMI bit 11 belong to lbr.h). */
static void test_freeze_off_clears(void)
{
    static struct env e;
    struct ds_pmi pmi;
    const uint64_t other = (1ull << 0) | (1ull << 11);
    for (int v4 = 0; v4 < 2; v4++) {
        if (v4)
            fake_skylake_pmu(&e.f);
        else
            fake_haswell(&e.f);
        env_identify(&e, 1);
        struct ds_pmi_config on = { .freeze = v4 ? DS_FREEZE_STREAMLINED : DS_FREEZE_LEGACY };
        fake_set_msr(&e.f, DS_MSR_IA32_DEBUGCTL, other);
        CHECK_EQ(ds_pmi_init(&pmi, &e.cpu, NULL, &on), DS_OK, "init freeze v4=%d", v4);
        CHECK_EQ(ds_pmi_set_freeze(&pmi), DS_OK, "set freeze v4=%d", v4);
        CHECK_EQ(fake_get_msr(&e.f, DS_MSR_IA32_DEBUGCTL), other | (1ull << 12), "bit 12 set v4=%d", v4);
        struct ds_pmi_config off = { .freeze = DS_FREEZE_NONE };
        CHECK_EQ(ds_pmi_init(&pmi, &e.cpu, NULL, &off), DS_OK, "init none v4=%d", v4);
        CHECK_EQ(ds_pmi_set_freeze(&pmi), DS_OK, "clear freeze v4=%d", v4);
        CHECK_EQ(fake_get_msr(&e.f, DS_MSR_IA32_DEBUGCTL), other, "bit 12 cleared, others kept v4=%d", v4);
        CHECK_EQ(ds_pmi_set_freeze(&pmi), DS_OK, "clear again v4=%d", v4);
        CHECK_EQ(fake_get_msr(&e.f, DS_MSR_IA32_DEBUGCTL), other, "idempotent v4=%d", v4);
    }
}

/* Issue 10 item 1: LBR_Frz (bit 58) is acknowledged only after the
 * caller's snapshot was taken (acking it unfreezes the LBRs). */
static void test_lbr_frz_not_acked(void)
{
    static struct env e;
    struct ds_pmi pmi;
    struct ds_pmi_result r;
    struct ds_lbr_entry buf[32];
    uint64_t ack = 0;
    const uint64_t frz = 1ull << 58, st = frz | (1ull << 59) | 0x1;
    fake_skylake_pmu(&e.f);
    env_identify(&e, 1);
    struct ds_pmi_config pc = { .freeze = DS_FREEZE_STREAMLINED };
    CHECK_EQ(ds_pmi_init(&pmi, &e.cpu, NULL, &pc), DS_OK, "init");
    fake_set_msr(&e.f, DS_MSR_IA32_PERF_GLOBAL_STATUS, st);
    e.f.nlog = 0;
    CHECK_EQ(ds_pmi_handle(&pmi, &r), DS_OK, "handle without snapshot step");
    CHECK_EQ(fake_writes_to(&e.f, DS_MSR_IA32_PERF_GLOBAL_STATUS_RESET, &ack), 1, "one ack");
    CHECK_EQ(ack, st & ~frz, "counter and CTR_Frz acked, LBR_Frz not");
    CHECK(r.lbr_frozen && !r.lbr_taken, "reported frozen for the caller's read + ds_lbr_unfreeze");
    CHECK_EQ(fake_get_msr(&e.f, DS_MSR_IA32_PERF_GLOBAL_STATUS), frz, "LBRs still frozen");
    CHECK_EQ(r.passes, 1, "left LBR_Frz does not make the loop spin");
    /* status with only LBR_Frz left (e.g. the next foreign NMI): nothing acked */
    e.f.nlog = 0;
    CHECK_EQ(ds_pmi_handle(&pmi, &r), DS_OK, "handle LBR_Frz only");
    CHECK_EQ(e.f.nlog, 0, "nothing written");
    CHECK(r.lbr_frozen, "still frozen");
    /* snapshot step configured, but the read fails (this fake has no LBR
     * MSRs): bit 58 stays set, the error is reported, the rest is done */
    const struct ds_lbr_model *lm = NULL;
    CHECK_EQ(ds_lbr_lookup(e.cpu.caps.display_family, e.cpu.caps.display_model, &lm), DS_OK, "lbr row");
    struct ds_pmi_config pl = { .freeze = DS_FREEZE_STREAMLINED,
                                .lbr = { .model = lm, .format = 5, .buf = buf, .cap = 32 } };
    CHECK_EQ(ds_pmi_init(&pmi, &e.cpu, NULL, &pl), DS_OK, "init with snapshot step");
    fake_set_msr(&e.f, DS_MSR_IA32_PERF_GLOBAL_STATUS, st);
    e.f.nlog = 0;
    CHECK_EQ(ds_pmi_handle(&pmi, &r), DS_ERR_MSR_FAULT, "snapshot read fault reported");
    CHECK_EQ(r.lbr_err, DS_ERR_MSR_FAULT, "lbr_err");
    CHECK(!r.lbr_taken && r.lbr_frozen, "not taken: left frozen");
    CHECK_EQ(fake_writes_to(&e.f, DS_MSR_IA32_PERF_GLOBAL_STATUS_RESET, &ack), 1, "still acks the rest");
    CHECK_EQ(ack, st & ~frz, "without LBR_Frz");
    /* configuration: a snapshot step needs a buffer */
    struct ds_pmi_config bad = pl;
    bad.lbr.buf = NULL;
    CHECK_EQ(ds_pmi_init(&pmi, &e.cpu, NULL, &bad), DS_ERR_PMI_LBR_BUF, "no buffer");
    bad = pl;
    bad.lbr.cap = 0;
    CHECK_EQ(ds_pmi_init(&pmi, &e.cpu, NULL, &bad), DS_ERR_PMI_LBR_BUF, "cap 0");
}

/* ds__zero stores words since issue 10 item 21: every start alignment and
 * length around the word size clears exactly [off, off + len). */
static void test_zero_bounds(void)
{
    unsigned char b[64];
    unsigned bad = 0;
    for (size_t off = 0; off < 16; off++)
        for (size_t len = 0; len <= 40; len++) {
            memset(b, 0xAA, sizeof(b));
            ds__zero(b + off, len);
            for (size_t i = 0; i < sizeof(b); i++)
                if (b[i] != ((i >= off && i < off + len) ? 0 : 0xAA))
                    bad++;
        }
    CHECK_EQ(bad, 0, "ds__zero clears exactly its range (16 offsets x 41 lengths)");
}

/*
 * The exact 0x390 ack mask per perfmon version, from caps set by hand
 * (reference msr.md IA32_PERF_GLOBAL_STATUS table: 48 PERF_METRICS ICL+,
 * 58/59 v4+, 61 v3+, 62/63 v1+; writing a reserved bit of 0x390 #GPs).
 * PERF_CAPABILITIES[15] on a v3 part (a hypervisor may report it) must not
 * put bit 48 into the v3 IA32_PERF_GLOBAL_OVF_CTRL write.
 */
static void test_ack_mask_exact(void)
{
    struct ds_caps c;
    memset(&c, 0, sizeof(c));
    c.has_leaf_0a = true;
    c.gp_counters = 4;
    c.gp_mask = 0xF;
    c.fixed_counters = 3;
    c.fixed_mask = 0x7;
    c.perf_metrics = true;
    const uint64_t base = 0xFull | (0x7ull << 32) | (1ull << 62) | (1ull << 63);
    c.perfmon_version = 2;
    CHECK_EQ(ds_pmi_ack_mask(&c), base, "v2 with PERF_METRICS cap: no 48, 61");
    c.perfmon_version = 3;
    CHECK_EQ(ds_pmi_ack_mask(&c), base | (1ull << 61), "v3 with PERF_METRICS cap: no bit 48");
    c.perfmon_version = 4;
    CHECK_EQ(ds_pmi_ack_mask(&c), base | (1ull << 61) | (1ull << 58) | (1ull << 59) | (1ull << 48),
             "v4 with PERF_METRICS: 48, 58, 59");
    c.perf_metrics = false;
    CHECK_EQ(ds_pmi_ack_mask(&c), base | (1ull << 61) | (1ull << 58) | (1ull << 59), "v4 without PERF_METRICS: no 48");
}

/* The fixed-format drain decodes into a sample kept in struct ds_pmi,
 * prepared once per format (issue 10 item 21). Fields a format lacks must
 * read 0 in every drained sample, also after the context behind the same
 * ds_pmi was set up again for another format: a format 3 record (Skylake:
 * eventing IP, TSX, TSC), then a format 2 record (Haswell: no TSC), then
 * format 3 again. Expected values are the bytes
 * written into the records (SDM Table 18-x layouts: TSC at 0xC0, eventing
 * IP at 0xB0, TSX at 0xB8). */
static struct ds_pebs_sample scratch_got;
static int scratch_take(void *a, const struct ds_pebs_sample *s)
{
    scratch_got = *s;
    (*(int *)a)++;
    return 0;
}

static void scratch_pmi(struct env *e, struct ds_pmi *pmi, uint32_t rsz, int *got)
{
    struct ds_pmi_result r;
    uint64_t base = (uint64_t)(uintptr_t)e->pebs;
    for (uint32_t i = 0; i < rsz / 8; i++) {
        uint64_t v = 0x1000ull * (i + 1) + rsz;
        memcpy(e->pebs + 8 * i, &v, 8);
    }
    e->area.a64.pebs_index = base + rsz;
    fake_set_msr(&e->f, DS_MSR_IA32_PERF_GLOBAL_STATUS, (1ull << 62) | 0x1);
    *got = 0;
    CHECK_EQ(ds_pmi_handle(pmi, &r), DS_OK, "handle (record size %u)", rsz);
    CHECK_EQ(*got, 1, "one record drained (record size %u)", rsz);
}

static void test_scratch_sample_per_format(void)
{
    static struct env e;
    struct ds_pmi pmi;
    int got = 0;
    fake_skylake_pmu(&e.f);
    env_identify(&e, 1);
    CHECK_EQ(ds_area_setup(&e.ctx, &e.cpu, &e.cfg), DS_OK, "setup fmt 3");
    struct ds_pmi_config pc = { .freeze = DS_FREEZE_NONE, .pebs_counters = 0x1, .pebs_sink = scratch_take,
                                .pebs_arg = &got };
    CHECK_EQ(ds_pmi_init(&pmi, &e.cpu, &e.ctx, &pc), DS_OK, "init");
    scratch_pmi(&e, &pmi, 0xC8, &got);
    CHECK_EQ(scratch_got.fmt, DS_PEBS_FMT_3, "fmt 3");
    CHECK_EQ(scratch_got.tsc, 0x1000ull * (0xC0 / 8 + 1) + 0xC8, "fmt 3 TSC from the record");
    CHECK_EQ(scratch_got.eventing_ip, 0x1000ull * (0xB0 / 8 + 1) + 0xC8, "fmt 3 eventing IP");
    scratch_pmi(&e, &pmi, 0xC8, &got); /* second PMI, same format: prepared sample reused */
    CHECK_EQ(scratch_got.tsc, 0x1000ull * (0xC0 / 8 + 1) + 0xC8, "fmt 3 TSC, second PMI");

    /* Same ds_pmi (not initialised again), context set up on a format 2 CPU */
    fake_haswell(&e.f);
    env_identify(&e, 1);
    CHECK_EQ(ds_area_setup(&e.ctx, &e.cpu, &e.cfg), DS_OK, "setup fmt 2");
    CHECK_EQ(e.ctx.pebs_fmt, DS_PEBS_FMT_2, "Haswell: fmt 2");
    scratch_pmi(&e, &pmi, 0xC0, &got);
    CHECK_EQ(scratch_got.fmt, DS_PEBS_FMT_2, "fmt 2 sample");
    CHECK_EQ(scratch_got.size, 0xC0, "fmt 2 record size");
    CHECK_EQ(scratch_got.tsc, 0, "fmt 2 has no TSC: 0, not the fmt 3 record's");
    CHECK_EQ(scratch_got.eventing_ip, 0x1000ull * (0xB0 / 8 + 1) + 0xC0, "fmt 2 eventing IP");
    CHECK(!(scratch_got.present & DS_SAMPLE_TSC), "fmt 2: TSC not present");

    /* and back: the format 3 fields come back with the format */
    fake_skylake_pmu(&e.f);
    env_identify(&e, 1);
    CHECK_EQ(ds_area_setup(&e.ctx, &e.cpu, &e.cfg), DS_OK, "setup fmt 3 again");
    scratch_pmi(&e, &pmi, 0xC8, &got);
    CHECK_EQ(scratch_got.fmt, DS_PEBS_FMT_3, "fmt 3 again");
    CHECK(scratch_got.present & DS_SAMPLE_TSC, "fmt 3: TSC present again");
}

/* NetBurst has no IA32_PERF_GLOBAL_* MSRs (reference pmi.md: the ISR
 * scans CCCR.OVF instead): a config naming counters in global_ctrl or
 * pebs_counters cannot be honoured there and is DS_ERR_PMI_CTRL_MASK. */
static void test_netburst_no_global_masks(void)
{
    static struct env e;
    struct ds_pmi pmi;
    fake_netburst(&e.f);
    env_identify(&e, 0);
    CHECK_EQ(ds_area_setup(&e.ctx, &e.cpu, &e.cfg), DS_OK, "setup");
    struct ds_pmi_config pc = { .global_ctrl = 1 };
    CHECK_EQ(ds_pmi_init(&pmi, &e.cpu, &e.ctx, &pc), DS_ERR_PMI_CTRL_MASK, "NetBurst: global_ctrl");
    struct ds_pmi_config pp = { .pebs_counters = 1, .pebs_sink = take };
    CHECK_EQ(ds_pmi_init(&pmi, &e.cpu, &e.ctx, &pp), DS_ERR_PMI_CTRL_MASK, "NetBurst: pebs_counters");
}

/* Perfmon v6 counter bitmap (issue 16): CPUID words of a real Lunar Lake
 * P-core (/work/shared/cpuid GenuineIntel00B06D1_LunarLake_04_CPUID.txt:
 * 0AH EAX 0D300806H = 8 GP counters, 23H.1 EAX 3FFH = GP0-9, EBX FH = fixed
 * 0-3). GLOBAL_CTRL/STATUS bit n is GP counter n for each counter 23H.1
 * lists (SDM Vol. 3B "Performance Monitoring Version 6"; Linux
 * update_pmu_cap: cntr_mask64 = 23H.1 EAX), so bits 8 and 9 are counters:
 * ds_pmi_init accepts them (refused before: counter_bits followed the leaf
 * 0AH count), bit 10 stays refused, decode and the ack mask carry them. */
static void test_v6_counter_bitmap(void)
{
    static struct env e;
    static struct ds_pmi pmi;
    struct ds_pmi_config cfg;
    struct ds_pmi_status st;
    memset(&e.f, 0, sizeof e.f);
    fake_set_cpuid(&e.f, 0, 0, 0x23, FAKE_INTEL_EBX, FAKE_INTEL_ECX, FAKE_INTEL_EDX);
    fake_set_cpuid(&e.f, 1, 0, 0x000B06D1, 0, (1u << 2) | (1u << 4) | (1u << 15), (1u << 5) | (1u << 9) | (1u << 21));
    fake_set_cpuid(&e.f, 0xA, 0, 0x0D300806, 0x00000280, 0x00000007, 0x00008603);
    fake_set_cpuid(&e.f, 0x23, 0, 0x0000000B, 0x00000003, 0, 0);
    fake_set_cpuid(&e.f, 0x23, 1, 0x000003FF, 0x0000000F, 0, 0);
    fake_set_msr(&e.f, DS_MSR_IA32_MISC_ENABLE, 1u << 7);
    env_identify(&e, 1);
    CHECK_EQ(e.cpu.caps.gp_counters, 8, "leaf 0AH counts 8 GP");
    memset(&cfg, 0, sizeof cfg);
    cfg.freeze = DS_FREEZE_NONE;
    cfg.global_ctrl = 0x3FFull | (0xFull << 32);
    CHECK_EQ(ds_pmi_init(&pmi, &e.cpu, NULL, &cfg), DS_OK, "GLOBAL_CTRL GP0-9 + fixed 0-3 accepted");
    cfg.global_ctrl = 1ull << 9;
    cfg.pebs_counters = 1ull << 9;
    CHECK_EQ(ds_pmi_init(&pmi, &e.cpu, NULL, &cfg), DS_OK, "GP9 (23H.1 bit 9) as a PEBS counter");
    cfg.global_ctrl = 1ull << 10;
    cfg.pebs_counters = 0;
    CHECK_EQ(ds_pmi_init(&pmi, &e.cpu, NULL, &cfg), DS_ERR_PMI_CTRL_MASK, "GP10: not in 23H.1");
    cfg.global_ctrl = 0;
    cfg.pebs_counters = 1ull << 10;
    CHECK_EQ(ds_pmi_init(&pmi, &e.cpu, NULL, &cfg), DS_ERR_PMI_CTRL_MASK, "PEBS GP10: not in 23H.1");
    cfg.pebs_counters = 1ull << 36;
    CHECK_EQ(ds_pmi_init(&pmi, &e.cpu, NULL, &cfg), DS_ERR_PMI_CTRL_MASK, "fixed 4: not in 23H.1 EBX");
    uint64_t m = ds_pmi_ack_mask(&e.cpu.caps);
    CHECK_EQ(m & 0xFFFFFFFFull, 0x3FFull, "ack mask GP0-9");
    CHECK_EQ((m >> 32) & 0xFFFF, 0xF, "ack mask fixed 0-3");
    CHECK_EQ(ds_pmi_decode((1ull << 9) | (1ull << 8) | (1ull << 10), &e.cpu.caps, &st), DS_OK, "decode");
    CHECK_EQ(st.gp_ovf, 0x300, "GP8, GP9 overflowed");
    CHECK_EQ(st.unknown, 1ull << 10, "bit 10 unknown");
}

static void test_decode_known_per_version(void);
static void test_idle_pebs_threshold_exact(void);
static void test_legacy_restore_fault_and_not_init(void);

static void test_mut3d_pmi(void);
static void test_mut3d_pmi_gates(void);
static void test_no_gp_ack_v2_v3(void);
static void test_v6_no_gp0(void);
static void test_init_not_identified_not_setup(void);
static void test_idle_due_no_hook(void);
static void test_init_null(void);
static void test_perf_metrics_ctrl_and_no_leaf_0a_decode(void);
static void test_mut5b_poison_and_silent_hook(void);
static void test_mut5b_legacy_restore_fault_first_error(void);
static void test_lnx25_bts_legacy_unfreeze(void);
static void test_result_written_per_path(void);
int main(void)
{
    test_zero_bounds();
    test_lbr_frz_not_acked();
    test_legacy_restore_only_ours();
    test_freeze_off_clears();
    test_building_blocks();
    test_decode();
    test_ctx_other_cpu();
    test_v4_streamlined_pebs();
    test_v3_legacy();
    test_netburst();
    test_spurious();
    test_loop_until_clear();
    test_storm();
    test_ack_mask_exact();
    test_netburst_no_global_masks();
    test_scratch_sample_per_format();
    test_v6_counter_bitmap();
    test_decode_known_per_version();
    test_idle_pebs_threshold_exact();
    test_legacy_restore_fault_and_not_init();
    test_mut3d_pmi();
    test_mut3d_pmi_gates();
    test_no_gp_ack_v2_v3();
    test_v6_no_gp0();
    test_init_not_identified_not_setup();
    test_idle_due_no_hook();
    test_init_null();
    test_perf_metrics_ctrl_and_no_leaf_0a_decode();
    test_mut5b_poison_and_silent_hook();
    test_mut5b_legacy_restore_fault_first_error();
    test_lnx25_bts_legacy_unfreeze();
    test_result_written_per_path();
    return check_summary();
}

/*
 * ds_pmi_decode's `unknown` at each version boundary, transcribed from the
 * IA32_PERF_GLOBAL_STATUS table of ../shared/reference/msr.md section 5
 * (SDM Table 35-2 / EDK / Linux): 62 OvfBuf and 63 CondChgd from v1 (the
 * register from v2), 61 Ovf_Uncore from v3, 58 LBR_Frz and 59 CTR_Frz from
 * v4; pmi.h counts 48 (PERF_METRICS), 55 (ToPA) and 60 (ASCI) as known on
 * v4+ too. Counter bits: the GP bitmap and fixed counters m at 32 + m,
 * the rest unknown. Every flag field decodes its own bit alone.
 */
static void test_decode_known_per_version(void)
{
    struct ds_caps c;
    struct ds_pmi_status st;
    memset(&c, 0, sizeof(c));
    c.has_leaf_0a = true;
    c.gp_counters = 4;
    c.gp_mask = 0xF;
    c.fixed_counters = 3;
    c.fixed_mask = 0x7;
    const uint64_t flags = (1ull << 48) | (1ull << 55) | (1ull << 58) | (1ull << 59) | (1ull << 60) |
                           (1ull << 61) | (1ull << 62) | (1ull << 63);
    const uint64_t ctrs_beyond = (1ull << 4) | (1ull << 31) | (1ull << 35) | (1ull << 47);
    static const struct { unsigned v; uint64_t unknown_flags; } rows[] = {
        { 2, (1ull << 48) | (1ull << 55) | (1ull << 58) | (1ull << 59) | (1ull << 60) | (1ull << 61) },
        { 3, (1ull << 48) | (1ull << 55) | (1ull << 58) | (1ull << 59) | (1ull << 60) },
        { 4, 0 },
        { 5, 0 },
    };
    for (unsigned i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
        c.perfmon_version = rows[i].v;
        uint64_t raw = flags | ctrs_beyond | 0xF | (0x7ull << 32);
        CHECK_EQ(ds_pmi_decode(raw, &c, &st), DS_OK, "decode v%u", rows[i].v);
        CHECK_EQ(st.unknown, rows[i].unknown_flags | ctrs_beyond, "v%u: unknown bits", rows[i].v);
        CHECK_EQ(st.gp_ovf, 0xF, "v%u: GP0-3", rows[i].v);
        CHECK_EQ(st.fixed_ovf, 0x7, "v%u: fixed 0-2", rows[i].v);
        CHECK_EQ(st.raw, raw, "v%u: raw kept", rows[i].v);
    }
    /* one flag at a time: each field from its own bit (v4) */
    c.perfmon_version = 4;
    static const struct { unsigned bit; } one[] = { { 48 }, { 55 }, { 58 }, { 59 }, { 60 }, { 61 }, { 62 }, { 63 } };
    for (unsigned i = 0; i < sizeof(one) / sizeof(one[0]); i++) {
        unsigned b = one[i].bit;
        CHECK_EQ(ds_pmi_decode(1ull << b, &c, &st), DS_OK, "decode bit %u", b);
        unsigned got = (st.perf_metrics ? 1u << 0 : 0) | (st.topa ? 1u << 1 : 0) | (st.lbr_frz ? 1u << 2 : 0) |
                       (st.ctr_frz ? 1u << 3 : 0) | (st.asci ? 1u << 4 : 0) | (st.uncore ? 1u << 5 : 0) |
                       (st.ovf_buf ? 1u << 6 : 0) | (st.cond_chgd ? 1u << 7 : 0);
        CHECK_EQ(got, 1u << i, "bit %u sets its own field only", b);
        CHECK(st.gp_ovf == 0 && st.fixed_ovf == 0 && st.unknown == 0, "bit %u: no counter, nothing unknown", b);
    }
    CHECK_EQ(ds_pmi_decode(0, &c, &st), DS_OK, "decode 0");
    CHECK(!st.perf_metrics && !st.topa && !st.lbr_frz && !st.ctr_frz && !st.asci && !st.uncore && !st.ovf_buf &&
          !st.cond_chgd && !st.gp_ovf && !st.fixed_ovf && !st.unknown, "0: every field clear");
}

/*
 * A PMI with GLOBAL_STATUS 0 still services a PEBS buffer that is due by
 * its index (pmi.h: foreign NMI or a buffer due by its index). Due means
 * the index reached the interrupt threshold the area holds (SDM "DS Save
 * Area": the PMI is requested when PEBS Index >= PEBS Interrupt
 * Threshold): one byte below is not due, index == threshold is.
 */
static void test_idle_pebs_threshold_exact(void)
{
    static struct env e;
    struct ds_pmi pmi;
    struct ds_pmi_result r;
    int got = 0;
    fake_skylake_pmu(&e.f);
    env_identify(&e, 1);
    CHECK_EQ(ds_area_setup(&e.ctx, &e.cpu, &e.cfg), DS_OK, "setup");
    CHECK_EQ(ds_area_install(&e.ctx), DS_OK, "install");
    struct ds_pmi_config pc = { .pebs_sink = take, .pebs_arg = &got };
    CHECK_EQ(ds_pmi_init(&pmi, &e.cpu, &e.ctx, &pc), DS_OK, "init");
    uint64_t thr = e.area.a64.pebs_thresh;
    CHECK(thr > e.area.a64.pebs_base, "threshold above base");
    e.area.a64.pebs_index = thr - 1;
    CHECK_EQ(ds_pmi_handle(&pmi, &r), DS_OK, "handle, index = threshold - 1");
    CHECK(!r.pebs_drained && !r.handled, "one byte below the threshold: not due, not ours");
    e.area.a64.pebs_index = thr;
    CHECK_EQ(ds_pmi_handle(&pmi, &r), DS_OK, "handle, index = threshold");
    CHECK(r.pebs_drained && r.handled, "index == threshold: due, drained");
}

/*
 * Legacy freeze (v3): when the GLOBAL_CTRL restore at the end of the PMI
 * #GPs, ds_pmi_handle reports DS_ERR_MSR_FAULT (the counters stay frozen:
 * the caller must know), although the drain and the acknowledgement
 * succeeded. And ds_pmi_pmu_enable on a ds_pmi never initialised is
 * DS_ERR_PMI_NOT_INIT, with no MSR written.
 */
static void test_legacy_restore_fault_and_not_init(void)
{
    static struct env e;
    struct ds_pmi pmi;
    struct ds_pmi_result r;
    int got = 0;
    fake_haswell(&e.f);
    env_identify(&e, 1);
    CHECK_EQ(ds_area_setup(&e.ctx, &e.cpu, &e.cfg), DS_OK, "setup");
    struct ds_pmi_config pc = { .freeze = DS_FREEZE_LEGACY, .global_ctrl = 0x1, .pebs_counters = 0x1,
                                .pebs_sink = take, .pebs_arg = &got };
    CHECK_EQ(ds_pmi_init(&pmi, &e.cpu, &e.ctx, &pc), DS_OK, "init");
    e.area.a64.pebs_index = (uint64_t)(uintptr_t)e.pebs + 0xC0;
    fake_set_msr(&e.f, DS_MSR_IA32_PERF_GLOBAL_STATUS, 1ull << 62);
    e.f.fault_on_write = DS_MSR_IA32_PERF_GLOBAL_CTRL;
    CHECK_EQ(ds_pmi_handle(&pmi, &r), DS_ERR_MSR_FAULT, "GLOBAL_CTRL restore faulted: reported");
    CHECK_EQ(got, 1, "the record was still drained");
    e.f.fault_on_write = 0;

    struct ds_pmi z;
    memset(&z, 0, sizeof z);
    unsigned w0 = e.f.writes;
    CHECK_EQ(ds_pmi_pmu_enable(&z, true), DS_ERR_PMI_NOT_INIT, "pmu_enable before init");
    CHECK_EQ(e.f.writes, w0, "nothing written");
}

/*
 * mut3D (issue 10 test strength, own seeds 6001-6004): the refusals and
 * clears of pmi.h each alone. NULL and never-initialised handles on every
 * entry point (DS_ERR_NULL / DS_ERR_PMI_NOT_INIT, not the UNSUPPORTED a
 * zeroed handle would otherwise give); streamlined freeze needs perfmon v4
 * (SDM 18.2.4 "Freeze_Perfmon_On_PMI" streamlined mode, v4+): refused on
 * v3 Haswell, taken on v4 Skylake; a failed LBR snapshot reports lbr_n 0;
 * PEBS records with no sink are counted lost_rejected; STATUS_RESET bit 55
 * (ToPA) only with CPUID.07H:EBX[25] Intel PT (SDM Vol. 2 CPUID leaf 07H:
 * bit 24 is CLWB, bit 25 Intel PT); bit 0 is not acked on a v4 part with
 * no GP counter (PMC0 does not exist: reserved, a write would #GP).
 */
static void test_mut3d_pmi(void)
{
    static struct env e;
    struct ds_pmi pmi;
    struct ds_pmi_result r;
    uint64_t v = 0, un = 0;
    struct ds_pmi_config pc = { .freeze = DS_FREEZE_NONE };
    CHECK_EQ(ds_pmi_set_freeze(NULL), DS_ERR_NULL, "set_freeze NULL");
    CHECK_EQ(ds_pmi_pmu_enable(NULL, true), DS_ERR_NULL, "pmu_enable NULL");
    CHECK_EQ(ds_pmi_handle(NULL, &r), DS_ERR_NULL, "handle NULL");
    CHECK_EQ(ds_pmi_ack(NULL, 1, &un), DS_ERR_NULL, "ack NULL");
    memset(&pmi, 0, sizeof(pmi));
    CHECK_EQ(ds_pmi_set_freeze(&pmi), DS_ERR_PMI_NOT_INIT, "set_freeze not init");
    CHECK_EQ(ds_pmi_pmu_enable(&pmi, true), DS_ERR_PMI_NOT_INIT, "pmu_enable not init");
    CHECK_EQ(ds_pmi_read_status(&pmi, &v), DS_ERR_PMI_NOT_INIT, "read_status not init");
    CHECK_EQ(ds_pmi_ack(&pmi, 1, &un), DS_ERR_PMI_NOT_INIT, "ack not init");
    CHECK_EQ(ds_pmi_handle(&pmi, &r), DS_ERR_PMI_NOT_INIT, "handle not init");
    /* streamlined freeze: v3 refused, v4 taken; legacy taken on v3 */
    fake_haswell(&e.f);
    env_identify(&e, 1);
    pc.freeze = DS_FREEZE_STREAMLINED;
    CHECK_EQ(ds_pmi_init(&pmi, &e.cpu, NULL, &pc), DS_ERR_PMI_FREEZE_MODE, "v3: no streamlined freeze");
    pc.freeze = DS_FREEZE_LEGACY;
    CHECK_EQ(ds_pmi_init(&pmi, &e.cpu, NULL, &pc), DS_OK, "v3: legacy freeze");
    fake_skylake_pmu(&e.f);
    env_identify(&e, 1);
    pc.freeze = DS_FREEZE_STREAMLINED;
    CHECK_EQ(ds_pmi_init(&pmi, &e.cpu, NULL, &pc), DS_OK, "v4: streamlined freeze");
    pc.freeze = (enum ds_freeze_mode)3; /* no such mode (pmi.h: 0..2) */
    CHECK_EQ(ds_pmi_init(&pmi, &e.cpu, NULL, &pc), DS_ERR_PMI_FREEZE_MODE, "v4: freeze mode 3 refused");
    fake_netburst(&e.f);
    env_identify(&e, 0);
    pc.freeze = DS_FREEZE_LEGACY;
    CHECK_EQ(ds_pmi_init(&pmi, &e.cpu, NULL, &pc), DS_ERR_PMI_FREEZE_MODE, "NetBurst: no legacy freeze");
    fake_skylake_pmu(&e.f);
    env_identify(&e, 1);
    /* failed LBR snapshot (no LBR MSRs in this fake): nothing taken, lbr_n 0 */
    struct ds_lbr_entry buf[32];
    const struct ds_lbr_model *lm = NULL;
    CHECK_EQ(ds_lbr_lookup(e.cpu.caps.display_family, e.cpu.caps.display_model, &lm), DS_OK, "lbr row");
    struct ds_pmi_config pl = { .freeze = DS_FREEZE_STREAMLINED,
                                .lbr = { .model = lm, .format = 5, .buf = buf, .cap = 32 } };
    CHECK_EQ(ds_pmi_init(&pmi, &e.cpu, NULL, &pl), DS_OK, "init with snapshot step");
    fake_set_msr(&e.f, DS_MSR_IA32_PERF_GLOBAL_STATUS, (1ull << 58) | 0x1);
    r.lbr_n = 77;
    CHECK_EQ(ds_pmi_handle(&pmi, &r), DS_ERR_MSR_FAULT, "snapshot read fault");
    CHECK(!r.lbr_taken, "not taken");
    CHECK_EQ(r.lbr_n, 0, "failed snapshot: lbr_n 0");
    /* PEBS drain with no sink: every record counted lost_rejected */
    CHECK_EQ(ds_area_setup(&e.ctx, &e.cpu, &e.cfg), DS_OK, "setup");
    struct ds_pmi_config pn = { .freeze = DS_FREEZE_STREAMLINED, .pebs_counters = 0x1 };
    CHECK_EQ(ds_pmi_init(&pmi, &e.cpu, &e.ctx, &pn), DS_OK, "init without sink");
    uint64_t base = (uint64_t)(uintptr_t)e.pebs;
    e.area.a64.pebs_index = base + 3 * 0xC8;
    fake_set_msr(&e.f, DS_MSR_IA32_PERF_GLOBAL_STATUS, (1ull << 62) | 0x1);
    CHECK_EQ(ds_pmi_handle(&pmi, &r), DS_OK, "handle without sink");
    CHECK(r.pebs_drained, "drained");
    CHECK_EQ(r.pebs.records, 0, "no record taken");
    CHECK_EQ(r.pebs.lost_rejected, 3, "3 records lost_rejected");
    /* ToPA ack bit 55 from CPUID.07H:EBX[25] only */
    static const struct { uint32_t ebx; uint64_t bit55; } l7[] = { { 1u << 24, 0 }, { 1u << 25, 1ull << 55 } };
    for (unsigned i = 0; i < 2; i++) {
        fake_skylake_pmu(&e.f);
        fake_set_cpuid(&e.f, 7, 0, 0, l7[i].ebx, 0, 0);
        env_identify(&e, 1);
        pc.freeze = DS_FREEZE_NONE;
        CHECK_EQ(ds_pmi_init(&pmi, &e.cpu, NULL, &pc), DS_OK, "init leaf 7 EBX %#x", l7[i].ebx);
        CHECK_EQ(ds_pmi_ack(&pmi, 1ull << 55, &un), DS_OK, "ack 55");
        CHECK_EQ(un, (1ull << 55) & ~l7[i].bit55, "EBX %#x: bit 55 unacked unless PT", l7[i].ebx);
    }
    /* v4, leaf 7 present, no GP counter: bit 0 (PMC0) not acked */
    fake_skylake_pmu(&e.f);
    e.f.leaves[2].r[0] = 0x07300004; /* leaf 0AH EAX: v4, 0 GP counters */
    fake_set_cpuid(&e.f, 7, 0, 0, 0, 0, 0);
    env_identify(&e, 1);
    CHECK_EQ(e.cpu.caps.gp_mask, 0, "no GP counter");
    CHECK_EQ(ds_pmi_init(&pmi, &e.cpu, NULL, &pc), DS_OK, "init v4 without GP");
    e.f.nlog = 0;
    CHECK_EQ(ds_pmi_ack(&pmi, 1, &un), DS_OK, "ack bit 0");
    CHECK_EQ(un, 1, "bit 0 unacked");
    CHECK_EQ(fake_writes_to(&e.f, DS_MSR_IA32_PERF_GLOBAL_OVF_CTRL, NULL), 0, "nothing written");
}

/*
 * mut3D: GLOBAL_CTRL without PERF_METRICS takes exactly the counter bits
 * (bit 0 refused on a v4 part without PMC0, SDM IA32_PERF_GLOBAL_CTRL:
 * one enable per existing counter); ds_pmi_read_status NULL out / pmi.
 * (pmi.c leaf7_ack_bits' max_leaf < 7 test is redundant: has_leaf_0a
 * needs CPUID.0:EAX >= 0AH, cpu.c identify_leaf0a; its mutants are
 * equivalent.)
 */
static void test_mut3d_pmi_gates(void)
{
    static struct env e;
    struct ds_pmi pmi;
    uint64_t v = 0;
    struct ds_pmi_config pc = { .freeze = DS_FREEZE_NONE };
    fake_skylake_pmu(&e.f);
    env_identify(&e, 1);
    CHECK_EQ(ds_pmi_init(&pmi, &e.cpu, NULL, &pc), DS_OK, "init");
    CHECK_EQ(ds_pmi_read_status(&pmi, NULL), DS_ERR_NULL, "read_status NULL out");
    CHECK_EQ(ds_pmi_read_status(NULL, &v), DS_ERR_NULL, "read_status NULL pmi");
    /* v4 without GP counters or PERF_METRICS: GLOBAL_CTRL bit 0 names nothing */
    fake_skylake_pmu(&e.f);
    e.f.leaves[2].r[0] = 0x07300004;
    env_identify(&e, 1);
    CHECK(!e.cpu.caps.perf_metrics && e.cpu.caps.gp_mask == 0, "no PERF_METRICS, no GP");
    pc.global_ctrl = 1;
    CHECK_EQ(ds_pmi_init(&pmi, &e.cpu, NULL, &pc), DS_ERR_PMI_CTRL_MASK, "GLOBAL_CTRL bit 0 refused");
    pc.global_ctrl = 1ull << 32;
    CHECK_EQ(ds_pmi_init(&pmi, &e.cpu, NULL, &pc), DS_OK, "fixed 0 taken");
}

/*
 * Perfmon v2 and v3 without GP counters (CPUID.0AH:EAX[15:8] = 0, as a
 * hypervisor may report): PMC0 does not exist, so GLOBAL_OVF_CTRL bit 0 is
 * reserved (SDM IA32_PERF_GLOBAL_OVF_CTRL: one clear bit per existing
 * counter) and is neither acked nor written; fixed counter 0 (bit 32) is.
 */
static void test_no_gp_ack_v2_v3(void)
{
    static struct env e;
    struct ds_pmi pmi;
    uint64_t un = 0;
    struct ds_pmi_config pc = { .freeze = DS_FREEZE_NONE };
    for (uint32_t v = 2; v <= 3; v++) {
        fake_skylake_pmu(&e.f);
        e.f.leaves[2].r[0] = 0x07300000 | v; /* leaf 0AH EAX: version v, 0 GP counters */
        env_identify(&e, 1);
        CHECK_EQ(e.cpu.caps.gp_mask, 0, "v%u: no GP counter", v);
        CHECK_EQ(ds_pmi_init(&pmi, &e.cpu, NULL, &pc), DS_OK, "v%u: init", v);
        CHECK_EQ(ds_pmi_ack(&pmi, 1 | (1ull << 32), &un), DS_OK, "v%u: ack bits 0 and 32", v);
        CHECK_EQ(un, 1, "v%u: bit 0 unacked", v);
    }
}

/*
 * mut4B: perfmon v6 whose counter bitmap lacks GP0. The CPUID words of the
 * Lunar Lake P-core (see test_v6_counter_bitmap) with CPUID.(23H,1):EAX =
 * 3FEH (GP1-9 only; SDM Vol. 3B "Performance Monitoring Version 6": bit n
 * of 23H.1 EAX set means GP counter n exists, Linux update_pmu_cap takes
 * cntr_mask64 from it, so a clear bit 0 is a hole, as a hypervisor that
 * keeps PMC0 for itself reports). GLOBAL_CTRL / GLOBAL_STATUS /
 * GLOBAL_STATUS_RESET bit 0 names no counter: not in the ack mask, not
 * acked (nothing written), not handed to the overflow hook, decoded as
 * unknown, refused in GLOBAL_CTRL; GP1 works. Leaf 7 is present with Intel
 * PT (EBX[25]) so the leaf-7 ack bits are computed: bit 55 acked, bit 0 not.
 */
static void test_v6_no_gp0(void)
{
    static struct env e;
    static struct ds_pmi pmi;
    struct ds_pmi_config cfg;
    struct ds_pmi_status st;
    struct ds_pmi_result r;
    struct hook_log h;
    uint64_t un = 0;
    memset(&e.f, 0, sizeof e.f);
    fake_set_cpuid(&e.f, 0, 0, 0x23, FAKE_INTEL_EBX, FAKE_INTEL_ECX, FAKE_INTEL_EDX);
    fake_set_cpuid(&e.f, 1, 0, 0x000B06D1, 0, (1u << 2) | (1u << 4) | (1u << 15), (1u << 5) | (1u << 9) | (1u << 21));
    fake_set_cpuid(&e.f, 7, 0, 0, 1u << 25, 0, 0);
    fake_set_cpuid(&e.f, 0xA, 0, 0x0D300806, 0x00000280, 0x00000007, 0x00008603);
    fake_set_cpuid(&e.f, 0x23, 0, 0x0000000B, 0x00000003, 0, 0);
    fake_set_cpuid(&e.f, 0x23, 1, 0x000003FE, 0x0000000F, 0, 0);
    fake_set_msr(&e.f, DS_MSR_IA32_MISC_ENABLE, 1u << 7);
    fake_set_msr(&e.f, DS_MSR_IA32_PERF_GLOBAL_CTRL, 0);
    fake_set_msr(&e.f, DS_MSR_IA32_PERF_GLOBAL_STATUS, 0);
    fake_set_msr(&e.f, DS_MSR_IA32_PERF_GLOBAL_OVF_CTRL, 0);
    env_identify(&e, 1);
    CHECK_EQ(e.cpu.caps.perfmon_version, 6, "v6");
    CHECK_EQ(e.cpu.caps.gp_mask, 0x3FE, "GP1-9 from 23H.1");
    uint64_t m = ds_pmi_ack_mask(&e.cpu.caps);
    CHECK_EQ(m & 0xFFFFFFFFull, 0x3FEull, "ack mask: GP1-9, no bit 0");
    memset(&cfg, 0, sizeof cfg);
    cfg.freeze = DS_FREEZE_NONE;
    cfg.global_ctrl = 1;
    CHECK_EQ(ds_pmi_init(&pmi, &e.cpu, NULL, &cfg), DS_ERR_PMI_CTRL_MASK, "GLOBAL_CTRL bit 0 refused");
    cfg.global_ctrl = 0;
    cfg.pebs_counters = 1;
    CHECK_EQ(ds_pmi_init(&pmi, &e.cpu, NULL, &cfg), DS_ERR_PMI_CTRL_MASK, "PEBS counter 0 refused");
    cfg.pebs_counters = 0;
    cfg.global_ctrl = 0x2;
    cfg.ovf_hook = hook;
    cfg.ovf_arg = &h;
    CHECK_EQ(ds_pmi_init(&pmi, &e.cpu, NULL, &cfg), DS_OK, "GP1 taken");
    e.f.nlog = 0;
    CHECK_EQ(ds_pmi_ack(&pmi, 1, &un), DS_OK, "ack bit 0");
    CHECK_EQ(un, 1, "bit 0 unacked");
    CHECK_EQ(fake_writes_to(&e.f, DS_MSR_IA32_PERF_GLOBAL_OVF_CTRL, NULL), 0, "nothing written for bit 0");
    uint64_t last = 0;
    CHECK_EQ(ds_pmi_ack(&pmi, 0x3 | (1ull << 55), &un), DS_OK, "ack bits 0, 1, 55");
    CHECK_EQ(un, 1, "only bit 0 unacked");
    CHECK_EQ(fake_writes_to(&e.f, DS_MSR_IA32_PERF_GLOBAL_OVF_CTRL, &last), 1, "one write");
    CHECK_EQ(last, 0x2 | (1ull << 55), "GP1 and ToPA acked, bit 0 not");
    memset(&h, 0, sizeof h);
    fake_set_msr(&e.f, DS_MSR_IA32_PERF_GLOBAL_STATUS, 0x3);
    memset(&r, 0, sizeof r);
    ds_pmi_handle(&pmi, &r);
    CHECK_EQ(h.calls, 1, "hook called once");
    CHECK_EQ(h.ovf, 0x2, "hook sees GP1 only");
    CHECK_EQ(ds_pmi_decode(0x3, &e.cpu.caps, &st), DS_OK, "decode");
    CHECK_EQ(st.gp_ovf, 0x2, "GP1 overflowed");
    CHECK_EQ(st.unknown, 1, "bit 0 unknown");
}

/*
 * mut4B: ds_pmi_init's context refusals (pmi.h: the CPU must be identified,
 * a context given must be set up), each on an otherwise valid call, with
 * the handle left as it was (nothing initialised). A CPU that was only
 * ds_cpu_init'ed has zeroed caps, on which every other check passes with
 * DS_FREEZE_NONE: only the identification check refuses it.
 */
static void test_init_not_identified_not_setup(void)
{
    static struct env e;
    static struct ds_cpu raw;
    static struct ds_ctx idle_ctx;
    struct ds_pmi pmi;
    struct ds_pmi_config pc = { .freeze = DS_FREEZE_NONE };
    fake_skylake_pmu(&e.f);
    memset(&raw, 0, sizeof raw);
    CHECK_EQ(ds_cpu_init(&raw, &fake_ops, &e.f), DS_OK, "cpu init");
    memset(&pmi, 0xA5, sizeof pmi);
    CHECK_EQ(ds_pmi_init(&pmi, &raw, NULL, &pc), DS_ERR_NOT_IDENTIFIED, "CPU not identified");
    CHECK_EQ(((unsigned char *)&pmi)[0], 0xA5, "handle untouched");
    env_identify(&e, 1);
    CHECK_EQ(ds_pmi_init(&pmi, &e.cpu, NULL, &pc), DS_OK, "identified: taken");
    memset(&idle_ctx, 0, sizeof idle_ctx);
    memset(&pmi, 0xA5, sizeof pmi);
    CHECK_EQ(ds_pmi_init(&pmi, &e.cpu, &idle_ctx, &pc), DS_ERR_NOT_SETUP, "context not set up");
    CHECK_EQ(((unsigned char *)&pmi)[0], 0xA5, "handle untouched");
    CHECK_EQ(ds_area_setup(&e.ctx, &e.cpu, &e.cfg), DS_OK, "setup");
    CHECK_EQ(ds_pmi_init(&pmi, &e.cpu, &e.ctx, &pc), DS_OK, "set-up context: taken");
}

/*
 * mut4B: a PMI with GLOBAL_STATUS 0 whose PEBS buffer is due by its index
 * (or a BTS buffer with its threshold interrupt armed) is serviced with
 * status 0: nothing overflowed, so the overflow hook is not called and no
 * counter is reported hooked, even for a non-PEBS counter that GLOBAL_CTRL
 * enables (pmi.h: the hook gets the overflowed non-PEBS counters; status
 * bit n = GP counter n, SDM IA32_PERF_GLOBAL_STATUS).
 */
static void test_idle_due_no_hook(void)
{
    static struct env e;
    struct ds_pmi pmi;
    struct ds_pmi_result r;
    struct hook_log h;
    int got = 0, gotb = 0;
    fake_skylake_pmu(&e.f);
    env_identify(&e, 1);
    CHECK_EQ(ds_area_setup(&e.ctx, &e.cpu, &e.cfg), DS_OK, "setup");
    CHECK_EQ(ds_area_install(&e.ctx), DS_OK, "install");
    struct ds_pmi_config pc = { .global_ctrl = 0x3, .pebs_counters = 0x2, .pebs_sink = take, .pebs_arg = &got,
                                .bts_sink = take_bts, .bts_arg = &gotb, .ovf_hook = hook, .ovf_arg = &h };
    CHECK_EQ(ds_pmi_init(&pmi, &e.cpu, &e.ctx, &pc), DS_OK, "init, GP0 plain, GP1 PEBS");
    fake_set_msr(&e.f, DS_MSR_IA32_PERF_GLOBAL_STATUS, 0);
    e.area.a64.pebs_index = e.area.a64.pebs_thresh;
    memset(&h, 0, sizeof h);
    CHECK_EQ(ds_pmi_handle(&pmi, &r), DS_OK, "idle PMI, PEBS due");
    CHECK(r.pebs_drained, "PEBS drained");
    CHECK_EQ(h.calls, 0, "PEBS due: no hook call");
    CHECK_EQ(r.hooked, 0, "PEBS due: nothing hooked");
    CHECK_EQ(r.status, 0, "status 0");
    /* BTS with its threshold interrupt armed and reached */
    CHECK_EQ(ds_bts_enable(&e.ctx, DS_BTS_INT), DS_OK, "BTS interrupt mode");
    e.area.a64.pebs_index = e.area.a64.pebs_base;
    e.area.a64.bts_index = e.area.a64.bts_thresh;
    memset(&h, 0, sizeof h);
    CHECK_EQ(ds_pmi_handle(&pmi, &r), DS_OK, "idle PMI, BTS due");
    CHECK(r.bts_drained, "BTS drained");
    CHECK_EQ(h.calls, 0, "BTS due: no hook call");
    CHECK_EQ(r.hooked, 0, "BTS due: nothing hooked");
    ds_bts_disable(&e.ctx);
}

/* mut4B: ds_pmi_init with a NULL handle, CPU or config is DS_ERR_NULL
 * (pmi.h; COMMON rules: every public function validates its pointers). */
static void test_init_null(void)
{
    static struct env e;
    struct ds_pmi pmi;
    struct ds_pmi_config pc = { .freeze = DS_FREEZE_NONE };
    fake_skylake_pmu(&e.f);
    env_identify(&e, 1);
    CHECK_EQ(ds_pmi_init(NULL, &e.cpu, NULL, &pc), DS_ERR_NULL, "NULL handle");
    CHECK_EQ(ds_pmi_init(&pmi, NULL, NULL, &pc), DS_ERR_NULL, "NULL CPU");
    CHECK_EQ(ds_pmi_init(&pmi, &e.cpu, NULL, NULL), DS_ERR_NULL, "NULL config");
    CHECK_EQ(ds_pmi_init(&pmi, &e.cpu, NULL, &pc), DS_OK, "all given");
}

/*
 * mut4B: with IA32_PERF_CAPABILITIES.PERF_METRICS (bit 15, SDM Vol. 4)
 * GLOBAL_CTRL takes bit 48 (EN_PERF_METRICS, SDM IA32_PERF_GLOBAL_CTRL),
 * not bit 49 (reserved); on the Ice Lake profile (v5, 8 GP, 4 fixed).
 * Without leaf 0AH (NetBurst) no GLOBAL_STATUS bit is a counter: decoding
 * bit 0 gives no GP overflow and reports it unknown.
 */
static void test_perf_metrics_ctrl_and_no_leaf_0a_decode(void)
{
    static struct env e;
    struct ds_pmi pmi;
    struct ds_pmi_status st;
    struct ds_pmi_config pc = { .freeze = DS_FREEZE_NONE };
    fake_icelake(&e.f);
    fake_set_msr(&e.f, DS_MSR_IA32_PERF_CAPABILITIES, 0x8000 | 0x4000 | 0x2000 | 0x400 | 0x80 | 0x3F);
    env_identify(&e, 1);
    CHECK(e.cpu.caps.perf_metrics, "PERF_METRICS reported");
    pc.global_ctrl = 1ull << 48;
    CHECK_EQ(ds_pmi_init(&pmi, &e.cpu, NULL, &pc), DS_OK, "GLOBAL_CTRL bit 48 with PERF_METRICS");
    pc.global_ctrl = 1ull << 49;
    CHECK_EQ(ds_pmi_init(&pmi, &e.cpu, NULL, &pc), DS_ERR_PMI_CTRL_MASK, "bit 49 reserved");
    pc.global_ctrl = (1ull << 48) | 0xFF | (0xFull << 32);
    CHECK_EQ(ds_pmi_init(&pmi, &e.cpu, NULL, &pc), DS_OK, "GP0-7, fixed 0-3, metrics");

    fake_netburst(&e.f);
    env_identify(&e, 0);
    CHECK(!e.cpu.caps.has_leaf_0a, "NetBurst: no leaf 0AH");
    CHECK_EQ(ds_pmi_decode(0x1 | (1ull << 32), &e.cpu.caps, &st), DS_OK, "decode");
    CHECK_EQ(st.gp_ovf, 0, "no GP counter bit");
    CHECK_EQ(st.fixed_ovf, 0, "no fixed counter bit");
    CHECK_EQ(st.unknown, 0x1 | (1ull << 32), "bits 0 and 32 unknown");
}

/* mut5B: a hook that reports nothing (pmi.h: "Set *out_handled to how many
 * overflows it serviced"; one that returns without writing it serviced
 * none) counts 0, and ds_pmi_handle clears every result field over a stale
 * struct (pmi.h: "ds_pmi_handle clears this on every NMI"): no LBR entries
 * without an LBR snapshot. */
static int silent_calls;
static int silent_hook(void *a, uint64_t ovf, bool no_global, uint32_t *handled)
{
    (void)a;
    (void)ovf;
    (void)no_global;
    (void)handled;
    silent_calls++;
    return DS_OK;
}

static void test_mut5b_poison_and_silent_hook(void)
{
    static struct env e;
    struct ds_pmi pmi;
    struct ds_pmi_result r;
    /* NetBurst: no global status, the hook is called on every PMI */
    fake_netburst(&e.f);
    env_identify(&e, 0);
    struct ds_pmi_config pc = { .ovf_hook = silent_hook };
    CHECK_EQ(ds_pmi_init(&pmi, &e.cpu, NULL, &pc), DS_OK, "init NetBurst, silent hook");
    memset(&r, 0xA5, sizeof r);
    silent_calls = 0;
    CHECK_EQ(ds_pmi_handle(&pmi, &r), DS_OK, "NetBurst PMI");
    CHECK_EQ(silent_calls, 1, "hook called");
    CHECK_EQ(r.hook_handled, 0, "hook serviced nothing: 0 handled");
    CHECK(!r.handled, "nothing ours: spurious");
    CHECK_EQ(r.lbr_n, 0, "no LBR snapshot: 0 entries over a stale result");
    CHECK(!r.lbr_taken && !r.lbr_frozen && !r.storm, "flags cleared");
    CHECK_EQ(r.status | r.acked | r.unacked | r.hooked, 0, "masks cleared");
    /* Skylake: GP0 overflow to a silent hook */
    fake_skylake_pmu(&e.f);
    env_identify(&e, 1);
    struct ds_pmi_config pg = { .global_ctrl = 0x1, .ovf_hook = silent_hook };
    CHECK_EQ(ds_pmi_init(&pmi, &e.cpu, NULL, &pg), DS_OK, "init Skylake, silent hook");
    fake_set_msr(&e.f, DS_MSR_IA32_PERF_GLOBAL_STATUS, 0x1);
    memset(&r, 0xA5, sizeof r);
    silent_calls = 0;
    CHECK_EQ(ds_pmi_handle(&pmi, &r), DS_OK, "GP0 PMI");
    CHECK_EQ(silent_calls, 1, "hook called");
    CHECK_EQ(r.hooked, 0x1, "GP0 passed to the hook");
    CHECK_EQ(r.hook_handled, 0, "hook serviced nothing: 0 handled");
    CHECK_EQ(r.lbr_n, 0, "no LBR snapshot: 0 entries");
    CHECK_EQ(r.acked, 0x1, "GP0 acknowledged");
}

/* mut5B: legacy freeze, the GLOBAL_CTRL restore write faults. pmi.h
 * ds_pmi_handle: "The first error wins": after a failed hook the result is
 * DS_ERR_PMI_HOOK, not the later restore fault; with a good hook the fault
 * is reported (DS_ERR_MSR_FAULT). */
static int failing_hook(void *a, uint64_t ovf, bool no_global, uint32_t *handled)
{
    (void)a;
    (void)ovf;
    (void)no_global;
    *handled = 0;
    return DS_ERR_NULL;
}

static void test_mut5b_legacy_restore_fault_first_error(void)
{
    static struct env e;
    struct ds_pmi pmi;
    struct ds_pmi_result r;
    struct hook_log h;
    fake_haswell(&e.f);
    env_identify(&e, 1);
    struct ds_pmi_config pc = { .freeze = DS_FREEZE_LEGACY, .global_ctrl = 0x3, .ovf_hook = failing_hook };
    CHECK_EQ(ds_pmi_init(&pmi, &e.cpu, NULL, &pc), DS_OK, "init legacy, failing hook");
    fake_set_msr(&e.f, DS_MSR_IA32_PERF_GLOBAL_STATUS, 0x1);
    e.f.fault_on_write = DS_MSR_IA32_PERF_GLOBAL_CTRL;
    CHECK_EQ(ds_pmi_handle(&pmi, &r), DS_ERR_PMI_HOOK, "hook error first, restore fault second: hook error wins");
    CHECK_EQ(r.acked, 0x1, "acknowledged despite the hook");
    struct ds_pmi_config pg = { .freeze = DS_FREEZE_LEGACY, .global_ctrl = 0x3, .ovf_hook = hook, .ovf_arg = &h };
    CHECK_EQ(ds_pmi_init(&pmi, &e.cpu, NULL, &pg), DS_OK, "init legacy, good hook");
    fake_set_msr(&e.f, DS_MSR_IA32_PERF_GLOBAL_STATUS, 0x1);
    memset(&h, 0, sizeof h);
    CHECK_EQ(ds_pmi_handle(&pmi, &r), DS_ERR_MSR_FAULT, "restore fault alone is reported");
    e.f.fault_on_write = 0;
    fake_set_msr(&e.f, DS_MSR_IA32_PERF_GLOBAL_STATUS, 0x1);
    CHECK_EQ(ds_pmi_handle(&pmi, &r), DS_OK, "no fault: OK");
    CHECK_EQ(fake_get_msr(&e.f, DS_MSR_IA32_PERF_GLOBAL_CTRL), 0x3, "enables restored");
}

/*
 * Issue 25 item 5: a BTS threshold PMI sets no GLOBAL_STATUS bit, yet the
 * legacy FREEZE_PERFMON_ON_PMI "clears each of the ENABLE field of
 * MSR_PERF_GLOBAL_CTRL" on a PMI request (SDM Vol. 3B IA32_DEBUGCTL bit 12);
 * Linux intel_pmu_handle_irq rewrites GLOBAL_CTRL on every exit
 * (__intel_pmu_enable_all). With BTS running with BTINT, a status-0 PMI
 * restores the enables (one WRMSR) whether or not the index reached the
 * threshold (a drain since the PMI may have reset it), only while the PMU
 * is enabled, only with legacy freeze, never without BTINT.
 */
static void test_lnx25_bts_legacy_unfreeze(void)
{
    static struct env e;
    struct ds_pmi pmi;
    struct ds_pmi_result r;
    uint64_t v = 0;
    int gotb = 0;
    fake_haswell(&e.f);
    env_identify(&e, 1);
    CHECK_EQ(ds_area_setup(&e.ctx, &e.cpu, &e.cfg), DS_OK, "setup");
    CHECK_EQ(ds_area_install(&e.ctx), DS_OK, "install");
    struct ds_pmi_config pc = { .freeze = DS_FREEZE_LEGACY, .global_ctrl = 0xF, .bts_sink = take_bts,
                                .bts_arg = &gotb };
    CHECK_EQ(ds_pmi_init(&pmi, &e.cpu, &e.ctx, &pc), DS_OK, "init legacy");
    CHECK_EQ(ds_pmi_pmu_enable(&pmi, true), DS_OK, "pmu on");
    CHECK_EQ(ds_bts_enable(&e.ctx, DS_BTS_INT), DS_OK, "BTS with BTINT");
    /* the BTS PMI: index at the threshold, counters frozen, status 0 */
    e.area.a64.bts_index = e.area.a64.bts_thresh;
    fake_set_msr(&e.f, DS_MSR_IA32_PERF_GLOBAL_CTRL, 0);
    fake_set_msr(&e.f, DS_MSR_IA32_PERF_GLOBAL_STATUS, 0);
    e.f.nlog = 0;
    CHECK_EQ(ds_pmi_handle(&pmi, &r), DS_OK, "BTS-only PMI");
    CHECK(r.bts_drained && r.handled, "BTS drained");
    CHECK_EQ(r.status, 0, "status 0");
    CHECK_EQ(fake_writes_to(&e.f, DS_MSR_IA32_PERF_GLOBAL_CTRL, &v), 1, "one GLOBAL_CTRL write");
    CHECK_EQ(fake_get_msr(&e.f, DS_MSR_IA32_PERF_GLOBAL_CTRL), 0xF, "legacy freeze on a BTS PMI: enables restored");
    CHECK_EQ(r.msr_writes, 1, "counted in msr_writes");
    /* index below the threshold (drained meanwhile): restored all the same */
    fake_set_msr(&e.f, DS_MSR_IA32_PERF_GLOBAL_CTRL, 0);
    e.f.nlog = 0;
    CHECK_EQ(ds_pmi_handle(&pmi, &r), DS_OK, "status 0, BTS below threshold");
    CHECK(!r.bts_drained, "nothing drained");
    CHECK_EQ(fake_get_msr(&e.f, DS_MSR_IA32_PERF_GLOBAL_CTRL), 0xF, "enables restored (cannot tell the PMI apart)");
    /* the PMU stopped by ds_pmi_pmu_enable(false): never restarted */
    CHECK_EQ(ds_pmi_pmu_enable(&pmi, false), DS_OK, "pmu off");
    e.area.a64.bts_index = e.area.a64.bts_thresh;
    e.f.nlog = 0;
    CHECK_EQ(ds_pmi_handle(&pmi, &r), DS_OK, "BTS PMI, PMU off");
    CHECK(r.bts_drained, "drained");
    CHECK_EQ(fake_writes_to(&e.f, DS_MSR_IA32_PERF_GLOBAL_CTRL, NULL), 0, "PMU off: no GLOBAL_CTRL write");
    CHECK_EQ(r.msr_writes, 0, "no write counted");
    CHECK_EQ(ds_pmi_pmu_enable(&pmi, true), DS_OK, "pmu on");
    /* BTS without BTINT (circular): no status-0 PMI of ours, no write */
    CHECK_EQ(ds_bts_disable(&e.ctx), DS_OK, "BTS off");
    CHECK_EQ(ds_bts_enable(&e.ctx, 0), DS_OK, "BTS circular");
    fake_set_msr(&e.f, DS_MSR_IA32_PERF_GLOBAL_CTRL, 0);
    e.f.nlog = 0;
    CHECK_EQ(ds_pmi_handle(&pmi, &r), DS_OK, "foreign NMI, circular BTS");
    CHECK_EQ(fake_writes_to(&e.f, DS_MSR_IA32_PERF_GLOBAL_CTRL, NULL), 0, "no BTINT: no GLOBAL_CTRL write");
    CHECK_EQ(ds_bts_disable(&e.ctx), DS_OK, "BTS off");
    /* freeze none: the CPU froze nothing, nothing to restore */
    struct ds_pmi_config pn = pc;
    pn.freeze = DS_FREEZE_NONE;
    CHECK_EQ(ds_pmi_init(&pmi, &e.cpu, &e.ctx, &pn), DS_OK, "init no freeze");
    CHECK_EQ(ds_pmi_pmu_enable(&pmi, true), DS_OK, "pmu on");
    CHECK_EQ(ds_bts_enable(&e.ctx, DS_BTS_INT), DS_OK, "BTS with BTINT");
    e.area.a64.bts_index = e.area.a64.bts_thresh;
    fake_set_msr(&e.f, DS_MSR_IA32_PERF_GLOBAL_CTRL, 0);
    e.f.nlog = 0;
    CHECK_EQ(ds_pmi_handle(&pmi, &r), DS_OK, "BTS PMI, no freeze");
    CHECK(r.bts_drained, "drained");
    CHECK_EQ(fake_writes_to(&e.f, DS_MSR_IA32_PERF_GLOBAL_CTRL, NULL), 0, "no freeze: no GLOBAL_CTRL write");
    /* the own-ISR building block: ds_pmi_ack(status 0) restores with BTINT
     * armed, not without */
    CHECK_EQ(ds_pmi_init(&pmi, &e.cpu, &e.ctx, &pc), DS_OK, "init legacy (ack)");
    CHECK_EQ(ds_pmi_pmu_enable(&pmi, true), DS_OK, "pmu on");
    fake_set_msr(&e.f, DS_MSR_IA32_PERF_GLOBAL_CTRL, 0);
    e.f.nlog = 0;
    CHECK_EQ(ds_pmi_ack(&pmi, 0, NULL), DS_OK, "ack status 0, BTINT armed");
    CHECK_EQ(fake_writes_to(&e.f, DS_MSR_IA32_PERF_GLOBAL_OVF_CTRL, NULL), 0, "nothing to acknowledge");
    CHECK_EQ(fake_get_msr(&e.f, DS_MSR_IA32_PERF_GLOBAL_CTRL), 0xF, "ack: enables restored");
    CHECK_EQ(ds_bts_disable(&e.ctx), DS_OK, "BTS off");
    fake_set_msr(&e.f, DS_MSR_IA32_PERF_GLOBAL_CTRL, 0);
    e.f.nlog = 0;
    CHECK_EQ(ds_pmi_ack(&pmi, 0, NULL), DS_OK, "ack status 0, BTS off");
    CHECK_EQ(fake_writes_to(&e.f, DS_MSR_IA32_PERF_GLOBAL_CTRL, NULL), 0, "ack, no BTINT: no GLOBAL_CTRL write");
    CHECK_EQ(ds_bts_enable(&e.ctx, DS_BTS_INT), DS_OK, "BTS with BTINT");
    /* the restore write faults: reported, after the drain */
    CHECK_EQ(ds_pmi_init(&pmi, &e.cpu, &e.ctx, &pc), DS_OK, "init legacy again");
    CHECK_EQ(ds_pmi_pmu_enable(&pmi, true), DS_OK, "pmu on");
    e.area.a64.bts_index = e.area.a64.bts_thresh;
    e.f.fault_on_write = DS_MSR_IA32_PERF_GLOBAL_CTRL;
    CHECK_EQ(ds_pmi_handle(&pmi, &r), DS_ERR_MSR_FAULT, "restore faults: DS_ERR_MSR_FAULT");
    CHECK(r.bts_drained, "drained before the fault");
    e.f.fault_on_write = 0;
    ds_bts_disable(&e.ctx);
}

/*
 * Issue 28 item 3: ds_pmi_handle no longer clears the whole result; each
 * path writes what pmi.h's struct ds_pmi_result says every call writes
 * (status, acked, unacked, hooked, pebs, lbr_err, hook_handled, msr_reads,
 * msr_writes, passes, the six flags), bts when bts_drained and lbr_n when
 * lbr_taken. Over a result poisoned with 0xA5 bytes, every such field
 * holds exactly the value this path gives it (counted here from the
 * scenario: MSR accesses, records written, the hook's answer), on each
 * path: foreign NMI, status read fault, PEBS drain, counter overflow
 * through the hook, a second pass, BTS with its threshold, NetBurst, a
 * failed LBR snapshot. A bool is checked as its byte (0 or 1), so a flag
 * left at 0xA5 fails.
 */
struct want_res {
    uint64_t status, acked, unacked, hooked, present, records;
    uint32_t hook_handled;
    int lbr_err;
    unsigned reads, writes, passes;
    unsigned char pebs_drained, bts_drained, lbr_taken, lbr_frozen, storm, handled;
};

static unsigned char byte_of(const bool *b)
{
    unsigned char v;
    memcpy(&v, b, 1);
    return v;
}

static void check_res(const struct ds_pmi_result *r, const struct want_res *w, const char *what)
{
    CHECK_EQ(r->status, w->status, "%s: status", what);
    CHECK_EQ(r->acked, w->acked, "%s: acked", what);
    CHECK_EQ(r->unacked, w->unacked, "%s: unacked", what);
    CHECK_EQ(r->hooked, w->hooked, "%s: hooked", what);
    CHECK_EQ(r->pebs.present, w->present, "%s: pebs.present", what);
    CHECK_EQ(r->pebs.records, w->records, "%s: pebs.records", what);
    CHECK_EQ(r->pebs.lost_beyond | r->pebs.lost_corrupt | r->pebs.lost_rejected | r->pebs.lost_race, 0,
             "%s: pebs losses 0", what);
    CHECK_EQ(r->pebs.anomalies, 0, "%s: pebs.anomalies 0", what);
    CHECK_EQ(r->hook_handled, w->hook_handled, "%s: hook_handled", what);
    CHECK_EQ(r->lbr_err, w->lbr_err, "%s: lbr_err", what);
    CHECK_EQ(r->msr_reads, w->reads, "%s: msr_reads", what);
    CHECK_EQ(r->msr_writes, w->writes, "%s: msr_writes", what);
    CHECK_EQ(r->passes, w->passes, "%s: passes", what);
    CHECK_EQ(byte_of(&r->pebs_drained), w->pebs_drained, "%s: pebs_drained", what);
    CHECK_EQ(byte_of(&r->bts_drained), w->bts_drained, "%s: bts_drained", what);
    CHECK_EQ(byte_of(&r->lbr_taken), w->lbr_taken, "%s: lbr_taken", what);
    CHECK_EQ(byte_of(&r->lbr_frozen), w->lbr_frozen, "%s: lbr_frozen", what);
    CHECK_EQ(byte_of(&r->storm), w->storm, "%s: storm", what);
    CHECK_EQ(byte_of(&r->handled), w->handled, "%s: handled", what);
}

static void test_result_written_per_path(void)
{
    static struct env e;
    struct ds_pmi pmi;
    struct ds_pmi_result r;
    struct hook_log h;
    int got = 0, gotb = 0;
    /* Skylake (v4), GP0 plain through the hook, GP1 PEBS, BTS sink */
    fake_skylake_pmu(&e.f);
    env_identify(&e, 1);
    CHECK_EQ(ds_area_setup(&e.ctx, &e.cpu, &e.cfg), DS_OK, "setup");
    CHECK_EQ(ds_area_install(&e.ctx), DS_OK, "install");
    struct ds_pmi_config pc = { .freeze = DS_FREEZE_STREAMLINED, .global_ctrl = 0x3, .pebs_counters = 0x2,
                                .pebs_sink = take, .pebs_arg = &got, .bts_sink = take_bts, .bts_arg = &gotb,
                                .ovf_hook = hook, .ovf_arg = &h };
    CHECK_EQ(ds_pmi_init(&pmi, &e.cpu, &e.ctx, &pc), DS_OK, "init");
    uint64_t base = e.area.a64.pebs_base;

    /* foreign NMI: status 0, nothing due */
    fake_set_msr(&e.f, DS_MSR_IA32_PERF_GLOBAL_STATUS, 0);
    memset(&r, 0xA5, sizeof r);
    CHECK_EQ(ds_pmi_handle(&pmi, &r), DS_OK, "foreign NMI");
    check_res(&r, &(struct want_res){ .reads = 1, .passes = 1 }, "foreign NMI");

    /* the status read faults */
    e.f.fault_on_read = DS_MSR_IA32_PERF_GLOBAL_STATUS;
    memset(&r, 0xA5, sizeof r);
    CHECK_EQ(ds_pmi_handle(&pmi, &r), DS_ERR_MSR_FAULT, "status read fault");
    check_res(&r, &(struct want_res){ .reads = 1, .passes = 1 }, "status read fault");
    e.f.fault_on_read = 0;

    /* PEBS: OvfBuf + CTR_Frz + GP1, 2 records */
    const uint64_t sp = (1ull << 62) | (1ull << 59) | 0x2;
    fake_set_msr(&e.f, DS_MSR_IA32_PERF_GLOBAL_STATUS, sp);
    e.area.a64.pebs_index = base + 2 * 0xC8;
    memset(&r, 0xA5, sizeof r);
    memset(&h, 0, sizeof h);
    got = 0;
    CHECK_EQ(ds_pmi_handle(&pmi, &r), DS_OK, "PEBS PMI");
    CHECK_EQ(got, 2, "2 records to the sink");
    check_res(&r, &(struct want_res){ .status = sp, .acked = sp, .present = 2, .records = 2, .reads = 2,
                                      .writes = 1, .passes = 1, .pebs_drained = 1, .handled = 1 }, "PEBS PMI");

    /* GP0 overflow to the hook (1 handled), a bit this CPU cannot ack (57) */
    const uint64_t so = 0x1 | (1ull << 57);
    fake_set_msr(&e.f, DS_MSR_IA32_PERF_GLOBAL_STATUS, so);
    memset(&r, 0xA5, sizeof r);
    memset(&h, 0, sizeof h);
    CHECK_EQ(ds_pmi_handle(&pmi, &r), DS_OK, "GP0 PMI");
    CHECK_EQ(h.calls, 1, "hook called once");
    check_res(&r, &(struct want_res){ .status = so, .acked = 0x1, .unacked = 1ull << 57, .hooked = 0x1,
                                      .hook_handled = 1, .reads = 2, .writes = 1, .passes = 1, .handled = 1 },
              "GP0 PMI");

    /* BTS with its threshold interrupt, reached; status 0: the status-0
     * pass drains it (bts defined: bts_drained) */
    CHECK_EQ(ds_bts_enable(&e.ctx, DS_BTS_INT), DS_OK, "BTS interrupt mode");
    fake_set_msr(&e.f, DS_MSR_IA32_PERF_GLOBAL_STATUS, 0);
    e.area.a64.pebs_index = base;
    e.area.a64.bts_index = e.area.a64.bts_base + 33 * 24; /* 33 branches, threshold 32 */
    memset(&r, 0xA5, sizeof r);
    gotb = 0;
    CHECK_EQ(ds_pmi_handle(&pmi, &r), DS_OK, "BTS PMI");
    CHECK_EQ(gotb, 33, "33 branches to the sink");
    check_res(&r, &(struct want_res){ .reads = 1, .passes = 1, .bts_drained = 1, .handled = 1 }, "BTS PMI");
    CHECK_EQ(r.bts.present, 33, "BTS PMI: bts.present");
    CHECK_EQ(r.bts.records, 33, "BTS PMI: bts.records");
    CHECK_EQ(r.bts.lost_beyond | r.bts.lost_corrupt | r.bts.lost_rejected | r.bts.lost_race, 0, "BTS PMI: no loss");
    CHECK_EQ(r.bts.anomalies, 0, "BTS PMI: no anomaly");
    ds_bts_disable(&e.ctx);

    /* LBR snapshot step that fails (no LBR MSRs in this fake): lbr_err,
     * LBR_Frz left set and not acked */
    static struct ds_lbr_entry lbuf[32];
    const struct ds_lbr_model *lm = NULL;
    CHECK_EQ(ds_lbr_lookup(e.cpu.caps.display_family, e.cpu.caps.display_model, &lm), DS_OK, "lbr row");
    struct ds_pmi_config pl = { .freeze = DS_FREEZE_STREAMLINED,
                                .lbr = { .model = lm, .format = 5, .buf = lbuf, .cap = 32 } };
    CHECK_EQ(ds_pmi_init(&pmi, &e.cpu, NULL, &pl), DS_OK, "init with snapshot step");
    const uint64_t frz = 1ull << 58, sl = frz | (1ull << 59) | 0x1;
    fake_set_msr(&e.f, DS_MSR_IA32_PERF_GLOBAL_STATUS, sl);
    memset(&r, 0xA5, sizeof r);
    CHECK_EQ(ds_pmi_handle(&pmi, &r), DS_ERR_MSR_FAULT, "LBR read fault");
    check_res(&r, &(struct want_res){ .status = sl, .acked = sl & ~frz, .lbr_err = DS_ERR_MSR_FAULT, .reads = 2,
                                      .writes = 1, .passes = 1, .lbr_frozen = 1, .handled = 1 }, "LBR read fault");

    /* the first error wins: the failed snapshot's, not the failing hook's
     * that comes after it (pmi.h ds_pmi_handle) */
    struct ds_pmi_config pf = pl;
    pf.global_ctrl = 0x1;
    pf.ovf_hook = failing_hook;
    CHECK_EQ(ds_pmi_init(&pmi, &e.cpu, NULL, &pf), DS_OK, "init with snapshot step and a failing hook");
    fake_set_msr(&e.f, DS_MSR_IA32_PERF_GLOBAL_STATUS, sl);
    memset(&r, 0xA5, sizeof r);
    CHECK_EQ(ds_pmi_handle(&pmi, &r), DS_ERR_MSR_FAULT, "LBR fault first, hook error second: LBR fault wins");
    CHECK_EQ(r.hooked, 0x1, "the hook was still called");

    /* a second pass: GP1 overflows again after GP0's ack (rf_write) */
    static struct env e2;
    memset(&h, 0, sizeof h);
    loop_env(&e2, DS_FREEZE_NONE, &pmi, &h);
    RF.bits = 0x2;
    RF.left = 1;
    fake_set_msr(&e2.f, DS_MSR_IA32_PERF_GLOBAL_STATUS, 0x1);
    memset(&r, 0xA5, sizeof r);
    CHECK_EQ(ds_pmi_handle(&pmi, &r), DS_OK, "two passes");
    check_res(&r, &(struct want_res){ .status = 0x3, .acked = 0x3, .hooked = 0x3, .hook_handled = 2, .reads = 3,
                                      .writes = 2, .passes = 2, .handled = 1 }, "two passes");
    RF.left = 0;

    /* NetBurst: memory and the hook, no MSR; PEBS and BTS both due */
    static struct env e3;
    fake_netburst(&e3.f);
    env_identify(&e3, 0);
    CHECK_EQ(ds_area_setup(&e3.ctx, &e3.cpu, &e3.cfg), DS_OK, "NetBurst setup");
    ds_area_install(&e3.ctx);
    CHECK_EQ(ds_bts_enable(&e3.ctx, DS_BTS_INT), DS_OK, "NetBurst BTS int");
    struct ds_pmi_config pn = { .pebs_sink = take, .pebs_arg = &got, .bts_sink = take_bts, .bts_arg = &gotb,
                                .ovf_hook = hook, .ovf_arg = &h };
    CHECK_EQ(ds_pmi_init(&pmi, &e3.cpu, &e3.ctx, &pn), DS_OK, "NetBurst init");
    e3.area.a32.pebs_index = e3.area.a32.pebs_base + 40; /* threshold 1 record */
    e3.area.a32.bts_index = e3.area.a32.bts_base + 12 * 40; /* past the 32-record threshold */
    memset(&r, 0xA5, sizeof r);
    memset(&h, 0, sizeof h);
    CHECK_EQ(ds_pmi_handle(&pmi, &r), DS_OK, "NetBurst PMI");
    CHECK_EQ(h.calls, 1, "NetBurst: hook called");
    check_res(&r, &(struct want_res){ .present = 1, .records = 1, .passes = 1, .pebs_drained = 1, .bts_drained = 1,
                                      .handled = 1 }, "NetBurst PMI");
    CHECK_EQ(r.bts.present, 40, "NetBurst: bts.present");
    CHECK_EQ(r.bts.records, 40, "NetBurst: bts.records");
    ds_bts_disable(&e3.ctx);
}
