/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Functional probe: working vs inert (TCG-style dropped writes) vs busy vs
 * fault vs not advertised; prior values restored; MSRs not established by
 * CPUID are never touched.
 */
#include "check.h"
#include "ds_env.h"
#include <ds/ds.h>

struct scratch {
    struct ds_probe_bts_scratch s;
    _Alignas(64) union ds_area area;
    _Alignas(64) unsigned char buf[24 * 16];
    int calls;
    bool act_like_hw;
};

/* Stands in for the CPU: with BTS on, a branch appends a record. */
static void exercise(void *arg)
{
    struct scratch *sc = arg;
    sc->calls++;
    if (!sc->act_like_hw)
        return;
    uint64_t idx = sc->area.a64.bts_index;
    unsigned char *p = sc->buf + (idx - (uint64_t)(uintptr_t)sc->buf);
    uint64_t from = 0x1234, to = 0x5678;
    memcpy(p, &from, 8);
    memcpy(p + 8, &to, 8);
    sc->area.a64.bts_index = idx + 24;
}

static void mk_scratch(struct scratch *sc, bool hw)
{
    memset(sc, 0, sizeof(*sc));
    sc->s.area = &sc->area;
    sc->s.buf = sc->buf;
    sc->s.buf_bytes = sizeof(sc->buf);
    sc->s.exercise = exercise;
    sc->s.arg = sc;
    sc->act_like_hw = hw;
}

static void test_working(void)
{
    static struct env e;
    static struct scratch sc;
    struct ds_probe_result r;
    char txt[512];
    fake_skylake_pmu(&e.f);
    fake_set_msr(&e.f, DS_MSR_IA32_DS_AREA, 0xABC000);
    fake_set_msr(&e.f, DS_MSR_IA32_PMC0, 0x77);
    fake_set_msr(&e.f, DS_MSR_IA32_DEBUGCTL, 0x1);
    env_identify(&e, 1);
    mk_scratch(&sc, true);
    CHECK_EQ(ds_probe(&e.cpu, &sc.s, &r), DS_OK, "probe");
    CHECK_EQ(r.ds_area.verdict, DS_PROBE_WORKING, "DS_AREA holds");
    CHECK_EQ(r.counter.verdict, DS_PROBE_WORKING, "PMC0 holds");
    CHECK_EQ(r.bts.verdict, DS_PROBE_WORKING, "BTS produced a record");
    CHECK(r.ds_area.restored && r.counter.restored && r.bts.restored, "restored");
    CHECK_EQ(fake_get_msr(&e.f, DS_MSR_IA32_DS_AREA), 0xABC000, "DS_AREA prior value back");
    CHECK_EQ(fake_get_msr(&e.f, DS_MSR_IA32_PMC0), 0x77, "PMC0 prior value back");
    CHECK_EQ(fake_get_msr(&e.f, DS_MSR_IA32_DEBUGCTL), 0x1, "DEBUGCTL prior value back");
    CHECK_EQ(fake_writes_to(&e.f, DS_MSR_IA32_A_PMC0, NULL), 1, "restore via full-width alias (FW_WRITE)");
    CHECK_EQ(sc.calls, 1, "exercise ran once");
    CHECK_EQ(ds_probe_format(&r, txt, sizeof(txt)), DS_OK, "format");
    CHECK(strstr(txt, "ds_area: working") != NULL, "text: %s", txt);
}

static void test_inert_tcg(void)
{
    static struct env e;
    static struct scratch sc;
    struct ds_probe_result r;
    char txt[512];
    fake_skylake_pmu(&e.f);
    /* TCG: PMU/DS MSRs read 0 and drop writes */
    fake_set_ro(&e.f, DS_MSR_IA32_DS_AREA);
    fake_set_ro(&e.f, DS_MSR_IA32_PMC0);
    fake_set_ro(&e.f, DS_MSR_IA32_A_PMC0);
    fake_set_ro(&e.f, DS_MSR_IA32_DEBUGCTL);
    env_identify(&e, 1);
    mk_scratch(&sc, false);
    CHECK_EQ(ds_probe(&e.cpu, &sc.s, &r), DS_OK, "probe");
    CHECK_EQ(r.ds_area.verdict, DS_PROBE_INERT, "DS_AREA inert");
    CHECK_EQ(r.ds_area.reason, DS_ERR_NOT_WORKING, "reason");
    CHECK_EQ(r.ds_area.read_back, 0, "read back 0");
    CHECK_EQ(r.counter.verdict, DS_PROBE_INERT, "counter inert");
    CHECK_EQ(r.bts.verdict, DS_PROBE_INERT, "BTS inert");
    CHECK_EQ(ds_probe_format(&r, txt, sizeof(txt)), DS_OK, "format");
    CHECK(strstr(txt, "bts: inert") != NULL, "text: %s", txt);
    CHECK_EQ(ds_probe(&e.cpu, NULL, &r), DS_OK, "no scratch");
    CHECK_EQ(r.bts.verdict, DS_PROBE_NOT_TESTED, "BTS not tested without scratch");
    CHECK_EQ(r.bts.reason, DS_ERR_NOT_GIVEN, "reason: the optional scratch not given");
    CHECK_EQ(ds_probe_format(&r, txt, sizeof(txt)), DS_OK, "format");
    CHECK(strstr(txt, "bts: not tested (bts_scratch not given: it is optional; pass one to run the BTS test)\n") !=
              NULL,
          "text (issue 29: what was not given, that it is optional): %s", txt);
    /* no PDCM: the MSR named once, the cause is the CPUID bit */
    e.f.leaves[1].r[2] &= ~(1u << 15);
    env_identify(&e, 1);
    CHECK_EQ(ds_probe(&e.cpu, NULL, &r), DS_OK, "probe without PDCM");
    CHECK_EQ(ds_probe_format(&r, txt, sizeof(txt)), DS_OK, "format");
    CHECK(strstr(txt, "perf_capabilities: not advertised (IA32_PERF_CAPABILITIES (0x345): not enumerated "
                      "(CPUID.01H:ECX.PDCM is 0))\n") != NULL,
          "text: %s", txt);
}

