/* SPDX-License-Identifier: BSD-2-Clause */
/* CPU identification against CPUID/MSR tables. */
#include "check.h"
#include "fake_cpu.h"

static void test_display_fms(void)
{
    uint16_t f;
    uint8_t m;
    /* SDM examples: family 06H uses extended model; 0FH adds extended family */
    ds_display_fms(0x000506E3, &f, &m); /* Skylake client 06_5EH */
    CHECK_EQ(f, 0x06, "skl family");
    CHECK_EQ(m, 0x5E, "skl model");
    ds_display_fms(0x00000F29, &f, &m); /* Pentium 4 Northwood 0F_02H */
    CHECK_EQ(f, 0x0F, "p4 family");
    CHECK_EQ(m, 0x02, "p4 model");
    ds_display_fms(0x00000F43, &f, &m); /* Prescott 0F_04H */
    CHECK_EQ(m, 0x04, "prescott model");
    ds_display_fms(0x00A00F11, &f, &m); /* AMD family 19H: 0FH + 0AH, ext model applies for 0FH */
    CHECK_EQ(f, 0x19, "ext family added only for family 0FH");
    CHECK_EQ(m, 0x01, "model");
    ds_display_fms(0x00010671, &f, &m); /* Core 2 Penryn 06_17H */
    CHECK_EQ(m, 0x17, "penryn");
    ds_display_fms(0x00010551, &f, &m); /* family 5 with an ext model field: not applied */
    CHECK_EQ(f, 5, "family 5");
    CHECK_EQ(m, 5, "ext model ignored for family 5");
}

static void test_identify_skylake(void)
{
    struct fake_cpu f;
    struct ds_cpu cpu;
    fake_skylake(&f);
    CHECK_EQ(ds_cpu_init(&cpu, &fake_ops, &f), DS_OK, "init");
    CHECK_EQ(ds_cpu_identify(&cpu), DS_OK, "identify");
    const struct ds_caps *c = &cpu.caps;
    CHECK(c->vendor == DS_VENDOR_INTEL, "vendor");
    CHECK(strcmp(c->vendor_str, "GenuineIntel") == 0, "vendor string");
    CHECK_EQ(c->display_family, 6, "family");
    CHECK_EQ(c->display_model, 0x5E, "model");
    CHECK(c->ds && c->dtes64 && c->ds_cpl && c->pdcm && !c->x2apic, "cpuid bits");
    CHECK_EQ(c->perfmon_version, 4, "perfmon v4");
    CHECK_EQ(c->gp_counters, 4, "gp counters");
    CHECK_EQ(c->gp_width, 48, "gp width");
    CHECK_EQ(c->fixed_counters, 3, "fixed");
    CHECK_EQ(c->fixed_width, 48, "fixed width");
    CHECK_EQ(c->pebs_format, 3, "pebs fmt");
    CHECK_EQ(c->lbr_format, 5, "lbr fmt");
    CHECK(c->pebs_trap && c->pebs_arch_reg && c->fw_write && !c->pebs_baseline, "perfcaps bits");
    CHECK(c->perfmon_available && !c->bts_unavailable && !c->pebs_unavailable, "misc enable");
    CHECK(c->bts_advertised && c->pebs_advertised, "advertised");
    CHECK_EQ(f.writes, 0, "identify writes no MSR");
    char buf[2048];
    CHECK_EQ(ds_caps_format(c, buf, sizeof(buf)), DS_OK, "format");
    CHECK(strstr(buf, "display_family_model: 06_5EH") != NULL, "format shows DF_DM: %s", buf);
    CHECK(strstr(buf, "perf_caps.pebs_format: 3") != NULL, "format shows pebs format");
    char small[16];
    CHECK_EQ(ds_caps_format(c, small, sizeof(small)), DS_ERR_BUFSZ, "truncation reported");
    CHECK(strlen(small) == sizeof(small) - 1, "truncated output is NUL-terminated");
    CHECK_EQ(ds_caps_format(c, small, 0), DS_ERR_BUFSZ, "zero length");
    CHECK_EQ(ds_caps_format(NULL, small, 4), DS_ERR_NULL, "null caps");
}

static void test_identify_amd_no_msr(void)
{
    struct fake_cpu f;
    struct ds_cpu cpu;
    memset(&f, 0, sizeof(f));
    /* "AuthenticAMD": EBX "Auth", EDX "enti", ECX "cAMD" */
    fake_set_cpuid(&f, 0, 0, 0x10, 0x68747541, 0x444d4163, 0x69746e65);
    fake_set_cpuid(&f, 1, 0, 0x00A00F11, 0, 0, (1u << 5) | (1u << 21));
    CHECK_EQ(ds_cpu_init(&cpu, &fake_ops, &f), DS_OK, "init");
    CHECK_EQ(ds_cpu_identify(&cpu), DS_OK, "identify");
    CHECK(cpu.caps.vendor == DS_VENDOR_AMD, "amd");
    CHECK_EQ(f.reads + f.writes, 0, "no MSR touched on a non-Intel CPU");
    CHECK(!cpu.caps.bts_advertised && !cpu.caps.pebs_advertised, "nothing advertised");
}

static void test_identify_faults(void)
{
    struct fake_cpu f;
    struct ds_cpu cpu;
    fake_skylake(&f);
    f.nmsrs = 0; /* MISC_ENABLE and PERF_CAPABILITIES now fault */
    ds_cpu_init(&cpu, &fake_ops, &f);
    CHECK_EQ(ds_cpu_identify(&cpu), DS_OK, "advertised MSRs faulting is not an identification failure");
    CHECK(cpu.identified, "identified");
    CHECK(!cpu.caps.has_misc_enable && !cpu.caps.has_perf_caps, "no caps from faulting MSRs");
    CHECK_EQ(cpu.caps.misc_enable_err, DS_ERR_MSR_FAULT, "MISC_ENABLE fault recorded");
    CHECK_EQ(cpu.caps.perf_caps_err, DS_ERR_MSR_FAULT, "PERF_CAPABILITIES fault recorded");
    CHECK(!cpu.caps.pebs_advertised && !cpu.caps.bts_advertised, "not advertised without MISC_ENABLE");
    CHECK_EQ(ds_cpu_init(NULL, &fake_ops, &f), DS_ERR_NULL, "null cpu");
    CHECK_EQ(ds_cpu_init(&cpu, NULL, NULL), DS_ERR_INVAL, "host build needs a backend");
    CHECK_EQ(ds_cpu_identify(NULL), DS_ERR_NULL, "identify null");
}

/*
 * Issue 10 item 15: PDCM set but IA32_PERF_CAPABILITIES #GPs, or perfmon
 * advertised but IA32_MISC_ENABLE #GPs (hypervisors, emulators). Only that
 * capability is absent, the reason names the MSR, everything else is there.
 * Before the fix ds_cpu_identify() returned DS_ERR_MSR_FAULT.
 */
/* Issue 29: the report says each fact once. Without PDCM the reason is
 * that CPUID bit, not "IA32_PERF_CAPABILITIES absent" after the MSR's name
 * (which read "absent (IA32_PERF_CAPABILITIES (0x345): IA32_PERF_CAPABILITIES
 * absent (...))"). */
static void test_format_no_pdcm_once(void)
{
    struct fake_cpu f;
    struct ds_cpu cpu;
    char buf[4096];
    fake_skylake_msr_gp(&f, 0);
    f.leaves[1].r[2] &= ~(1u << 15); /* CPUID.01H:ECX.PDCM */
    CHECK_EQ(ds_cpu_init(&cpu, &fake_ops, &f), DS_OK, "init");
    CHECK_EQ(ds_cpu_identify(&cpu), DS_OK, "identify");
    CHECK_EQ(cpu.caps.perf_caps_err, DS_ERR_NO_PDCM, "reason: no PDCM");
    CHECK_EQ(ds_caps_format(&cpu.caps, buf, sizeof(buf)), DS_OK, "format");
    CHECK(strstr(buf, "perf_capabilities: absent (IA32_PERF_CAPABILITIES (0x345): not enumerated "
                      "(CPUID.01H:ECX.PDCM is 0))\n") != NULL,
          "named once: %s", buf);
}

