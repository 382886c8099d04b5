/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Which MSRs a WRMSR #GPs on regardless of the value: the architecturally
 * read-only ones. Shared by fake_cpu.h and fake_pmu.h so both fakes are no
 * more permissive than hardware and the reference model (model/src/
 * dsm_pmc.c, which returns DSM_GP for a write to PERF_CAPABILITIES,
 * GLOBAL_STATUS, GLOBAL_INUSE and to GLOBAL_STATUS_SET below perfmon v4).
 *
 * Sources (SDM Vol. 4 "Model-Specific Registers", Table 2-2 "IA-32
 * Architectural MSRs", which marks each register's access):
 *   17H  IA32_PLATFORM_ID             "(RO)"
 *   179H IA32_MCG_CAP                 "(RO)"
 *   198H IA32_PERF_STATUS             "(RO)"
 *   345H IA32_PERF_CAPABILITIES       "(RO)", exists iff CPUID.01H:ECX.PDCM
 *   38EH IA32_PERF_GLOBAL_STATUS      "(RO)"; bits are cleared through
 *                                     IA32_PERF_GLOBAL_OVF_CTRL/STATUS_RESET
 *   392H IA32_PERF_GLOBAL_INUSE       "(RO)", perfmon v4+
 *   391H IA32_PERF_GLOBAL_STATUS_SET  write-only, only "If CPUID.0AH:
 *                                     EAX[7:0] > 3": below v4 it does not
 *                                     exist, so WRMSR #GPs.
 *   CEH  MSR_PLATFORM_INFO            model-specific tables (Nehalem and
 *                                     later): every field is "R/O".
 * Not here: MSR_LASTBRANCH_TOS (1C9H, 1DAH on NetBurst) is "(R/W)" in every
 * model table, and Linux intel_pmu_lbr_restore() writes it; the model checks
 * only that the value is below the stack depth. IA32_MISC_ENABLE is R/W with
 * read-only bits (7, 11, 12) whose writes are ignored, not faulted.
 * Not verifiable here (AMD/TCG host): that every listed MSR really #GPs on
 * each generation; the table above is the SDM's statement.
 */
#ifndef TEST_FAKE_RO_H
#define TEST_FAKE_RO_H

#include <stdint.h>

/* 1 if WRMSR to @msr #GPs on a CPU with architectural perfmon @version. */
static inline int fake_msr_write_gp(uint32_t msr, unsigned version)
{
    switch (msr) {
    case 0x017u: /* IA32_PLATFORM_ID */
    case 0x0CEu: /* MSR_PLATFORM_INFO */
    case 0x179u: /* IA32_MCG_CAP */
    case 0x198u: /* IA32_PERF_STATUS */
    case 0x345u: /* IA32_PERF_CAPABILITIES */
    case 0x38Eu: /* IA32_PERF_GLOBAL_STATUS */
    case 0x392u: /* IA32_PERF_GLOBAL_INUSE */
        return 1;
    case 0x391u: /* IA32_PERF_GLOBAL_STATUS_SET: v4+ only */
        return version < 4;
    default:
        return 0;
    }
}

/* Perfmon version from a CPUID.0AH EAX word (bits 7:0). */
static inline unsigned fake_pmu_version(uint32_t leaf_a_eax)
{
    return leaf_a_eax & 0xFFu;
}

#endif