static void test_busy_fault_absent(void)
{
    static struct env e;
    struct ds_probe_result r;
    fake_skylake_pmu(&e.f);
    fake_set_msr(&e.f, DS_MSR_IA32_DEBUGCTL, (1u << 6) | (1u << 7));
    fake_set_msr(&e.f, DS_MSR_IA32_PERFEVTSEL0, 1u << 22);
    env_identify(&e, 1);
    CHECK_EQ(ds_probe(&e.cpu, NULL, &r), DS_OK, "probe");
    CHECK_EQ(r.ds_area.verdict, DS_PROBE_BUSY, "BTS active: busy");
    CHECK_EQ(r.counter.verdict, DS_PROBE_BUSY, "PMC0 enabled: busy");
    CHECK_EQ(r.bts.verdict, DS_PROBE_BUSY, "bts busy");
    CHECK_EQ(e.f.writes, 0, "nothing written when busy");

    fake_skylake_pmu(&e.f);
    fake_set_msr(&e.f, DS_MSR_IA32_PEBS_ENABLE, 1);
    env_identify(&e, 1);
    ds_probe(&e.cpu, NULL, &r);
    CHECK_EQ(r.ds_area.verdict, DS_PROBE_BUSY, "PEBS enabled: busy");

    fake_skylake_pmu(&e.f);
    e.f.fault_on_read = DS_MSR_IA32_DS_AREA;
    env_identify(&e, 1);
    ds_probe(&e.cpu, NULL, &r);
    CHECK_EQ(r.ds_area.verdict, DS_PROBE_FAULT, "fault");
    CHECK_EQ(r.ds_area.reason, DS_ERR_MSR_FAULT, "fault reason");

    /* DS not advertised: DS_AREA, DEBUGCTL, PEBS_ENABLE never touched */
    fake_skylake_pmu(&e.f);
    e.f.leaves[1].r[3] &= ~(1u << 21);
    env_identify(&e, 1);
    e.f.nlog = 0;
    unsigned r0 = e.f.reads;
    ds_probe(&e.cpu, NULL, &r);
    CHECK_EQ(r.ds_area.verdict, DS_PROBE_NOT_ADVERTISED, "no DS");
    CHECK_EQ(r.ds_area.reason, DS_ERR_NO_DS, "reason");
    CHECK_EQ(r.bts.verdict, DS_PROBE_NOT_ADVERTISED, "no BTS");
    CHECK_EQ(fake_writes_to(&e.f, DS_MSR_IA32_DS_AREA, NULL), 0, "DS_AREA not written");
    CHECK_EQ(r.counter.verdict, DS_PROBE_WORKING, "counter still probed (leaf 0AH)");
    CHECK_EQ(e.f.reads - r0, 4, "only EVTSEL0, PMC0 (x2: read back, verify) and the prior read");

    /* no leaf 0AH, not NetBurst: no counter touched */
    fake_skylake_pmu(&e.f);
    e.f.leaves[2].r[0] = 0;
    env_identify(&e, 1);
    ds_probe(&e.cpu, NULL, &r);
    CHECK_EQ(r.counter.verdict, DS_PROBE_NOT_ADVERTISED, "no perfmon");
    CHECK_EQ(fake_writes_to(&e.f, DS_MSR_IA32_PMC0, NULL), 0, "PMC0 untouched");

    /* AMD: nothing */
    memset(&e.f, 0, sizeof(e.f));
    fake_set_cpuid(&e.f, 0, 0, 0x10, 0x68747541, 0x444d4163, 0x69746e65);
    env_identify(&e, 1);
    CHECK_EQ(ds_probe(&e.cpu, NULL, &r), DS_OK, "amd probe");
    CHECK_EQ(r.ds_area.reason, DS_ERR_NOT_INTEL, "not intel");
    CHECK_EQ(e.f.reads + e.f.writes, 0, "no MSR access at all");

    struct ds_cpu raw;
    ds_cpu_init(&raw, &fake_ops, &e.f);
    CHECK_EQ(ds_probe(&raw, NULL, &r), DS_ERR_NOT_IDENTIFIED, "needs identify");
    CHECK_EQ(ds_probe(NULL, NULL, &r), DS_ERR_NULL, "null");
}

