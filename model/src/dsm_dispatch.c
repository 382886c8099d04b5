/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * dsmodel: reference model of the Intel Debug Store hardware.
 * Written from ../../shared/reference/ (SDM Vol. 3B chapters 17-19 and the
 * MSR chapter as restated there). Includes no libds header.
 *
 * This file: the emulated CPU's entry points, on top of the facility files
 * (issue 26 item 5: no call circle): the CPU profiles and dsm_init, CPUID,
 * the MSR dispatch (dsm_rdmsr / dsm_wrmsr with their statistics and the
 * MSR hook) and dsm_retire (one retired instruction: counters, BTS, LBR,
 * then the PMI). dsmodel.c below the facilities holds the setters, the
 * statistics getters and the helpers the facilities share.
 */
#include "dsmodel_int.h"

/* ---- profiles ----------------------------------------------------------- */
struct dsm_prof {
    const char *name;
    uint8_t kind;
    bool lm;
    uint32_t max_leaf, sig, c1_ecx, c1_edx;
    uint32_t a_eax, a_ebx, a_ecx, a_edx;
    uint64_t misc, caps;
    int8_t pebs_fmt;
    bool ll;
    uint64_t debugctl_valid, evtsel_valid, lbrsel_valid;
    uint8_t row_model;   /* DisplayModel of the LBR row; family from the signature */
    /* issue 11 (0 for the older profiles): CPUID.(07H,0):EDX, 1AH:EAX, 1CH:EAX/EBX/ECX,
     * 23H sub-leaves 0..3 EAX/EBX. EDX[19] set: Arch LBR row built from 1CH. */
    uint32_t c7_edx, l1a_eax, l1c[3], l23[4][2];
    /* issue 14 (0 elsewhere): DEBUGCTL bits a write accepts and drops (KVM vmx_set_msr
     * MSR_IA32_DEBUGCTLMSR ignores BTF/LBR it does not support); no_lbr: no LBR MSRs. */
    uint64_t debugctl_drop;
    bool no_lbr;
};

