/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * CPU identification (SDM Vol. 2A "CPUID"; SDM Vol. 3B "Architectural
 * Performance Monitoring", "IA32_PERF_CAPABILITIES"; reference msr.md 1-2).
 */
#include <ds/config.h>
#include <ds/cpu.h>
#include "util.h"
#include "cpu_int.h"

/* A word type that may alias any object (GCC/clang may_alias). */
typedef unsigned long __attribute__((may_alias)) ds__word;

void ds__zero(void *p, size_t n)
{
    /* volatile: keep it a loop, not a memset call. One store per word while
     * aligned (issue 10 item 21: byte stores were most of a PMI's cost). */
    volatile unsigned char *b = p;
    while (n && ((uintptr_t)b & (sizeof(ds__word) - 1))) {
        *b++ = 0;
        n--;
    }
    for (; n >= sizeof(ds__word); n -= sizeof(ds__word), b += sizeof(ds__word))
        *(volatile ds__word *)(volatile void *)b = 0;
    while (n--)
        *b++ = 0;
}

DS_COLD int ds_cpu_init(struct ds_cpu *cpu, const struct ds_msr_ops *ops, void *ops_ctx)
{
    if (!cpu)
        return DS_ERR_NULL;
#if defined(DS_HOSTED)
    if (!ops)
        return DS_ERR_INVAL; /* a host process cannot execute RDMSR */
#endif
    cpu->ops = ops;
    cpu->ops_ctx = ops_ctx;
#if defined(__x86_64__)
    cpu->ia32e = true;
#else
    cpu->ia32e = false;
#endif
    cpu->identified = false;
    ds__zero(&cpu->caps, sizeof(cpu->caps)); /* no memset (no libc) */
    return DS_OK;
}

DS_COLD int ds_cpu_set_ia32e(struct ds_cpu *cpu, bool ia32e)
{
    if (!cpu)
        return DS_ERR_NULL;
    cpu->ia32e = ia32e;
    return DS_OK;
}

DS_COLD void ds_display_fms(uint32_t sig, uint16_t *out_family, uint8_t *out_model)
{
    uint32_t model = (sig >> 4) & 0xF;
    uint32_t family = (sig >> 8) & 0xF;
    uint32_t ext_model = (sig >> 16) & 0xF;
    uint32_t ext_family = (sig >> 20) & 0xFF;
    uint32_t dfam = family;
    uint32_t dmod = model;

    /* SDM Vol. 2A CPUID: DisplayFamily = Family + ExtendedFamily only when Family == 0FH;
     * DisplayModel = ExtendedModel << 4 + Model when Family is 06H or 0FH. */
    if (family == 0xF)
        dfam = family + ext_family;
    if (family == 0x6 || family == 0xF)
        dmod = (ext_model << 4) + model;
    if (out_family)
        *out_family = (uint16_t)dfam;
    if (out_model)
        *out_model = (uint8_t)dmod;
}

static bool streq12(const char *a, const char *b)
{
    for (int i = 0; i < 12; i++)
        if (a[i] != b[i])
            return false;
    return true;
}

static void put32(char *dst, uint32_t v)
{
    dst[0] = (char)(v & 0xFF);
    dst[1] = (char)((v >> 8) & 0xFF);
    dst[2] = (char)((v >> 16) & 0xFF);
    dst[3] = (char)((v >> 24) & 0xFF);
}

/*
 * Leaves 07H, 1AH, 1CH and 23H (SDM Vol. 2A CPUID; Linux arch/x86/events/intel/
 * core.c update_pmu_cap() for 23H; intel_pmu_arch_lbr_init() for 1CH). Intel
 * only: other vendors define these leaves differently or not at all. Leaf 23H
 * sub-leaf 1 replaces the leaf 0AH counter counts with bitmaps.
 */
/*
 * The PMU kind of a hybrid CPU (Linux find_hybrid_pmu_for_cpu): Core -> big;
 * Atom -> small on two-kind parts; on the three-kind part (Arrow Lake-H,
 * Linux intel_pmu_init INTEL_ARROWLAKE_H: hybrid_big_small_tiny) the native
 * model ID picks Skymont (small) or Crestmont (tiny, the low-power E-cores).
 */
static uint8_t pmu_kind(const struct ds_caps *c)
{
    if (!c->hybrid || !c->has_leaf_1a)
        return DS_PMU_KIND_NONE;
    if (c->core_type == DS_CORE_TYPE_CORE)
        return DS_PMU_KIND_CORE;
    if (c->core_type != DS_CORE_TYPE_ATOM)
        return DS_PMU_KIND_UNKNOWN;
    bool three = c->display_family == 0x6 && c->display_model == 0xC5;   /* INTEL_ARROWLAKE_H */
    if (!three)
        return DS_PMU_KIND_ATOM;
    if (c->native_model_id == DS_ATOM_NATIVE_SKYMONT)
        return DS_PMU_KIND_ATOM;
    if (c->native_model_id == DS_ATOM_NATIVE_CRESTMONT)
        return DS_PMU_KIND_LOWPOWER;
    return DS_PMU_KIND_UNKNOWN;
}

DS_COLD const char *ds_pmu_kind_name(unsigned kind)
{
    static const char *const n[] = {"none", "core", "atom", "lowpower", "unknown"};
    return kind < sizeof n / sizeof n[0] ? n[kind] : "?";
}

static void identify_ext_leaves(struct ds_cpu *cpu, struct ds_caps *c)
{
    uint32_t r[4];

    if (c->vendor != DS_VENDOR_INTEL)
        return;
    if (c->max_leaf >= 7) {
        ds_cpuid(cpu, 7, 0, r);
        c->cpuid7_edx = r[3];
        c->hybrid = (r[3] & DS_CPUID7_EDX_HYBRID) != 0;
        c->arch_lbr = (r[3] & DS_CPUID7_EDX_ARCH_LBR) != 0;
        /* Linux get_cpu_cap: sub-leaf 1 only when 07H.0:EAX (max sub-leaf) >= 1 */
        if (r[0] >= 1) {
            ds_cpuid(cpu, 7, 1, r);
            c->arch_perfmon_ext = (r[0] & DS_CPUID7_1_EAX_ARCH_PERFMON_EXT) != 0;
        }
    }
    if (c->max_leaf >= 0x1A) {
        ds_cpuid(cpu, 0x1A, 0, r);
        c->has_leaf_1a = r[0] != 0;
        c->core_type = (uint8_t)(r[0] >> 24);
        c->native_model_id = r[0] & 0xFFFFFFu;
    }
    c->pmu_kind = pmu_kind(c);
    if (c->arch_lbr && c->max_leaf >= 0x1C) {
        ds_cpuid(cpu, 0x1C, 0, r);
        c->has_leaf_1c = true;
        c->lbr_1c_eax = r[0];
        c->lbr_1c_ebx = r[1];
        c->lbr_1c_ecx = r[2];
        for (uint32_t m = r[0] & 0xFFu; m; m >>= 1)
            c->arch_lbr_depth = (uint8_t)(c->arch_lbr_depth + 8);
    }
    /* Linux reads leaf 23H only with X86_FEATURE_ARCH_PERFMON_EXT
     * (CPUID.(07H,1):EAX[8]; intel_pmu_init -> update_pmu_cap). */
    if (c->max_leaf >= 0x23 && c->arch_perfmon_ext) {
        ds_cpuid(cpu, 0x23, 0, r);
        c->has_leaf_23 = r[0] != 0;
        c->leaf23_subleaves = r[0];
        c->leaf23_features = r[1];
    }
    /* The sub-leaf bits alone decide: leaf23_subleaves is 23H.0:EAX, read
     * above, and has_leaf_23 is exactly "that EAX is not 0" (an extra
     * `has_leaf_23 &&` here gave equivalent `&&` -> `||` mutants). */
    if (c->leaf23_subleaves & DS_LEAF23_SUB_COUNTERS) {
        ds_cpuid(cpu, 0x23, 1, r);
        c->gp_mask = r[0];
        c->fixed_mask = r[1];
    }
    if (c->leaf23_subleaves & DS_LEAF23_SUB_PEBS_CAPS) {
        ds_cpuid(cpu, 0x23, 4, r);
        c->arch_pebs_caps = r[1];
    }
    if (c->leaf23_subleaves & DS_LEAF23_SUB_PEBS_CNTRS) {
        ds_cpuid(cpu, 0x23, 5, r);
        c->arch_pebs_gp_mask = r[0];
        c->arch_pdist_gp_mask = r[1];
        c->arch_pebs_fixed_mask = r[2];
        c->arch_pdist_fixed_mask = r[3];
    }
}

/*
 * IA32_MISC_ENABLE (0x1A0): architectural from family 0FH (SDM Vol. 4,
 * "Architectural MSRs", introduced 0F_0H); in family 06H from the Pentium M
 * Dothan/Core line, DisplayModel 0DH and later (Linux reads it from the same
 * model on). Older P6 parts (Pentium Pro/II/III, Banias) and other vendors
 * may #GP on it, so it is not read there: caps then advertise no BTS/PEBS.
 * IA32_PERF_CAPABILITIES (0x345) exists iff CPUID.01H:ECX.PDCM (SDM Vol. 4).
 * A fault on an advertised MSR (hypervisors, emulators) degrades that one
 * capability to absent and is recorded in c->*_err; it never stops the
 * identification (issue 10 item 15).
 */
static void read_misc_enable(struct ds_cpu *cpu, struct ds_caps *c)
{
    uint64_t v;
    bool exists = c->max_leaf >= 1 && (c->cpuid1_edx & DS_CPUID1_EDX_MSR) &&
                  (c->display_family > 6 || (c->display_family == 6 && c->display_model >= 0x0D));
    if (!exists) {
        c->misc_enable_err = DS_ERR_NO_MSR;
        return;
    }
    if (ds_msr_read(cpu, DS_MSR_IA32_MISC_ENABLE, &v) != DS_OK) {
        c->misc_enable_err = DS_ERR_MSR_FAULT;
        return;
    }
    c->has_misc_enable = true;
    c->misc_enable = v;
    c->perfmon_available = (v & DS_MISC_ENABLE_PERFMON_AVAIL) != 0;
    c->bts_unavailable = (v & DS_MISC_ENABLE_BTS_UNAVAIL) != 0;
    c->pebs_unavailable = (v & DS_MISC_ENABLE_PEBS_UNAVAIL) != 0;
}

static void read_perf_caps(struct ds_cpu *cpu, struct ds_caps *c)
{
    uint64_t v;
    if (!c->pdcm) {
        c->perf_caps_err = DS_ERR_NO_PDCM;
        return;
    }
    if (ds_msr_read(cpu, DS_MSR_IA32_PERF_CAPABILITIES, &v) != DS_OK) {
        c->perf_caps_err = DS_ERR_MSR_FAULT;
        return;
    }
    c->has_perf_caps = true;
    c->perf_caps = v;
    c->lbr_format = (uint8_t)(v & DS_PERFCAP_LBR_FMT_MASK);
    c->pebs_trap = (v & DS_PERFCAP_PEBS_TRAP) != 0;
    c->pebs_arch_reg = (v & DS_PERFCAP_PEBS_ARCH_REG) != 0;
    c->pebs_format = (uint8_t)((v & DS_PERFCAP_PEBS_FMT_MASK) >> DS_PERFCAP_PEBS_FMT_SHIFT);
    c->smm_freeze = (v & DS_PERFCAP_SMM_FREEZE) != 0;
    c->fw_write = (v & DS_PERFCAP_FW_WRITE) != 0;
    c->pebs_baseline = (v & DS_PERFCAP_PEBS_BASELINE) != 0;
    c->perf_metrics = (v & DS_PERFCAP_PERF_METRICS) != 0;
    c->pebs_output_pt = (v & DS_PERFCAP_PEBS_OUTPUT_PT) != 0;
    c->pebs_timing_info = (v & DS_PERFCAP_PEBS_TIMING_INFO) != 0;
}

static void identify_msrs(struct ds_cpu *cpu, struct ds_caps *c)
{
    if (c->vendor != DS_VENDOR_INTEL) {
        c->misc_enable_err = DS_ERR_NOT_INTEL;
        c->perf_caps_err = DS_ERR_NOT_INTEL;
        return;
    }
    read_misc_enable(cpu, c);
    read_perf_caps(cpu, c);
}

/* Leaf 00H: highest leaf and vendor string (SDM Vol. 2A CPUID, "Basic CPUID
 * Information": EBX, EDX, ECX spell the vendor). */
static void identify_vendor(struct ds_cpu *cpu, struct ds_caps *c)
{
    uint32_t r[4];
    ds_cpuid(cpu, 0, 0, r);
    c->max_leaf = r[0];
    put32(&c->vendor_str[0], r[1]);
    put32(&c->vendor_str[4], r[3]);
    put32(&c->vendor_str[8], r[2]);
    c->vendor_str[12] = '\0';
    if (streq12(c->vendor_str, "GenuineIntel"))
        c->vendor = DS_VENDOR_INTEL;
    else if (streq12(c->vendor_str, "AuthenticAMD"))
        c->vendor = DS_VENDOR_AMD;
    else if (c->max_leaf == 0 && c->vendor_str[0] == '\0')
        c->vendor = DS_VENDOR_UNKNOWN;
    else
        c->vendor = DS_VENDOR_OTHER;
}

/* Leaf 01H: signature and the DS feature flags (SDM Vol. 2A CPUID, Table
 * "Feature Information": EDX[21] DS, ECX[2] DTES64, ECX[4] DS-CPL, ECX[15]
 * PDCM, ECX[21] x2APIC). */
static void identify_leaf1(struct ds_cpu *cpu, struct ds_caps *c)
{
    uint32_t r[4];
    if (c->max_leaf < 1)
        return;
    ds_cpuid(cpu, 1, 0, r);
    c->signature = r[0];
    c->cpuid1_ecx = r[2];
    c->cpuid1_edx = r[3];
    c->stepping = (uint8_t)(r[0] & 0xF);
    c->model = (uint8_t)((r[0] >> 4) & 0xF);
    c->family = (uint8_t)((r[0] >> 8) & 0xF);
    ds_display_fms(r[0], &c->display_family, &c->display_model);
    c->ds = (r[3] & DS_CPUID1_EDX_DS) != 0;
    c->dtes64 = (r[2] & DS_CPUID1_ECX_DTES64) != 0;
    c->ds_cpl = (r[2] & DS_CPUID1_ECX_DSCPL) != 0;
    c->pdcm = (r[2] & DS_CPUID1_ECX_PDCM) != 0;
    c->x2apic = (r[2] & DS_CPUID1_ECX_X2APIC) != 0;
}

/* Leaf 0AH fixed counters, @ecx = its ECX (SDM Vol. 3B "Architectural
 * Performance Monitoring Version 2" and "Version 5"). */
static void identify_fixed(struct ds_caps *c, uint32_t ecx)
{
    if (c->perfmon_version >= 5) {
        /* v5+: ECX is a bitmap of supported fixed counters; count = fls(ECX)
         * when it exceeds EDX[4:0] (Linux intel_pmu_init does the same).
         * SDM "Architectural Performance Monitoring Version 5": fixed counter
         * i is supported iff ECX[i] || EDX[4:0] > i, so the EDX counters are
         * in the mask too (an ECX of 0 must not hide them). */
        uint32_t edx_mask = c->fixed_counters >= 32 ? 0xFFFFFFFFu : ((1u << c->fixed_counters) - 1);
        c->fixed_mask = ecx | edx_mask;
        uint8_t fls = 0;
        for (uint32_t m = ecx; m; m >>= 1)
            fls++;
        if (fls > c->fixed_counters)
            c->fixed_counters = fls;
    } else if (c->fixed_counters) {
        c->fixed_mask = c->fixed_counters >= 32 ? 0xFFFFFFFFu : ((1u << c->fixed_counters) - 1);
    }
}

/* Leaf 0AH, Intel only (SDM Vol. 2A CPUID "Architectural Performance
 * Monitoring Leaf"; Vol. 3B "Architectural Performance Monitoring"). */
static void identify_leaf0a(struct ds_cpu *cpu, struct ds_caps *c)
{
    uint32_t r[4];
    if (c->max_leaf < 0xA || c->vendor != DS_VENDOR_INTEL)
        return;
    ds_cpuid(cpu, 0xA, 0, r);
    c->perfmon_version = (uint8_t)(r[0] & 0xFF);
    if (!c->perfmon_version)
        return;
    c->has_leaf_0a = true;
    c->gp_counters = (uint8_t)((r[0] >> 8) & 0xFF);
    c->gp_width = (uint8_t)((r[0] >> 16) & 0xFF);
    c->ebx_length = (uint8_t)((r[0] >> 24) & 0xFF);
    /* Only the first ebx_length bits of EBX are defined; the rest read as unavailable. */
    uint32_t defined = c->ebx_length >= 32 ? 0xFFFFFFFFu : ((1u << c->ebx_length) - 1);
    c->events_unavailable = (r[1] & defined) | ~defined;
    if (c->perfmon_version >= 2) {
        c->fixed_counters = (uint8_t)(r[3] & 0x1F);
        c->fixed_width = (uint8_t)((r[3] >> 5) & 0xFF);
    }
    /* EDX[15] AnyThread deprecation: Linux intel_pmu_init reads it from v5 */
    c->anythread_deprecated = c->perfmon_version >= 5 && (r[3] & (1u << 15));
    identify_fixed(c, r[2]);
    c->gp_mask = c->gp_counters >= 32 ? 0xFFFFFFFFu : ((1u << c->gp_counters) - 1);
}

DS_COLD int ds_cpu_identify(struct ds_cpu *cpu)
{
    if (!cpu)
        return DS_ERR_NULL;
    struct ds_caps *c = &cpu->caps;
    /* Every byte, padding too (ds__zero, not a loop of its own: a byte loop
     * here starting at 1 was an equivalent mutant, the first byte being
     * vendor, which identify_vendor always writes). */
    ds__zero(c, sizeof(*c));
    cpu->identified = false;

    identify_vendor(cpu, c);
    identify_leaf1(cpu, c);
    c->netburst = c->vendor == DS_VENDOR_INTEL && c->display_family == 0xF;
    identify_leaf0a(cpu, c);
    identify_ext_leaves(cpu, c);

    identify_msrs(cpu, c);

    bool perfmon = c->netburst ? c->perfmon_available : c->has_leaf_0a;
    c->bts_advertised = c->vendor == DS_VENDOR_INTEL && c->ds && c->has_misc_enable && !c->bts_unavailable;
    c->pebs_advertised = c->vendor == DS_VENDOR_INTEL && c->ds && c->has_misc_enable &&
                         !c->pebs_unavailable && perfmon;

    cpu->identified = true;
    return DS_OK;
}

#if DS_CONFIG_FORMAT
static void kv_bool(struct ds__sb *sb, const char *k, bool v)
{
    ds__sb_puts(sb, k);
    ds__sb_puts(sb, v ? ": yes\n" : ": no\n");
}

static void kv_dec(struct ds__sb *sb, const char *k, uint64_t v)
{
    ds__sb_puts(sb, k);
    ds__sb_puts(sb, ": ");
    ds__sb_dec(sb, v);
    ds__sb_putc(sb, '\n');
}

static void hex2(struct ds__sb *sb, unsigned v)
{
    static const char hex[] = "0123456789ABCDEF";
    ds__sb_putc(sb, hex[(v >> 4) & 0xF]);
    ds__sb_putc(sb, hex[v & 0xF]);
}

/* "key: absent (MSR-name (addr): why)": only what identification did, e.g.
 * "faulted (#GP)" for an advertised MSR that faulted, "not accessed" for one
 * that was never read (issue 10 items 15, 16). */
static void absent(struct ds__sb *sb, const char *k, const char *msr, int err)
{
    ds__sb_puts(sb, k);
    ds__sb_puts(sb, ": absent (");
    ds__sb_puts(sb, msr);
    ds__sb_puts(sb, ": ");
    ds__sb_puts(sb, ds__reason_text(err));
    ds__sb_puts(sb, ")\n");
}

/* Vendor, DisplayFamily_DisplayModel, stepping and the CPUID feature flags
 * (SDM Vol. 2A CPUID leaves 01H and 07H). */
static void format_ident(struct ds__sb *sb, const struct ds_caps *c)
{
    ds__sb_puts(sb, "vendor: ");
    ds__sb_puts(sb, c->vendor_str[0] ? c->vendor_str : "(none)");
    ds__sb_puts(sb, "\ndisplay_family_model: ");
    hex2(sb, c->display_family);
    ds__sb_putc(sb, '_');
    hex2(sb, c->display_model);
    ds__sb_puts(sb, "H\nstepping: ");
    ds__sb_dec(sb, c->stepping);
    ds__sb_putc(sb, '\n');
    kv_bool(sb, "netburst", c->netburst);
    kv_bool(sb, "cpuid.ds", c->ds);
    kv_bool(sb, "cpuid.dtes64", c->dtes64);
    kv_bool(sb, "cpuid.ds_cpl", c->ds_cpl);
    kv_bool(sb, "cpuid.pdcm", c->pdcm);
    kv_bool(sb, "cpuid.x2apic", c->x2apic);
    kv_bool(sb, "cpuid.hybrid", c->hybrid);
    kv_bool(sb, "cpuid.arch_lbr", c->arch_lbr);
}

/* Hybrid core type (leaf 1AH), Linux's hybrid PMU name, Arch LBR depth
 * (leaf 1CH). */
static void format_hybrid(struct ds__sb *sb, const struct ds_caps *c)
{
    if (c->has_leaf_1a) {
        ds__sb_puts(sb, "core_type: ");
        ds__sb_puts(sb, c->core_type == DS_CORE_TYPE_CORE ? "core" :
                        c->core_type == DS_CORE_TYPE_ATOM ? "atom" : "other");
        ds__sb_puts(sb, " (");
        ds__sb_hex(sb, c->core_type, 2);
        ds__sb_puts(sb, "), native_model_id ");
        ds__sb_hex(sb, c->native_model_id, 6);
        ds__sb_putc(sb, '\n');
    }
    if (c->pmu_kind != DS_PMU_KIND_NONE) {   /* Linux's hybrid PMU names */
        ds__sb_puts(sb, "pmu_kind: ");
        ds__sb_puts(sb, ds_pmu_kind_name(c->pmu_kind));
        ds__sb_puts(sb, c->pmu_kind == DS_PMU_KIND_UNKNOWN ? "" : " (Linux cpu_");
        if (c->pmu_kind != DS_PMU_KIND_UNKNOWN) {
            ds__sb_puts(sb, ds_pmu_kind_name(c->pmu_kind));
            ds__sb_putc(sb, ')');
        }
        ds__sb_putc(sb, '\n');
    }
    if (c->has_leaf_1c)
        kv_dec(sb, "arch_lbr.depth", c->arch_lbr_depth);
}

/* Architectural performance monitoring: leaf 0AH, leaf 23H (SDM Vol. 3B
 * "Architectural Performance Monitoring"). */
static void format_perfmon(struct ds__sb *sb, const struct ds_caps *c)
{
    kv_dec(sb, "perfmon.version", c->perfmon_version);
    if (c->has_leaf_0a) {
        kv_dec(sb, "perfmon.gp_counters", c->gp_counters);
        kv_dec(sb, "perfmon.gp_width", c->gp_width);
        kv_dec(sb, "perfmon.fixed_counters", c->fixed_counters);
        kv_dec(sb, "perfmon.fixed_width", c->fixed_width);
        ds__sb_puts(sb, "perfmon.events_unavailable: ");
        ds__sb_hex(sb, c->events_unavailable, 8);
        ds__sb_putc(sb, '\n');
        ds__sb_puts(sb, "perfmon.gp_mask: ");
        ds__sb_hex(sb, c->gp_mask, 8);
        ds__sb_puts(sb, "\nperfmon.fixed_mask: ");
        ds__sb_hex(sb, c->fixed_mask, 8);
        ds__sb_putc(sb, '\n');
    }
    if (c->has_leaf_23) {
        ds__sb_puts(sb, "leaf23.subleaves: ");
        ds__sb_hex(sb, c->leaf23_subleaves, 8);
        ds__sb_puts(sb, "\nleaf23.features: ");
        ds__sb_hex(sb, c->leaf23_features, 8);
        ds__sb_putc(sb, '\n');
    }
}

/* IA32_MISC_ENABLE and IA32_PERF_CAPABILITIES as identification read them
 * (SDM Vol. 4 "Architectural MSRs"; absent ones say why). */
static void format_msrs(struct ds__sb *sb, const struct ds_caps *c)
{
    if (c->has_misc_enable) {
        ds__sb_puts(sb, "misc_enable: ");
        ds__sb_hex(sb, c->misc_enable, 16);
        ds__sb_putc(sb, '\n');
        kv_bool(sb, "misc_enable.perfmon_available", c->perfmon_available);
        kv_bool(sb, "misc_enable.bts_unavailable", c->bts_unavailable);
        kv_bool(sb, "misc_enable.pebs_unavailable", c->pebs_unavailable);
    } else {
        absent(sb, "misc_enable", "IA32_MISC_ENABLE (0x1A0)", c->misc_enable_err);
    }
    if (c->has_perf_caps) {
        ds__sb_puts(sb, "perf_capabilities: ");
        ds__sb_hex(sb, c->perf_caps, 16);
        ds__sb_putc(sb, '\n');
        kv_dec(sb, "perf_caps.lbr_format", c->lbr_format);
        kv_dec(sb, "perf_caps.pebs_format", c->pebs_format);
        kv_bool(sb, "perf_caps.pebs_trap", c->pebs_trap);
        kv_bool(sb, "perf_caps.pebs_arch_reg", c->pebs_arch_reg);
        kv_bool(sb, "perf_caps.smm_freeze", c->smm_freeze);
        kv_bool(sb, "perf_caps.fw_write", c->fw_write);
        kv_bool(sb, "perf_caps.pebs_baseline", c->pebs_baseline);
    } else {
        absent(sb, "perf_capabilities", "IA32_PERF_CAPABILITIES (0x345)", c->perf_caps_err);
    }
}

DS_COLD int ds_caps_format(const struct ds_caps *c, char *buf, size_t len)
{
    struct ds__sb sb;
    if (!c || !buf)
        return DS_ERR_NULL;
    if (!len)
        return DS_ERR_BUFSZ;
    ds__sb_init(&sb, buf, len);
    format_ident(&sb, c);
    format_hybrid(&sb, c);
    format_perfmon(&sb, c);
    format_msrs(&sb, c);
    kv_bool(&sb, "bts.advertised", c->bts_advertised);
    kv_bool(&sb, "pebs.advertised", c->pebs_advertised);
    return sb.truncated ? DS_ERR_BUFSZ : DS_OK;
}
#else /* !DS_CONFIG_FORMAT */

/* Renderers compiled out (ds/config.h): an empty string, DS_ERR_UNSUPPORTED. */
DS_COLD int ds_caps_format(const struct ds_caps *c, char *buf, size_t len)
{
    (void)c;
    if (buf && len)
        buf[0] = '\0';
    return DS_ERR_UNSUPPORTED;
}

#endif /* DS_CONFIG_FORMAT */

/* MSR/CPUID dispatch (ds/msr.h declares them): backend table when present,
 * else the instructions. Here, not in an msr.c, because they read struct
 * ds_cpu: msr.h stays below cpu (issue 26 item 5). */
int ds_msr_read(const struct ds_cpu *cpu, uint32_t msr, uint64_t *out)
{
    if (!cpu || !out)
        return DS_ERR_NULL;
    return ds__msr_rd(cpu, msr, out); /* cpu_int.h: the dispatch, shared with pmi.c */
}

int ds_msr_write(const struct ds_cpu *cpu, uint32_t msr, uint64_t val)
{
    if (!cpu)
        return DS_ERR_NULL;
    return ds__msr_wr(cpu, msr, val);
}

void ds_cpuid(const struct ds_cpu *cpu, uint32_t leaf, uint32_t subleaf, uint32_t out[4])
{
    if (!out)
        return; /* nowhere to put the result: nothing executed */
    out[0] = out[1] = out[2] = out[3] = 0;
    if (!cpu)
        return;
    if (cpu->ops && cpu->ops->cpuid) {
        cpu->ops->cpuid(cpu->ops_ctx, leaf, subleaf, out);
        return;
    }
#if !defined(DS_HOSTED)
    ds_cpuid_native(leaf, subleaf, out);
#else
    (void)leaf;
    (void)subleaf;
#endif
}