static void test_netburst_counter(void)
{
    static struct env e;
    struct ds_probe_result r;
    fake_netburst(&e.f);
    env_identify(&e, 0);
    CHECK_EQ(ds_probe(&e.cpu, NULL, &r), DS_OK, "probe");
    CHECK_EQ(r.counter.verdict, DS_PROBE_WORKING, "BPU_COUNTER0 holds");
    CHECK_EQ(fake_writes_to(&e.f, 0x300, NULL), 2, "pattern + restore on 0x300");
    CHECK_EQ(fake_writes_to(&e.f, DS_MSR_IA32_PMC0, NULL), 0, "no IA32_PMC0 on NetBurst");
    fake_set_msr(&e.f, 0x360, 1u << 12);
    ds_probe(&e.cpu, NULL, &r);
    CHECK_EQ(r.counter.verdict, DS_PROBE_BUSY, "CCCR enabled: busy");

    /* NetBurst perfmon is IA32_MISC_ENABLE[7]: when that MSR faulted, the counter
     * item says so (not "performance monitoring not available"), and the 0x300
     * counter is not touched (issue 10 items 15/16). */
    char txt[1024];
    fake_netburst(&e.f);
    e.f.fault_on_read = DS_MSR_IA32_MISC_ENABLE;
    env_identify(&e, 0);
    CHECK(e.cpu.identified && e.cpu.caps.misc_enable_err == DS_ERR_MSR_FAULT, "NetBurst MISC_ENABLE faulted");
    ds_probe(&e.cpu, NULL, &r);
    CHECK(r.counter.verdict == DS_PROBE_NOT_ADVERTISED && r.counter.reason == DS_ERR_MSR_FAULT &&
          r.counter.msr == DS_MSR_IA32_MISC_ENABLE, "counter: MISC_ENABLE faulted");
    CHECK_EQ(fake_writes_to(&e.f, 0x300, NULL), 0, "BPU_COUNTER0 untouched");
    ds_probe_format(&r, txt, sizeof(txt));
    CHECK(strstr(txt, "counter: not advertised (IA32_MISC_ENABLE (0x1A0): MSR access faulted (#GP))\n") != NULL,
          "text: %s", txt);
    /* read, bit 7 clear: that reason, naming the MSR */
    fake_netburst(&e.f);
    fake_set_msr(&e.f, DS_MSR_IA32_MISC_ENABLE, 0);
    env_identify(&e, 0);
    ds_probe(&e.cpu, NULL, &r);
    CHECK(r.counter.reason == DS_ERR_NO_PERFMON && r.counter.msr == DS_MSR_IA32_MISC_ENABLE, "bit 7 clear");
}

/*
 * Issue 10 item 16: every probe message states only what was read. A family-6
 * part before 06_0DH (Pentium M Banias 06_09H: CPUID DS set, no
 * IA32_MISC_ENABLE per SDM Vol. 4 / Linux) must not be told
 * "IA32_MISC_ENABLE.BTS_UNAVAILABLE is set". Before the fix the BTS reason
 * was DS_ERR_BTS_UNAVAILABLE whenever BTS was not advertised.
 */
static void test_messages_state_what_was_read(void)
{
    static struct env e;
    struct ds_probe_result r;
    char txt[1024];

    memset(&e.f, 0, sizeof(e.f));
    fake_set_cpuid(&e.f, 0, 0, 2, FAKE_INTEL_EBX, FAKE_INTEL_ECX, FAKE_INTEL_EDX);
    fake_set_cpuid(&e.f, 1, 0, 0x00000695, 0, 0, DS_CPUID1_EDX_MSR | DS_CPUID1_EDX_DS);
    fake_set_msr(&e.f, DS_MSR_IA32_DS_AREA, 0);
    env_identify(&e, 0);
    CHECK(!e.cpu.caps.has_misc_enable, "06_09H: MISC_ENABLE not read");
    CHECK_EQ(ds_probe(&e.cpu, NULL, &r), DS_OK, "probe");
    CHECK_EQ(r.bts.verdict, DS_PROBE_NOT_ADVERTISED, "BTS not advertised");
    CHECK_EQ(r.bts.reason, DS_ERR_NO_MSR, "reason: MISC_ENABLE not read, not BTS_UNAVAILABLE");
    CHECK_EQ(r.bts.msr, DS_MSR_IA32_MISC_ENABLE, "names IA32_MISC_ENABLE");
    CHECK_EQ(r.misc_enable.verdict, DS_PROBE_NOT_ADVERTISED, "misc_enable item: not read");
    CHECK_EQ(r.perf_caps.reason, DS_ERR_NO_PDCM, "perf_caps item: no PDCM");
    CHECK_EQ(ds_probe_format(&r, txt, sizeof(txt)), DS_OK, "format");
    CHECK(strstr(txt, "BTS_UNAVAILABLE") == NULL, "no claim about a bit never read: %s", txt);
    CHECK(strstr(txt, "bts: not advertised (IA32_MISC_ENABLE (0x1A0): MSR not known to exist on this CPU; not "
                      "accessed)\n") != NULL, "text: %s", txt);

    /* MISC_ENABLE read with BTS_UNAVAILABLE set: that reason, and only then. */
    fake_skylake_pmu(&e.f);
    fake_set_msr(&e.f, DS_MSR_IA32_MISC_ENABLE, DS_MISC_ENABLE_PERFMON_AVAIL | DS_MISC_ENABLE_BTS_UNAVAIL);
    env_identify(&e, 1);
    ds_probe(&e.cpu, NULL, &r);
    CHECK_EQ(r.bts.reason, DS_ERR_BTS_UNAVAILABLE, "bit read and set");
    ds_probe_format(&r, txt, sizeof(txt));
    CHECK(strstr(txt, "bts: not advertised (IA32_MISC_ENABLE (0x1A0): IA32_MISC_ENABLE.BTS_UNAVAILABLE is set)\n"),
          "text: %s", txt);
    CHECK(strstr(txt, "misc_enable: working (success)\n") != NULL,
          "misc_enable read: %s", txt);
}