#define EDX_STD 0xBFEBFBFFu   /* FPU..PBE incl. MSR(5), APIC(9), DS(21), ACPI(22) */
#define MISC_STD 0x850089ull  /* fast strings, TCC, perfmon available (7), EIST, ... */
static const struct dsm_prof dsm_profs[DSM_PROFILE__COUNT] = {
    [DSM_NONE_DS] = { "no-ds (06_CFH)", K_NONE, false, 2, 0x000C06F2, 0, 0x0383FBFFu, 0, 0, 0, 0,
                      DSM_MISC_NO_BTS | DSM_MISC_NO_PEBS, 0, -1, false, 0x3, 0, 0, 0 },
    [DSM_NETBURST_M2] = { "netburst-m2 (0F_02H)", K_NB, false, 2, 0x00000F29, 0x00004400, EDX_STD,
                          0, 0, 0, 0, DSM_MISC_PERFMON | 1, 0, -1, false, DSM_NBDBG_VALID, 0, 0, 0x02 },
    [DSM_NETBURST_M3] = { "netburst-m3 (0F_03H)", K_NB, false, 5, 0x00000F34, 0x00004401, EDX_STD,
                          0, 0, 0, 0, DSM_MISC_PERFMON | 1, 0, -1, false, DSM_NBDBG_VALID, 0, 0, 0x03 },
    [DSM_NETBURST_M4_64] = { "netburst-m4-64 (0F_04H)", K_NB, true, 5, 0x00000F41, 0x0000441D, EDX_STD,
                             0, 0, 0, 0, DSM_MISC_PERFMON | 1, 0, -1, false, DSM_NBDBG_VALID, 0, 0, 0x04 },
    [DSM_CORE2] = { "core2 (06_0FH)", K_ARCH, true, 0xA, 0x000006F6, 0x0000E3BD, EDX_STD,
                    0x07280202, 0, 0, 0x503, MISC_STD, 0xC1, 0, false, 0x1FC3, 0xFFDFFFFFull, 0, 0x0F },
    [DSM_ATOM] = { "atom (06_1CH)", K_ARCH, true, 0xA, 0x000106CA, 0x0040E39D, EDX_STD,
                   0x07280203, 0, 0, 0x503, MISC_STD, 0xC1, 0, false, 0x1FC3, 0xFFFFFFFFull, 0, 0x1C },
    [DSM_NEHALEM] = { "nehalem (06_1AH)", K_ARCH, true, 0xB, 0x000106A5, 0x0098E3BD, EDX_STD,
                      0x07300403, 0, 0, 0x603, MISC_STD, 0x1C3, 1, true, 0x3FC3, 0xFFFFFFFFull, 0x1FF, 0x1A },
    [DSM_HASWELL] = { "haswell (06_3CH)", K_ARCH, true, 0xD, 0x000306C3, 0x7FFAFBBF, EDX_STD,
                      0x07300403, 0, 0, 0x603, MISC_STD, 0x32C4, 2, true, 0xFFC3, 0x3FFFFFFFFull, 0x3FF, 0x3C },
    [DSM_SKYLAKE] = { "skylake (06_5EH)", K_ARCH, true, 0x16, 0x000506E3, 0x7FFAFBBF, EDX_STD,
                      0x07300404, 0, 0, 0x603, MISC_STD, 0x33C5, 3, true, 0xFFC3, 0x3FFFFFFFFull, 0x3FF, 0x5E },
    [DSM_ICELAKE] = { "icelake (06_7EH)", K_ARCH, true, 0x1B, 0x000706E5, 0x7FFAFBBF, EDX_STD,
                      0x07300805, 0, 0xF, 0x604, MISC_STD, 0xF4C5, 4, true, 0xFFC3, 0x7FFFFFFFFull, 0x3FF, 0x7E },
    /* Issue 11. CPUID words: shared/cpuid dumps (logical CPU #0 unless said).
     * PERF_CAPABILITIES (no dump holds it) from the SDM bit definitions: LBR_FMT
     * 3FH = Arch LBR, 6 PEBS_TRAP, 7 PEBS_ARCH_REG, 11:8 PEBS_REC_FMT, 12
     * SMM_FRZ, 13 FW_WRITE, 14 PEBS_BASELINE, 15 PERF_METRICS, 17 PEBS_TIMING_INFO. */
    /* GenuineIntel00806F8_SapphireRapids_05_CPUID.txt: 00H EAX 20H, 01H EAX 806F8H ECX 7FFEFBFFH,
     * 0AH 08300805H/0/FH/8604H, 07H EDX FFDD4430H (EDX[19] Arch LBR), 1CH 4000000BH/7/7. */
    [DSM_SAPPHIRERAPIDS] = { "sapphirerapids (06_8FH)", K_ARCH, true, 0x20, 0x000806F8, 0x7FFEFBFF, EDX_STD,
                             0x08300805, 0, 0xF, 0x8604, MISC_STD, 0xF4FF, 4, true, 0xFFC3, 0x7FFFFFFFFull, 0, 0x8F,
                             0xFFDD4430, 0, { 0x4000000B, 7, 7 }, { { 0, 0 } } },
    /* Granite Rapids: no dump here. Signature 06_ADH stepping 1 (Linux intel-family.h
     * INTEL_GRANITERAPIDS_X 0xAD); the other words are Sapphire Rapids' (the
     * Emerald Rapids dump, 00C06F2, has the same 0AH and 1CH words); plus timed
     * PEBS, PERF_CAPABILITIES[17] (Linux intel_pmu_init sets PMU_FL_RETIRE_LATENCY
     * when pebs_timing_info). */
    [DSM_GRANITERAPIDS] = { "graniterapids (06_ADH)", K_ARCH, true, 0x20, 0x000A06D1, 0x7FFEFBFF, EDX_STD,
                            0x08300805, 0, 0xF, 0x8604, MISC_STD, 0x2F4FF, 4, true, 0xFFC3, 0x7FFFFFFFFull, 0, 0xAD,
                            0xFFDD4430, 0, { 0x4000000B, 7, 7 }, { { 0, 0 } } },
    /* GenuineIntel00B06D1_LunarLake_04_CPUID.txt, a P-core (1AH 40000003H, Lion Cove):
     * 00H EAX 23H, 01H 000B06D1H ECX 7FFAFBFFH, 0AH 0D300806H/280H/7/8603H, 07H EDX
     * FC1CC430H (hybrid, Arch LBR), 1CH 4000000BH/7/000F0007H, 23H.0 0BH/3,
     * 23H.1 3FFH/FH (10 GP, 4 fixed), 23H.3 1DFFH. PEBS format 6 (Linux "Add PEBS
     * format 6"); event select v6 adds EQ [36] and UMASK2 [47:40]. */
    [DSM_LUNARLAKE] = { "lunarlake (06_BDH)", K_ARCH, true, 0x23, 0x000B06D1, 0x7FFAFBFF, EDX_STD,
                        0x0D300806, 0x280, 0x7, 0x8603, MISC_STD, 0xF6FF, 6, true, 0xFFC3,
                        0xFF17FFFFFFFFull, 0, 0xBD,
                        0xFC1CC430, 0x40000003, { 0x4000000B, 7, 0x000F0007 },
                        { { 0x0B, 3 }, { 0x3FF, 0xF }, { 0, 0 }, { 0x1DFF, 0 } } },
    /* GenuineIntel0090672_AlderLake_02_CPUID.txt is a P-core-only part (12 threads,
     * 07H EDX FC984510H: EDX[15] hybrid clear, 1AH zero). The P-core takes its 01H,
     * 0AH 08300805H/0/FH/8604H and 1CH 4000000BH/7/7 words, with EDX[15] set and
     * 1AH 40000001H as a hybrid 06_97H part reports (core type 40H Golden Cove,
     * native model 1). */
    [DSM_ALDERLAKE_P] = { "alderlake-p (06_97H)", K_ARCH, true, 0x20, 0x00090672, 0x7FFAFBBF, EDX_STD,
                          0x08300805, 0, 0xF, 0x8604, MISC_STD, 0xF4FF, 4, true, 0xFFC3, 0x7FFFFFFFFull, 0, 0x97,
                          0xFC98C510, 0x40000001, { 0x4000000B, 7, 7 }, { { 0, 0 } } },
    /* The E-core (Gracemont, 1AH 20000001H) is not in any dump here: 6 GP and 3
     * fixed counters as Linux intel_pmu_init gives the Alder Lake atom PMU
     * (num_counters - 2, num_counters_fixed - 1), 0AH ECX 7 / EDX 8603H and 1CH
     * C000000BH/7/7 as the Meteor Lake E-core (00A06A4 dump, Crestmont) reports;
     * no PERF_METRICS (Linux clears it for the atom PMU). */
    [DSM_ALDERLAKE_E] = { "alderlake-e (06_97H)", K_ARCH, true, 0x20, 0x00090672, 0x7FFAFBBF, EDX_STD,
                          0x07300605, 0, 0x7, 0x8603, MISC_STD, 0x74FF, 4, true, 0xFFC3, 0x7FFFFFFFFull, 0, 0x97,
                          0xFC98C510, 0x20000001, { 0xC000000B, 7, 7 }, { { 0, 0 } } },
    /* Issue 14: KVM guests with QEMU "-cpu host,migratable=no,pmu=on" (not measured here:
     * composed from the sources; the model keeps its own constants).
     * CPUID.1:ECX: the host word masked by KVM kvm_set_cpu_caps (cpuid.c: MONITOR 3,
     * DS-CPL 4, VMX 5, SMX 6, EST 7, TM2 8, xTPR 14, DCA 18 not offered) plus the
     * hypervisor bit 31 (QEMU target/i386/cpu.c CPUID_EXT_HYPERVISOR); DTES64 (2) and
     * DS (EDX 21) only with PEBS-EPT (vmx.c vmx_set_cpu_caps: vmx_pebs_supported()).
     * CPUID.1:EDX: KVM offers neither ACPI 22, HTT 28 (one vCPU), TM 29 nor PBE 31.
     * Leaf 0AH: KVM kvm_init_pmu_capability (pmu.h, later pmu.c) caps the version at 2
     * and the fixed counters at 3 (KVM_MAX_NR_FIXED_COUNTERS; without the mediated
     * vPMU), GP counters at 8 (MAX_NR_GP_COUNTERS); 48-bit width.
     * MISC_ENABLE: KVM resets it with BTS_UNAVAIL|PEBS_UNAVAIL (x86.c kvm_vcpu_reset)
     * and clears PEBS_UNAVAIL only with a PEBS format (pmu_intel.c intel_pmu_refresh).
     * PERF_CAPABILITIES: vmx.c vmx_get_perf_capabilities: FW_WRITE (13); the host LBR
     * format only on hosts without Arch LBR; PEBS_TRAP/ARCH_REG/FORMAT only with
     * PEBS-EPT. EVTSEL: intel_pmu_refresh reserves 63:32 and AnyThread 21 (and the
     * adaptive bit 34 without PEBS_BASELINE). DEBUGCTL: vmx_get_supported_debugctl
     * offers LBR and FREEZE_LBRS_ON_PMI (11) only with guest LBR; TR/BTS/BTINT/
     * BTS_OFF_* and FREEZE_PERFMON_ON_PMI (12) #GP; BTF/LBR writes are dropped. */
    /* Sapphire Rapids host: 01H ECX 7FFEFBFFH, EDX masked; 07H EDX FFDD4430H without
     * Arch LBR (19, cpuid.c: Arch LBR is not offered), 1CH zero; PERF_CAPABILITIES
     * 24C0H: PEBS_TRAP, PEBS_ARCH_REG, FW_WRITE and the host's PEBS format, 4
     * (vmx.c vmx_get_perf_capabilities: perf_cap |= host_perf_cap &
     * PERF_CAP_PEBS_MASK; a Sapphire Rapids host writes format 4, as the
     * sapphirerapids profile: Linux core.c sets pebs_ept for SAPPHIRERAPIDS_X
     * itself, as for ICELAKE_X, while ds.c intel_ds_init sets it for format 5
     * parts, Like Xu 2022-09-22 "Expose EPT-friendly PEBS for SPR and future
     * models"; docs/design.md "Which CPUs write which PEBS format").
     * PEBS_BASELINE (14) masked ("Disallow adaptive PEBS", newer kernels; older
     * ones kept it from format 4, as a guest's "PEBS fmt4+-baseline" boot line
     * shows): basic-only records; LBR_FMT 0. */
    [DSM_KVM_SPR] = { "kvm-spr (06_8FH guest)", K_ARCH, true, 0x20, 0x000806F8, 0xFFFABA07, 0x0FABFBFF,
                      0x08300802, 0, 0, 0x603, MISC_STD | DSM_MISC_NO_BTS, 0x24C0, 4, true, 0x4,
                      0xFFDFFFFFull, 0, 0x8F, 0xFFD54430, 0, { 0, 0, 0 }, { { 0, 0 } }, 0x3, true },
    /* Skylake host (no PEBS-EPT): 01H ECX 7FFAFBBFH masked, no DTES64/DS; leaf 0AH 4 GP
     * (a Skylake with HT); PERF_CAPABILITIES 2005H: FW_WRITE + the host LBR_FMT 5, no
     * PEBS bits; MISC_ENABLE BTS and PEBS unavailable; the Skylake LBR MSRs (32 at
     * 680H/6C0H/DC0H, LBR_SELECT passed through) with DEBUGCTL.LBR/FREEZE_LBRS. */
    [DSM_KVM_SKL] = { "kvm-skl (06_5EH guest)", K_ARCH, true, 0x16, 0x000506E3, 0xFFFABA03, 0x0F8BFBFF,
                      0x07300402, 0, 0, 0x603, MISC_STD | DSM_MISC_NO_BTS | DSM_MISC_NO_PEBS, 0x2005, -1,
                      true, 0x801, 0xFFDFFFFFull, 0x3FF, 0x5E, 0, 0, { 0, 0, 0 }, { { 0, 0 } }, 0x2, false },
    /* Panther Lake (dsm_archpebs.c): CPUID 00H/01H/0AH from the real dump, PERF_CAPABILITIES
     * PEBS_FMT 0xF (architectural PEBS), FW_WRITE, Arch LBR format 3FH; no DS-area PEBS
     * (pebs_fmt -1: IA32_PEBS_ENABLE 3F1H and MSR_PEBS_DATA_CFG 3F2H #GP, as they do not
     * exist with arch-PEBS: Linux "perf/x86/intel: Initialize architectural PEBS", Dapeng
     * Mi, 20251029102136.61364-6; e2e_arch_pebs probe_ptl); LBR geometry of the Arch LBR
     * row 06_97H. The P-core also has
     * PERF_METRICS (15): its CPUID.(23H,4):EBX[6] enumerates the metrics in the
     * records' counters group, which Linux reaches only through a topdown group, and
     * topdown events need intel_cap.perf_metrics (Linux clears it for the atom PMU
     * only, as the E-core row here lacks both). */
    [DSM_PTL_P] = { "ptl-p (06_CCH P-core, arch PEBS)", K_ARCH, true, 0x28, 0x000C06C3, 0x7FFAFBFF, EDX_STD,
                    0x0D300806, 0x280, 0x7, 0x8603, MISC_STD, 0xAF3F, -1, false, 0xFFC3, 0x7FFFFFFFFull, 0, 0x97 },
    [DSM_PTL_E] = { "ptl-e (06_CCH E-core, arch PEBS)", K_ARCH, true, 0x28, 0x000C06C3, 0x7FFAFBFF, EDX_STD,
                    0x0D300806, 0x280, 0x7, 0x8603, MISC_STD, 0x2F3F, -1, false, 0xFFC3, 0x7FFFFFFFFull, 0, 0x97 },
    /* GenuineIntel00B06D1_LunarLake_04_CPUID.txt, an E-core (logical CPU #4, 1AH
     * 20000003H, Skymont): 00H/01H/0AH/07H words as the P-core's; 1CH C000000BH/7/
     * 000F0007H; 23H.0 EAX FH EBX 3 (sub-leaves 1, 2, 3), 23H.1 FFH/77H (8 GP; fixed
     * 0-2 and 4-6, no fixed 3), 23H.2 FCH/3, 23H.3 1F7FH (23H.0 ECX 8 and 23H.2
     * ECX/EDX are not modelled: the profile carries EAX/EBX). PERF_CAPABILITIES: the
     * P-core's minus PERF_METRICS (15), which Linux clears for the atom PMU
     * (intel_pmu_init hybrid: pmu->intel_cap.perf_metrics = 0). */
    [DSM_LUNARLAKE_E] = { "lunarlake-e (06_BDH E-core)", K_ARCH, true, 0x23, 0x000B06D1, 0x7FFAFBFF, EDX_STD,
                          0x0D300806, 0x280, 0x7, 0x8603, MISC_STD, 0x76FF, 6, true, 0xFFC3,
                          0xFF17FFFFFFFFull, 0, 0xBD,
                          0xFC1CC430, 0x20000003, { 0xC000000B, 7, 0x000F0007 },
                          { { 0x0F, 3 }, { 0xFF, 0x77 }, { 0xFC, 3 }, { 0x1F7F, 0 } } },
    /* Arrow Lake-H P-core (Lion Cove), a CPU that writes PEBS format 5 with
     * PEBS_BASELINE (adaptive groups): the boot log of a Core Ultra 9 285H
     * (family 6 model C5H stepping 2, Linux 6.17.7, linux-usb list 2025-11-03
     * "Re: TB 5 Dock DP-Out non-functional", dmesg attached) prints
     * "Performance Events: XSAVE Architectural LBR, PEBS fmt5+-baseline" and for
     * cpu_core "version: 5", "generic registers: 10", "bit width: 48",
     * "fixed-purpose events: 4", "event mask: 0001000f000003ff" (Linux
     * intel_ds_init prints PERF_CAPABILITIES.PEBS_FMT, "+" for PEBS_TRAP and
     * "-baseline" for PEBS_BASELINE; kernels before the counters-snapshotting
     * patch print "fmt4" for formats 4 and 5 alike). Boot logs of other parts
     * print "fmt4+-baseline" (Meteor Lake 06_AAH, Alder Lake, and a KVM guest of
     * Sapphire Rapids) or "fmt6+" (Arrow Lake-S 06_C6H, a Core Ultra 7 265K,
     * "Lunarlake Hybrid events"; "no PEBS fmt6+" before "Add PEBS format 6"): the
     * format is per part, not per core (docs/design.md "Which CPUs write which
     * PEBS format"). No 06_C5H CPUID dump is in shared/cpuid: the
     * CPUID words are the Arrow Lake-S P-core's (GenuineIntel00C0662_ArrowLake_07_
     * CPUID.txt, logical CPU #0, 1AH 40000003H Lion Cove, the same core: 01H ECX
     * 7FFAFBFFH, 07H EDX FC18C430H, 0AH 0D300806H/280H/7/8603H, 1CH 4000000BH/7/
     * 000F0007H, 23H.0 0BH/3, 23H.1 3FFH/FH (10 GP, fixed 0-3: the log's counts),
     * 23H.3 1DFFH) with the log's differences: signature 000C0652H and perfmon
     * version 5 (0AH EAX[7:0]). PERF_CAPABILITIES: the Lunar Lake P-core's
     * (F6FFH) with PEBS_FMT 5: F5FFH. */
    [DSM_ARROWLAKE_H] = { "arrowlake-h (06_C5H P-core)", K_ARCH, true, 0x23, 0x000C0652, 0x7FFAFBFF, EDX_STD,
                          0x0D300805, 0x280, 0x7, 0x8603, MISC_STD, 0xF5FF, 5, true, 0xFFC3,
                          0xFF17FFFFFFFFull, 0, 0xC5,
                          0xFC18C430, 0x40000003, { 0x4000000B, 7, 0x000F0007 },
                          { { 0x0B, 3 }, { 0x3FF, 0xF }, { 0, 0 }, { 0x1DFF, 0 } } },
};