static void test_identify_msr_gp(void)
{
    struct fake_cpu f;
    struct ds_cpu cpu;
    char buf[4096];

    fake_skylake_msr_gp(&f, DS_MSR_IA32_PERF_CAPABILITIES);
    CHECK_EQ(ds_cpu_init(&cpu, &fake_ops, &f), DS_OK, "init");
    CHECK_EQ(ds_cpu_identify(&cpu), DS_OK, "PERF_CAPABILITIES #GP: identify succeeds");
    const struct ds_caps *c = &cpu.caps;
    CHECK(cpu.identified, "identified");
    CHECK_EQ(f.faults, 1, "exactly one faulting access");
    CHECK(c->pdcm && !c->has_perf_caps, "PDCM advertised, PERF_CAPABILITIES absent");
    CHECK_EQ(c->perf_caps_err, DS_ERR_MSR_FAULT, "reason: the read faulted");
    CHECK_EQ(c->misc_enable_err, DS_OK, "MISC_ENABLE was read");
    CHECK(c->has_misc_enable && c->perfmon_available, "MISC_ENABLE value kept");
    CHECK(c->pebs_format == 0 && c->lbr_format == 0 && !c->fw_write, "no PERF_CAPABILITIES fields");
    CHECK_EQ(c->perfmon_version, 4, "leaf 0AH still read");
    CHECK_EQ(c->gp_mask, 0xF, "counters still identified");
    CHECK(c->bts_advertised && c->pebs_advertised, "DS and MISC_ENABLE still advertise BTS/PEBS");
    CHECK_EQ(ds_caps_format(c, buf, sizeof(buf)), DS_OK, "format");
    CHECK(strstr(buf, "perf_capabilities: absent (IA32_PERF_CAPABILITIES (0x345): MSR access faulted (#GP))\n"),
          "report names the faulting MSR: %s", buf);
    CHECK(strstr(buf, "misc_enable: 0x0000000000000080\n") != NULL, "MISC_ENABLE reported: %s", buf);

    fake_skylake_msr_gp(&f, DS_MSR_IA32_MISC_ENABLE);
    CHECK_EQ(ds_cpu_init(&cpu, &fake_ops, &f), DS_OK, "init");
    CHECK_EQ(ds_cpu_identify(&cpu), DS_OK, "MISC_ENABLE #GP: identify succeeds");
    CHECK_EQ(f.faults, 1, "exactly one faulting access");
    CHECK(!c->has_misc_enable && c->misc_enable_err == DS_ERR_MSR_FAULT, "MISC_ENABLE absent, faulted");
    CHECK(!c->perfmon_available && !c->bts_unavailable && !c->pebs_unavailable, "no MISC_ENABLE bits");
    CHECK(!c->bts_advertised && !c->pebs_advertised, "BTS/PEBS not advertised without MISC_ENABLE");
    CHECK(c->has_perf_caps && c->perf_caps_err == DS_OK && c->pebs_format == 3, "PERF_CAPABILITIES still read");
    CHECK_EQ(ds_caps_format(c, buf, sizeof(buf)), DS_OK, "format");
    CHECK(strstr(buf, "misc_enable: absent (IA32_MISC_ENABLE (0x1A0): MSR access faulted (#GP))\n"),
          "report names the faulting MSR: %s", buf);
    CHECK(strstr(buf, "perf_caps.pebs_format: 3\n") != NULL, "PERF_CAPABILITIES reported");

    /* Clearing path: a second identify on a CPU that no longer faults clears the reason. */
    f.fault_on_read = 0;
    CHECK_EQ(ds_cpu_identify(&cpu), DS_OK, "identify again");
    CHECK(c->has_misc_enable && c->misc_enable_err == DS_OK && c->bts_advertised, "reason cleared");

    /* Reasons when nothing was read: other vendor, no PDCM, no MISC_ENABLE. */
    memset(&f, 0, sizeof(f));
    fake_set_cpuid(&f, 0, 0, 0x10, 0x68747541, 0x444d4163, 0x69746e65); /* AuthenticAMD */
    fake_set_cpuid(&f, 1, 0, 0x00A00F11, 0, DS_CPUID1_ECX_PDCM, DS_CPUID1_EDX_MSR | DS_CPUID1_EDX_DS);
    ds_cpu_init(&cpu, &fake_ops, &f);
    CHECK_EQ(ds_cpu_identify(&cpu), DS_OK, "amd");
    CHECK(c->misc_enable_err == DS_ERR_NOT_INTEL && c->perf_caps_err == DS_ERR_NOT_INTEL, "not Intel: not read");
    CHECK_EQ(f.reads, 0, "no MSR read");
    fake_skylake(&f);
    f.leaves[1].r[2] &= ~DS_CPUID1_ECX_PDCM;
    f.leaves[1].r[3] &= ~DS_CPUID1_EDX_MSR;
    ds_cpu_init(&cpu, &fake_ops, &f);
    CHECK_EQ(ds_cpu_identify(&cpu), DS_OK, "no MSR, no PDCM");
    CHECK(c->misc_enable_err == DS_ERR_NO_MSR && c->perf_caps_err == DS_ERR_NO_PDCM, "reasons");
    CHECK_EQ(f.reads, 0, "no MSR read");
    CHECK_EQ(ds_caps_format(c, buf, sizeof(buf)), DS_OK, "format");
    CHECK(strstr(buf, "misc_enable: absent (IA32_MISC_ENABLE (0x1A0): MSR not known to exist on this CPU; not "
                      "accessed)\n") != NULL, "not-read reason: %s", buf);
}

static void test_no_pdcm(void)
{
    struct fake_cpu f;
    struct ds_cpu cpu;
    memset(&f, 0, sizeof(f));
    /* Pentium 4 Prescott: DS, no PDCM, no leaf 0AH */
    fake_set_cpuid(&f, 0, 0, 5, FAKE_INTEL_EBX, FAKE_INTEL_ECX, FAKE_INTEL_EDX);
    fake_set_cpuid(&f, 1, 0, 0x00000F43, 0, (1u << 2), (1u << 5) | (1u << 21));
    fake_set_msr(&f, DS_MSR_IA32_MISC_ENABLE, (1u << 7));
    ds_cpu_init(&cpu, &fake_ops, &f);
    CHECK_EQ(ds_cpu_identify(&cpu), DS_OK, "identify p4");
    CHECK(cpu.caps.netburst, "netburst");
    CHECK(!cpu.caps.has_perf_caps, "no perf caps read");
    CHECK_EQ(f.faults, 0, "no faulting access");
    CHECK(cpu.caps.pebs_advertised, "p4 pebs advertised via MISC_ENABLE[7]");
}

static void test_p6_no_misc_enable(void)
{
    struct fake_cpu f;
    struct ds_cpu cpu;
    memset(&f, 0, sizeof(f));
    /* Pentium III (06_08H): no IA32_MISC_ENABLE; reading it would #GP on the native path. */
    fake_set_cpuid(&f, 0, 0, 3, FAKE_INTEL_EBX, FAKE_INTEL_ECX, FAKE_INTEL_EDX);
    fake_set_cpuid(&f, 1, 0, 0x00000683, 0, 0, (1u << 5) | (1u << 9));
    ds_cpu_init(&cpu, &fake_ops, &f);
    CHECK_EQ(ds_cpu_identify(&cpu), DS_OK, "identify p3");
    CHECK_EQ(f.reads + f.writes, 0, "no MSR touched on a P6 part before 06_0DH");
    CHECK(!cpu.caps.has_misc_enable && !cpu.caps.bts_advertised && !cpu.caps.pebs_advertised, "nothing advertised");
    /* Pentium M Dothan (06_0DH) does have it. */
    memset(&f, 0, sizeof(f));
    fake_set_cpuid(&f, 0, 0, 2, FAKE_INTEL_EBX, FAKE_INTEL_ECX, FAKE_INTEL_EDX);
    fake_set_cpuid(&f, 1, 0, 0x000006D8, 0, 0, (1u << 5) | (1u << 21));
    fake_set_msr(&f, DS_MSR_IA32_MISC_ENABLE, DS_MISC_ENABLE_PEBS_UNAVAIL);
    ds_cpu_init(&cpu, &fake_ops, &f);
    CHECK_EQ(ds_cpu_identify(&cpu), DS_OK, "identify dothan");
    CHECK(cpu.caps.has_misc_enable && cpu.caps.bts_advertised && cpu.caps.pebs_unavailable, "dothan reads MISC_ENABLE");
}

