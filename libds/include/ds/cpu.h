/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * CPU identification: the per-CPU context (struct ds_cpu) and what the CPU
 * claims about DS, PEBS, BTS, LBR and performance monitoring.
 *
 * Everything here is what CPUID and the capability MSRs *advertise*. Whether
 * the facilities actually work (emulators advertise DS and perfmon and
 * implement none of it) is the functional probe's job (probe.h).
 *
 * Sources: SDM Vol. 2A "CPUID" (leaf 01H, leaf 0AH, DisplayFamily and
 * DisplayModel); SDM Vol. 3B "Architectural Performance Monitoring",
 * "IA32_PERF_CAPABILITIES"; ../shared/reference/msr.md sections 1-2.
 */
#ifndef DS_CPU_H
#define DS_CPU_H

#include <stdint.h>
#include <stddef.h>
#include <stdbool.h>
#include <ds/err.h>
#include <ds/msr.h>

#ifdef __cplusplus
extern "C" {
#endif

/* CPUID.01H:ECX / EDX bits used by libds (SDM Vol. 2A, Table "Feature Information") */
#define DS_CPUID1_ECX_DTES64  (1u << 2)
#define DS_CPUID1_ECX_DSCPL   (1u << 4)
#define DS_CPUID1_ECX_PDCM    (1u << 15)
#define DS_CPUID1_ECX_X2APIC  (1u << 21)
#define DS_CPUID1_EDX_MSR     (1u << 5)
#define DS_CPUID1_EDX_APIC    (1u << 9)
#define DS_CPUID1_EDX_DS      (1u << 21)

/* CPUID.(07H,0):EDX bits (SDM Vol. 2A, "Structured Extended Feature Flags") */
#define DS_CPUID7_EDX_HYBRID    (1u << 15)
#define DS_CPUID7_EDX_ARCH_LBR  (1u << 19)
/* CPUID.(07H,1):EAX[8]: architectural perfmon extension leaf 23H (Linux
 * cpufeatures.h X86_FEATURE_ARCH_PERFMON_EXT (12*32+ 8)) */
#define DS_CPUID7_1_EAX_ARCH_PERFMON_EXT (1u << 8)

/* CPUID.1AH:EAX[31:24] core types (SDM Vol. 2A, leaf 1AH "Native Model ID Enumeration") */
#define DS_CORE_TYPE_NONE  0x00
#define DS_CORE_TYPE_ATOM  0x20
#define DS_CORE_TYPE_CORE  0x40

/* Which PMU of a hybrid part the CPU has (ds_caps.pmu_kind), named after Linux's
 * hybrid PMUs (arch/x86/events/intel/core.c find_hybrid_pmu_for_cpu,
 * intel_hybrid_pmu_type_map): a Core core type is the big PMU "cpu_core"; an Atom
 * core type is the small PMU "cpu_atom", except on parts with three PMU kinds
 * (Arrow Lake-H 06_C5H: intel_pmu_init hybrid_big_small_tiny), where the native
 * model ID CPUID.1AH:EAX[23:0] tells them apart: 3 (Skymont) small, 2 (Crestmont,
 * the low-power E-cores) tiny "cpu_lowpower", anything else no PMU Linux knows. */
enum ds_pmu_kind {
    DS_PMU_KIND_NONE = 0,       /* not hybrid, or no leaf 1AH: one PMU kind */
    DS_PMU_KIND_CORE = 1,       /* P-core (hybrid_big, cpu_core) */
    DS_PMU_KIND_ATOM = 2,       /* E-core (hybrid_small, cpu_atom) */
    DS_PMU_KIND_LOWPOWER = 3,   /* low-power E-core (hybrid_tiny, cpu_lowpower) */
    DS_PMU_KIND_UNKNOWN = 4,    /* hybrid, but core type / native model ID match none */
};
#define DS_ATOM_NATIVE_CRESTMONT 0x2u   /* Linux INTEL_ATOM_CMT_NATIVE_ID */
#define DS_ATOM_NATIVE_SKYMONT   0x3u   /* Linux INTEL_ATOM_SKT_NATIVE_ID */

/* CPUID leaf 23H (architectural performance monitoring extended leaf; SDM Vol. 2A
 * CPUID 23H; Linux arch/x86/include/asm/perf_event.h ARCH_PERFMON_EXT_LEAF).
 * Sub-leaf 0 EAX: bit n set = sub-leaf n is valid. Sub-leaf 0 EBX: features. */
#define DS_LEAF23_SUB_COUNTERS    (1u << 1)  /* 23H.1: EAX GP bitmap, EBX fixed bitmap */
#define DS_LEAF23_SUB_ACR         (1u << 2)  /* 23H.2: auto counter reload */
#define DS_LEAF23_SUB_EVENTS      (1u << 3)  /* 23H.3: architectural events */
#define DS_LEAF23_SUB_PEBS_CAPS   (1u << 4)  /* 23H.4: architectural PEBS capabilities (EBX) */
#define DS_LEAF23_SUB_PEBS_CNTRS  (1u << 5)  /* 23H.5: PEBS / PDIST capable counter bitmaps */
#define DS_LEAF23_EBX_UMASK2      (1u << 0)  /* IA32_PERFEVTSELx.UMASK2 [47:40] */
#define DS_LEAF23_EBX_EQ          (1u << 1)  /* IA32_PERFEVTSELx.EQ [36] */
#define DS_LEAF23_EBX_RDPMC_UDIS  (1u << 2)  /* RDPMC user disable */

/* IA32_PERF_CAPABILITIES fields (SDM Vol. 3B "IA32_PERF_CAPABILITIES"; msr.md) */
#define DS_PERFCAP_LBR_FMT_MASK      0x3Full
#define DS_PERFCAP_PEBS_TRAP         (1ull << 6)
#define DS_PERFCAP_PEBS_ARCH_REG     (1ull << 7)
#define DS_PERFCAP_PEBS_FMT_SHIFT    8
#define DS_PERFCAP_PEBS_FMT_MASK     (0xFull << 8)
#define DS_PERFCAP_SMM_FREEZE        (1ull << 12)
#define DS_PERFCAP_FW_WRITE          (1ull << 13)
#define DS_PERFCAP_PEBS_BASELINE     (1ull << 14)
#define DS_PERFCAP_PERF_METRICS      (1ull << 15)
#define DS_PERFCAP_PEBS_OUTPUT_PT    (1ull << 16)
#define DS_PERFCAP_PEBS_TIMING_INFO  (1ull << 17)

enum ds_vendor {
    DS_VENDOR_UNKNOWN = 0,
    DS_VENDOR_INTEL = 1,  /* "GenuineIntel" */
    DS_VENDOR_AMD = 2,    /* "AuthenticAMD" (no DS; reported, never used) */
    DS_VENDOR_OTHER = 3,
};

/*
 * What the CPU advertises. Filled by ds_cpu_identify(); plain data, safe to
 * copy. Fields that depend on a leaf or MSR the CPU lacks are 0 and the
 * matching has_* flag is false.
 */
struct ds_caps {
    enum ds_vendor vendor;
    char vendor_str[13];          /* CPUID.0 EBX,EDX,ECX, NUL-terminated */
    uint32_t max_leaf;            /* CPUID.0:EAX */
    uint32_t signature;           /* CPUID.01H:EAX */
    uint32_t cpuid1_ecx, cpuid1_edx;
    uint8_t family, model, stepping;  /* raw fields of CPUID.01H:EAX */
    uint16_t display_family;      /* SDM rule: family + ext family if family == 0FH */
    uint8_t display_model;        /* SDM rule: ext model << 4 | model if family 06H or 0FH */

    bool ds;                      /* CPUID.01H:EDX[21] */
    bool dtes64;                  /* CPUID.01H:ECX[2] */
    bool ds_cpl;                  /* CPUID.01H:ECX[4] */
    bool pdcm;                    /* CPUID.01H:ECX[15] */
    bool x2apic;                  /* CPUID.01H:ECX[21] */
    bool netburst;                /* DisplayFamily == 0FH and Intel */

    /* CPUID.(07H,0):EDX (read when max_leaf >= 7) */
    uint32_t cpuid7_edx;
    bool hybrid;                  /* EDX[15]: hybrid part (core types differ, leaf 1AH) */
    bool arch_lbr;                /* EDX[19]: architectural LBR (the only Arch LBR test) */

    /* CPUID leaf 1AH (read when max_leaf >= 1AH; may be filled on non-hybrid
     * parts too, e.g. Jasper Lake reports an Atom core type): of the CPU the
     * identification ran on. */
    bool has_leaf_1a;             /* EAX != 0 */
    uint8_t core_type;            /* EAX[31:24]: DS_CORE_TYPE_* */
    uint32_t native_model_id;     /* EAX[23:0] */

    /* CPUID leaf 1CH (Arch LBR capabilities; read only when arch_lbr) */
    bool has_leaf_1c;
    uint32_t lbr_1c_eax, lbr_1c_ebx, lbr_1c_ecx;

    /* CPUID.(07H,1):EAX[8], read when 07H.0:EAX >= 1 (Linux get_cpu_cap) */
    bool arch_perfmon_ext;

    /* CPUID leaf 23H (read when max_leaf >= 23H, Intel and arch_perfmon_ext,
     * as Linux: X86_FEATURE_ARCH_PERFMON_EXT; has_leaf_23 when
     * sub-leaf 0 EAX is non-zero). Sub-leaf words kept raw where the meaning
     * belongs to another facility (arch PEBS). */
    bool has_leaf_23;
    uint32_t leaf23_subleaves;    /* 23H.0:EAX: DS_LEAF23_SUB_* */
    uint32_t leaf23_features;     /* 23H.0:EBX: DS_LEAF23_EBX_* */
    uint32_t arch_pebs_caps;      /* 23H.4:EBX (CFG_C [63:32] layout), when enumerated */
    uint32_t arch_pebs_gp_mask;   /* 23H.5:EAX: PEBS-capable GP counters */
    uint32_t arch_pdist_gp_mask;  /* 23H.5:EBX: PDIST-capable GP counters */
    uint32_t arch_pebs_fixed_mask;  /* 23H.5:ECX: PEBS-capable fixed counters */
    uint32_t arch_pdist_fixed_mask; /* 23H.5:EDX: PDIST-capable fixed counters */

    /* CPUID leaf 0AH (architectural performance monitoring) */
    bool has_leaf_0a;
    uint8_t perfmon_version;      /* EAX[7:0]; 0 = none */
    uint8_t gp_counters;          /* EAX[15:8] */
    uint8_t gp_width;             /* EAX[23:16] */
    uint8_t ebx_length;           /* EAX[31:24] */
    uint32_t events_unavailable;  /* EBX: bit set = architectural event NOT available */
    uint32_t fixed_mask;          /* supported fixed counters: v5+ ECX | low EDX[4:0] bits (SDM rule) */
    uint8_t fixed_counters;       /* EDX[4:0] (v2+), or fls(ECX) on v5+ */
    uint8_t fixed_width;          /* EDX[12:5] */
    bool anythread_deprecated;    /* EDX[15], read from v5 (Linux intel_pmu_init): AnyThread refused */
    /* Counters that exist, as bitmaps: CPUID.23H.1 EAX (GP) / EBX (fixed)
     * where enumerated (they supersede leaf 0AH and may be non-contiguous),
     * else derived from leaf 0AH (gp_counters contiguous; fixed_mask above).
     * Counter programming must use these, not the counts. */
    uint32_t gp_mask;

    /* IA32_MISC_ENABLE (read only on Intel CPUs) */
    bool has_misc_enable;
    uint64_t misc_enable;
    bool perfmon_available;       /* bit 7 */
    bool bts_unavailable;         /* bit 11 */
    bool pebs_unavailable;        /* bit 12 */

    /* IA32_PERF_CAPABILITIES (read only when PDCM) */
    bool has_perf_caps;
    uint64_t perf_caps;
    uint8_t lbr_format;           /* [5:0] */
    bool pebs_trap;               /* [6] */
    bool pebs_arch_reg;           /* [7] */
    uint8_t pebs_format;          /* [11:8]; NetBurst: 0 and meaningless (see pebs.h) */
    bool smm_freeze;              /* [12] */
    bool fw_write;                /* [13] */
    bool pebs_baseline;           /* [14] */
    bool perf_metrics;            /* [15] */
    bool pebs_output_pt;          /* [16] */
    bool pebs_timing_info;        /* [17] */

    /* Derived: what the CPU advertises, before any functional probe */
    bool bts_advertised;          /* Intel && DS && !BTS_UNAVAILABLE */
    bool pebs_advertised;         /* Intel && DS && !PEBS_UNAVAILABLE && perfmon */

    /* Why IA32_MISC_ENABLE / IA32_PERF_CAPABILITIES were not read (has_*
     * false), one enum ds_err each: DS_OK (read), DS_ERR_NOT_INTEL (other
     * vendor: not touched), DS_ERR_NO_MSR (MISC_ENABLE: CPUID.01H:EDX.MSR = 0
     * or a family-6 part before 06_0DH: not touched), DS_ERR_NO_PDCM
     * (PERF_CAPABILITIES: CPUID.01H:ECX.PDCM = 0: not touched), or
     * DS_ERR_MSR_FAULT: advertised, read, and the read faulted (hypervisors
     * and emulators do this); that capability is then absent and
     * identification went on with everything else. */
    int misc_enable_err;          /* (both valid once cpu->identified) */
    int perf_caps_err;

    /* Deepest Arch LBR stack the CPU supports: 8 * fls(CPUID.1CH:EAX[7:0])
     * (SDM Vol. 2A leaf 1CH: bit n set = depth 8 * (n + 1) supported; Linux
     * intel_pmu_arch_lbr_init). 0 without leaf 1CH. */
    uint8_t arch_lbr_depth;

    /* enum ds_pmu_kind of the CPU the identification ran on (issue 11): from
     * hybrid, core_type, native_model_id and DisplayFamily_DisplayModel. */
    uint8_t pmu_kind;
};

/*
 * Per-logical-CPU context. The caller owns the memory (one per logical
 * processor: the DS area and IA32_DEBUGCTL are per logical processor).
 * Initialise with ds_cpu_init(); the fields are readable, not to be written.
 */
struct ds_cpu {
    const struct ds_msr_ops *ops; /* NULL: native instructions */
    void *ops_ctx;
    bool ia32e;                   /* IA-32e mode active (decides the DS layout with DTES64 = 0) */
    bool identified;              /* ds_cpu_identify() succeeded */
    struct ds_caps caps;
};

/*
 * Prepare @cpu. @ops may be NULL for native RDMSR/WRMSR/CPUID (not allowed
 * on a host build, where there is no ring 0: DS_ERR_INVAL). ia32e defaults
 * to "this code is compiled for x86_64"; set it with ds_cpu_set_ia32e() for
 * a backend that models another mode. Zeroes cpu->caps, clears identified.
 * Returns DS_OK, DS_ERR_NULL (@cpu NULL), DS_ERR_INVAL (host build, @ops NULL).
 * MSRs: none. NMI-safe: yes (memory only).
 */
int ds_cpu_init(struct ds_cpu *cpu, const struct ds_msr_ops *ops, void *ops_ctx);

/*
 * Override whether IA-32e mode is active (backends modelling 32-bit CPUs).
 * Returns DS_OK, DS_ERR_NULL. MSRs: none. NMI-safe: yes.
 */
int ds_cpu_set_ia32e(struct ds_cpu *cpu, bool ia32e);

/*
 * Identify the CPU: CPUID leaves 0, 01H, 0AH; IA32_MISC_ENABLE (Intel only);
 * IA32_PERF_CAPABILITIES (only if PDCM). Fills cpu->caps and sets
 * cpu->identified. A non-Intel CPU is identified successfully (vendor set,
 * nothing advertised) and no MSR is read on it.
 * Returns DS_OK or DS_ERR_NULL. An MSR that is advertised but faults (a
 * backend's DS_ERR_MSR_FAULT: hypervisors and emulators #GP on
 * IA32_PERF_CAPABILITIES with PDCM set, or on IA32_MISC_ENABLE) is not an
 * error: that capability is absent (has_* false, caps.misc_enable_err /
 * caps.perf_caps_err = DS_ERR_MSR_FAULT say which MSR faulted), and
 * identification finishes everything else. Without MISC_ENABLE, BTS and
 * PEBS are not advertised; without PERF_CAPABILITIES there is no PEBS or
 * LBR format.
 * IA32_MISC_ENABLE is read only on Intel with CPUID.01H:EDX.MSR.
 * MSRs: reads IA32_MISC_ENABLE (0x1A0), IA32_PERF_CAPABILITIES (0x345);
 * writes none. NMI-safe: no, because it rewrites cpu->caps that NMI-time
 * calls read (call once at boot, before enabling anything).
 */
int ds_cpu_identify(struct ds_cpu *cpu);

/* "core", "atom", "lowpower", "unknown" or "none" for an enum ds_pmu_kind
 * value (Linux's PMU names: cpu_core, cpu_atom, cpu_lowpower); "?" otherwise. */
const char *ds_pmu_kind_name(unsigned kind);

/*
 * DisplayFamily/DisplayModel from a CPUID.01H:EAX signature (SDM Vol. 2A
 * CPUID, "DisplayFamily / DisplayModel"). Either output may be NULL (then
 * not written). No error return. MSRs: none. NMI-safe: yes (pure).
 */
void ds_display_fms(uint32_t signature, uint16_t *out_family, uint8_t *out_model);

/*
 * Render @caps as human-readable text lines ("key: value\n") into buf.
 * A capability MSR that was not read prints as "misc_enable: absent
 * (IA32_MISC_ENABLE (0x1A0): <why>)", why being ds_strerror() of
 * caps.misc_enable_err / perf_caps_err (e.g. "MSR access faulted (#GP)"); the
 * core type line appears when leaf 1AH is filled, the Arch LBR depth with leaf
 * 1CH.
 * Always NUL-terminates when len > 0. Returns DS_OK, DS_ERR_NULL (@caps or
 * @buf NULL), DS_ERR_BUFSZ if the text did not fit (it is then truncated)
 * or @len is 0, or DS_ERR_UNSUPPORTED (empty string) in a build with
 * DS_CONFIG_FORMAT=0 (ds/config.h).
 * MSRs: none. NMI-safe: yes (pure, no locks).
 */
int ds_caps_format(const struct ds_caps *caps, char *buf, size_t len);

#ifdef __cplusplus
}
#endif

#endif /* DS_CPU_H */