/*
 * Issue 10 item 15: advertised capability MSR that #GPs. Identification
 * degrades it (cpu.h), the probe says which MSR faulted and still probes the
 * rest. Before the fix identification failed and the probe could not run.
 */
static void test_capability_msr_fault(void)
{
    static struct env e;
    struct ds_probe_result r;
    char txt[1024];

    fake_skylake_msr_gp(&e.f, DS_MSR_IA32_MISC_ENABLE);
    env_identify(&e, 1);
    CHECK(e.cpu.identified, "identified despite the #GP");
    CHECK_EQ(ds_probe(&e.cpu, NULL, &r), DS_OK, "probe runs");
    CHECK_EQ(r.misc_enable.verdict, DS_PROBE_FAULT, "misc_enable: fault");
    CHECK_EQ(r.misc_enable.msr, DS_MSR_IA32_MISC_ENABLE, "which MSR");
    CHECK_EQ(r.perf_caps.verdict, DS_PROBE_WORKING, "perf caps read");
    CHECK_EQ(r.bts.reason, DS_ERR_MSR_FAULT, "BTS not advertised because MISC_ENABLE faulted");
    CHECK_EQ(r.bts.msr, DS_MSR_IA32_MISC_ENABLE, "names it");
    CHECK_EQ(r.ds_area.verdict, DS_PROBE_WORKING, "DS_AREA still probed");
    CHECK_EQ(r.counter.verdict, DS_PROBE_WORKING, "counter still probed");
    CHECK_EQ(ds_probe_format(&r, txt, sizeof(txt)), DS_OK, "format");
    CHECK(strstr(txt, "misc_enable: fault (IA32_MISC_ENABLE (0x1A0): MSR access faulted (#GP))\n") != NULL,
          "text: %s", txt);
    CHECK(strstr(txt, "bts: not advertised (IA32_MISC_ENABLE (0x1A0): MSR access faulted (#GP))\n") != NULL,
          "text: %s", txt);

    fake_skylake_msr_gp(&e.f, DS_MSR_IA32_PERF_CAPABILITIES);
    env_identify(&e, 1);
    CHECK_EQ(ds_probe(&e.cpu, NULL, &r), DS_OK, "probe runs");
    CHECK_EQ(r.perf_caps.verdict, DS_PROBE_FAULT, "perf caps: fault");
    CHECK_EQ(r.misc_enable.verdict, DS_PROBE_WORKING, "misc_enable read");
    CHECK_EQ(ds_probe_format(&r, txt, sizeof(txt)), DS_OK, "format");
    CHECK(strstr(txt, "perf_capabilities: fault (IA32_PERF_CAPABILITIES (0x345): MSR access faulted (#GP))\n"),
          "text: %s", txt);
    /* the probe itself did not read the capability MSRs again */
    e.f.faults = 0;
    ds_probe(&e.cpu, NULL, &r);
    CHECK_EQ(e.f.faults, 0, "probe does not re-read a faulting capability MSR");

    /* a fault inside the probe names its MSR too */
    fake_skylake_pmu(&e.f);
    e.f.fault_on_read = DS_MSR_IA32_DEBUGCTL;
    env_identify(&e, 1);
    ds_probe(&e.cpu, NULL, &r);
    CHECK(r.ds_area.verdict == DS_PROBE_FAULT && r.ds_area.msr == DS_MSR_IA32_DEBUGCTL, "DEBUGCTL fault named");
    ds_probe_format(&r, txt, sizeof(txt));
    CHECK(strstr(txt, "ds_area: fault (IA32_DEBUGCTL (0x1D9): MSR access faulted (#GP))\n") != NULL, "text: %s", txt);
}

/*
 * Issue 10 test strength: an MSR that ignores writes but already holds the
 * very value the probe would write is still inert. The probe must write a
 * value different from the prior one, else it cannot tell "held" from
 * "dropped" (what TCG does). The pattern is learned from a first probe on a
 * writable MSR; the second probe sees it as the prior value of a read-only
 * MSR. Also the documented pattern ranges: the counter pattern fits 31 bits
 * (probe.h), the DS_AREA one is canonical and below 4 GiB (the 32-bit layout).
 */