const char *dsm_profile_name(enum dsm_profile p)
{
    if ((unsigned)p >= DSM_PROFILE__COUNT)
        return "?";
    return dsm_profs[p].name;
}

/* Issue 11 profiles: leaves 07H, 1AH, 1CH, 23H from the profile; the Arch
 * LBR geometry (SDM Vol. 3B "Architectural Last Branch Records": IA32_LBR_x_
 * FROM_IP 1500H, TO_IP 1600H, INFO 1200H, LBR_FMT 3FH) instead of a table row;
 * leaf 23H sub-leaf 1 bitmaps replace the leaf 0AH counts (contiguous here). */
static void init_ext_leaves(struct dsm_cpu *c, const struct dsm_prof *pr)
{
    const struct dsm_lbr_row arch = { (uint16_t)((pr->sig >> 8) & 0xF), pr->row_model, 0,
                                      DSM_MSR_ARCH_LBR_FROM0, DSM_MSR_ARCH_LBR_TO0, DSM_MSR_ARCH_LBR_INFO0,
                                      0, 0x3F, true };
    c->lbr = arch;
    c->cpuid_7[3] = pr->c7_edx;
    c->cpuid_1a[0] = pr->l1a_eax;
    for (int i = 0; i < 3; i++)
        c->cpuid_1c[i] = pr->l1c[i];
    for (int k = 0; k < 4; k++) {
        c->cpuid_23[k][0] = pr->l23[k][0];
        c->cpuid_23[k][1] = pr->l23[k][1];
    }
    if (pr->l23[0][0] & (1u << 1)) {   /* 23H.0:EAX[1]: sub-leaf 1 (counter bitmaps) */
        uint8_t n = 0, f = 0;
        for (uint32_t m = pr->l23[1][0]; m; m >>= 1)
            n++;
        for (uint32_t m = pr->l23[1][1]; m; m >>= 1)
            f++;
        c->ngp = n;
        c->nfixed = f;
        if (pr->l23[1][1] != (uint32_t)wmask(f))   /* holes: say which exist */
            c->fixed_avail = pr->l23[1][1];
    }
    c->timed_pebs = (pr->caps & DSM_CAP_TIMED_PEBS) != 0;
    if (pr->l23[0][0]) {
        /* GenuineIntel00B06D1_LunarLake_04_CPUID.txt (the only profiles with leaf
         * 23H here): 07H.0 EAX 2 (max sub-leaf), 07H.1 44C009D7H/3/0/00040430H;
         * EAX[8] enumerates leaf 23H (Linux X86_FEATURE_ARCH_PERFMON_EXT). */
        static const uint32_t l7_1[4] = { 0x44C009D7, 0x3, 0, 0x00040430 };
        c->cpuid_7[0] = 0x2;
        for (int i = 0; i < 4; i++)
            c->cpuid_7_1[i] = l7_1[i];
    }
}