/*
 * Leaves 07H, 1AH, 1CH and 23H, with the words of ../shared/cpuid/
 * GenuineIntel00C06C3_PantherLakeL_01_CPUID.txt, logical CPU #0 (Cougar Cove
 * P-core) and #4 (Darkmont E-core). Expectations are read off those words by
 * hand with the SDM leaf layouts, not from libds.
 */
static void test_leaf23_needs_perfmon_ext(void);

static void ptl_core(struct fake_cpu *f, bool ecore)
{
    memset(f, 0, sizeof(*f));
    fake_set_cpuid(f, 0, 0, 0x23, FAKE_INTEL_EBX, FAKE_INTEL_ECX, FAKE_INTEL_EDX);
    fake_set_cpuid(f, 1, 0, 0x000C06C3, 0, 0, (1u << 5) | (1u << 9) | (1u << 21));
    fake_set_cpuid(f, 7, 0, 0x00000002, 0x239CA7EB, 0x994007BC, 0xFC18C430);
    fake_set_cpuid(f, 0xA, 0, ecore ? 0x08300805 : 0x0A300806, 0, ecore ? 0x77 : 0xF, 0x00008603);
    fake_set_cpuid(f, 0x1A, 0, ecore ? 0x20000004 : 0x40000004, 0, 0, 0);
    fake_set_cpuid(f, 0x1C, 0, ecore ? 0xC000000B : 0x4000000B, 0x7, 0x000F0007, 0);
    fake_set_cpuid(f, 0x23, 0, ecore ? 0x3F : 0x3B, 3, ecore ? 8 : 0, 0);
    fake_set_cpuid(f, 0x23, 1, ecore ? 0xFF : 0x3FF, ecore ? 0x77 : 0xF, 0, 0);
    fake_set_cpuid(f, 0x23, 4, 0, ecore ? 0x60060338 : 0x60060378, 0, 0);
    fake_set_cpuid(f, 0x23, 5, ecore ? 0xFF : 0x3FF, 3, ecore ? 0x77 : 0xF, 1);
}

static void test_identify_ext_leaves(void)
{
    struct fake_cpu f;
    struct ds_cpu cpu;
    char buf[4096];

    for (int e = 0; e < 2; e++) {
        ptl_core(&f, e);
        CHECK_EQ(ds_cpu_init(&cpu, &fake_ops, &f), DS_OK, "init");
        ds_cpu_identify(&cpu);
        const struct ds_caps *c = &cpu.caps;
        CHECK(c->hybrid, "7.EDX FC18C430: bit 15 (hybrid) set");
        CHECK(c->arch_lbr, "7.EDX bit 19 set: Arch LBR");
        CHECK(c->has_leaf_1a, "leaf 1AH filled");
        CHECK_EQ(c->core_type, e ? 0x20 : 0x40, "core type");
        CHECK_EQ(c->native_model_id, 4, "native model id");
        CHECK(c->has_leaf_1c, "leaf 1CH read with Arch LBR");
        CHECK_EQ(c->lbr_1c_ecx, 0x000F0007, "1CH ECX");
        CHECK_EQ(c->arch_lbr_depth, 32, "1CH EAX[7:0] = 0BH: depths 8, 16, 32 -> 32");
        CHECK(c->has_leaf_23, "leaf 23H");
        CHECK_EQ(c->leaf23_subleaves, e ? 0x3Fu : 0x3Bu, "23H.0 EAX");
        CHECK_EQ(c->leaf23_features, 3, "UMASK2 and EQ");
        CHECK_EQ(c->gp_mask, e ? 0xFFu : 0x3FFu, "23H.1 GP bitmap supersedes 0AH (P-core 10 GP)");
        CHECK_EQ(c->fixed_mask, e ? 0x77u : 0xFu, "23H.1 fixed bitmap (E-core non-contiguous)");
        CHECK_EQ(c->arch_pebs_caps, e ? 0x60060338u : 0x60060378u, "23H.4 EBX");
        CHECK_EQ(c->arch_pebs_gp_mask, e ? 0xFFu : 0x3FFu, "23H.5 EAX");
        CHECK_EQ(c->arch_pdist_gp_mask, 3, "23H.5 EBX");
        CHECK_EQ(c->arch_pebs_fixed_mask, e ? 0x77u : 0xFu, "23H.5 ECX");
        CHECK_EQ(c->arch_pdist_fixed_mask, 1, "23H.5 EDX");
        CHECK_EQ(ds_caps_format(c, buf, sizeof(buf)), DS_OK, "format");
        CHECK(strstr(buf, e ? "core_type: atom (0x20)" : "core_type: core (0x40)") != NULL, "report: %s", buf);
    }

    /* Arch LBR depth = 8 * fls(1CH EAX[7:0]) (SDM leaf 1CH; Linux intel_pmu_arch_lbr_init):
     * boundaries 01H -> 8, 80H -> 64, FFH -> 64, bits above 7 ignored, 0 -> 0. */
    static const struct { uint32_t eax; unsigned depth; } dep[] = {
        {0x01, 8}, {0x80, 64}, {0xFF, 64}, {0x40000100, 0}, {0x40000003, 16}, {0, 0},
    };
    for (unsigned i = 0; i < sizeof(dep) / sizeof(dep[0]); i++) {
        ptl_core(&f, false);
        for (int k = 0; k < f.nleaves; k++)
            if (f.leaves[k].leaf == 0x1C)
                f.leaves[k].r[0] = dep[i].eax;
        ds_cpu_init(&cpu, &fake_ops, &f);
        ds_cpu_identify(&cpu);
        CHECK_EQ(cpu.caps.arch_lbr_depth, dep[i].depth, "1CH EAX 0x%x", dep[i].eax);
    }

    /* Leaf 23H sub-leaf 1 absent: the bitmaps come from leaf 0AH (Skylake: 4 GP, 3 fixed). */
    fake_skylake(&f);
    CHECK_EQ(ds_cpu_init(&cpu, &fake_ops, &f), DS_OK, "init");
    CHECK_EQ(ds_cpu_identify(&cpu), DS_OK, "identify");
    CHECK_EQ(cpu.caps.gp_mask, 0xFu, "gp mask from 0AH");
    CHECK_EQ(cpu.caps.fixed_mask, 0x7u, "fixed mask from 0AH");
    CHECK(!cpu.caps.has_leaf_23 && !cpu.caps.arch_lbr && !cpu.caps.has_leaf_1c, "no new leaves");
}

/*
 * Which hybrid PMU (Linux find_hybrid_pmu_for_cpu; Arrow Lake-H three kinds).
 * Words: 07H EDX FC18C430H (hybrid) and 0AH of ../shared/cpuid/GenuineIntel00C0662_
 * ArrowLake_07_CPUID.txt (Arrow Lake-S, 06_C6H); 1AH of its P-cores 40000003H and
 * E-cores 20000003H (Skymont), and of the Meteor Lake dump's E-cores 20000002H
 * (GenuineIntel00A06A4_MeteorLake_07, Crestmont, the uarch of Arrow Lake-H's
 * low-power E-cores). No Arrow Lake-H dump here: its signature is composed from
 * Linux intel-family.h INTEL_ARROWLAKE_H = 06_C5H (stepping 4 arbitrary). Expected
 * kinds from Linux: INTEL_ARROWLAKE_H -> hybrid_big_small_tiny; native ID 3 small,
 * 2 tiny; every other hybrid part two kinds.
 */
static void pmu_cpu(struct fake_cpu *f, uint32_t sig, uint32_t c7_edx, uint32_t l1a)
{
    memset(f, 0, sizeof(*f));
    fake_set_cpuid(f, 0, 0, 0x23, FAKE_INTEL_EBX, FAKE_INTEL_ECX, FAKE_INTEL_EDX);
    fake_set_cpuid(f, 1, 0, sig, 0, 0, (1u << 5) | (1u << 9) | (1u << 21));
    fake_set_cpuid(f, 7, 0, 0x00000002, 0x239CA7EB, 0x994027AC, c7_edx);
    fake_set_cpuid(f, 0xA, 0, 0x0D300806, 0x280, 0x7, 0x00008603);
    fake_set_cpuid(f, 0x1A, 0, l1a, 0, 0, 0);
}

