/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Core-era and architectural performance counters: IA32_PMCx /
 * IA32_PERFEVTSELx (full-width writes through IA32_A_PMCx), fixed counters
 * and IA32_FIXED_CTR_CTRL, IA32_PERF_GLOBAL_CTRL, PEBS enables (Core 2 PMC0,
 * Nehalem+ PMC0-3 and load latency, adaptive PEBS on format 4+), and the
 * sampling-period helper.
 *
 * Sources: SDM Vol. 3B "Architectural Performance Monitoring" (versions 1-5),
 * "Full-Width Writes to Performance Counter Registers", "Processor Event Based
 * Sampling (PEBS)" for Intel Core, Nehalem and Ice Lake microarchitectures,
 * "Load Latency Performance Monitoring Facility", "Adaptive PEBS";
 * ../shared/reference/msr.md sections 4-5, pebs-records.md.
 * Not for NetBurst (DS_ERR_PMC_NETBURST): see netburst.h.
 *
 * Configuration (ds/config.h): DS_CONFIG_PMC=0 compiles this out; every
 * function below then returns DS_ERR_UNSUPPORTED with its outputs cleared.
 * The PEBS enables (ds_pmc_core2_pebs_event, ds_pmc_pebs_*) also need
 * DS_CONFIG_PEBS=1 and return DS_ERR_UNSUPPORTED without it.
 */
#ifndef DS_PMC_H
#define DS_PMC_H

#include <stdint.h>
#include <stddef.h>
#include <stdbool.h>
#include <ds/err.h>
#include <ds/msr.h>
#include <ds/cpu.h>