int dsm_init(struct dsm_cpu *c, enum dsm_profile p, const struct dsm_mem_ops *mem, void *mem_ctx)
{
    if (!c || (unsigned)p >= DSM_PROFILE__COUNT)
        return DSM_EINVAL;
    if (mem && (!mem->read || !mem->write))
        return DSM_EINVAL;
    const struct dsm_prof *pr = &dsm_profs[p];
    dsm_zero(c, sizeof(*c));
    c->profile = p;
    c->kind = pr->kind;
    c->lm = pr->lm;
    c->ia32e = pr->lm;
    /* "GenuineIntel": EBX "Genu", EDX "ineI", ECX "ntel" */
    c->cpuid0[0] = pr->max_leaf;
    c->cpuid0[1] = 0x756E6547;
    c->cpuid0[2] = 0x6C65746E;
    c->cpuid0[3] = 0x49656E69;
    c->cpuid1[0] = pr->sig;
    c->cpuid1[1] = 0x00010800;  /* one logical processor, CLFLUSH 8 */
    c->cpuid1[2] = pr->c1_ecx;
    c->cpuid1[3] = pr->c1_edx;
    c->cpuid_a[0] = pr->a_eax;
    c->cpuid_a[1] = pr->a_ebx;
    c->cpuid_a[2] = pr->a_ecx;
    c->cpuid_a[3] = pr->a_edx;
    c->cpuid_x0[0] = 0x80000008;
    c->cpuid_x1[3] = pr->lm ? (1u << 29) : 0; /* CPUID.80000001H:EDX.LM */
    c->misc_enable = pr->misc;
    c->perf_caps = pr->caps;
    c->version = (uint8_t)(pr->a_eax & 0xFF);
    c->ngp = (uint8_t)((pr->a_eax >> 8) & 0xFF);
    c->gp_width = (uint8_t)((pr->a_eax >> 16) & 0xFF);
    c->nfixed = (uint8_t)(pr->a_edx & 0x1F);
    c->fixed_width = (uint8_t)((pr->a_edx >> 5) & 0xFF);
    c->pebs_fmt = pr->pebs_fmt;
    c->ll = pr->ll;
    c->debugctl_valid = pr->debugctl_valid;
    c->debugctl_drop = pr->debugctl_drop;
    c->evtsel_valid = pr->evtsel_valid;
    c->lbrsel_valid = pr->lbrsel_valid;
    if (pr->kind != K_NONE && (pr->c7_edx & DSM_C7_EDX_ARCH_LBR)) {
        init_ext_leaves(c, pr);
    } else if (pr->no_lbr) {
        c->cpuid_7[3] = pr->c7_edx;   /* c->lbr stays zero: depth 0, no LBR MSRs */
    } else if (pr->kind != K_NONE) {
        c->cpuid_7[3] = pr->c7_edx;
        uint16_t fam = (uint16_t)((pr->sig >> 8) & 0xF);
        const struct dsm_lbr_row *row = dsm__lbr_find_row(fam, pr->row_model);
        if (!row)
            return DSM_EINVAL;
        c->lbr = *row;
    }
    for (int i = 0; i < 18; i++)
        c->nb_escr_of[i] = -1;
    c->mem = mem;
    c->mem_ctx = mem_ctx;
    if (p == DSM_PTL_P || p == DSM_PTL_E)
        dsm__apebs_init(c, p == DSM_PTL_E);
    dsm__lbr_reset(c);
    return DSM_OK;
}