static void test_pmu_kind(void)
{
    static const struct {
        uint32_t sig, c7_edx, l1a;
        unsigned want;
        const char *report;
    } T[] = {
        { 0x000C0654, 0xFC18C430, 0x40000003, DS_PMU_KIND_CORE, "pmu_kind: core (Linux cpu_core)" },
        { 0x000C0654, 0xFC18C430, 0x20000003, DS_PMU_KIND_ATOM, "pmu_kind: atom (Linux cpu_atom)" },
        { 0x000C0654, 0xFC18C430, 0x20000002, DS_PMU_KIND_LOWPOWER, "pmu_kind: lowpower (Linux cpu_lowpower)" },
        { 0x000C0654, 0xFC18C430, 0x20000004, DS_PMU_KIND_UNKNOWN, "pmu_kind: unknown\n" },  /* no such atom on ARL-H */
        { 0x000C0654, 0xFC18C430, 0x20000001, DS_PMU_KIND_UNKNOWN, "pmu_kind: unknown\n" },
        { 0x000C0662, 0xFC18C430, 0x20000002, DS_PMU_KIND_ATOM, "pmu_kind: atom" },   /* ARL-S: two kinds */
        { 0x000C0662, 0xFC18C430, 0x20000003, DS_PMU_KIND_ATOM, "pmu_kind: atom" },
        { 0x000A06A4, 0xFC18C430, 0x20000002, DS_PMU_KIND_ATOM, "pmu_kind: atom" },   /* Meteor Lake LPE: small */
        { 0x000C0654, 0xFC18C430, 0x10000002, DS_PMU_KIND_UNKNOWN, "pmu_kind: unknown" }, /* core type 10H */
        { 0x000C0654, 0xFC184430, 0x20000002, DS_PMU_KIND_NONE, NULL },  /* EDX[15] clear: not hybrid */
        { 0x000C0654, 0xFC18C430, 0, DS_PMU_KIND_NONE, NULL },           /* no leaf 1AH */
    };
    char buf[4096];
    for (size_t i = 0; i < sizeof T / sizeof T[0]; i++) {
        struct fake_cpu f;
        struct ds_cpu cpu;
        pmu_cpu(&f, T[i].sig, T[i].c7_edx, T[i].l1a);
        CHECK_EQ(ds_cpu_init(&cpu, &fake_ops, &f), DS_OK, "init");
        ds_cpu_identify(&cpu);
        CHECK_EQ(cpu.caps.pmu_kind, T[i].want, "row %zu: sig %08X 1AH %08X", i, T[i].sig, T[i].l1a);
        CHECK_EQ(ds_caps_format(&cpu.caps, buf, sizeof(buf)), DS_OK, "format");
        if (T[i].report)
            CHECK(strstr(buf, T[i].report) != NULL, "row %zu report has '%s'", i, T[i].report);
        else
            CHECK(strstr(buf, "pmu_kind") == NULL, "row %zu: no pmu_kind line for one PMU kind", i);
    }
    CHECK(!strcmp(ds_pmu_kind_name(DS_PMU_KIND_LOWPOWER), "lowpower") && !strcmp(ds_pmu_kind_name(99), "?"),
          "kind names");
}

/*
 * Issue 10 test strength: each IA32_PERF_CAPABILITIES flag from its own bit,
 * one bit at a time (SDM Vol. 4 MSR 345H, Linux msr-index.h PERF_CAP_*):
 * 6 PEBS trap, 7 PEBS saves arch regs, 12 SMM freeze, 13 full-width write,
 * 14 PEBS baseline, 15 perf metrics, 16 PEBS output to PT, 17 PEBS timing
 * info; LBR format 5:0 and PEBS format 11:8 as fields.
 */
static void test_perf_caps_bits(void)
{
    static const unsigned bits[] = { 6, 7, 12, 13, 14, 15, 16, 17, 99 };
    for (size_t k = 0; k < sizeof(bits) / sizeof(bits[0]); k++) {
        struct fake_cpu f;
        struct ds_cpu cpu;
        unsigned b = bits[k];
        uint64_t v = (b < 64 ? 1ull << b : 0) | 0x2A | (0x5ull << 8); /* LBR fmt 0x2A, PEBS fmt 5 */
        fake_skylake(&f);
        fake_set_msr(&f, DS_MSR_IA32_PERF_CAPABILITIES, v);
        ds_cpu_init(&cpu, &fake_ops, &f);
        CHECK_EQ(ds_cpu_identify(&cpu), DS_OK, "identify, bit %u", b);
        const struct ds_caps *c = &cpu.caps;
        CHECK(c->has_perf_caps && c->perf_caps == v, "bit %u: raw value kept", b);
        CHECK_EQ(c->lbr_format, 0x2A, "bit %u: LBR format 5:0", b);
        CHECK_EQ(c->pebs_format, 5, "bit %u: PEBS format 11:8", b);
        CHECK(c->pebs_trap == (b == 6) && c->pebs_arch_reg == (b == 7) && c->smm_freeze == (b == 12) &&
                  c->fw_write == (b == 13) && c->pebs_baseline == (b == 14) && c->perf_metrics == (b == 15) &&
                  c->pebs_output_pt == (b == 16) && c->pebs_timing_info == (b == 17),
              "bit %u alone sets its flag and no other", b);
    }
}

/* The raw CPUID.01H:EAX fields (SDM Vol. 2A CPUID "Version Information":
 * stepping [3:0], model [7:4], family [11:8]; display values add the
 * extended model [19:16] / family [27:20]), typed per signature. */
static void test_signature_fields(void)
{
    static const struct { uint32_t sig; uint8_t step, model, fam, dfam, dmodel; } rows[] = {
        { 0x000506E3, 3, 0xE, 6, 6, 0x5E },    /* Skylake */
        { 0x000B06D1, 1, 0xD, 6, 6, 0xBD },    /* Lunar Lake */
        { 0x00000F29, 9, 0x2, 0xF, 0xF, 0x02 }, /* NetBurst Northwood */
        { 0x000006F6, 6, 0xF, 6, 6, 0x0F },    /* Merom */
        { 0x00A60F12, 2, 0x1, 0xF, 0x19, 0x61 }, /* family 19H (Raphael's signature) */
    };
    for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
        struct fake_cpu f;
        struct ds_cpu cpu;
        pmu_cpu(&f, rows[i].sig, 0, 0);
        ds_cpu_init(&cpu, &fake_ops, &f);
        ds_cpu_identify(&cpu);
        const struct ds_caps *c = &cpu.caps;
        CHECK(c->signature == rows[i].sig && c->stepping == rows[i].step && c->model == rows[i].model &&
                  c->family == rows[i].fam,
              "sig %08x: stepping %u model %X family %X", rows[i].sig, c->stepping, c->model, c->family);
        CHECK(c->display_family == rows[i].dfam && c->display_model == rows[i].dmodel,
              "sig %08x: display %02X_%02XH", rows[i].sig, c->display_family, c->display_model);
    }
}

/* Leaf 1AH is read when CPUID.0:EAX (the highest basic leaf) is exactly
 * 1AH, not only above (SDM: leaves up to and including the maximum are
 * valid); with maximum 19H it is not read. */
static void set_max_leaf(struct fake_cpu *f, uint32_t max)
{
    for (int i = 0; i < f->nleaves; i++)
        if (f->leaves[i].leaf == 0 && f->leaves[i].sub == 0)
            f->leaves[i].r[0] = max;
}

static void test_leaf_1a_at_max(void)
{
    struct fake_cpu f;
    struct ds_cpu cpu;
    pmu_cpu(&f, 0x000B06D1, 1u << 15, 0x40000002);
    set_max_leaf(&f, 0x1A);
    ds_cpu_init(&cpu, &fake_ops, &f);
    CHECK_EQ(ds_cpu_identify(&cpu), DS_OK, "identify, max leaf 1AH");
    CHECK(cpu.caps.has_leaf_1a && cpu.caps.core_type == 0x40 && cpu.caps.native_model_id == 2,
          "max leaf 1AH: leaf 1AH read (core type %02X)", cpu.caps.core_type);
    set_max_leaf(&f, 0x19);
    ds_cpu_init(&cpu, &fake_ops, &f);
    CHECK_EQ(ds_cpu_identify(&cpu), DS_OK, "identify, max leaf 19H");
    CHECK(!cpu.caps.has_leaf_1a && cpu.caps.core_type == 0, "max leaf 19H: leaf 1AH not read");
}