static void test_pattern_equal_to_prior(void)
{
    static struct env e;
    struct ds_probe_result r;
    fake_skylake_pmu(&e.f);
    env_identify(&e, 1);
    CHECK_EQ(ds_probe(&e.cpu, NULL, &r), DS_OK, "probe");
    CHECK_EQ(r.ds_area.verdict, DS_PROBE_WORKING, "DS_AREA holds");
    CHECK_EQ(r.counter.verdict, DS_PROBE_WORKING, "PMC0 holds");
    uint64_t area_pat = r.ds_area.wrote, ctr_pat = r.counter.wrote;
    CHECK(area_pat != 0 && area_pat < (1ull << 32), "DS_AREA pattern %#llx below 4 GiB", (unsigned long long)area_pat);
    CHECK(ctr_pat != 0 && ctr_pat < (1ull << 31), "counter pattern %#llx fits 31 bits", (unsigned long long)ctr_pat);
    fake_skylake_pmu(&e.f);
    fake_set_msr(&e.f, DS_MSR_IA32_DS_AREA, area_pat);
    fake_set_msr(&e.f, DS_MSR_IA32_PMC0, ctr_pat);
    fake_set_ro(&e.f, DS_MSR_IA32_DS_AREA);
    fake_set_ro(&e.f, DS_MSR_IA32_PMC0);
    fake_set_ro(&e.f, DS_MSR_IA32_A_PMC0);
    env_identify(&e, 1);
    CHECK_EQ(ds_probe(&e.cpu, NULL, &r), DS_OK, "probe over read-only MSRs holding the patterns");
    CHECK(r.ds_area.wrote != area_pat, "DS_AREA: another value written (%#llx)", (unsigned long long)r.ds_area.wrote);
    CHECK_EQ(r.ds_area.verdict, DS_PROBE_INERT, "DS_AREA holding the pattern but ignoring writes: inert");
    CHECK(r.ds_area.wrote != 0 && r.ds_area.wrote < (1ull << 32), "second DS_AREA pattern below 4 GiB");
    CHECK(r.counter.wrote != ctr_pat, "PMC0: another value written (%#llx)", (unsigned long long)r.counter.wrote);
    CHECK_EQ(r.counter.verdict, DS_PROBE_INERT, "PMC0 holding the pattern but ignoring writes: inert");
    CHECK(r.counter.wrote != 0 && r.counter.wrote < (1ull << 31), "second counter pattern fits 31 bits");
    CHECK(r.ds_area.restored && r.counter.restored, "prior values still there");
}

/* A CPU whose IA32_DS_AREA reads back with bit 0 set: the write did not hold as written. */
static int read_area_bit0(void *ctx, uint32_t msr, uint64_t *out)
{
    int r = fake_read(ctx, msr, out);
    if (r == DS_OK && msr == DS_MSR_IA32_DS_AREA)
        *out |= 1;
    return r;
}

/*
 * Issue 10 test strength: IA32_DS_AREA is compared in all 64 bits (it is a
 * linear address, no bit is reserved or ignored): a read-back that differs
 * from the written pattern in bit 0 alone is not "working".
 */
static void test_area_readback_all_bits(void)
{
    static struct fake_cpu f;
    static const struct ds_msr_ops ops = { read_area_bit0, fake_write, fake_cpuid };
    struct ds_cpu cpu;
    struct ds_probe_result r;
    fake_skylake_pmu(&f);
    CHECK_EQ(ds_cpu_init(&cpu, &ops, &f), DS_OK, "init");
    CHECK_EQ(ds_cpu_identify(&cpu), DS_OK, "identify");
    CHECK_EQ(ds_probe(&cpu, NULL, &r), DS_OK, "probe");
    CHECK_EQ(r.ds_area.read_back, r.ds_area.wrote | 1, "read back = pattern | 1");
    CHECK_EQ(r.ds_area.verdict, DS_PROBE_INERT, "bit 0 differs: not working");
    CHECK_EQ(r.counter.verdict, DS_PROBE_WORKING, "the counter is unaffected");
}

/* IA32_PEBS_ENABLE is established by IA32_MISC_ENABLE[12] = 0 (PEBS
 * available, SDM Vol. 4 MISC_ENABLE): with bit 12 set the probe's busy
 * check must not read it, so a PEBS_ENABLE that would #GP changes nothing:
 * DS_AREA still probes as working (BTS advertised), no fault reported. */
static void test_pebs_enable_not_read_unadvertised(void)
{
    static struct env e;
    struct ds_probe_result r;
    fake_skylake_pmu(&e.f);
    fake_set_msr(&e.f, DS_MSR_IA32_MISC_ENABLE, (1u << 7) | (1u << 12));
    e.f.fault_on_read = DS_MSR_IA32_PEBS_ENABLE;
    env_identify(&e, 1);
    CHECK(!e.cpu.caps.pebs_advertised && e.cpu.caps.bts_advertised, "PEBS unavailable, BTS available");
    CHECK_EQ(ds_probe(&e.cpu, NULL, &r), DS_OK, "probe");
    CHECK_EQ(r.ds_area.verdict, DS_PROBE_WORKING, "DS_AREA working, PEBS_ENABLE not read");
    CHECK(r.ds_area.reason != DS_ERR_MSR_FAULT, "no fault reported");
}

static void test_counter_width_mask(void);
static void test_counter_count_boundary(void);
static void test_nb_counter_width(void);
static void test_area_pattern_page_aligned(void);
static void test_bts_scratch_8_records(void);
static void test_bts_restore_not_confirmed(void);
static void test_bts_exercise_and_netburst(void);
static void test_counter_w64_low_bits(void);

int main(void)
{
    test_messages_state_what_was_read();
    test_capability_msr_fault();
    test_working();
    test_inert_tcg();
    test_busy_fault_absent();
    test_netburst_counter();
    test_pattern_equal_to_prior();
    test_area_readback_all_bits();
    test_pebs_enable_not_read_unadvertised();
    test_counter_width_mask();
    test_counter_count_boundary();
    test_nb_counter_width();
    test_area_pattern_page_aligned();
    test_bts_scratch_8_records();
    test_bts_restore_not_confirmed();
    test_bts_exercise_and_netburst();
    test_counter_w64_low_bits();
    return check_summary();
}