#ifdef __cplusplus
extern "C" {
#endif

/* IA32_PERFEVTSELx fields */
#define DS_EVTSEL_EVENT_MASK   0xFFull
#define DS_EVTSEL_UMASK_SHIFT  8
#define DS_EVTSEL_UMASK_MASK   0xFF00ull
#define DS_EVTSEL_USR          (1ull << 16)
#define DS_EVTSEL_OS           (1ull << 17)
#define DS_EVTSEL_EDGE         (1ull << 18)
#define DS_EVTSEL_PC           (1ull << 19)
#define DS_EVTSEL_INT          (1ull << 20)
#define DS_EVTSEL_ANY          (1ull << 21)  /* v3+ */
#define DS_EVTSEL_EN           (1ull << 22)
#define DS_EVTSEL_INV          (1ull << 23)
#define DS_EVTSEL_CMASK_SHIFT  24
#define DS_EVTSEL_CMASK_MASK   0xFF000000ull
#define DS_EVTSEL_IN_TX        (1ull << 32)  /* Haswell+ TSX */
#define DS_EVTSEL_IN_TXCP      (1ull << 33)
#define DS_EVTSEL_ADAPTIVE     (1ull << 34)  /* adaptive PEBS record (fmt 4+ with baseline) */
/* Bit 35 (Linux ARCH_PERFMON_EVENTSEL_BR_CNTR, branch-counter logging into
 * Arch LBR INFO[39:32]) is refused as reserved (DS_ERR_PMC_RESERVED): Linux
 * sets it only for the GP counters 0-3 that CPUID.1CH:ECX[19:16] names,
 * for events grouped with an LBR-sampling leader that asks for
 * PERF_SAMPLE_BRANCH_COUNTERS (intel_pmu_hw_config branch_sample_counters,
 * PMU_FL_BR_CNTR); libds has no event groups tied to an LBR snapshot. The
 * decode side (lbr.h br_cntr) serves callers that program it themselves.
 * docs/design.md "Deviations from Linux". */
#define DS_EVTSEL_EQ           (1ull << 36)  /* v6: CPUID.(23H,0):EBX[1] */
#define DS_EVTSEL_UMASK2_SHIFT 40
#define DS_EVTSEL_UMASK2_MASK  (0xFFull << 40) /* v6: CPUID.(23H,0):EBX[0] */
#define DS_EVTSEL(event, umask) ((uint64_t)(event) | ((uint64_t)(umask) << DS_EVTSEL_UMASK_SHIFT))

/* Perfmon v6 aliased counter MSRs (SDM "Architectural Performance
 * Monitoring Version 6"; Linux msr-index.h MSR_IA32_PMC_V6_*): GP counter n
 * at 1900H + 4n (CFG_A event select +1, CFG_B +2, CFG_C +3), fixed counter
 * m at 1980H + 4m. libds uses them for every counter when perfmon >= 6
 * (as Linux does); counters beyond PMC7 exist only there. */
#define DS_PMC_MSR_GP_CTR(n)     (0x1900u + 4u * (n))
#define DS_PMC_MSR_GP_CFG_A(n)   (0x1901u + 4u * (n))
#define DS_PMC_MSR_GP_CFG_B(n)   (0x1902u + 4u * (n))
#define DS_PMC_MSR_GP_CFG_C(n)   (0x1903u + 4u * (n))
#define DS_PMC_MSR_FIXED_CTR(m)  (0x1980u + 4u * (m))

/* IA32_FIXED_CTR_CTRL: 4 bits per fixed counter m at 4m+3:4m, adaptive at 32+4m */
#define DS_FIXED_OS            0x1u
#define DS_FIXED_USR           0x2u
#define DS_FIXED_ANY           0x4u   /* v3+ */
#define DS_FIXED_PMI           0x8u
#define DS_FIXED_ADAPTIVE_BIT(m) (32u + 4u * (m))

/* IA32_PEBS_ENABLE (non-NetBurst) */
#define DS_PEBS_EN_PMC(n)      (1ull << (n))
#define DS_PEBS_EN_FIXED(m)    (1ull << (32u + (m)))   /* fmt 4+ with baseline */
#define DS_PEBS_EN_LDLAT(n)    (1ull << (32u + (n)))   /* fmt 1-3: load latency on PMCn */

/* MSR_PEBS_DATA_CFG (adaptive PEBS) */
#define DS_PEBS_DATACFG_MEMINFO  (1ull << 0)
#define DS_PEBS_DATACFG_GPRS     (1ull << 1)
#define DS_PEBS_DATACFG_XMMS     (1ull << 2)
#define DS_PEBS_DATACFG_LBRS     (1ull << 3)
#define DS_PEBS_DATACFG_LBR_SHIFT 24          /* number of LBR entries minus 1 */
#define DS_PEBS_DATACFG_LBR_MASK (0xFFull << 24)

/* Load-latency threshold (MSR_PEBS_LD_LAT bits 15:0; SDM minimum 3) */
#define DS_PEBS_LDLAT_MIN 3u
#define DS_PEBS_LDLAT_MAX 0xFFFFu

/*
 * Sampling period -> counter values. @width is the counter width in bits
 * (CPUID.0AH:EAX[23:16] or EDX[12:5]; 40 on NetBurst). Without full-width
 * writes (@full_width false: IA32_PMCx only loads bits 31:0 sign-extended)
 * the usable width is 32. start = reset = (-period) mod 2^width: the value
 * written to the counter and to the DS counter-reset slot, so the counter
 * overflows after @period events. Period must be 1..2^(usable width - 1)
 * so the top bit is set at start (overflow then shows as a cleared top bit,
 * what the perfmon v1 and NetBurst handlers test).
 * Errors: DS_ERR_NULL, DS_ERR_INVAL (width not 8..64),
 * DS_ERR_PMC_PERIOD_ZERO, DS_ERR_PMC_PERIOD_WIDE (outputs untouched on
 * error). MSRs: none. NMI-safe: yes (pure).
 */
int ds_pmc_period_values(unsigned width, bool full_width, uint64_t period,
                         uint64_t *out_start, uint64_t *out_reset);

/*
 * The same for GP counter widths of @cpu (caps.gp_width, caps.fw_write).
 * Errors: DS_ERR_NULL, DS_ERR_NOT_IDENTIFIED, DS_ERR_PMC_NETBURST,
 * DS_ERR_PMC_NO_ARCH (not Intel, or no leaf 0AH / version 0), then those of
 * ds_pmc_period_values(). MSRs: none. NMI-safe: yes (pure).
 */
int ds_pmc_gp_period(const struct ds_cpu *cpu, uint64_t period, uint64_t *out_start,
                     uint64_t *out_reset);

/*
 * Program GP counter @idx: EVTSEL = 0, counter = @start (through IA32_A_PMCx
 * when caps.fw_write, else IA32_PMCx, which takes a sign-extended 32-bit
 * value), EVTSEL = @evtsel. Enable in GLOBAL_CTRL separately (v2+).
 * Checks: cpu identified, Intel non-NetBurst, perfmon v1+, idx set in
 * caps.gp_mask (CPUID.23H.1 EAX where enumerated, else the leaf 0AH count)
 * and idx < 8 before perfmon v6 (the legacy MSR table defines IA32_PMC0..7
 * only; v6 uses DS_PMC_MSR_GP_CTR/CFG_A for every counter), evtsel has no
 * bit above 34 except UMASK2 [47:40] / EQ [36] where CPUID.(23H,0):EBX
 * enumerates them, bit 21 (ANY) only on v3+ and not where CPUID.0AH:EDX[15]
 * deprecates it (caps.anythread_deprecated, v5+: DS_ERR_PMC_ANY_DEPRECATED;
 * Linux intel_pmu_init drops the `any` format there), bits 32/33 only with
 * perfmon v3+ and TSX (CPUID.07H:EBX.HLE or .RTM; one CPUID leaf 07H query),
 * bit 34 only with adaptive PEBS; start fits.
 * Errors: DS_ERR_NULL, DS_ERR_NOT_IDENTIFIED, DS_ERR_PMC_NETBURST,
 * DS_ERR_PMC_NO_ARCH, DS_ERR_PMC_BAD_COUNTER, DS_ERR_PMC_RESERVED,
 * DS_ERR_PMC_NO_UMASK2, DS_ERR_PMC_NO_EQ, DS_ERR_PMC_ANY_DEPRECATED,
 * DS_ERR_PMC_VALUE_WIDE, DS_ERR_MSR_FAULT (EVTSEL then written back to 0).
 * MSRs: reads none; writes IA32_PERFEVTSELn (0x186+idx) and IA32_PMCn
 * (0xC1+idx) or IA32_A_PMCn (0x4C1+idx); on perfmon v6 IA32_PMC_GPn_CFG_A
 * (0x1901+4*idx) and IA32_PMC_GPn_CTR (0x1900+4*idx) instead.
 * NMI-safe: yes if the backend is
 * (no locks; CPUID 07H only when TSX bits are asked for).
 */
int ds_pmc_gp_program(struct ds_cpu *cpu, unsigned idx, uint64_t evtsel, uint64_t start);

/*
 * Write GP counter @idx (period reload). Same value rules and MSR choice as
 * above. Errors: DS_ERR_NULL, DS_ERR_NOT_IDENTIFIED, DS_ERR_PMC_NETBURST,
 * DS_ERR_PMC_NO_ARCH, DS_ERR_PMC_BAD_COUNTER, DS_ERR_PMC_VALUE_WIDE,
 * DS_ERR_MSR_FAULT. MSRs: reads none; writes IA32_PMCn (0xC1+idx) or
 * IA32_A_PMCn (0x4C1+idx); perfmon v6: IA32_PMC_GPn_CTR (0x1900+4*idx).
 * NMI-safe: yes.
 */
int ds_pmc_gp_write(struct ds_cpu *cpu, unsigned idx, uint64_t value);

/*
 * Read GP counter @idx through IA32_PMCx (masked to gp_width). Errors:
 * DS_ERR_NULL (@cpu or @out), DS_ERR_NOT_IDENTIFIED, DS_ERR_PMC_NETBURST,
 * DS_ERR_PMC_NO_ARCH, DS_ERR_PMC_BAD_COUNTER, DS_ERR_MSR_FAULT.
 * MSRs: reads IA32_PMCn (0xC1+idx; perfmon v6: 0x1900+4*idx); writes
 * none. NMI-safe: yes.
 */
int ds_pmc_gp_read(struct ds_cpu *cpu, unsigned idx, uint64_t *out);

/*
 * Program fixed counter @idx: nibble @ctrl (DS_FIXED_*) and, if @adaptive,
 * bit 32+4*idx, by read-modify-write of IA32_FIXED_CTR_CTRL (0x38D); the
 * counter (0x309+idx) is loaded with @start first while its nibble is 0.
 * Checks: perfmon v2+, idx present (EDX[4:0] or the v5 ECX bitmap; on
 * perfmon v2-v4 fixed 0-2 always, unless CPUID.01H:ECX[31] says hypervisor:
 * early Core 2 reports EDX[4:0] = 0, Linux intel_pmu_init assumes 3),
 * ANY only v3+ and not where deprecated (DS_ERR_PMC_ANY_DEPRECATED, as for
 * ds_pmc_gp_program), adaptive only with adaptive PEBS, start < 2^fixed_width.
 * Errors: DS_ERR_NULL, DS_ERR_NOT_IDENTIFIED, DS_ERR_PMC_NETBURST,
 * DS_ERR_PMC_NO_ARCH, DS_ERR_PMC_BAD_FIXED (also perfmon v1, idx > 7),
 * DS_ERR_PMC_RESERVED (ctrl > 0xF, ANY before v3, adaptive without
 * adaptive PEBS), DS_ERR_PMC_VALUE_WIDE, DS_ERR_MSR_FAULT (a fault after
 * the first write can leave the counter's nibble cleared, i.e. stopped).
 * MSRs: reads and writes IA32_FIXED_CTR_CTRL (0x38D); writes
 * IA32_FIXED_CTRm (0x309+idx; perfmon v6: 0x1980+4*idx). NMI-safe: yes (no locks; a non-atomic
 * read-modify-write of 0x38D: not concurrently with a handler that also
 * writes it).
 */
int ds_pmc_fixed_program(struct ds_cpu *cpu, unsigned idx, unsigned ctrl, bool adaptive,
                         uint64_t start);

/*
 * IA32_PERF_GLOBAL_CTRL = @value (bit n = PMCn, bit 32+m = fixed m, bit 48
 * PERF_METRICS when advertised). Rejects bits of absent counters
 * (DS_ERR_PMC_RESERVED): GP from caps.gp_mask (bits above 7 only on
 * perfmon v6), fixed from the fixed-counter bitmap. DS_ERR_PMC_NO_GLOBAL on perfmon v1. Also
 * DS_ERR_NULL, DS_ERR_NOT_IDENTIFIED, DS_ERR_PMC_NETBURST,
 * DS_ERR_PMC_NO_ARCH, DS_ERR_MSR_FAULT.
 * MSRs: reads none; writes IA32_PERF_GLOBAL_CTRL (0x38F). NMI-safe: yes.
 */
int ds_pmc_global_ctrl(struct ds_cpu *cpu, uint64_t value);

/*
 * Nehalem/Westmere counter errata AAK100 (06_1AH), AAP53 (06_1EH), BD53
 * (06_2CH), applied like Linux (intel_pmu_nhm_workaround) on every Nehalem
 * (1AH/1EH/1FH/2EH) and Westmere (25H/2CH/2FH): call after adding or
 * reprogramming counters, before enabling them. It saves
 * IA32_PERF_GLOBAL_CTRL, IA32_PEBS_ENABLE (when PEBS is advertised),
 * PERFEVTSEL0-3 and PMC0-3; clears GLOBAL_CTRL and PEBS_ENABLE; programs
 * the magic events 4300B5H, 4300D2H, 4300B1H, 4300B1H on PMC0-3 with the
 * counters at 0; writes GLOBAL_CTRL = 0FH then 0; then restores every
 * saved value (EVTSEL cleared while its counter is restored). On any other
 * CPU it returns DS_OK and touches nothing.
 * Errors: DS_ERR_NULL, DS_ERR_NOT_IDENTIFIED, DS_ERR_PMC_NETBURST,
 * DS_ERR_PMC_NO_ARCH, DS_ERR_PMC_BAD_COUNTER (fewer than 4 GP or perfmon
 * v1: the errata sequence needs PMC0-3 and GLOBAL_CTRL),
 * DS_ERR_PMC_VALUE_WIDE (a saved counter value IA32_PMCx cannot take back
 * without FW_WRITE; nothing written), DS_ERR_MSR_FAULT (after the first
 * write: the PMU state is then partly the magic events; reprogram).
 * MSRs: reads and writes IA32_PERF_GLOBAL_CTRL (0x38F), IA32_PEBS_ENABLE
 * (0x3F1), IA32_PERFEVTSEL0-3 (0x186-0x189); reads IA32_PMC0-3
 * (0xC1-0xC4), writes them (or IA32_A_PMC0-3 with FW_WRITE).
 * NMI-safe: yes (no locks; not concurrently with anything else
 * programming the counters).
 */
int ds_pmc_nhm_workaround(struct ds_cpu *cpu);

/*
 * Is (@event, @umask) a PEBS event on Core 2 / Atom (PEBS format 0)?
 * DisplayModel 0FH/16H/17H/1DH: SDM "PEBS Performance Events for Intel Core
 * Microarchitecture" (INST_RETIRED.ANY_P C0H/00H, X87_OPS_RETIRED.ANY
 * C1H/FEH, BR_INST_RETIRED.MISPRED C5H/00H, SIMD_INST_RETIRED.ANY C7H/1FH,
 * MEM_LOAD_RETIRED CBH/01H,02H,04H,08H,10H; Linux ds.c
 * intel_core2_pebs_event_constraints agrees and also lets any CBH unit mask
 * through; libds keeps to the SDM's five); Atom Bonnell (1CH, 26H, 27H,
 * 35H, 36H): every event and unit mask, as Linux ds.c
 * intel_atom_pebs_event_constraints' "Allow all events as PEBS with no
 * flags" row INTEL_ALL_EVENT_CONSTRAINT(0, 0x1) does (perfmon
 * bonnell_core.json marks C0H/00H, C5H/00H, CBH/04H, 10H/81H, 10H/82H,
 * 82H/02H, B0H/80H PEBS); ds_pmc_pebs_enable also refuses EDGE/INV/CMASK/
 * ANY there except the cycles:p alias C0H/00H INV CMASK 16 (Linux
 * 0x108000c0). Returns DS_OK, DS_ERR_PMC_PEBS_EVENT,
 * or DS_ERR_UNSUPPORTED for a model not in either list.
 * MSRs: none. NMI-safe: yes (pure).
 */
int ds_pmc_core2_pebs_event(uint8_t display_model, uint8_t event, uint8_t umask);

/*
 * Enable PEBS on GP counter @idx (already programmed with @evtsel, which is
 * checked). Which counters take PEBS comes from one per-microarchitecture
 * table in pmc.c: Silvermont, Airmont, Goldmont, Knights Landing/Mill
 * (06_37H/4AH/4DH/5AH/5DH/4CH/75H/5CH/5FH/57H/85H): PMC0 only, else
 * DS_ERR_PMC_PEBS_PMC0_ONLY (SDM 18.6.1.1, 18.7.1; Linux constraint 0x1);
 * format 0 (Core 2/Atom): idx must be 0 and the event one of
 * ds_pmc_core2_pebs_event(); formats 1-3 (and 4+ without baseline): idx
 * 0..3; Goldmont Plus 06_7AH: GP 0..7; format 4 with baseline: GP 0..7,
 * formats 5 and 6: GP 0..31 (the DS area's counter-reset slots; bit 32+m of
 * IA32_PEBS_ENABLE is fixed counter m, see ds_pmc_pebs_enable_fixed()).
 * Events: format 0 as above; Nehalem/Westmere (06_1AH/1EH/1FH/2EH,
 * 25H/2CH/2FH) only the PEBS events of Linux ds.c
 * intel_nehalem_/intel_westmere_pebs_event_constraints (0FH, C0H, C4H, C7H,
 * CBH, F7H any unit mask; C2H; 0BH/10H, 0CH/01H, C8H/20H; C5H/02H on
 * Nehalem, C5H any on Westmere; C0H/00H with INV + CMASK 16), with
 * EDGE/INV/CMASK/ANY clear except where listed: else DS_ERR_PMC_PEBS_EVENT.
 * Sandy Bridge onwards any event (Linux allows all events there) but 3CH
 * (unhalted cycles, perfmon "PEBS": "0"; Linux rewrites a precise 003CH:
 * pebs_aliases): DS_ERR_PMC_PEBS_EVENT, except
 * the per-counter ones (DS_ERR_PMC_PEBS_EVENT_COUNTER): INST_RETIRED.PREC_DIST
 * C0H/01H only on PMC1, and on Sandy/Ivy Bridge MEM_TRANS_RETIRED CDH/01H,
 * CDH/02H only on PMC3 (Linux intel_snb_/ivb_/hsw_/skl_pebs_event_constraints).
 * Adaptive PEBS (formats 4-6), per core uarch (Linux intel_icl_/glc_/lnc_/
 * grt_pebs_event_constraints, flags clear): D0H..D4H on PMC0-3 (P-cores);
 * 00H/01H and 00H/04H (fixed-counter pseudo-encodings) on no GP counter;
 * Ice Lake C0H/01H on no GP counter (fixed 0 only); Golden/Redwood Cove
 * C0H (any unit mask) PMC1-7, CDH/01H PMC1-7, CDH/02H PMC0; Lion Cove CDH/01H PMC2-9,
 * CDH/02H PMC0-1; Gracemont/Crestmont/Skymont D0H/05H PMC0-1, D0H/06H
 * PMC0-3: else DS_ERR_PMC_PEBS_EVENT_COUNTER.
 * EVTSEL.INT must be clear (SDM: "Do NOT set INT").
 * Read-modify-write of IA32_PEBS_ENABLE (0x3F1).
 * Errors: DS_ERR_NULL, DS_ERR_NOT_IDENTIFIED, DS_ERR_PMC_NETBURST,
 * DS_ERR_NO_DS, DS_ERR_PEBS_UNAVAILABLE, DS_ERR_PMC_NO_PEBS_FMT (format > 6),
 * DS_ERR_PMC_BAD_COUNTER, DS_ERR_PMC_PEBS_COUNTER, DS_ERR_PMC_PEBS_PMC0_ONLY,
 * DS_ERR_PMC_PEBS_EVENT, DS_ERR_PMC_PEBS_INT, DS_ERR_PMC_PEBS_ERRATUM
 * (errata part, see ds_pmc_pebs_enable_ex()), DS_ERR_PMC_RESERVED (bit 34 without adaptive),
 * DS_ERR_UNSUPPORTED (format 0 on a model ds_pmc_core2_pebs_event() does
 * not list), DS_ERR_MSR_FAULT. DS_ERR_PEBS_UNAVAILABLE also when
 * IA32_MISC_ENABLE could not be read.
 * MSRs: reads and writes IA32_PEBS_ENABLE (0x3F1). NMI-safe: yes (no
 * locks; a non-atomic read-modify-write of 0x3F1: not concurrently with a
 * handler that also writes it). CPUID 07H only when TSX bits are asked for.
 */
int ds_pmc_pebs_enable(struct ds_cpu *cpu, unsigned idx, uint64_t evtsel);

/*
 * ds_pmc_pebs_enable() with @flags (0 = the same call). PEBS is refused on
 * parts whose errata make Linux disable it:
 *  - Core 2 Merom/Conroe/Clovertown 06_0FH (AJ67, AJ68, AJ69, AJ106; Linux
 *    intel_clovertown_quirk): DS_ERR_PMC_PEBS_ERRATUM;
 *  - Sandy Bridge 06_2AH stepping 7 with microcode < 0x28, 06_2DH stepping
 *    6 < 0x618 or stepping 7 < 0x70C, any other stepping of the two (Linux
 *    pebs_ucodes): DS_ERR_PMC_PEBS_UCODE (revision from
 *    ds_pmc_microcode_rev()).
 * DS_PMC_PEBS_ALLOW_ERRATA accepts the part anyway (the caller takes the
 * errata: on 06_0FH CPL leaks, a PMI one event late, no GLOBAL_STATUS[62]
 * without DEBUGCTL[12], no LBR freeze with PEBS; on old SNB microcode the
 * PEBS corruption Linux guards against) and skips the microcode read.
 * Errors: those of ds_pmc_pebs_enable(), DS_ERR_PMC_PEBS_ERRATUM,
 * DS_ERR_PMC_PEBS_UCODE, DS_ERR_BAD_FLAGS (unknown flag bits).
 * MSRs: as ds_pmc_pebs_enable(); on 06_2AH/2DH also writes 0 to and reads
 * IA32_BIOS_SIGN_ID (0x8B) around a CPUID(1). NMI-safe: as
 * ds_pmc_pebs_enable() (the SNB check executes CPUID, which is
 * serialising: slow in an NMI, not unsafe).
 */
#define DS_PMC_PEBS_ALLOW_ERRATA 0x1u

/* IA32_BIOS_SIGN_ID: microcode update signature (SDM Vol. 4, MSR 8BH) */
#define DS_PMC_MSR_IA32_BIOS_SIGN_ID 0x8Bu

/*
 * Loaded microcode revision: write 0 to IA32_BIOS_SIGN_ID, CPUID(EAX=1),
 * read IA32_BIOS_SIGN_ID, @out = bits 63:32 (SDM Vol. 3A "Microcode Update
 * Facilities"). Errors: DS_ERR_NULL, DS_ERR_NOT_IDENTIFIED,
 * DS_ERR_NOT_INTEL, DS_ERR_MSR_FAULT (@out untouched on error).
 * MSRs: writes then reads IA32_BIOS_SIGN_ID (0x8B). NMI-safe: yes (no
 * locks; CPUID serialises).
 */
int ds_pmc_microcode_rev(struct ds_cpu *cpu, uint32_t *out);
int ds_pmc_pebs_enable_ex(struct ds_cpu *cpu, unsigned idx, uint64_t evtsel, unsigned flags);

/*
 * The errata gates of ds_pmc_pebs_enable_ex() alone, for a caller that
 * must refuse before it programs anything (sessions check at start before
 * the first PMU MSR). Errors: DS_ERR_NULL, DS_ERR_NOT_IDENTIFIED,
 * DS_ERR_BAD_FLAGS, DS_ERR_PMC_PEBS_ERRATUM, DS_ERR_PMC_PEBS_UCODE,
 * DS_ERR_MSR_FAULT, DS_ERR_UNSUPPORTED (DS_CONFIG_PMC/PEBS=0).
 * MSRs: on 06_2AH/2DH without DS_PMC_PEBS_ALLOW_ERRATA writes 0 to and
 * reads IA32_BIOS_SIGN_ID (0x8B) around a CPUID(1); else none. NMI-safe:
 * as ds_pmc_microcode_rev().
 */
int ds_pmc_pebs_errata_check(struct ds_cpu *cpu, unsigned flags);

/*
 * Enable PEBS on fixed counter @idx: IA32_PEBS_ENABLE |= bit 32+idx. Only
 * where the fixed counters take PEBS: adaptive PEBS (formats 4-6 with
 * PEBS_BASELINE; DS counter-reset slot 8+idx on format 4, 32+idx on 5/6)
 * and Goldmont Plus extended PEBS (06_7AH, slot 8+idx). On formats 1-3 bit
 * 32+n is load latency (DS_PEBS_EN_LDLAT), so elsewhere this is refused.
 * The counter's FIXED_CTR_CTRL PMI bit must be clear (as EVTSEL.INT).
 * Errors: the CPU checks of ds_pmc_pebs_enable(), DS_ERR_PMC_BAD_FIXED
 * (absent, idx > 7, perfmon v1), DS_ERR_PMC_PEBS_NO_FIXED,
 * DS_ERR_PMC_PEBS_INT, DS_ERR_MSR_FAULT.
 * MSRs: reads IA32_FIXED_CTR_CTRL (0x38D); reads and writes
 * IA32_PEBS_ENABLE (0x3F1). NMI-safe: yes (same read-modify-write caveat).
 */
int ds_pmc_pebs_enable_fixed(struct ds_cpu *cpu, unsigned idx);

/*
 * Clear IA32_PEBS_ENABLE bits @mask (RMW; any bits, not validated). Errors:
 * the CPU checks of ds_pmc_pebs_enable() (DS_ERR_NULL,
 * DS_ERR_NOT_IDENTIFIED, DS_ERR_PMC_NETBURST, DS_ERR_PMC_NO_ARCH,
 * DS_ERR_NO_DS, DS_ERR_PEBS_UNAVAILABLE, DS_ERR_PMC_NO_PEBS_FMT),
 * DS_ERR_MSR_FAULT. MSRs: reads and writes IA32_PEBS_ENABLE (0x3F1).
 * NMI-safe: yes (same read-modify-write caveat).
 */
int ds_pmc_pebs_disable(struct ds_cpu *cpu, uint64_t mask);

/*
 * Load-latency PEBS (Nehalem+, PEBS formats 1-3): MSR_PEBS_LD_LAT =
 * @threshold, then IA32_PEBS_ENABLE |= PMCn | LL_EN_PMCn (bit 32+n). idx 0..3
 * and a counter of the model's load-latency event (the caller programs it):
 * Nehalem/Westmere MEM_INST_RETIRED.LATENCY_ABOVE_THRESHOLD 0BH/10H PMC3,
 * Sandy Bridge .. Broadwell MEM_TRANS_RETIRED CDH/01H PMC3 (Haswell,
 * Broadwell and Nehalem PMC3 deviate from Linux's 0xf: perfmon "Counter":
 * "3", libpfm4 cntmsk 0x8; pmc.c ldlat13_event), Skylake CDH/01H PMC0-3;
 * another counter is DS_ERR_PMC_PEBS_EVENT_COUNTER, nothing written.
 * Adaptive PEBS (formats 4-6, Ice Lake+): MSR_PEBS_LD_LAT = @threshold, then
 * IA32_PEBS_ENABLE |= PMCn only (bits 32+ are fixed-counter PEBS there); the
 * counter counts MEM_TRANS_RETIRED.LOAD_LATENCY CDH/01H (P-cores: Ice Lake
 * PMC0-7, Golden/Redwood Cove PMC1-7, Lion Cove PMC2-9) or
 * MEM_UOPS_RETIRED.LOAD_LATENCY D0H/05H (Gracemont/Crestmont/Skymont PMC0-1).
 * Errors: the pebs_enable CPU checks, DS_ERR_PMC_NO_LDLAT (format 0, or an
 * adaptive core libds has no load-latency event for: Tremont, unknown
 * models), DS_ERR_PMC_LDLAT_RANGE, DS_ERR_PMC_BAD_COUNTER (adaptive: no such
 * counter), DS_ERR_PMC_PEBS_EVENT_COUNTER (not a counter of the
 * load-latency event),
 * DS_ERR_PMC_PEBS_COUNTER, DS_ERR_PMC_PEBS_PMC0_ONLY (the counter table),
 * DS_ERR_PMC_PEBS_UCODE (Sandy Bridge microcode gate of
 * ds_pmc_pebs_enable_ex(); no override for load latency; reads
 * IA32_BIOS_SIGN_ID on 06_2AH/2DH), DS_ERR_MSR_FAULT (MSR_PEBS_LD_LAT may already
 * be written when the IA32_PEBS_ENABLE access faults).
 * MSRs: writes MSR_PEBS_LD_LAT (0x3F6); reads and writes IA32_PEBS_ENABLE
 * (0x3F1). NMI-safe: yes (same read-modify-write caveat).
 */
int ds_pmc_pebs_ldlat(struct ds_cpu *cpu, unsigned idx, uint32_t threshold);

/*
 * Adaptive PEBS (formats 4-6, PERF_CAPABILITIES.PEBS_BASELINE): write
 * MSR_PEBS_DATA_CFG (0x3F2) = @data_cfg. Valid bits: 0-3 and 31:24; the LBR
 * count field only with DS_PEBS_DATACFG_LBRS. Format 6 adds the counters
 * group (pebs.h DS_PEBS_DATA_CFG_CNTRS bit 4, _METRICS bit 5, GP mask
 * [47:32], fixed mask [55:48]): the masks only with CNTRS and only naming
 * counters the CPU has (caps.gp_mask / caps.fixed_mask), METRICS only with
 * PERF_CAPABILITIES.PERF_METRICS. Records are produced only for
 * counters with EVTSEL bit 34 / FIXED_CTR_CTRL bit 32+4m set.
 * Errors: DS_ERR_NULL, DS_ERR_NOT_IDENTIFIED, DS_ERR_PMC_NETBURST,
 * DS_ERR_PMC_NO_ARCH, DS_ERR_PMC_NO_ADAPTIVE, DS_ERR_PMC_RESERVED,
 * DS_ERR_MSR_FAULT. MSRs: reads none; writes MSR_PEBS_DATA_CFG (0x3F2).
 * NMI-safe: yes.
 */
int ds_pmc_pebs_data_cfg(struct ds_cpu *cpu, uint64_t data_cfg);

/*
 * Could ds_pmc_pebs_enable_ex(@cpu, @idx, @evtsel, DS_PMC_PEBS_ALLOW_ERRATA)
 * enable PEBS on GP counter @idx? The same CPU, counter-table and event
 * checks, in the same order, with the same errors, without any MSR access
 * (the errata gate is not applied: its Sandy Bridge part reads
 * IA32_BIOS_SIGN_ID). For choosing a counter before programming (session.h).
 * ds_pmc_pebs_check_fixed: the CPU checks of ds_pmc_pebs_enable_fixed() and
 * whether fixed counter @idx takes PEBS (DS_ERR_PMC_BAD_FIXED,
 * DS_ERR_PMC_PEBS_NO_FIXED); the FIXED_CTR_CTRL PMI-bit check needs an MSR
 * and is not applied. MSRs: none (CPUID 07H only when TSX bits are asked
 * for). NMI-safe: yes (pure).
 */
int ds_pmc_pebs_check(const struct ds_cpu *cpu, unsigned idx, uint64_t evtsel);
int ds_pmc_pebs_check_fixed(const struct ds_cpu *cpu, unsigned idx);

/*
 * The GP counters (bit n = PMCn) on which event @evtsel may take PEBS by the
 * per-event constraints of @cpu's microarchitecture alone: the adaptive
 * rows of ds_pmc_pebs_check (formats 4-6: Ice Lake, Golden/Redwood/Lion
 * Cove, Gracemont/Crestmont/Skymont), the formats 1-3 rows (PREC_DIST
 * PMC1, Sandy/Ivy Bridge CDH/02H PMC3, the load-latency event), and the
 * architectural-PEBS P-cores, which have no PEBS_ENABLE to check against:
 * Cougar Cove (Linux intel_lnc_pebs_event_constraints; perfmon
 * pantherlake_cougarcove_core.json) MEM_INST_RETIRED D0H..D4H PMC0-3,
 * CDH/01H PMC2-9, CDH/02H PMC0-1; Coyote Cove (perfmon
 * novalake_coyotecove_core.json V1.00) D0H..D4H PMC0-3, CDH/01H PMC2-7.
 * All ones where no row applies (the counter tables decide alone); which
 * counters exist is not checked. The session intersects it with
 * CPUID.(23H,5) on architectural PEBS. Errors: DS_ERR_NULL,
 * DS_ERR_NOT_IDENTIFIED, DS_ERR_NOT_INTEL (*@out_gp 0 on error).
 * MSRs: none. NMI-safe: yes (pure).
 */
int ds_pmc_pebs_event_counters(const struct ds_cpu *cpu, uint64_t evtsel, uint32_t *out_gp);

#ifdef __cplusplus
}
#endif

#endif /* DS_PMC_H */