/* IA32_MISC_ENABLE is read from DisplayFamily 0FH on and in family 06H from
 * DisplayModel 0DH on (Linux arch/x86/kernel/cpu/intel.c early_init_intel:
 * "c->x86 > 6 || (c->x86 == 6 && c->x86_model >= 0xd)"), and only with
 * CPUID.01H:EDX.MSR (bit 5): every side of each boundary (mutants cpu.c:199
 * `>= 0x0D` -> `>= 0xC` / `> 0x0D`, `> 6` -> `> 5`, `==` -> `!=`, `||` -> `&&`
 * survived). A model that must not be read has no MSR in the fake: a read
 * would fault and show up in f.reads. */
static void test_misc_enable_gate(void)
{
    static const struct { uint32_t sig; uint32_t edx; int read; const char *what; } t[] = {
        { 0x000006C0, 1u << 5, 0, "06_0CH: before the boundary" },
        { 0x000006D0, 1u << 5, 1, "06_0DH (Dothan): first read" },
        { 0x000006E0, 1u << 5, 1, "06_0EH (Yonah)" },
        { 0x000106A0, 1u << 5, 1, "06_1AH (Nehalem): extended model" },
        { 0x000005F0, 1u << 5, 0, "05_0FH: family 5 never" },
        { 0x000105D0, 1u << 5, 0, "05_0DH with ext model 1: family 5, DisplayModel 0DH, never" },
        { 0x00000F00, 1u << 5, 1, "0F_00H: family 0FH from model 0" },
        { 0x00100F00, 1u << 5, 1, "10_00H: DisplayFamily above 6" },
        { 0x00000700, 1u << 5, 1, "07_00H: family 7 > 6" },
        { 0x000006D0, 0, 0, "06_0DH without CPUID.01H:EDX.MSR" },
    };
    for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
        struct fake_cpu f;
        struct ds_cpu cpu;
        memset(&f, 0, sizeof(f));
        fake_set_cpuid(&f, 0, 0, 2, FAKE_INTEL_EBX, FAKE_INTEL_ECX, FAKE_INTEL_EDX);
        fake_set_cpuid(&f, 1, 0, t[i].sig, 0, 0, t[i].edx | (1u << 21));
        if (t[i].read)
            fake_set_msr(&f, DS_MSR_IA32_MISC_ENABLE, 1u << 7);
        ds_cpu_init(&cpu, &fake_ops, &f);
        CHECK_EQ(ds_cpu_identify(&cpu), DS_OK, "%s: identify", t[i].what);
        CHECK_EQ(f.reads, (unsigned)t[i].read, "%s: MISC_ENABLE reads", t[i].what);
        CHECK_EQ(f.faults, 0, "%s: no fault", t[i].what);
        CHECK_EQ(cpu.caps.has_misc_enable, t[i].read != 0, "%s: has_misc_enable", t[i].what);
        CHECK_EQ(cpu.caps.misc_enable_err, t[i].read ? DS_OK : DS_ERR_NO_MSR, "%s: reason", t[i].what);
        CHECK_EQ(cpu.caps.bts_advertised, t[i].read != 0, "%s: BTS advertised only with the MSR", t[i].what);
    }
}

/* Vendor from the 12 bytes of leaf 0 (EBX, EDX, ECX; SDM Vol. 2A CPUID leaf
 * 00H): a string that differs from "GenuineIntel"/"AuthenticAMD" in its first
 * or last byte is another vendor (mutants cpu.c:82 `i = 0` -> `1`, `< 12` ->
 * `< 11` survived), and "unknown" is only max leaf 0 with an empty string
 * (cpu.c:266 `== 0` -> `== 1` survived). No MSR is read for any non-Intel
 * string. */
static void test_vendor_bytes(void)
{
    static const struct { uint32_t max, ebx, edx, ecx; int vendor; const char *what; } t[] = {
        { 2, 0x756e6547, 0x49656e69, 0x6c65746e, DS_VENDOR_INTEL, "GenuineIntel" },
        { 2, 0x756e6546, 0x49656e69, 0x6c65746e, DS_VENDOR_OTHER, "FenuineIntel: first byte" },
        { 2, 0x756e6547, 0x49656e69, 0x6d65746e, DS_VENDOR_OTHER, "GenuineIntem: last byte" },
        { 2, 0x756e6547, 0x49656e68, 0x6c65746e, DS_VENDOR_OTHER, "GenuinhIntel: EDX byte 0" },
        { 2, 0x68747541, 0x69746e65, 0x444d4163, DS_VENDOR_AMD, "AuthenticAMD" },
        { 2, 0x68747540, 0x69746e65, 0x444d4163, DS_VENDOR_OTHER, "@uthenticAMD: first byte" },
        { 2, 0x68747541, 0x69746e65, 0x454d4163, DS_VENDOR_OTHER, "AuthenticAME: last byte" },
        { 0, 0, 0, 0, DS_VENDOR_UNKNOWN, "max leaf 0, empty string" },
        { 1, 0, 0, 0, DS_VENDOR_OTHER, "max leaf 1, empty string" },
        { 0, 0x756e6547, 0x49656e69, 0x6c65746e, DS_VENDOR_INTEL, "max leaf 0, GenuineIntel" },
    };
    for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
        struct fake_cpu f;
        struct ds_cpu cpu;
        memset(&f, 0, sizeof(f));
        fake_set_cpuid(&f, 0, 0, t[i].max, t[i].ebx, t[i].ecx, t[i].edx);
        fake_set_cpuid(&f, 1, 0, 0x000506E3, 0, 0, (1u << 5) | (1u << 21));
        fake_set_msr(&f, DS_MSR_IA32_MISC_ENABLE, 1u << 7);
        ds_cpu_init(&cpu, &fake_ops, &f);
        CHECK_EQ(ds_cpu_identify(&cpu), DS_OK, "%s: identify", t[i].what);
        CHECK_EQ(cpu.caps.vendor, t[i].vendor, "%s: vendor", t[i].what);
        if (t[i].vendor != DS_VENDOR_INTEL)
            CHECK_EQ(f.reads, 0, "%s: no MSR read", t[i].what);
    }
}

/* Leaf 01H is read only when CPUID.0:EAX >= 1 (SDM Vol. 2A CPUID: leaves above
 * the maximum return the data of the highest basic leaf): with maximum 0 the
 * signature and the DS flags stay 0 even though the fake answers leaf 1
 * (mutant cpu.c:278 `< 1` -> `< 0` survived); with maximum exactly 1 they are
 * read. */
static void test_leaf1_at_max(void)
{
    for (uint32_t max = 0; max <= 1; max++) {
        struct fake_cpu f;
        struct ds_cpu cpu;
        memset(&f, 0, sizeof(f));
        fake_set_cpuid(&f, 0, 0, max, FAKE_INTEL_EBX, FAKE_INTEL_ECX, FAKE_INTEL_EDX);
        fake_set_cpuid(&f, 1, 0, 0x000006D8, 0, 1u << 2, (1u << 5) | (1u << 21));
        fake_set_msr(&f, DS_MSR_IA32_MISC_ENABLE, 1u << 7);
        ds_cpu_init(&cpu, &fake_ops, &f);
        CHECK_EQ(ds_cpu_identify(&cpu), DS_OK, "max %u: identify", max);
        CHECK_EQ(cpu.caps.signature, max ? 0x000006D8u : 0u, "max %u: signature", max);
        CHECK(cpu.caps.ds == (max == 1) && cpu.caps.dtes64 == (max == 1), "max %u: DS flags", max);
        CHECK_EQ(cpu.caps.has_misc_enable, max == 1, "max %u: MISC_ENABLE read only with leaf 1", max);
    }
}