/* After an MSR access: the handler's own instructions (dsm_set_msr_hook). */
static void msr_hook(struct dsm_cpu *c, uint32_t msr, bool wr)
{
    if (!c->msr_hook || c->in_msr_hook)
        return;
    c->in_msr_hook = true;
    c->msr_hook(c->msr_hook_ctx, msr, wr);
    c->in_msr_hook = false;
}

void dsm_cpuid(struct dsm_cpu *c, uint32_t leaf, uint32_t sub, uint32_t out[4])
{
    if (!out)
        return;
    out[0] = out[1] = out[2] = out[3] = 0;
    if (!c)
        return;
    c->st.cpuid++;
    if (c->ap.on && (leaf <= c->cpuid0[0] || leaf >= 0x80000000u) && dsm__apebs_cpuid(c, leaf, sub, out))
        return;
    const uint32_t *src = NULL;
    if (leaf == 0)
        src = c->cpuid0;
    else if (leaf > c->cpuid0[0] && leaf < 0x80000000u)
        return;
    else if (leaf == 1)
        src = c->cpuid1;
    else if (leaf == 7 && sub == 0)
        src = c->cpuid_7;
    else if (leaf == 7 && sub == 1)
        src = c->cpuid_7_1;
    else if (leaf == 0xA)
        src = c->cpuid_a;
    else if (leaf == 0x1C && sub == 0)
        src = c->cpuid_1c;
    else if (leaf == 0x1A && sub == 0)
        src = c->cpuid_1a;
    else if (leaf == 0x23 && sub < 4)
        src = c->cpuid_23[sub];
    else if (leaf == 0x80000000u)
        src = c->cpuid_x0;
    else if (leaf == 0x80000001u)
        src = c->cpuid_x1;
    if (src)
        for (int i = 0; i < 4; i++)
            out[i] = src[i];
}