/* Set CPUID.0AH:EAX of a fake profile (version, GP count, GP width). */
static void set_leaf_0a_eax(struct fake_cpu *f, uint32_t eax)
{
    for (int i = 0; i < f->nleaves; i++)
        if (f->leaves[i].leaf == 0xA)
            f->leaves[i].r[0] = eax;
}

/* A counter MSR whose reads come back with @rb_or ORed and @rb_xor XORed in. */
static uint32_t rb_msr;
static uint64_t rb_or, rb_xor;
static int read_counter_bits(void *ctx, uint32_t msr, uint64_t *out)
{
    int r = fake_read(ctx, msr, out);
    if (r == DS_OK && msr == rb_msr)
        *out = (*out | rb_or) ^ rb_xor;
    return r;
}

static enum ds_probe_verdict probe_counter_with(struct fake_cpu *f, int nb, uint32_t eax0a, uint64_t or_bits,
                                                uint64_t xor_bits)
{
    static const struct ds_msr_ops ops = { read_counter_bits, fake_write, fake_cpuid };
    struct ds_cpu cpu;
    struct ds_probe_result r;
    if (nb) {
        fake_netburst(f);
        rb_msr = 0x300; /* MSR_BPU_COUNTER0 */
    } else {
        fake_skylake_pmu(f);
        set_leaf_0a_eax(f, eax0a);
        rb_msr = DS_MSR_IA32_PMC0;
    }
    rb_or = or_bits;
    rb_xor = xor_bits;
    ds_cpu_init(&cpu, &ops, f);
    if (nb)
        ds_cpu_set_ia32e(&cpu, false);
    CHECK_EQ(ds_cpu_identify(&cpu), DS_OK, "identify");
    CHECK_EQ(ds_probe(&cpu, NULL, &r), DS_OK, "probe");
    rb_msr = 0;
    return r.counter.verdict;
}

/*
 * Issue 10 test strength (exact boundaries): the counter's hold test
 * compares the counter's own bits, CPUID.0AH:EAX[23:16] of them (SDM Vol.
 * 3B "Architectural Performance Monitoring Version 1": the bit width of
 * the GP counters). A read-back that differs only above the width still
 * held; one that differs in the top bit inside the width did not. Widths
 * 48 (Skylake), 63 and 64 (the whole register, where 1 << width would be
 * undefined).
 */
static void test_counter_width_mask(void)
{
    static struct fake_cpu f;
    /* version 4, 4 GP counters, width w: EAX = w << 16 | 4 << 8 | 4 */
    CHECK_EQ(probe_counter_with(&f, 0, 0x07300404, 0, 0), DS_PROBE_WORKING, "w48: plain");
    CHECK_EQ(probe_counter_with(&f, 0, 0x07300404, 1ull << 48, 0), DS_PROBE_WORKING, "w48: bit 48 is not the counter's");
    CHECK_EQ(probe_counter_with(&f, 0, 0x07300404, 1ull << 63, 0), DS_PROBE_WORKING, "w48: bit 63 is not the counter's");
    CHECK_EQ(probe_counter_with(&f, 0, 0x07300404, 0, 1ull << 47), DS_PROBE_INERT, "w48: bit 47 differs");
    CHECK_EQ(probe_counter_with(&f, 0, 0x073F0404, 1ull << 63, 0), DS_PROBE_WORKING, "w63: bit 63 is not the counter's");
    CHECK_EQ(probe_counter_with(&f, 0, 0x073F0404, 0, 1ull << 62), DS_PROBE_INERT, "w63: bit 62 differs");
    CHECK_EQ(probe_counter_with(&f, 0, 0x07400404, 0, 0), DS_PROBE_WORKING, "w64: plain");
    CHECK_EQ(probe_counter_with(&f, 0, 0x07400404, 0, 1ull << 63), DS_PROBE_INERT, "w64: bit 63 differs");
}

/* GP counter count at its boundary: one counter (CPUID.0AH:EAX[15:8] = 1)
 * is enough to probe PMC0; none is "no performance monitoring". */
static void test_counter_count_boundary(void)
{
    static struct fake_cpu f;
    CHECK_EQ(probe_counter_with(&f, 0, 0x07300104, 0, 0), DS_PROBE_WORKING, "1 GP counter: PMC0 probed");
    CHECK_EQ(probe_counter_with(&f, 0, 0x07300004, 0, 0), DS_PROBE_NOT_ADVERTISED, "0 GP counters: not advertised");
    CHECK_EQ(fake_writes_to(&f, DS_MSR_IA32_PMC0, NULL) + fake_writes_to(&f, DS_MSR_IA32_A_PMC0, NULL), 0,
             "0 GP counters: PMC0 untouched");
    CHECK_EQ(probe_counter_with(&f, 0, 0x07000404, 0, 0), DS_PROBE_NOT_ADVERTISED, "width 0: not advertised");
}

/* NetBurst counters are 40 bits (SDM Vol. 3B "Performance Counters" of
 * NetBurst: 40-bit counters; netburst.md): bit 40 is not the counter's,
 * bit 39 is. */