/* Every bit of the extended family field [27:20] (SDM Vol. 2A CPUID:
 * DisplayFamily = Family + Extended Family when Family is 0FH): odd and
 * all-ones values (mutant cpu.c:64 mask 0xFF -> 0xFE survived: the tested
 * signatures had even extended families). Nova Lake is DisplayFamily 12H
 * (Linux intel-family.h IFM(18, ...)): extended family 3. */
static void test_ext_family_bits(void)
{
    static const struct { uint32_t sig; uint16_t fam; uint8_t model; } t[] = {
        { 0x00100F00, 0x10, 0x00 }, { 0x00300F10, 0x12, 0x01 }, { 0x00400F10, 0x13, 0x01 },
        { 0x00800F00, 0x17, 0x00 }, { 0x0FF00F00, 0x10E, 0x00 }, { 0x0FF50F00, 0x10E, 0x50 },
        { 0x00100600, 0x06, 0x00 }, /* family 6: the extended family is not added */
    };
    for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
        uint16_t f;
        uint8_t m;
        ds_display_fms(t[i].sig, &f, &m);
        CHECK_EQ(f, t[i].fam, "sig %08x: DisplayFamily", t[i].sig);
        CHECK_EQ(m, t[i].model, "sig %08x: DisplayModel", t[i].sig);
    }
}

/* Leaf 1CH is read only with Arch LBR enumerated (CPUID.(07H,0):EDX[19]; SDM
 * leaf 1CH; Linux intel_pmu_arch_lbr_init runs only with X86_FEATURE_ARCH_LBR)
 * and a maximum leaf of at least 1CH (mutant cpu.c:151 `&&` -> `||` survived):
 * EDX[19] clear with 1CH answered -> nothing read; EDX[19] set with maximum
 * 1BH -> nothing; maximum exactly 1CH -> read. cpuid7_edx keeps leaf 7 EDX
 * as is (SDM leaf 07H). Words from ptl_core (the Panther Lake dump). */
static void test_leaf1c_gate(void)
{
    static const struct { uint32_t max, edx7; bool read; const char *what; } t[] = {
        { 0x23, 0xFC18C430u & ~(1u << 19), false, "Arch LBR clear, max 23H" },
        { 0x1B, 0xFC18C430u, false, "Arch LBR set, max 1BH" },
        { 0x1C, 0xFC18C430u, true, "Arch LBR set, max exactly 1CH" },
        { 0x23, 0xFC18C430u, true, "Arch LBR set, max 23H" },
    };
    for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
        struct fake_cpu f;
        struct ds_cpu cpu;
        ptl_core(&f, false);
        for (int k = 0; k < f.nleaves; k++) {
            if (f.leaves[k].leaf == 0)
                f.leaves[k].r[0] = t[i].max;
            if (f.leaves[k].leaf == 7)
                f.leaves[k].r[3] = t[i].edx7;
        }
        ds_cpu_init(&cpu, &fake_ops, &f);
        CHECK_EQ(ds_cpu_identify(&cpu), DS_OK, "%s: identify", t[i].what);
        const struct ds_caps *c = &cpu.caps;
        CHECK_EQ(c->cpuid7_edx, t[i].edx7, "%s: 07H EDX kept", t[i].what);
        CHECK_EQ(c->has_leaf_1c, t[i].read, "%s: has_leaf_1c", t[i].what);
        CHECK_EQ(c->lbr_1c_eax, t[i].read ? 0x4000000Bu : 0u, "%s: 1CH EAX", t[i].what);
        CHECK_EQ(c->lbr_1c_ecx, t[i].read ? 0x000F0007u : 0u, "%s: 1CH ECX", t[i].what);
        CHECK_EQ(c->arch_lbr_depth, t[i].read ? 32 : 0, "%s: depth", t[i].what);
    }
}

/* GP counter mask at the 32-counter boundary (SDM leaf 0AH EAX[15:8]; the
 * mask has one bit per counter): 31 -> 7FFFFFFFH, 32 -> FFFFFFFFH, 33 ->
 * FFFFFFFFH (mutant cpu.c:340 `>= 32` -> `>= 33` survived; it shifts by 32). */
static void test_gp_mask_32(void)
{
    static const struct { unsigned n; uint32_t mask; } t[] = { { 31, 0x7FFFFFFFu }, { 32, 0xFFFFFFFFu },
                                                               { 33, 0xFFFFFFFFu }, { 1, 1 }, { 0, 0 } };
    for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
        struct fake_cpu f;
        struct ds_cpu cpu;
        fake_skylake(&f);
        for (int k = 0; k < f.nleaves; k++)
            if (f.leaves[k].leaf == 0xA)
                f.leaves[k].r[0] = (f.leaves[k].r[0] & ~0xFF00u) | (t[i].n << 8);
        ds_cpu_init(&cpu, &fake_ops, &f);
        CHECK_EQ(ds_cpu_identify(&cpu), DS_OK, "%u GP: identify", t[i].n);
        CHECK_EQ(cpu.caps.gp_counters, t[i].n, "%u GP: count", t[i].n);
        CHECK_EQ(cpu.caps.gp_mask, t[i].mask, "%u GP: mask", t[i].n);
    }
}

/* Leaf 0AH is Intel's (SDM Vol. 2A); AMD reserves CPUID Fn0000_000A (AMD APM
 * Vol. 3, PerfMonV2 is 80000022H): an AMD CPU whose leaf 0AH answers is not
 * given Intel perfmon (mutant cpu.c:322 `||` -> `&&` survived). */
static void test_leaf0a_intel_only(void)
{
    struct fake_cpu f;
    struct ds_cpu cpu;
    memset(&f, 0, sizeof(f));
    fake_set_cpuid(&f, 0, 0, 0x10, 0x68747541, 0x444d4163, 0x69746e65); /* AuthenticAMD, max 10H */
    fake_set_cpuid(&f, 1, 0, 0x00A00F11, 0, 0, (1u << 5) | (1u << 21));
    fake_set_cpuid(&f, 0xA, 0, 0x07300404, 0, 0, 0x603);
    ds_cpu_init(&cpu, &fake_ops, &f);
    CHECK_EQ(ds_cpu_identify(&cpu), DS_OK, "identify");
    CHECK(cpu.caps.vendor == DS_VENDOR_AMD, "AMD");
    CHECK(!cpu.caps.has_leaf_0a && cpu.caps.perfmon_version == 0 && cpu.caps.gp_counters == 0 &&
              cpu.caps.gp_mask == 0 && cpu.caps.fixed_counters == 0,
          "leaf 0AH not read on AMD");
}

/* Report widths: the native model ID is CPUID.1AH EAX[23:0] (6 hex digits),
 * leaf 23H EAX/EBX are 32-bit (8 digits) (mutants cpu.c:439 6 -> 5 and
 * cpu.c:477 8 -> 9 survived). Whole lines, from ptl_core's words. */
static void test_report_widths(void)
{
    struct fake_cpu f;
    struct ds_cpu cpu;
    char buf[4096];
    ptl_core(&f, true);
    ds_cpu_init(&cpu, &fake_ops, &f);
    ds_cpu_identify(&cpu);
    CHECK_EQ(ds_caps_format(&cpu.caps, buf, sizeof(buf)), DS_OK, "format");
    CHECK(strstr(buf, "\ncore_type: atom (0x20), native_model_id 0x000004\n") != NULL, "1AH line: %s", buf);
    CHECK(strstr(buf, "\nleaf23.subleaves: 0x0000003f\nleaf23.features: 0x00000003\n") != NULL, "23H lines: %s",
          buf);
}

/* Every leaf 0AH field from words whose fields are odd and distinct (SDM
 * Vol. 2A leaf 0AH: EAX[7:0] version, [15:8] GP count, [23:16] GP width,
 * [31:24] EBX length; EBX bit i = event i unavailable, bits at or above
 * the length undefined (reported unavailable); EDX[4:0] fixed count,
 * [12:5] fixed width): mutants cpu.c:331 `r[0] >> 24` -> `r[1]`/`>> 23` and
 * cpu.c:337 width mask 0xFF -> 0xFE survived (the profiles' fields were
 * even or the field unchecked). */