static struct dsm_msr_stat *msr_slot(struct dsm_cpu *c, uint32_t msr)
{
    for (uint32_t i = 0; i < c->msr_st_used; i++)
        if (c->msr_st[i].msr == msr)
            return &c->msr_st[i];
    if (c->msr_st_used < DSM_MSR_STAT_SLOTS) {
        struct dsm_msr_stat *s = &c->msr_st[c->msr_st_used++];
        s->msr = msr;
        return s;
    }
    c->msr_st_dropped++;
    return NULL;
}

/* IA32_MISC_ENABLE: bits 7, 11, 12 are read-only: writes keep them. */
static int misc_enable(struct dsm_cpu *c, bool wr, uint64_t *v)
{
    if (wr) {
        const uint64_t ro = DSM_MISC_PERFMON | DSM_MISC_NO_BTS | DSM_MISC_NO_PEBS;
        c->misc_enable = (c->misc_enable & ro) | (*v & ~ro);
    } else {
        *v = c->misc_enable;
    }
    return DSM_OK;
}

/* P6-style profile (no DS): IA32_DEBUGCTL with LBR, BTF only; anything else #GP. */
static int msr_p6(struct dsm_cpu *c, uint32_t msr, bool wr, uint64_t *v)
{
    if (msr != DSM_MSR_DEBUGCTL)
        return DSM_GP;
    return dsm_rw(&c->debugctl, wr, v, c->debugctl_valid);
}