static void test_nb_counter_width(void)
{
    static struct fake_cpu f;
    CHECK_EQ(probe_counter_with(&f, 1, 0, 0, 0), DS_PROBE_WORKING, "NetBurst: plain");
    CHECK_EQ(probe_counter_with(&f, 1, 0, 1ull << 40, 0), DS_PROBE_WORKING, "NetBurst: bit 40 is not the counter's");
    CHECK_EQ(probe_counter_with(&f, 1, 0, 0, 1ull << 39), DS_PROBE_INERT, "NetBurst: bit 39 differs");
}

/* The DS_AREA test value is page aligned (probe.c pattern contract: page
 * aligned, canonical, below 4 GiB), also the changed value written when the
 * MSR already held the first one. */
static void test_area_pattern_page_aligned(void)
{
    static struct env e;
    struct ds_probe_result r;
    fake_skylake_pmu(&e.f);
    env_identify(&e, 1);
    CHECK_EQ(ds_probe(&e.cpu, NULL, &r), DS_OK, "probe");
    uint64_t pat = r.ds_area.wrote;
    CHECK(pat && (pat & 0xFFF) == 0 && pat < (1ull << 32), "first pattern %#llx", (unsigned long long)pat);
    fake_skylake_pmu(&e.f);
    fake_set_msr(&e.f, DS_MSR_IA32_DS_AREA, pat);
    env_identify(&e, 1);
    CHECK_EQ(ds_probe(&e.cpu, NULL, &r), DS_OK, "probe");
    CHECK_EQ(r.ds_area.verdict, DS_PROBE_WORKING, "working");
    CHECK(r.ds_area.wrote != pat && (r.ds_area.wrote & 0xFFF) == 0 && r.ds_area.wrote < (1ull << 32),
          "second pattern %#llx", (unsigned long long)r.ds_area.wrote);
    CHECK_EQ(fake_get_msr(&e.f, DS_MSR_IA32_DS_AREA), pat, "prior value back");
}

/*
 * mut4B: the BTS probe needs room for 8 records of the layout (probe.h
 * scratch contract; 24 bytes each in the 64-bit layout, SDM "BTS Record
 * Format"): exactly 8 * 24 bytes is tested and works, 7 * 24 bytes (7
 * records) is NOT_TESTED with DS_ERR_BUF_SMALL and writes no MSR for BTS
 * (IA32_DS_AREA and DEBUGCTL untouched by the BTS item).
 */
static void test_bts_scratch_8_records(void)
{
    static struct env e;
    static struct scratch sc;
    struct ds_probe_result r;
    fake_skylake_pmu(&e.f);
    env_identify(&e, 1);
    mk_scratch(&sc, true);
    sc.s.buf_bytes = 8 * 24;
    CHECK_EQ(ds_probe(&e.cpu, &sc.s, &r), DS_OK, "probe, 8 records");
    CHECK_EQ(r.bts.verdict, DS_PROBE_WORKING, "8 records: tested, working");
    CHECK_EQ(sc.calls, 1, "exercised");
    mk_scratch(&sc, true);
    sc.s.buf_bytes = 7 * 24;
    e.f.nlog = 0;
    CHECK_EQ(ds_probe(&e.cpu, &sc.s, &r), DS_OK, "probe, 7 records");
    CHECK_EQ(r.bts.verdict, DS_PROBE_NOT_TESTED, "7 records: not tested");
    CHECK_EQ(r.bts.reason, DS_ERR_BUF_SMALL, "7 records: buffer too small");
    CHECK(r.bts.restored, "nothing to restore");
    CHECK_EQ(sc.calls, 0, "not exercised");
    CHECK_EQ(fake_writes_to(&e.f, DS_MSR_IA32_DEBUGCTL, NULL), 0, "DEBUGCTL not written");
    /* the DS_AREA item's hold test writes DS_AREA twice (pattern, prior) */
    CHECK_EQ(fake_writes_to(&e.f, DS_MSR_IA32_DS_AREA, NULL), 2, "DS_AREA: the area item's two writes only");
}

/* A backend whose DEBUGCTL drops bit 1 (BTF) on every write, and whose
 * second IA32_DS_AREA write (the probe's uninstall) stores the value but
 * reports a fault: ways the probe's restore can fail to be confirmed. */
static struct { bool drop_btf; int area_fault_at; int area_writes; } RB;
static int rb_write(void *ctx, uint32_t msr, uint64_t val)
{
    if (msr == DS_MSR_IA32_DEBUGCTL && RB.drop_btf)
        val &= ~2ull;
    int e = fake_write(ctx, msr, val);
    if (msr == DS_MSR_IA32_DS_AREA && ++RB.area_writes == RB.area_fault_at)
        return DS_ERR_MSR_FAULT;
    return e;
}
static const struct ds_msr_ops rb_ops = { fake_read, rb_write, fake_cpuid };

/*
 * mut4B: bts.restored (probe.h: the prior values are back and read back
 * equal) is false when DEBUGCTL reads back different from its prior value
 * after the restore write, and when uninstalling the probe's DS area
 * reports a fault even though the register then reads back the old value.
 */