static void test_leaf0a_fields(void)
{
    static const struct { uint32_t eax, ebx, edx; unsigned gp, gpw, len, fx, fxw; uint32_t unavail, fmask; } t[] = {
        { 0x07310904, 0x00000055, 0x000005E5, 9, 0x31, 7, 5, 0x2F, 0xFFFFFFD5u, 0x1F },
        { 0x20FF0304, 0x12345678, 0x00001FFF, 3, 0xFF, 32, 31, 0xFF, 0x12345678u, 0x7FFFFFFF },
        { 0x1F010104, 0x40000001, 0x00000021, 1, 0x01, 31, 1, 0x01, 0xC0000001u, 0x1 },
    };
    for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
        struct fake_cpu f;
        struct ds_cpu cpu;
        fake_skylake(&f);
        for (int k = 0; k < f.nleaves; k++)
            if (f.leaves[k].leaf == 0xA) {
                f.leaves[k].r[0] = t[i].eax;
                f.leaves[k].r[1] = t[i].ebx;
                f.leaves[k].r[2] = 0;
                f.leaves[k].r[3] = t[i].edx;
            }
        ds_cpu_init(&cpu, &fake_ops, &f);
        CHECK_EQ(ds_cpu_identify(&cpu), DS_OK, "row %zu: identify", i);
        const struct ds_caps *c = &cpu.caps;
        CHECK_EQ(c->perfmon_version, 4, "row %zu: version", i);
        CHECK_EQ(c->gp_counters, t[i].gp, "row %zu: GP count", i);
        CHECK_EQ(c->gp_width, t[i].gpw, "row %zu: GP width", i);
        CHECK_EQ(c->ebx_length, t[i].len, "row %zu: EBX length", i);
        CHECK_EQ(c->events_unavailable, t[i].unavail, "row %zu: events unavailable", i);
        CHECK_EQ(c->fixed_counters, t[i].fx, "row %zu: fixed count", i);
        CHECK_EQ(c->fixed_width, t[i].fxw, "row %zu: fixed width", i);
        CHECK_EQ(c->fixed_mask, t[i].fmask, "row %zu: fixed mask", i);
    }
}

/* Leaves 07H, 0AH and 23H are read when CPUID.0:EAX (the highest basic
 * leaf) is exactly that leaf, not only above, and not when it is one less
 * (SDM Vol. 2A CPUID: leaves up to and including the maximum are valid;
 * above it the CPU returns the highest basic leaf's data, which the fake
 * answering the leaf stands for). Words from ptl_core (the Panther Lake
 * P-core dump): 07H EDX FC18C430H (bit 15 hybrid, bit 19 Arch LBR), 0AH EAX
 * 0A300806H (version 6, 8 GP), 23H EAX 3BH with sub-leaf 1 GP bitmap 3FFH
 * (which replaces leaf 0AH's FFH). Class of the leaf 1/1AH/1CH gates. */
static void test_leaf_gates_at_max(void)
{
    static const struct { uint32_t max; uint32_t edx7; uint8_t ver; uint32_t sub23, gp_mask; } t[] = {
        { 0x06, 0, 0, 0, 0 },                          /* no leaf 07H, 0AH, 23H */
        { 0x07, 0xFC18C430u, 0, 0, 0 },                 /* 07H exactly */
        { 0x09, 0xFC18C430u, 0, 0, 0 },                 /* 0AH one above */
        { 0x0A, 0xFC18C430u, 6, 0, 0xFF },              /* 0AH exactly */
        { 0x22, 0xFC18C430u, 6, 0, 0xFF },              /* 23H one above */
        { 0x23, 0xFC18C430u, 6, 0x3B, 0x3FF },          /* 23H exactly */
    };
    for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
        struct fake_cpu f;
        struct ds_cpu cpu;
        ptl_core(&f, false);
        set_max_leaf(&f, t[i].max);
        ds_cpu_init(&cpu, &fake_ops, &f);
        CHECK_EQ(ds_cpu_identify(&cpu), DS_OK, "max %02XH: identify", t[i].max);
        const struct ds_caps *c = &cpu.caps;
        CHECK_EQ(c->cpuid7_edx, t[i].edx7, "max %02XH: leaf 07H EDX", t[i].max);
        CHECK_EQ(c->hybrid, t[i].edx7 != 0, "max %02XH: hybrid", t[i].max);
        CHECK_EQ(c->arch_lbr, t[i].edx7 != 0, "max %02XH: Arch LBR", t[i].max);
        CHECK_EQ(c->perfmon_version, t[i].ver, "max %02XH: perfmon version", t[i].max);
        CHECK_EQ(c->has_leaf_0a, t[i].ver != 0, "max %02XH: leaf 0AH", t[i].max);
        CHECK_EQ(c->has_leaf_23, t[i].sub23 != 0, "max %02XH: leaf 23H", t[i].max);
        CHECK_EQ(c->leaf23_subleaves, t[i].sub23, "max %02XH: 23H sub-leaves", t[i].max);
        CHECK_EQ(c->gp_mask, t[i].gp_mask, "max %02XH: GP mask", t[i].max);
    }
}

/* ds_cpu_init zeroes cpu->caps and clears identified (cpu.h contract:
 * "Zeroes cpu->caps, clears identified"; the fields are readable): every
 * byte of caps over a context poisoned with A5H, including the first and
 * the last (mutant cpu.c:47 `p[i] = 0` -> `p[i] = 1` survived). Then
 * ds_cpu_identify on an AMD CPU (no Intel leaves, no MSR) over poisoned
 * caps: every field it does not fill is 0. */
static void test_init_zeroes_caps(void)
{
    static struct ds_cpu cpu;
    struct fake_cpu f;
    memset(&cpu, 0xA5, sizeof(cpu));
    CHECK_EQ(ds_cpu_init(&cpu, &fake_ops, NULL), DS_OK, "init");
    CHECK(!cpu.identified, "identified cleared");
    const unsigned char *b = (const unsigned char *)&cpu.caps;
    size_t bad = 0;
    for (size_t i = 0; i < sizeof(cpu.caps); i++)
        bad += b[i] != 0;
    CHECK_EQ(bad, 0, "every byte of caps zero after init");
    CHECK_EQ(b[0], 0, "first byte");
    CHECK_EQ(b[sizeof(cpu.caps) - 1], 0, "last byte");

    memset(&f, 0, sizeof(f));
    fake_set_cpuid(&f, 0, 0, 1, 0x68747541, 0x444d4163, 0x69746e65); /* AuthenticAMD, max 1 */
    fake_set_cpuid(&f, 1, 0, 0x00A00F11, 0, 0, 0);
    memset(&cpu, 0xA5, sizeof(cpu));
    CHECK_EQ(ds_cpu_init(&cpu, &fake_ops, &f), DS_OK, "init AMD");
    memset(&cpu.caps, 0xA5, sizeof(cpu.caps)); /* stale caps: identify must not keep any */
    CHECK_EQ(ds_cpu_identify(&cpu), DS_OK, "identify AMD");
    struct ds_caps want;
    memset(&want, 0, sizeof(want)); /* padding too: identify zeroes every byte */
    want.vendor = DS_VENDOR_AMD;
    memcpy(want.vendor_str, "AuthenticAMD", 13);
    want.max_leaf = 1;
    want.signature = 0x00A00F11;
    want.family = 0xF;
    want.model = 1;
    want.stepping = 1;
    want.display_family = 0x19;
    want.display_model = 0x01; /* ext model 0, model 1 */
    want.misc_enable_err = DS_ERR_NOT_INTEL;
    want.perf_caps_err = DS_ERR_NOT_INTEL;
    CHECK(memcmp(&cpu.caps, &want, sizeof(want)) == 0, "AMD caps: only the leaf 0/1 fields and the reasons");
}

/* The leaf 0AH ECX fixed-counter bitmap counts from perfmon version 5 on,
 * not at version 4, where ECX is reserved (SDM Vol. 3B "Architectural
 * Performance Monitoring Version 5"; Linux intel_pmu_init reads it under
 * "version >= 5"): the same words, EDX[4:0] = 3 and ECX = F0H, give fixed
 * counters 0-2 at version 4 and 0-2 plus 4-7 at version 5 (fls(ECX) = 8). */