static int msr_access(struct dsm_cpu *c, uint32_t msr, bool wr, uint64_t *v)
{
    if (msr && (msr == c->quirk_gp[0] || msr == c->quirk_gp[1]))
        return DSM_GP; /* advertised, faults anyway (dsm_set_msr_gp) */
    if (msr == DSM_MSR_MISC_ENABLE)
        return misc_enable(c, wr, v);
    if (msr == DSM_MSR_DS_AREA && c->kind != K_NONE)
        return dsm__msr_ds_area(c, msr, wr, v);
    int aprc;
    if (c->ap.on && dsm__apebs_msr(c, msr, wr, v, &aprc))
        return aprc;
    if (c->ap.on)
        msr = dsm__apebs_alias(c, msr);   /* perfmon v6 counter aliases */
    switch (c->kind) {
    case K_NB:
        return dsm__msr_nb(c, msr, wr, v);
    case K_ARCH:
        return dsm__msr_arch(c, msr, wr, v);
    default:
        return msr_p6(c, msr, wr, v);
    }
}

int dsm_rdmsr(struct dsm_cpu *c, uint32_t msr, uint64_t *out)
{
    if (!c || !out)
        return DSM_EINVAL;
    uint64_t v = 0;
    int rc = msr_access(c, msr, false, &v);
    struct dsm_msr_stat *s = msr_slot(c, msr);
    c->st.rdmsr++;
    if (s)
        s->reads++;
    if (rc != DSM_OK) {
        c->st.rdmsr_gp++;
        if (s)
            s->faults++;
        msr_hook(c, msr, false);
        return rc;
    }
    *out = v;
    msr_hook(c, msr, false);
    return DSM_OK;
}