static void test_bts_restore_not_confirmed(void)
{
    static struct env e;
    static struct scratch sc;
    struct ds_probe_result r;
    for (int k = 0; k < 3; k++) {
        fake_skylake_pmu(&e.f);
        fake_set_msr(&e.f, DS_MSR_IA32_DS_AREA, 0xABC000);
        fake_set_msr(&e.f, DS_MSR_IA32_DEBUGCTL, k == 1 ? 0x2 : 0);
        env_identify(&e, 1);
        ds_cpu_init(&e.cpu, &rb_ops, &e.f);
        ds_cpu_set_ia32e(&e.cpu, true);
        CHECK_EQ(ds_cpu_identify(&e.cpu), DS_OK, "identify");
        memset(&RB, 0, sizeof RB);
        RB.drop_btf = k == 1;
        /* DS_AREA writes: area item pattern, prior; BTS install, uninstall */
        RB.area_fault_at = k == 2 ? 4 : 0;
        mk_scratch(&sc, true);
        CHECK_EQ(ds_probe(&e.cpu, &sc.s, &r), DS_OK, "probe %d", k);
        CHECK_EQ(r.bts.verdict, DS_PROBE_WORKING, "case %d: BTS worked", k);
        CHECK_EQ(RB.area_writes, 4, "case %d: 4 DS_AREA writes", k);
        CHECK_EQ(fake_get_msr(&e.f, DS_MSR_IA32_DS_AREA), 0xABC000, "case %d: DS_AREA holds the prior value", k);
        if (k == 0)
            CHECK(r.bts.restored, "clean restore confirmed");
        else
            CHECK(!r.bts.restored, "case %d: restore not confirmed", k);
    }
}

/*
 * mut4B: the BTS item's details (probe.h): `wrote` is the DEBUGCTL bits BTS
 * was enabled with, TR|BTS (bits 6 and 7, reference msr.md), no BTINT; the
 * exercise callback runs only when BTS was enabled (not after a DEBUGCTL
 * write fault) and may be NULL (then nothing ran: inert). On NetBurst the
 * BTS item is tested too (MSR_DEBUGCTLA, 32-bit layout, linear addresses
 * below 4 GiB), and IA32_PEBS_ENABLE with a NetBurst enable bit (24-26,
 * netburst.md) makes the DS area busy, with 0 it does not.
 */
static void test_bts_exercise_and_netburst(void)
{
    static struct env e;
    static struct scratch sc;
    struct ds_probe_result r;
    fake_skylake_pmu(&e.f);
    env_identify(&e, 1);
    mk_scratch(&sc, true);
    CHECK_EQ(ds_probe(&e.cpu, &sc.s, &r), DS_OK, "probe");
    CHECK_EQ(r.bts.wrote, (1u << 6) | (1u << 7), "wrote TR|BTS");
    mk_scratch(&sc, true);
    sc.s.exercise = NULL;
    CHECK_EQ(ds_probe(&e.cpu, &sc.s, &r), DS_OK, "probe without exercise");
    CHECK_EQ(r.bts.verdict, DS_PROBE_INERT, "nothing ran: inert");
    mk_scratch(&sc, true);
    e.f.fault_on_write = DS_MSR_IA32_DEBUGCTL;
    CHECK_EQ(ds_probe(&e.cpu, &sc.s, &r), DS_OK, "probe, DEBUGCTL write faults");
    e.f.fault_on_write = 0;
    CHECK_EQ(r.bts.verdict, DS_PROBE_FAULT, "BTS enable faulted");
    CHECK_EQ(sc.calls, 0, "not exercised after a failed enable");

    fake_netburst(&e.f);
    env_identify(&e, 0);
    mk_scratch(&sc, false);
    sc.s.area_linear = 0x10000;
    sc.s.buf_linear = 0x20000;
    sc.s.buf_bytes = 16 * 12;
    CHECK_EQ(ds_probe(&e.cpu, &sc.s, &r), DS_OK, "NetBurst probe");
    CHECK_EQ(r.ds_area.verdict, DS_PROBE_WORKING, "NetBurst DS_AREA");
    CHECK_EQ(r.bts.verdict, DS_PROBE_INERT, "NetBurst BTS tested (nothing appended: inert)");
    CHECK_EQ(sc.calls, 1, "exercised");
    CHECK_EQ(r.bts.wrote, (1u << 2) | (1u << 3), "MSR_DEBUGCTLA TR|BTS");
    fake_set_msr(&e.f, DS_MSR_IA32_PEBS_ENABLE, 1u << 24);
    CHECK_EQ(ds_probe(&e.cpu, NULL, &r), DS_OK, "NetBurst probe, PEBS on");
    CHECK_EQ(r.ds_area.verdict, DS_PROBE_BUSY, "NetBurst PEBS_ENABLE bit 24: busy");
}

/* A 64-bit wide counter (CPUID.0AH:EAX[23:16] = 64) is compared on all 64
 * bits, the lowest ones included (SDM Vol. 3B "Architectural Performance
 * Monitoring": the counter is EAX[23:16] bits wide): a read-back that differs
 * only in bit 0 or bit 1 is inert, as it is at width 48. */
static void test_counter_w64_low_bits(void)
{
    static struct fake_cpu f;
    CHECK_EQ(probe_counter_with(&f, 0, 0x07400404, 0, 1ull << 0), DS_PROBE_INERT, "w64: bit 0 differs");
    CHECK_EQ(probe_counter_with(&f, 0, 0x07400404, 0, 1ull << 1), DS_PROBE_INERT, "w64: bit 1 differs");
    CHECK_EQ(probe_counter_with(&f, 0, 0x07300404, 0, 1ull << 0), DS_PROBE_INERT, "w48: bit 0 differs");
}