static void test_fixed_bitmap_from_v5(void)
{
    static const struct { uint32_t eax; uint32_t mask; unsigned n; } t[] = {
        { 0x08300804, 0x07, 3 }, /* v4: ECX ignored */
        { 0x08300805, 0xF7, 8 }, /* v5: ECX | EDX's counters */
    };
    for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
        struct fake_cpu f;
        struct ds_cpu cpu;
        fake_skylake(&f);
        for (int k = 0; k < f.nleaves; k++)
            if (f.leaves[k].leaf == 0xA) {
                f.leaves[k].r[0] = t[i].eax;
                f.leaves[k].r[2] = 0xF0;
                f.leaves[k].r[3] = 0x603; /* 3 fixed x 48 bit */
            }
        ds_cpu_init(&cpu, &fake_ops, &f);
        CHECK_EQ(ds_cpu_identify(&cpu), DS_OK, "v%u: identify", t[i].eax & 0xFF);
        CHECK_EQ(cpu.caps.fixed_mask, t[i].mask, "v%u: fixed mask", t[i].eax & 0xFF);
        CHECK_EQ(cpu.caps.fixed_counters, t[i].n, "v%u: fixed counters", t[i].eax & 0xFF);
    }
}

/* Leaf 0AH EDX (fixed-counter count [4:0] and width [12:5]) is defined
 * from perfmon version 2 on (SDM Vol. 2A leaf 0AH: "EDX[4:0] ... if
 * Version ID > 1"; Linux intel_pmu_init reads it under "version > 1"):
 * the same EDX 603H gives no fixed counter at version 1 and three 48-bit
 * ones at version 2. */
static void test_fixed_edx_from_v2(void)
{
    static const struct { uint32_t eax; unsigned n, w; uint32_t mask; } t[] = {
        { 0x07280201, 0, 0, 0 },     /* v1: EDX reserved */
        { 0x07280202, 3, 0x30, 0x7 }, /* v2 */
    };
    for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
        struct fake_cpu f;
        struct ds_cpu cpu;
        fake_skylake(&f);
        for (int k = 0; k < f.nleaves; k++)
            if (f.leaves[k].leaf == 0xA) {
                f.leaves[k].r[0] = t[i].eax;
                f.leaves[k].r[2] = 0;
                f.leaves[k].r[3] = 0x603;
            }
        ds_cpu_init(&cpu, &fake_ops, &f);
        CHECK_EQ(ds_cpu_identify(&cpu), DS_OK, "v%u: identify", t[i].eax & 0xFF);
        CHECK_EQ(cpu.caps.fixed_counters, t[i].n, "v%u: fixed counters", t[i].eax & 0xFF);
        CHECK_EQ(cpu.caps.fixed_width, t[i].w, "v%u: fixed width", t[i].eax & 0xFF);
        CHECK_EQ(cpu.caps.fixed_mask, t[i].mask, "v%u: fixed mask", t[i].eax & 0xFF);
    }
}

static void test_leaf23_eax_0_and_1(void);
int main(void)
{
    test_pmu_kind();
    test_p6_no_misc_enable();
    test_display_fms();
    test_identify_skylake();
    test_identify_ext_leaves();
    test_identify_amd_no_msr();
    test_identify_faults();
    test_identify_msr_gp();
    test_format_no_pdcm_once();
    test_no_pdcm();
    test_perf_caps_bits();
    test_signature_fields();
    test_leaf_1a_at_max();
    test_misc_enable_gate();
    test_vendor_bytes();
    test_leaf1_at_max();
    test_ext_family_bits();
    test_leaf1c_gate();
    test_gp_mask_32();
    test_leaf0a_intel_only();
    test_report_widths();
    test_leaf0a_fields();
    test_leaf_gates_at_max();
    test_init_zeroes_caps();
    test_fixed_bitmap_from_v5();
    test_fixed_edx_from_v2();
    test_leaf23_eax_0_and_1();
    test_leaf23_needs_perfmon_ext();
    return check_summary();
}

/*
 * Issue 25 item 6b: leaf 23H is read only with CPUID.(07H,1):EAX[8] (Linux
 * X86_FEATURE_ARCH_PERFMON_EXT, cpufeatures.h (12*32+ 8); update_pmu_cap is
 * called only then), and 07H sub-leaf 1 only when 07H.0:EAX >= 1 (Linux
 * get_cpu_cap "Check valid sub-leaf index"). The Panther Lake words with
 * 07H.1 EAX = 4CCE09D7H (the dump's, bit 8 set) read 23H; with bit 8 clear,
 * or 07H.0 EAX 0, the counters come from leaf 0AH (8 GP, fixed 0-3 from
 * EDX[4:0] = 3 and ECX FH) and no arch-PEBS word is read. Before the fix
 * max leaf alone decided.
 */
static void test_leaf23_needs_perfmon_ext(void)
{
    static const struct { uint32_t eax70, eax71; bool ext; const char *what; } t[] = {
        { 2, 0x4CCE09D7, true, "07H.1 EAX of the dump" },
        { 2, 0x4CCE09D7 & ~(1u << 8), false, "07H.1 EAX[8] clear" },
        { 2, 1u << 8, true, "07H.1 EAX[8] alone" },
        { 0, 0x4CCE09D7, false, "07H.0 EAX 0: sub-leaf 1 not read" },
        { 1, 1u << 8, true, "07H.0 EAX 1" },
    };
    for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
        struct fake_cpu f;
        struct ds_cpu cpu;
        ptl_core(&f, false);
        f.no_pmext = 1;
        for (int k = 0; k < f.nleaves; k++)
            if (f.leaves[k].leaf == 7 && f.leaves[k].sub == 0)
                f.leaves[k].r[0] = t[i].eax70;
        fake_set_cpuid(&f, 7, 1, t[i].eax71, 1, 2, 0x00040430);
        ds_cpu_init(&cpu, &fake_ops, &f);
        CHECK_EQ(ds_cpu_identify(&cpu), DS_OK, "%s: identify", t[i].what);
        const struct ds_caps *c = &cpu.caps;
        CHECK_EQ(c->arch_perfmon_ext, t[i].ext, "%s: ARCH_PERFMON_EXT", t[i].what);
        CHECK_EQ(c->has_leaf_23, t[i].ext, "%s: leaf 23H", t[i].what);
        CHECK_EQ(c->leaf23_subleaves, t[i].ext ? 0x3Bu : 0, "%s: 23H.0 EAX", t[i].what);
        CHECK_EQ(c->gp_mask, t[i].ext ? 0x3FFu : 0xFFu, "%s: GP counters", t[i].what);
        CHECK_EQ(c->fixed_mask, 0xFu, "%s: fixed counters", t[i].what);
        CHECK_EQ(c->arch_pebs_caps, t[i].ext ? 0x60060378u : 0, "%s: 23H.4 EBX", t[i].what);
        CHECK_EQ(c->arch_pebs_gp_mask, t[i].ext ? 0x3FFu : 0, "%s: 23H.5 EAX", t[i].what);
    }
}

/*
 * has_leaf_23 is "CPUID.(23H,0):EAX is not 0" (cpu.h), read only at max
 * leaf >= 23H: at max leaf 23H exactly, EAX 0 is no leaf 23H (and the
 * capability report prints no leaf23 lines), EAX 1 (one sub-leaf bit) is
 * leaf 23H. Blind seed 9907: `r[0] != 0` -> `!= 1` survived (the Panther
 * Lake words, 3BH, cannot tell them apart).
 */
static void test_leaf23_eax_0_and_1(void)
{
    static const uint32_t eax[] = { 0, 1 };
    for (size_t i = 0; i < 2; i++) {
        struct fake_cpu f;
        struct ds_cpu cpu;
        ptl_core(&f, false);
        set_max_leaf(&f, 0x23);
        for (int k = 0; k < f.nleaves; k++)
            if (f.leaves[k].leaf == 0x23 && f.leaves[k].sub == 0)
                f.leaves[k].r[0] = eax[i];
        ds_cpu_init(&cpu, &fake_ops, &f);
        CHECK_EQ(ds_cpu_identify(&cpu), DS_OK, "23H.0 EAX %u: identify", eax[i]);
        CHECK_EQ(cpu.caps.has_leaf_23, eax[i] != 0, "23H.0 EAX %u: has_leaf_23", eax[i]);
        CHECK_EQ(cpu.caps.leaf23_subleaves, eax[i], "23H.0 EAX %u: sub-leaves", eax[i]);
    }
}