int dsm_wrmsr(struct dsm_cpu *c, uint32_t msr, uint64_t val)
{
    if (!c)
        return DSM_EINVAL;
    uint64_t v = val;
    int rc = msr_access(c, msr, true, &v);
    struct dsm_msr_stat *s = msr_slot(c, msr);
    c->st.wrmsr++;
    if (s)
        s->writes++;
    if (rc != DSM_OK) {
        c->st.wrmsr_gp++;
        if (s)
            s->faults++;
    }
    msr_hook(c, msr, true);
    return rc;
}

/* ---- retirement ------------------------------------------------------------ */
/* Freeze on PMI (SDM Table 17-3): legacy clears GLOBAL_CTRL and
 * DEBUGCTL.LBR; v4 sets CTR_Frz / LBR_Frz. */
static void freeze_on_pmi(struct dsm_cpu *c)
{
    if (c->debugctl & DSM_DBG_FRZ_PMON) {
        if (c->version >= 4)
            c->gstatus |= DSM_GS_CTR_FRZ;
        else
            c->gctrl = 0;
    }
    if (c->debugctl & DSM_DBG_FRZ_LBR) {
        if (c->version >= 4)
            c->gstatus |= DSM_GS_LBR_FRZ;
        else
            c->debugctl &= ~DSM_DBG_LBR;
    }
}

/* The PMI requested while retiring: freeze, statistics, LVTPC, callback. */
static void deliver_pmi(struct dsm_cpu *c)
{
    uint32_t why = c->pmi_pending;
    c->pmi_pending = 0;
    if (c->kind == K_ARCH)
        freeze_on_pmi(c);
    c->st.pmis++;
    if (why & DSM_PMI_COUNTER)
        c->st.pmi_counter++;
    if (why & DSM_PMI_PEBS)
        c->st.pmi_pebs++;
    if (why & DSM_PMI_BTS)
        c->st.pmi_bts++;
    /* LVTPC (dsm_set_lvt_model): a masked entry drops the request; delivery
     * masks it (SDM Vol. 3A "Local Vector Table"). */
    if (c->lvt_model && c->lvt_masked) {
        c->st.pmi_masked++;
        return;
    }
    if (c->lvt_model)
        c->lvt_masked = true;
    if (c->pmi)
        c->pmi(c->pmi_ctx, why);
}

int dsm_retire(struct dsm_cpu *c, const struct dsm_event *ev)
{
    if (!c || !ev || ev->cpl > 3)
        return DSM_EINVAL;
    c->st.events++;
    c->lbr_cycles++;
    if (c->kind == K_NB)
        dsm__nb_retire(c, ev);
    else if (c->kind == K_ARCH)
        dsm__arch_retire(c, ev);
    if (c->kind != K_NONE && (ev->flags & DSM_EV_TAKEN)) {
        /* BTS (PEBS is processed first), then LBR */
        dsm__bts_taken(c, ev);
        bool lbr_on = c->lbr.arch ? true : (c->debugctl & DSM_DBG_LBR) != 0;
        if (lbr_on && !(c->gstatus & DSM_GS_LBR_FRZ))
            dsm__lbr_record(c, ev);
    }
    if (c->pmi_pending)
        deliver_pmi(c);
    return DSM_OK;
}
