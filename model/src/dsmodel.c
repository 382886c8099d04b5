/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * dsmodel: reference model of the Intel Debug Store hardware.
 * Written from ../../shared/reference/ (SDM Vol. 3B chapters 17-19 and the
 * MSR chapter as restated there). Includes no libds header: every constant
 * below is the model's own statement of the SDM.
 */
#include "dsmodel.h"

/* ---- MSR numbers (SDM Vol. 4 MSR tables; reference msr.md) -------------- */
#define DSM_MSR_PMC0            0x0C1u
#define DSM_MSR_PERFEVTSEL0     0x186u
#define DSM_MSR_MISC_ENABLE     0x1A0u
#define DSM_MSR_LBR_SELECT      0x1C8u
#define DSM_MSR_LBR_TOS         0x1C9u
#define DSM_MSR_NB_LER_FROM     0x1D7u
#define DSM_MSR_NB_LER_TO       0x1D8u
#define DSM_MSR_DEBUGCTL        0x1D9u
#define DSM_MSR_NB_LBR_TOS      0x1DAu
#define DSM_MSR_LER_FROM        0x1DDu
#define DSM_MSR_LER_TO          0x1DEu
#define DSM_MSR_NB_COUNTER0     0x300u
#define DSM_MSR_FIXED_CTR0      0x309u
#define DSM_MSR_PERF_CAP        0x345u
#define DSM_MSR_NB_CCCR0        0x360u
#define DSM_MSR_FIXED_CTR_CTRL  0x38Du
#define DSM_MSR_GLOBAL_STATUS   0x38Eu
#define DSM_MSR_GLOBAL_CTRL     0x38Fu
#define DSM_MSR_GLOBAL_OVF_CTRL 0x390u   /* v4+: IA32_PERF_GLOBAL_STATUS_RESET */
#define DSM_MSR_GLOBAL_STATUS_SET 0x391u
#define DSM_MSR_GLOBAL_INUSE    0x392u
#define DSM_MSR_NB_ESCR_FIRST   0x3A0u
#define DSM_MSR_PEBS_ENABLE     0x3F1u
#define DSM_MSR_PEBS_3F2        0x3F2u   /* NetBurst MATRIX_VERT / fmt 4 PEBS_DATA_CFG */
#define DSM_MSR_PEBS_LD_LAT     0x3F6u
#define DSM_MSR_PEBS_FRONTEND   0x3F7u
#define DSM_MSR_A_PMC0          0x4C1u
#define DSM_MSR_DS_AREA         0x600u
#define DSM_MSR_ARCH_LBR_CTL    0x14CEu
#define DSM_MSR_ARCH_LBR_DEPTH  0x14CFu
#define DSM_MSR_ARCH_LBR_INFO0  0x1200u
#define DSM_MSR_ARCH_LBR_FROM0  0x1500u
#define DSM_MSR_ARCH_LBR_TO0    0x1600u

/* IA32_DEBUGCTL (P6 descendants), SDM "IA32_DEBUGCTL MSR" */
#define DSM_DBG_LBR        (1ull << 0)
#define DSM_DBG_TR         (1ull << 6)
#define DSM_DBG_BTS        (1ull << 7)
#define DSM_DBG_BTINT      (1ull << 8)
#define DSM_DBG_BTS_OFF_OS (1ull << 9)
#define DSM_DBG_BTS_OFF_USR (1ull << 10)
#define DSM_DBG_FRZ_LBR    (1ull << 11)
#define DSM_DBG_FRZ_PMON   (1ull << 12)
/* MSR_DEBUGCTLA (NetBurst), SDM "Debug Control Register (MSR_DEBUGCTLA)" */
#define DSM_NBDBG_LBR      (1ull << 0)
#define DSM_NBDBG_TR       (1ull << 2)
#define DSM_NBDBG_BTS      (1ull << 3)
#define DSM_NBDBG_BTINT    (1ull << 4)
#define DSM_NBDBG_OFF_OS   (1ull << 5)
#define DSM_NBDBG_OFF_USR  (1ull << 6)
#define DSM_NBDBG_VALID    0x7Full

/* IA32_PERFEVTSELx, SDM "Architectural Performance Monitoring Version 1" */
#define DSM_EVT_USR      (1ull << 16)
#define DSM_EVT_OS       (1ull << 17)
#define DSM_EVT_INT      (1ull << 20)
#define DSM_EVT_ANY      (1ull << 21)
#define DSM_EVT_EN       (1ull << 22)
#define DSM_EVT_ADAPTIVE (1ull << 34)

/* IA32_PERF_GLOBAL_STATUS, SDM "IA32_PERF_GLOBAL_STATUS" */
#define DSM_GS_PERF_METRICS (1ull << 48)
#define DSM_GS_LBR_FRZ   (1ull << 58)
#define DSM_GS_CTR_FRZ   (1ull << 59)
#define DSM_GS_UNCORE    (1ull << 61)
#define DSM_GS_OVFBUF    (1ull << 62)
#define DSM_GS_CONDCHGD  (1ull << 63)

/* MISC_ENABLE, PERF_CAPABILITIES, CPUID bits */
#define DSM_MISC_PERFMON (1ull << 7)
#define DSM_MISC_NO_BTS  (1ull << 11)
#define DSM_MISC_NO_PEBS (1ull << 12)
#define DSM_CAP_PEBS_TRAP (1ull << 6)
#define DSM_CAP_FW_WRITE (1ull << 13)
#define DSM_CAP_PERF_METRICS (1ull << 15)
#define DSM_CAP_PEBS_BASELINE (1ull << 14)   /* SDM "IA32_PERF_CAPABILITIES": PEBS_BASELINE */
#define DSM_CAP_TIMED_PEBS (1ull << 17)      /* PEBS_TIMING_INFO (Linux intel_cap.pebs_timing_info) */
/* Perfmon v6 aliased counter MSRs (SDM "Architectural Performance Monitoring
 * Version 6"; Linux msr-index.h MSR_IA32_PMC_V6_GP0_CTR/CFG_A/FX0_CTR/STEP). */
#define DSM_MSR_V6_GP0_CTR   0x1900u   /* GP n: CTR 1900H+4n, CFG_A +1, CFG_B +2, CFG_C +3 */
#define DSM_MSR_V6_FX0_CTR   0x1980u   /* fixed m: CTR 1980H+4m */
#define DSM_MSR_V6_STEP      4u
/* PEBS format 6 MSR_PEBS_DATA_CFG (Linux asm/perf_event.h PEBS_DATACFG_CNTR
 * BIT(4), PEBS_DATACFG_METRICS BIT(5), CNTR_SHIFT 32 / mask 0xffff, FIX_SHIFT
 * 48 / mask 0xff); counters group layout: Linux ds.c struct pebs_cntr_header
 * {u32 cntr, fixed, metrics, reserved} then one u64 per GP bit, per fixed bit. */
#define DSM_CFG_CNTR         (1ull << 4)
#define DSM_CFG_METRICS      (1ull << 5)   /* + TOPDOWN.SLOTS (fixed 3) and IA32_PERF_METRICS */
#define DSM_CNTR_METRICS     3u            /* Linux INTEL_CNTR_METRICS: the header's metrics field */
#define DSM_MSR_PERF_METRICS 0x329u        /* SDM Vol. 4: IA32_PERF_METRICS (with PERF_CAPABILITIES[15]) */
#define DSM_CFG_GP_SHIFT     32
#define DSM_CFG_FIX_SHIFT    48
#define DSM_C1_EDX_DS    (1u << 21)
#define DSM_C1_ECX_DTES64 (1u << 2)
#define DSM_C1_ECX_DSCPL (1u << 4)
#define DSM_C1_ECX_PDCM  (1u << 15)
#define DSM_C7_EDX_ARCH_LBR (1u << 19)   /* CPUID.(07H,0):EDX[19] */

/* NetBurst CCCR / ESCR fields, SDM "Performance Monitoring (Pentium 4)" */
#define DSM_CCCR_ENABLE   (1ull << 12)
#define DSM_CCCR_SEL_SHIFT 13
#define DSM_CCCR_AT_SHIFT 16
#define DSM_CCCR_COMPARE  (1ull << 18)
#define DSM_CCCR_COMPLEMENT (1ull << 19)
#define DSM_CCCR_THR_SHIFT 20
#define DSM_CCCR_FORCE_OVF (1ull << 25)
#define DSM_CCCR_OVF_PMI_T0 (1ull << 26)
#define DSM_CCCR_OVF      (1ull << 31)
#define DSM_CCCR_VALID    0xCFFFF000ull  /* 11:0 and 29:28 reserved, 63:32 reserved */
#define DSM_ESCR_VALID    0x7FFFFFFFull
#define DSM_ESCR_TAG_EN   (1ull << 4)
#define DSM_ESCR_T0_OS    (1ull << 3)
#define DSM_ESCR_T0_USR   (1ull << 2)
#define DSM_NB_PEBS_UOP_TAG (1ull << 24)
#define DSM_NB_PEBS_MY_THR (1ull << 25)
#define DSM_NB_PEBS_VALID 0x07019FFFull   /* metric bits 12:0, 15, 16 (Tagged_mispred_branch), 24-26 */
#define DSM_NB_VERT_VALID 0x1Full
#define DSM_NB_WIDTH      40
#define DSM_NB_PEBS_CTR   16            /* MSR_IQ_COUNTER4 */

enum { K_NONE = 0, K_NB = 1, K_ARCH = 2 };

/* ---- LBR rows: reference lbr.md (SDM Table 17-4 plus Linux's list) ------ *
 * LBR format per row: the "typical format per generation" of lbr.md, itself
 * marked unconfirmed for Core 2 / Atom / Silvermont (model uses 1 = LIP: 64-bit
 * linear FROM/TO in separate MSRs; format 0 is reserved for packed rows),
 * Knights Landing (reports 1 here) and Arch LBR (0x3F here). */
#define R(f, m, d, fr, to, in, tos, fmt) { f, m, d, fr, to, in, tos, fmt, false }
static const struct dsm_lbr_row dsm_rows[] = {
    R(0x0F, 0x00, 4, 0x1DB, 0x1DB, 0, 0x1DA, 0), R(0x0F, 0x01, 4, 0x1DB, 0x1DB, 0, 0x1DA, 0),
    R(0x0F, 0x02, 4, 0x1DB, 0x1DB, 0, 0x1DA, 0),
    R(0x0F, 0x03, 16, 0x680, 0x6C0, 0, 0x1DA, 1), R(0x0F, 0x04, 16, 0x680, 0x6C0, 0, 0x1DA, 1),
    R(0x0F, 0x06, 16, 0x680, 0x6C0, 0, 0x1DA, 1),
    R(0x06, 0x0D, 8, 0x40, 0x40, 0, 0x1C9, 0), R(0x06, 0x0E, 8, 0x40, 0x40, 0, 0x1C9, 0),
    R(0x06, 0x0F, 4, 0x40, 0x60, 0, 0x1C9, 1), R(0x06, 0x16, 4, 0x40, 0x60, 0, 0x1C9, 1),
    R(0x06, 0x17, 4, 0x40, 0x60, 0, 0x1C9, 1), R(0x06, 0x1D, 4, 0x40, 0x60, 0, 0x1C9, 1),
    R(0x06, 0x1C, 8, 0x40, 0x60, 0, 0x1C9, 1), R(0x06, 0x26, 8, 0x40, 0x60, 0, 0x1C9, 1),
    R(0x06, 0x27, 8, 0x40, 0x60, 0, 0x1C9, 1), R(0x06, 0x35, 8, 0x40, 0x60, 0, 0x1C9, 1),
    R(0x06, 0x36, 8, 0x40, 0x60, 0, 0x1C9, 1),
    R(0x06, 0x37, 8, 0x40, 0x60, 0, 0x1C9, 1), R(0x06, 0x4A, 8, 0x40, 0x60, 0, 0x1C9, 1),
    R(0x06, 0x4D, 8, 0x40, 0x60, 0, 0x1C9, 1), R(0x06, 0x5A, 8, 0x40, 0x60, 0, 0x1C9, 1),
    R(0x06, 0x4C, 8, 0x40, 0x60, 0, 0x1C9, 1), R(0x06, 0x5D, 8, 0x40, 0x60, 0, 0x1C9, 1),
    R(0x06, 0x5C, 32, 0x680, 0x6C0, 0, 0x1C9, 6), R(0x06, 0x5F, 32, 0x680, 0x6C0, 0, 0x1C9, 6),
    R(0x06, 0x7A, 32, 0x680, 0x6C0, 0xDC0, 0x1C9, 7),
    R(0x06, 0x86, 32, 0x680, 0x6C0, 0xDC0, 0x1C9, 5), R(0x06, 0x96, 32, 0x680, 0x6C0, 0xDC0, 0x1C9, 5),
    R(0x06, 0x9C, 32, 0x680, 0x6C0, 0xDC0, 0x1C9, 5),
    R(0x06, 0x1A, 16, 0x680, 0x6C0, 0, 0x1C9, 3), R(0x06, 0x1E, 16, 0x680, 0x6C0, 0, 0x1C9, 3),
    R(0x06, 0x1F, 16, 0x680, 0x6C0, 0, 0x1C9, 3), R(0x06, 0x2E, 16, 0x680, 0x6C0, 0, 0x1C9, 3),
    R(0x06, 0x25, 16, 0x680, 0x6C0, 0, 0x1C9, 3), R(0x06, 0x2C, 16, 0x680, 0x6C0, 0, 0x1C9, 3),
    R(0x06, 0x2F, 16, 0x680, 0x6C0, 0, 0x1C9, 3),
    R(0x06, 0x2A, 16, 0x680, 0x6C0, 0, 0x1C9, 3), R(0x06, 0x2D, 16, 0x680, 0x6C0, 0, 0x1C9, 3),
    R(0x06, 0x3A, 16, 0x680, 0x6C0, 0, 0x1C9, 3), R(0x06, 0x3E, 16, 0x680, 0x6C0, 0, 0x1C9, 3),
    R(0x06, 0x3C, 16, 0x680, 0x6C0, 0, 0x1C9, 4), R(0x06, 0x3F, 16, 0x680, 0x6C0, 0, 0x1C9, 4),
    R(0x06, 0x45, 16, 0x680, 0x6C0, 0, 0x1C9, 4), R(0x06, 0x46, 16, 0x680, 0x6C0, 0, 0x1C9, 4),
    R(0x06, 0x3D, 16, 0x680, 0x6C0, 0, 0x1C9, 4), R(0x06, 0x47, 16, 0x680, 0x6C0, 0, 0x1C9, 4),
    R(0x06, 0x4F, 16, 0x680, 0x6C0, 0, 0x1C9, 4), R(0x06, 0x56, 16, 0x680, 0x6C0, 0, 0x1C9, 4),
    R(0x06, 0x4E, 32, 0x680, 0x6C0, 0xDC0, 0x1C9, 5), R(0x06, 0x5E, 32, 0x680, 0x6C0, 0xDC0, 0x1C9, 5),
    R(0x06, 0x55, 32, 0x680, 0x6C0, 0xDC0, 0x1C9, 5), R(0x06, 0x66, 32, 0x680, 0x6C0, 0xDC0, 0x1C9, 5),
    R(0x06, 0x8E, 32, 0x680, 0x6C0, 0xDC0, 0x1C9, 5), R(0x06, 0x9E, 32, 0x680, 0x6C0, 0xDC0, 0x1C9, 5),
    R(0x06, 0xA5, 32, 0x680, 0x6C0, 0xDC0, 0x1C9, 5), R(0x06, 0xA6, 32, 0x680, 0x6C0, 0xDC0, 0x1C9, 5),
    R(0x06, 0x6A, 32, 0x680, 0x6C0, 0xDC0, 0x1C9, 5), R(0x06, 0x6C, 32, 0x680, 0x6C0, 0xDC0, 0x1C9, 5),
    R(0x06, 0x7D, 32, 0x680, 0x6C0, 0xDC0, 0x1C9, 5), R(0x06, 0x7E, 32, 0x680, 0x6C0, 0xDC0, 0x1C9, 5),
    R(0x06, 0x8C, 32, 0x680, 0x6C0, 0xDC0, 0x1C9, 5), R(0x06, 0x8D, 32, 0x680, 0x6C0, 0xDC0, 0x1C9, 5),
    R(0x06, 0xA7, 32, 0x680, 0x6C0, 0xDC0, 0x1C9, 5),
    R(0x06, 0x57, 8, 0x680, 0x6C0, 0, 0x1C9, 1), R(0x06, 0x85, 8, 0x680, 0x6C0, 0, 0x1C9, 1),
    { 0x06, 0x8F, 0, DSM_MSR_ARCH_LBR_FROM0, DSM_MSR_ARCH_LBR_TO0, DSM_MSR_ARCH_LBR_INFO0, 0, 0x3F, true },
    { 0x06, 0x97, 0, DSM_MSR_ARCH_LBR_FROM0, DSM_MSR_ARCH_LBR_TO0, DSM_MSR_ARCH_LBR_INFO0, 0, 0x3F, true },
    { 0x06, 0x9A, 0, DSM_MSR_ARCH_LBR_FROM0, DSM_MSR_ARCH_LBR_TO0, DSM_MSR_ARCH_LBR_INFO0, 0, 0x3F, true },
};
#undef R
#define DSM_NROWS (sizeof(dsm_rows) / sizeof(dsm_rows[0]))
#define DSM_ARCH_LBR_MAX 32   /* CPUID.1CH:EAX[7:0] = 0x0F in the model: depths 8,16,24,32 */

/* ---- NetBurst ESCRs: reference netburst.md "ESCR MSRs" ------------------ *
 * MSR_SSU_ESCR1 (0x3BF) is unconfirmed (Linux: "guess: not in manual"): the
 * model does not implement it, so accessing it faults. */
struct dsm_escr { uint16_t msr; uint8_t sel; uint8_t m12_only; uint32_t ctrs; };
#define C2(a, b) ((1u << (a)) | (1u << (b)))
#define C3(a, b, c) ((1u << (a)) | (1u << (b)) | (1u << (c)))
static const struct dsm_escr dsm_escrs[] = {
    { 0x3A0, 7, 0, C2(0, 1) },  { 0x3A1, 7, 0, C2(2, 3) },   /* BSU */
    { 0x3A2, 6, 0, C2(0, 1) },  { 0x3A3, 6, 0, C2(2, 3) },   /* FSB */
    { 0x3A4, 1, 0, C2(8, 9) },  { 0x3A5, 1, 0, C2(10, 11) }, /* FIRM */
    { 0x3A6, 0, 0, C2(8, 9) },  { 0x3A7, 0, 0, C2(10, 11) }, /* FLAME */
    { 0x3A8, 5, 0, C2(8, 9) },  { 0x3A9, 5, 0, C2(10, 11) }, /* DAC */
    { 0x3AA, 2, 0, C2(0, 1) },  { 0x3AB, 2, 0, C2(2, 3) },   /* MOB */
    { 0x3AC, 4, 0, C2(0, 1) },  { 0x3AD, 4, 0, C2(2, 3) },   /* PMH */
    { 0x3AE, 2, 0, C2(8, 9) },  { 0x3AF, 2, 0, C2(10, 11) }, /* SAAT */
    { 0x3B0, 3, 0, C2(8, 9) },  { 0x3B1, 3, 0, C2(10, 11) }, /* U2L */
    { 0x3B2, 0, 0, C2(0, 1) },  { 0x3B3, 0, 0, C2(2, 3) },   /* BPU */
    { 0x3B4, 1, 0, C2(0, 1) },  { 0x3B5, 1, 0, C2(2, 3) },   /* IS */
    { 0x3B6, 3, 0, C2(0, 1) },  { 0x3B7, 3, 0, C2(2, 3) },   /* ITLB */
    { 0x3B8, 4, 0, C3(12, 13, 16) }, { 0x3B9, 4, 0, C3(14, 15, 17) }, /* CRU0/1 */
    { 0x3BA, 0, 1, C3(12, 13, 16) }, { 0x3BB, 0, 1, C3(14, 15, 17) }, /* IQ (models 1-2) */
    { 0x3BC, 2, 0, C3(12, 13, 16) }, { 0x3BD, 2, 0, C3(14, 15, 17) }, /* RAT */
    { 0x3BE, 3, 0, C3(12, 13, 16) },                                   /* SSU0 */
    { 0x3C0, 0, 0, C2(4, 5) },  { 0x3C1, 0, 0, C2(6, 7) },   /* MS */
    { 0x3C2, 2, 0, C2(4, 5) },  { 0x3C3, 2, 0, C2(6, 7) },   /* TBPU */
    { 0x3C4, 1, 0, C2(4, 5) },  { 0x3C5, 1, 0, C2(6, 7) },   /* TC */
    { 0x3C8, 5, 0, C2(0, 1) },  { 0x3C9, 5, 0, C2(2, 3) },   /* IX */
    { 0x3CA, 1, 0, C3(12, 13, 16) }, { 0x3CB, 1, 0, C3(14, 15, 17) }, /* ALF */
    { 0x3CC, 5, 0, C3(12, 13, 16) }, { 0x3CD, 5, 0, C3(14, 15, 17) }, /* CRU2/3 */
    { 0x3E0, 6, 0, C3(12, 13, 16) }, { 0x3E1, 6, 0, C3(14, 15, 17) }, /* CRU4/5 */
};
#undef C2
#undef C3
#define DSM_NESCR (sizeof(dsm_escrs) / sizeof(dsm_escrs[0]))

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
     * 25C0H: PEBS_TRAP, PEBS_ARCH_REG, format 5, FW_WRITE, PEBS_BASELINE (14) masked
     * (vmx.c vmx_get_perf_capabilities "Disallow adaptive PEBS", newer kernels; older
     * ones kept it from format 4): basic-only records; LBR_FMT 0. */
    [DSM_KVM_SPR] = { "kvm-spr (06_8FH guest)", K_ARCH, true, 0x20, 0x000806F8, 0xFFFABA07, 0x0FABFBFF,
                      0x08300802, 0, 0, 0x603, MISC_STD | DSM_MISC_NO_BTS, 0x25C0, 5, true, 0x4,
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
};

/* ---- helpers ------------------------------------------------------------ */
static void dsm_zero(void *p, size_t n)
{
    volatile unsigned char *c = p;
    while (n--)
        *c++ = 0;
}

/* Count trailing zeros without libgcc (__builtin_ctzll is a libgcc call on
 * i386); x must be non-zero. */
static inline unsigned ctz64(uint64_t x)
{
    uint32_t lo = (uint32_t)x;
    return lo ? (unsigned)__builtin_ctz(lo) : 32u + (unsigned)__builtin_ctz((uint32_t)(x >> 32));
}

static uint64_t wmask(unsigned w) { return w >= 64 ? ~0ull : ((1ull << w) - 1); }

static const struct dsm_lbr_row *find_row(uint16_t fam, uint8_t model)
{
    for (size_t i = 0; i < DSM_NROWS; i++)
        if (dsm_rows[i].family == fam && dsm_rows[i].model == model)
            return &dsm_rows[i];
    return NULL;
}

static uint32_t sig_of(uint16_t fam, uint8_t model, uint32_t stepping)
{
    if (fam == 0x0F)
        return (0xFu << 8) | ((uint32_t)(model & 0xF) << 4) | ((uint32_t)(model >> 4) << 16) | stepping;
    return ((uint32_t)fam << 8) | ((uint32_t)(model & 0xF) << 4) | ((uint32_t)(model >> 4) << 16) | stepping;
}

const char *dsm_profile_name(enum dsm_profile p)
{
    if ((unsigned)p >= DSM_PROFILE__COUNT)
        return "?";
    return dsm_profs[p].name;
}

const struct dsm_lbr_row *dsm_lbr_rows(size_t *out_n)
{
    if (out_n)
        *out_n = DSM_NROWS;
    return dsm_rows;
}

static void lbr_reset(struct dsm_cpu *c)
{
    dsm_zero(c->lbr_from, sizeof(c->lbr_from));
    dsm_zero(c->lbr_to, sizeof(c->lbr_to));
    dsm_zero(c->lbr_info, sizeof(c->lbr_info));
    c->lbr_tos = 0;
    c->lbr_cycles = 0;
    c->lbr_depth = c->lbr.arch ? DSM_ARCH_LBR_MAX : c->lbr.depth;
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
        const struct dsm_lbr_row *row = find_row(fam, pr->row_model);
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
    lbr_reset(c);
    return DSM_OK;
}

enum dsm_profile dsm_profile_for_row(const struct dsm_lbr_row *r)
{
    if (!r)
        return DSM_PROFILE__COUNT;
    if (r->family == 0x0F)
        return r->depth == 4 ? DSM_NETBURST_M2 : DSM_NETBURST_M3;
    if (r->arch)
        return DSM_ICELAKE;
    if (r->from == 0x40)
        return r->depth == 4 || r->to == r->from ? DSM_CORE2 : DSM_ATOM;
    if (r->depth == 16)
        return r->fmt == 3 ? DSM_NEHALEM : DSM_HASWELL;
    if (r->depth == 8)
        return DSM_NEHALEM;  /* Knights Landing/Mill: 0x680 bases, 8 entries */
    switch (r->model) {
    case 0x6A: case 0x6C: case 0x7D: case 0x7E: case 0x8C: case 0x8D: case 0xA7:
        return DSM_ICELAKE;
    default:
        return DSM_SKYLAKE;
    }
}

int dsm_set_lbr_row(struct dsm_cpu *c, const struct dsm_lbr_row *row)
{
    if (!c || !row)
        return DSM_EINVAL;
    bool found = false;
    for (size_t i = 0; i < DSM_NROWS; i++)
        if (&dsm_rows[i] == row)
            found = true;
    if (!found)
        return DSM_EINVAL;
    if ((row->family == 0x0F) != (c->kind == K_NB) || c->kind == K_NONE)
        return DSM_EINVAL;
    if (row->arch && c->version < 5)
        return DSM_EINVAL;
    c->lbr = *row;
    c->cpuid1[0] = sig_of(row->family, row->model, c->cpuid1[0] & 0xF);
    c->perf_caps = (c->perf_caps & ~0x3Full) | row->fmt;
    if (row->arch) {
        /* Arch LBR: CPUID.(7,0):EDX[19], leaf 1CH (reference msr.md section 6) */
        if (c->cpuid0[0] < 0x1C)
            c->cpuid0[0] = 0x1C;
        c->cpuid_7[3] |= 1u << 19;
        c->cpuid_1c[0] = 0x0F;  /* depths 8, 16, 24, 32 */
        c->cpuid_1c[1] = 0x7;   /* CPL filter, branch filter, call stack */
        c->cpuid_1c[2] = 0x7;   /* mispredict, timed LBR, branch type */
        c->lbrsel_valid = 0;    /* no MSR_LBR_SELECT with Arch LBR */
    }
    lbr_reset(c);
    return DSM_OK;
}

int dsm_set_ia32e(struct dsm_cpu *c, bool ia32e)
{
    if (!c || (ia32e && !c->lm))
        return DSM_EINVAL;
    c->ia32e = ia32e;
    return DSM_OK;
}

void dsm_set_pmi(struct dsm_cpu *c, dsm_pmi_fn fn, void *ctx)
{
    if (!c)
        return;
    c->pmi = fn;
    c->pmi_ctx = ctx;
}

void dsm_set_lvt_model(struct dsm_cpu *c, bool on)
{
    if (!c)
        return;
    c->lvt_model = on;
    c->lvt_masked = false;
}

void dsm_lvt_unmask(struct dsm_cpu *c)
{
    if (c)
        c->lvt_masked = false;
}

void dsm_set_msr_hook(struct dsm_cpu *c, dsm_msr_hook_fn fn, void *ctx)
{
    if (!c)
        return;
    c->msr_hook = fn;
    c->msr_hook_ctx = ctx;
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

bool dsm_ds64(const struct dsm_cpu *c)
{
    return c && ((c->cpuid1[2] & DSM_C1_ECX_DTES64) || c->ia32e);
}

static bool has_ds(const struct dsm_cpu *c) { return (c->cpuid1[3] & DSM_C1_EDX_DS) != 0; }
static bool has_pdcm(const struct dsm_cpu *c) { return (c->cpuid1[2] & DSM_C1_ECX_PDCM) != 0; }
static bool has_pebs(const struct dsm_cpu *c)
{
    return has_ds(c) && !(c->misc_enable & DSM_MISC_NO_PEBS) &&
           (c->kind == K_NB || c->pebs_fmt >= 0);
}
static bool has_bts(const struct dsm_cpu *c) { return has_ds(c) && !(c->misc_enable & DSM_MISC_NO_BTS); }
/* Adaptive PEBS (PEBS_DATA_CFG, EVTSEL/FIXED_CTR_CTRL adaptive bits): format 4+ with
 * PERF_CAPABILITIES.PEBS_BASELINE (SDM "IA32_PERF_CAPABILITIES"); every format 4+
 * profile but DSM_KVM_SPR sets it. */
static bool adaptive_ok(const struct dsm_cpu *c)
{
    return c->pebs_fmt >= 4 && (c->perf_caps & DSM_CAP_PEBS_BASELINE);
}

uint32_t dsm_bts_record_size(const struct dsm_cpu *c) { return dsm_ds64(c) ? 24 : 12; }

static uint32_t popc(uint32_t v)
{
    uint32_t n = 0;
    for (; v; v &= v - 1)
        n++;
    return n;
}

/* Adaptive record size for a DATA_CFG value (reference pebs-records.md). */
static uint32_t adaptive_size(uint64_t cfg)
{
    uint32_t s = 32;
    if (cfg & 1)
        s += 32;
    if (cfg & 2)
        s += 144;
    if (cfg & 4)
        s += 256;
    if (cfg & 8)
        s += 24 * (uint32_t)(((cfg >> 24) & 0xFF) + 1);
    /* format 6 counters group (Linux pebs_update_adaptive_cfg): bit 4 or 5 ->
     * 16-byte header; bit 4: one qword per counter; bit 5: slots + metrics */
    if (cfg & (DSM_CFG_CNTR | DSM_CFG_METRICS))
        s += 16;
    if (cfg & DSM_CFG_CNTR)
        s += 8 * (popc((uint32_t)((cfg >> DSM_CFG_GP_SHIFT) & 0xFFFF)) +
                  popc((uint32_t)((cfg >> DSM_CFG_FIX_SHIFT) & 0xFF)));
    if (cfg & DSM_CFG_METRICS)
        s += 16;
    return s;
}

uint32_t dsm_pebs_record_size(const struct dsm_cpu *c)
{
    if (!c || !has_pebs(c))
        return 0;
    if (c->kind == K_NB)
        return dsm_ds64(c) ? 144 : 40;
    switch (c->pebs_fmt) {
    case 0: return 0x90;
    case 1: return 0xB0;
    case 2: return 0xC0;
    case 3: return 0xC8;
    case 4: case 5: case 6: return adaptive_size(c->pebs_cfg);
    default: return 0;
    }
}

/* ---- statistics --------------------------------------------------------- */
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

const struct dsm_stats *dsm_stats(const struct dsm_cpu *c) { return c ? &c->st : NULL; }

void dsm_msr_count(const struct dsm_cpu *c, uint32_t msr, uint32_t *r, uint32_t *w, uint32_t *f)
{
    uint32_t a = 0, b = 0, d = 0;
    if (c)
        for (uint32_t i = 0; i < c->msr_st_used; i++)
            if (c->msr_st[i].msr == msr) {
                a = c->msr_st[i].reads;
                b = c->msr_st[i].writes;
                d = c->msr_st[i].faults;
            }
    if (r)
        *r = a;
    if (w)
        *w = b;
    if (f)
        *f = d;
}

void dsm_stats_reset(struct dsm_cpu *c)
{
    if (!c)
        return;
    dsm_zero(&c->st, sizeof(c->st));
    dsm_zero(c->msr_st, sizeof(c->msr_st));
    c->msr_st_used = 0;
    c->msr_st_dropped = 0;
}

/* ---- MSR semantics ------------------------------------------------------ */
/* The fixed counters that exist: CPUID 23H.1 EBX where it has holes, else 0..nfixed-1. */
static uint64_t fxmask(const struct dsm_cpu *c)
{
    return c->fixed_avail ? c->fixed_avail : wmask(c->nfixed);
}

static bool fx_exists(const struct dsm_cpu *c, unsigned m)
{
    return m < c->nfixed && ((fxmask(c) >> m) & 1);
}

static uint64_t gstatus_valid(const struct dsm_cpu *c)
{
    uint64_t v = wmask(c->ngp) | (fxmask(c) << 32) | DSM_GS_OVFBUF | DSM_GS_CONDCHGD;
    if (c->version >= 3)
        v |= DSM_GS_UNCORE;
    if (c->version >= 4)
        v |= DSM_GS_LBR_FRZ | DSM_GS_CTR_FRZ;
    if (c->perf_caps & DSM_CAP_PERF_METRICS)
        v |= DSM_GS_PERF_METRICS;
    if (c->ap.on)
        v |= DSM_GS_ARCH_PEBS;
    return v;
}

static uint64_t gctrl_valid(const struct dsm_cpu *c)
{
    uint64_t v = wmask(c->ngp) | (fxmask(c) << 32);
    if (c->perf_caps & DSM_CAP_PERF_METRICS)
        v |= 1ull << 48;
    return v;
}

static uint64_t fixed_ctrl_valid(const struct dsm_cpu *c)
{
    uint64_t v = 0;
    for (unsigned m = 0; m < c->nfixed; m++) {
        if (!fx_exists(c, m))
            continue;
        v |= 0xBull << (4 * m);              /* OS, USR, PMI */
        if (c->version >= 3)
            v |= 0x4ull << (4 * m);          /* AnyThread */
        if (adaptive_ok(c))
            v |= 1ull << (32 + 4 * m);       /* adaptive PEBS */
    }
    return v;
}

/* Legacy MSRs reach counters 0-7 only (0xC9, 0x18E, 0x4C9 are no PMC MSRs). */
static unsigned legacy_gp(const struct dsm_cpu *c) { return c->ngp < 8 ? c->ngp : 8; }

static uint64_t pebs_enable_valid(const struct dsm_cpu *c)
{
    switch (c->pebs_fmt) {
    case 0: return 1;                                         /* PMC0 only */
    case 1: case 2: case 3: return 0xFull | (0xFull << 32);   /* PEBS_EN 3:0, LL_EN 35:32 */
    case 4: case 5:
        /* KVM intel_pmu_refresh: GP counters only without PEBS_BASELINE */
        if (!adaptive_ok(c))
            return wmask(c->ngp);
        return wmask(c->ngp) | (fxmask(c) << 32);
    case 6: return wmask(c->ngp) | (fxmask(c) << 32);
    default: return 0;
    }
}

static bool canonical(const struct dsm_cpu *c, uint64_t v)
{
    if (!c->lm)
        return (v >> 32) == 0;
    uint64_t top = v >> 47;
    return top == 0 || top == 0x1FFFF;
}

/* Resolve the ESCR a NetBurst CCCR selects for counter i (-1: no pairing). */
static int nb_resolve(const struct dsm_cpu *c, unsigned i, uint64_t cccr)
{
    unsigned sel = (unsigned)(cccr >> DSM_CCCR_SEL_SHIFT) & 7;
    bool m12 = ((c->cpuid1[0] >> 4) & 0xF) <= 2;
    for (size_t k = 0; k < DSM_NESCR; k++) {
        const struct dsm_escr *e = &dsm_escrs[k];
        if (e->sel == sel && (e->ctrs & (1u << i)) && (!e->m12_only || m12))
            return (int)(e->msr - DSM_MSR_NB_ESCR_FIRST);
    }
    return -1;
}

static int nb_escr_index(const struct dsm_cpu *c, uint32_t msr)
{
    bool m12 = ((c->cpuid1[0] >> 4) & 0xF) <= 2;
    for (size_t k = 0; k < DSM_NESCR; k++)
        if (dsm_escrs[k].msr == msr)
            return (!dsm_escrs[k].m12_only || m12) ? (int)(msr - DSM_MSR_NB_ESCR_FIRST) : -1;
    return -1;
}

static void nb_update_active(struct dsm_cpu *c)
{
    c->nb_active = 0;
    for (unsigned i = 0; i < 18; i++) {
        c->nb_escr_of[i] = -1;
        if (!(c->nb_cccr[i] & DSM_CCCR_ENABLE))
            continue;
        int s = nb_resolve(c, i, c->nb_cccr[i]);
        c->nb_escr_of[i] = (int8_t)s;
        if (s >= 0)
            c->nb_active |= 1u << i;
    }
}

/* LBR MSR access shared by both families. Returns 1 if msr is an LBR MSR. */
static int lbr_msr(struct dsm_cpu *c, uint32_t msr, bool wr, uint64_t *v, int *rc)
{
    const struct dsm_lbr_row *r = &c->lbr;
    *rc = DSM_OK;
    if (!r->arch && r->depth == 0)
        return 0;    /* no LBR (DSM_KVM_SPR): every LBR MSR #GP */
    if (r->arch) {
        if (msr == DSM_MSR_ARCH_LBR_CTL) {
            if (wr) {
                if (*v & ~0x7F000Full)
                    return (*rc = DSM_GP), 1;
                c->lbr_ctl = *v;
            } else {
                *v = c->lbr_ctl;
            }
            return 1;
        }
        if (msr == DSM_MSR_ARCH_LBR_DEPTH) {
            if (wr) {
                /* CPUID.1CH:EAX[7:0] bit n: depth 8(n+1) supported; others #GP */
                if (*v == 0 || *v > DSM_ARCH_LBR_MAX || (*v % 8) || !((c->cpuid_1c[0] >> (*v / 8 - 1)) & 1))
                    return (*rc = DSM_GP), 1;
                lbr_reset(c);
                c->lbr_depth = (uint32_t)*v;  /* writing the depth clears all entries */
            } else {
                *v = c->lbr_depth;
            }
            return 1;
        }
        uint64_t *arr = NULL;
        uint32_t idx = 0;
        if (msr >= r->from && msr < r->from + DSM_ARCH_LBR_MAX) {
            arr = c->lbr_from;
            idx = msr - r->from;
        } else if (msr >= r->to && msr < r->to + DSM_ARCH_LBR_MAX) {
            arr = c->lbr_to;
            idx = msr - r->to;
        } else if (msr >= r->info && msr < r->info + DSM_ARCH_LBR_MAX) {
            arr = c->lbr_info;
            idx = msr - r->info;
        }
        if (!arr)
            return 0;
        if (idx >= c->lbr_depth)
            return (*rc = DSM_GP), 1;
        if (wr)
            arr[idx] = *v;
        else
            *v = arr[idx];
        return 1;
    }
    if (msr == r->tos) {
        if (wr) {
            if (*v >= r->depth)
                return (*rc = DSM_GP), 1;
            c->lbr_tos = (uint32_t)*v;
        } else {
            *v = c->lbr_tos;
        }
        return 1;
    }
    if (r->from == r->to) {     /* packed: FROM in 31:0, TO in 63:32 */
        if (msr >= r->from && msr < r->from + r->depth) {
            uint32_t i = msr - r->from;
            if (wr) {
                c->lbr_from[i] = *v & 0xFFFFFFFFull;
                c->lbr_to[i] = *v >> 32;
            } else {
                *v = (c->lbr_to[i] << 32) | (c->lbr_from[i] & 0xFFFFFFFFull);
            }
            return 1;
        }
        return 0;
    }
    uint64_t *arr = NULL;
    uint32_t idx = 0;
    if (msr >= r->from && msr < r->from + r->depth) {
        arr = c->lbr_from;
        idx = msr - r->from;
    } else if (msr >= r->to && msr < r->to + r->depth) {
        arr = c->lbr_to;
        idx = msr - r->to;
    } else if (r->info && msr >= r->info && msr < r->info + r->depth) {
        arr = c->lbr_info;
        idx = msr - r->info;
    }
    if (!arr)
        return 0;
    if (wr)
        arr[idx] = *v;
    else
        *v = arr[idx];
    return 1;
}

static int msr_nb(struct dsm_cpu *c, uint32_t msr, bool wr, uint64_t *v)
{
    if (msr >= DSM_MSR_NB_COUNTER0 && msr < DSM_MSR_NB_COUNTER0 + 18) {
        unsigned i = msr - DSM_MSR_NB_COUNTER0;
        if (wr) {
            if (*v & ~wmask(DSM_NB_WIDTH))
                return DSM_GP;
            c->nb_cnt[i] = *v;
            c->armed &= ~(1ull << i);
        } else {
            *v = c->nb_cnt[i];
        }
        return DSM_OK;
    }
    if (msr >= DSM_MSR_NB_CCCR0 && msr < DSM_MSR_NB_CCCR0 + 18) {
        unsigned i = msr - DSM_MSR_NB_CCCR0;
        if (wr) {
            if (*v & ~DSM_CCCR_VALID)
                return DSM_GP;
            c->nb_cccr[i] = *v;
            nb_update_active(c);
        } else {
            *v = c->nb_cccr[i];
        }
        return DSM_OK;
    }
    if (msr >= DSM_MSR_NB_ESCR_FIRST && msr < DSM_MSR_NB_ESCR_FIRST + DSM_NB_ESCR_SLOTS) {
        int s = nb_escr_index(c, msr);
        if (s < 0)
            return DSM_GP;
        if (wr) {
            if (*v & ~DSM_ESCR_VALID)
                return DSM_GP;
            c->nb_escr[s] = *v;
        } else {
            *v = c->nb_escr[s];
        }
        return DSM_OK;
    }
    switch (msr) {
    case DSM_MSR_DEBUGCTL:
        if (wr) {
            if (*v & ~c->debugctl_valid)
                return DSM_GP;
            /* BTS_OFF_OS/USR need DS-CPL (SDM "Debug Store (DS) Mechanism") */
            if ((*v & (DSM_NBDBG_OFF_OS | DSM_NBDBG_OFF_USR)) && !(c->cpuid1[2] & DSM_C1_ECX_DSCPL))
                return DSM_GP;
            c->debugctl = *v;
        } else {
            *v = c->debugctl;
        }
        return DSM_OK;
    case DSM_MSR_PEBS_ENABLE:
        if (!has_pebs(c))
            return DSM_GP;
        if (wr) {
            if (*v & ~DSM_NB_PEBS_VALID)
                return DSM_GP;
            c->pebs_enable = *v;
        } else {
            *v = c->pebs_enable;
        }
        return DSM_OK;
    case DSM_MSR_PEBS_3F2:   /* MSR_PEBS_MATRIX_VERT */
        if (!has_pebs(c))
            return DSM_GP;
        if (wr) {
            if (*v & ~DSM_NB_VERT_VALID)
                return DSM_GP;
            c->pebs_cfg = *v;
        } else {
            *v = c->pebs_cfg;
        }
        return DSM_OK;
    case DSM_MSR_NB_LER_FROM:
    case DSM_MSR_NB_LER_TO:
        if (wr)
            return DSM_GP;
        *v = msr == DSM_MSR_NB_LER_FROM ? c->ler_from : c->ler_to;
        return DSM_OK;
    default:
        break;
    }
    int rc;
    if (lbr_msr(c, msr, wr, v, &rc))
        return rc;
    return DSM_GP;
}

/* Perfmon v6 aliases (SDM "Architectural Performance Monitoring Version 6"):
 * IA32_PMC_GPn_CTR (full-width: bits beyond the width #GP, as IA32_A_PMCn),
 * IA32_PMC_GPn_CFG_A (= IA32_PERFEVTSELn), IA32_PMC_FXm_CTR (= IA32_FIXED_CTRm).
 * CFG_B (reload) and CFG_C (architectural PEBS) are not modelled here: #GP.
 * Returns 1 if @msr is in the alias ranges (rc set), 0 otherwise. */
static int msr_v6(struct dsm_cpu *c, uint32_t msr, bool wr, uint64_t *v, int *rc)
{
    *rc = DSM_OK;
    if (msr >= DSM_MSR_V6_GP0_CTR && msr < DSM_MSR_V6_GP0_CTR + DSM_MSR_V6_STEP * c->ngp) {
        unsigned n = (msr - DSM_MSR_V6_GP0_CTR) / DSM_MSR_V6_STEP;
        switch ((msr - DSM_MSR_V6_GP0_CTR) % DSM_MSR_V6_STEP) {
        case 0:
            if (!wr) {
                *v = c->pmc[n];
            } else if (*v & ~wmask(c->gp_width)) {
                *rc = DSM_GP;
            } else {
                c->pmc[n] = *v;
                c->armed &= ~(1ull << n);
            }
            return 1;
        case 1:
            if (!wr)
                *v = c->evtsel[n];
            else if (*v & ~c->evtsel_valid)
                *rc = DSM_GP;
            else
                c->evtsel[n] = *v;
            return 1;
        default:
            *rc = DSM_GP;
            return 1;
        }
    }
    if (msr >= DSM_MSR_V6_FX0_CTR && msr < DSM_MSR_V6_FX0_CTR + DSM_MSR_V6_STEP * c->nfixed) {
        unsigned m = (msr - DSM_MSR_V6_FX0_CTR) / DSM_MSR_V6_STEP;
        if ((msr - DSM_MSR_V6_FX0_CTR) % DSM_MSR_V6_STEP || !fx_exists(c, m))
            *rc = DSM_GP;
        else if (!wr)
            *v = c->fixed[m];
        else if (*v & ~wmask(c->fixed_width))
            *rc = DSM_GP;
        else {
            c->fixed[m] = *v;
            c->armed &= ~(1ull << (32 + m));
        }
        return 1;
    }
    return 0;
}

static int msr_arch(struct dsm_cpu *c, uint32_t msr, bool wr, uint64_t *v)
{
    int v6rc;
    if (c->version >= 6 && msr_v6(c, msr, wr, v, &v6rc))
        return v6rc;
    if (msr >= DSM_MSR_PMC0 && msr < DSM_MSR_PMC0 + legacy_gp(c)) {
        unsigned n = msr - DSM_MSR_PMC0;
        if (wr) { /* legacy write: bits 31:0 sign-extended to the counter width */
            c->pmc[n] = (uint64_t)(int64_t)(int32_t)(uint32_t)*v & wmask(c->gp_width);
            c->armed &= ~(1ull << n);   /* model: reprogramming a counter drops a pending assist */
        } else
            *v = c->pmc[n];
        return DSM_OK;
    }
    if ((c->perf_caps & DSM_CAP_FW_WRITE) && msr >= DSM_MSR_A_PMC0 && msr < DSM_MSR_A_PMC0 + legacy_gp(c)) {
        unsigned n = msr - DSM_MSR_A_PMC0;
        if (wr) {
            if (*v & ~wmask(c->gp_width))
                return DSM_GP;
            c->pmc[n] = *v;
            c->armed &= ~(1ull << n);
        } else {
            *v = c->pmc[n];
        }
        return DSM_OK;
    }
    if (msr >= DSM_MSR_PERFEVTSEL0 && msr < DSM_MSR_PERFEVTSEL0 + legacy_gp(c)) {
        unsigned n = msr - DSM_MSR_PERFEVTSEL0;
        if (wr) {
            if (*v & ~c->evtsel_valid)
                return DSM_GP;
            c->evtsel[n] = *v;
        } else {
            *v = c->evtsel[n];
        }
        return DSM_OK;
    }
    if (c->version >= 2 && msr >= DSM_MSR_FIXED_CTR0 && msr < DSM_MSR_FIXED_CTR0 + c->nfixed) {
        unsigned m = msr - DSM_MSR_FIXED_CTR0;
        if (!fx_exists(c, m))
            return DSM_GP;
        if (wr) {
            if (*v & ~wmask(c->fixed_width))
                return DSM_GP;
            c->fixed[m] = *v;
            c->armed &= ~(1ull << (32 + m));
        } else {
            *v = c->fixed[m];
        }
        return DSM_OK;
    }
    switch (msr) {
    case DSM_MSR_PERF_CAP:
        if (!has_pdcm(c) || wr)
            return DSM_GP;
        *v = c->perf_caps;
        return DSM_OK;
    case DSM_MSR_PERF_METRICS:   /* as written; counting updates it only with EN_PERF_METRICS (metrics_update) */
        if (!(c->perf_caps & DSM_CAP_PERF_METRICS))
            return DSM_GP;
        if (wr)
            c->perf_metrics = *v;
        else
            *v = c->perf_metrics;
        return DSM_OK;
    case DSM_MSR_DEBUGCTL:
        if (wr) {
            if (*v & ~(c->debugctl_valid | c->debugctl_drop))
                return DSM_GP;
            if ((*v & (DSM_DBG_BTS_OFF_OS | DSM_DBG_BTS_OFF_USR)) && !(c->cpuid1[2] & DSM_C1_ECX_DSCPL))
                return DSM_GP;
            c->debugctl = *v & ~c->debugctl_drop;
        } else {
            *v = c->debugctl;
        }
        return DSM_OK;
    case DSM_MSR_FIXED_CTR_CTRL:
        if (c->version < 2)
            return DSM_GP;
        if (wr) {
            if (*v & ~fixed_ctrl_valid(c))
                return DSM_GP;
            c->fixed_ctrl = *v;
        } else {
            *v = c->fixed_ctrl;
        }
        return DSM_OK;
    case DSM_MSR_GLOBAL_STATUS:
        if (c->version < 2 || wr)
            return DSM_GP;
        *v = c->gstatus;
        return DSM_OK;
    case DSM_MSR_GLOBAL_CTRL:
        if (c->version < 2)
            return DSM_GP;
        if (wr) {
            if (*v & ~gctrl_valid(c))
                return DSM_GP;
            c->gctrl = *v;
        } else {
            *v = c->gctrl;
        }
        return DSM_OK;
    case DSM_MSR_GLOBAL_OVF_CTRL:
        if (c->version < 2)
            return DSM_GP;
        if (wr) {
            if (*v & ~gstatus_valid(c))
                return DSM_GP;
            c->gstatus &= ~*v;   /* v4: clearing CTR_Frz / LBR_Frz unfreezes */
        } else {
            *v = 0;
        }
        return DSM_OK;
    case DSM_MSR_GLOBAL_STATUS_SET:
        if (c->version < 4)
            return DSM_GP;
        if (wr) {
            if (*v & ~(gstatus_valid(c) & ~DSM_GS_CONDCHGD))
                return DSM_GP;
            c->gstatus |= *v;
        } else {
            *v = 0;
        }
        return DSM_OK;
    case DSM_MSR_GLOBAL_INUSE:
        if (c->version < 4 || wr)
            return DSM_GP;
        /* bit n: PERFEVTSELn[7:0] != 0; bit 32+m: fixed m enabled; 63: PMI in use
         * (reference: single source, unconfirmed semantics) */
        *v = 0;
        for (unsigned n = 0; n < c->ngp; n++) {
            if (c->evtsel[n] & 0xFF)
                *v |= 1ull << n;
            if (c->evtsel[n] & DSM_EVT_INT)
                *v |= 1ull << 63;
        }
        for (unsigned m = 0; m < c->nfixed; m++) {
            if ((c->fixed_ctrl >> (4 * m)) & 3)
                *v |= 1ull << (32 + m);
            if ((c->fixed_ctrl >> (4 * m)) & 8)
                *v |= 1ull << 63;
        }
        if (c->pebs_enable)
            *v |= 1ull << 63;
        return DSM_OK;
    case DSM_MSR_PEBS_ENABLE:
        if (!has_pebs(c))
            return DSM_GP;
        if (wr) {
            if (*v & ~pebs_enable_valid(c))
                return DSM_GP;
            c->pebs_enable = *v;
        } else {
            *v = c->pebs_enable;
        }
        return DSM_OK;
    case DSM_MSR_PEBS_3F2:   /* MSR_PEBS_DATA_CFG, adaptive PEBS only */
        if (!has_pebs(c) || !adaptive_ok(c))   /* KVM intel_is_valid_msr: needs PEBS_BASELINE */
            return DSM_GP;
        if (wr) {
            /* groups 3:0, LBR entries-1 in 31:24 (model: at most the LBR depth) */
            uint64_t ok = 0xFF00000Full;
            if (c->pebs_fmt >= 6)   /* counters group, GP mask 47:32, fixed mask 55:48 */
                ok |= DSM_CFG_CNTR | (wmask(c->ngp) << DSM_CFG_GP_SHIFT) | (fxmask(c) << DSM_CFG_FIX_SHIFT);
            if (c->pebs_fmt >= 6 && (c->perf_caps & DSM_CAP_PERF_METRICS))   /* metrics, bit 5 */
                ok |= DSM_CFG_METRICS;
            if ((*v & ~ok) || ((*v >> 24) & 0xFF) >= c->lbr_depth)
                return DSM_GP;
            c->pebs_cfg = *v;
        } else {
            *v = c->pebs_cfg;
        }
        return DSM_OK;
    case DSM_MSR_PEBS_LD_LAT:
        if (!c->ll || !has_pebs(c))
            return DSM_GP;
        if (wr) {
            if (*v & ~0xFFFFull)
                return DSM_GP;
            c->ld_lat = *v;
        } else {
            *v = c->ld_lat;
        }
        return DSM_OK;
    case DSM_MSR_PEBS_FRONTEND:
        /* Skylake+; fields single-source: model accepts bits 23:0 */
        if (c->pebs_fmt < 3 || !has_pebs(c))
            return DSM_GP;
        if (wr) {
            if (*v & ~0xFFFFFFull)
                return DSM_GP;
            c->frontend = *v;
        } else {
            *v = c->frontend;
        }
        return DSM_OK;
    case DSM_MSR_LBR_SELECT:
        if (!c->lbrsel_valid)
            return DSM_GP;
        if (wr) {
            if (*v & ~c->lbrsel_valid)
                return DSM_GP;
            c->lbr_select = *v;
        } else {
            *v = c->lbr_select;
        }
        return DSM_OK;
    case DSM_MSR_LER_FROM:
    case DSM_MSR_LER_TO:
        if (c->lbr.arch || c->lbr.depth == 0)
            return DSM_GP;
        if (wr)
            return DSM_GP;
        *v = msr == DSM_MSR_LER_FROM ? c->ler_from : c->ler_to;
        return DSM_OK;
    default:
        break;
    }
    int rc;
    if (lbr_msr(c, msr, wr, v, &rc))
        return rc;
    return DSM_GP;
}

int dsm_set_msr_gp(struct dsm_cpu *c, uint32_t msr)
{
    if (!c)
        return DSM_EINVAL;
    if (!msr) {
        c->quirk_gp[0] = c->quirk_gp[1] = 0;
        return DSM_OK;
    }
    for (int i = 0; i < 2; i++)
        if (!c->quirk_gp[i] || c->quirk_gp[i] == msr) {
            c->quirk_gp[i] = msr;
            return DSM_OK;
        }
    return DSM_EINVAL;
}

static int msr_access(struct dsm_cpu *c, uint32_t msr, bool wr, uint64_t *v)
{
    if (msr && (msr == c->quirk_gp[0] || msr == c->quirk_gp[1]))
        return DSM_GP; /* advertised, faults anyway (dsm_set_msr_gp) */
    if (msr == DSM_MSR_MISC_ENABLE) {
        if (wr) {
            /* bits 7, 11, 12 are read-only: writes keep them */
            const uint64_t ro = DSM_MISC_PERFMON | DSM_MISC_NO_BTS | DSM_MISC_NO_PEBS;
            c->misc_enable = (c->misc_enable & ro) | (*v & ~ro);
        } else {
            *v = c->misc_enable;
        }
        return DSM_OK;
    }
    if (msr == DSM_MSR_DS_AREA && c->kind != K_NONE) {
        if (!has_ds(c))
            return DSM_GP;
        if (wr) {
            if (!canonical(c, *v))
                return DSM_GP;
            c->ds_area = *v;
        } else {
            *v = c->ds_area;
        }
        return DSM_OK;
    }
    int aprc;
    if (c->ap.on && dsm__apebs_msr(c, msr, wr, v, &aprc))
        return aprc;
    if (c->ap.on)
        msr = dsm__apebs_alias(c, msr);   /* perfmon v6 counter aliases */
    switch (c->kind) {
    case K_NB:
        return msr_nb(c, msr, wr, v);
    case K_ARCH:
        return msr_arch(c, msr, wr, v);
    default:
        if (msr == DSM_MSR_DEBUGCTL) {   /* P6: LBR, BTF only */
            if (wr) {
                if (*v & ~c->debugctl_valid)
                    return DSM_GP;
                c->debugctl = *v;
            } else {
                *v = c->debugctl;
            }
            return DSM_OK;
        }
        return DSM_GP;
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

/* ---- DS area access ------------------------------------------------------ */
/* Field i (0 BTS base, 1 index, 2 max, 3 thresh, 4 PEBS base, 5 index, 6 max,
 * 7 thresh) of the DS buffer management area (SDM "DS Save Area" figures). */
static int ds_read_fields(struct dsm_cpu *c, unsigned first, uint64_t out[4])
{
    if (!c->mem) {
        c->st.mem_faults++;
        return -1;
    }
    if (dsm_ds64(c)) {
        if (c->mem->read(c->mem_ctx, c->ds_area + 8 * first, out, 32)) {
            c->st.mem_faults++;
            return -1;
        }
        return 0;
    }
    uint32_t f[4];
    if (c->mem->read(c->mem_ctx, (c->ds_area + 4 * first) & 0xFFFFFFFFull, f, 16)) {
        c->st.mem_faults++;
        return -1;
    }
    for (int i = 0; i < 4; i++)
        out[i] = f[i];
    return 0;
}

static int ds_write_index(struct dsm_cpu *c, unsigned field, uint64_t val)
{
    int rc;
    if (dsm_ds64(c)) {
        rc = c->mem->write(c->mem_ctx, c->ds_area + 8 * field, &val, 8);
    } else {
        uint32_t v32 = (uint32_t)val;
        rc = c->mem->write(c->mem_ctx, (c->ds_area + 4 * field) & 0xFFFFFFFFull, &v32, 4);
    }
    if (rc)
        c->st.mem_faults++;
    return rc;
}

/* Counter-reset slot (reference ds-area.md): 64-bit 0x40 + 8*slot, 32-bit
 * 0x20 + 8*slot (NetBurst: 40-bit value, low dword 0x20, high 0x24). */
static uint64_t ds_reset_value(struct dsm_cpu *c, unsigned slot)
{
    uint64_t v = 0;
    uint64_t a = dsm_ds64(c) ? c->ds_area + 0x40 + 8ull * slot : (c->ds_area + 0x20 + 8ull * slot) & 0xFFFFFFFFull;
    if (!c->mem || c->mem->read(c->mem_ctx, a, &v, 8)) {
        c->st.mem_faults++;
        return 0;
    }
    return v;
}

/* Append one record; shared by PEBS (base field 4) and BTS (base field 0).
 * Returns 1 written, 0 skipped. *crossed set when the index is at or past
 * the interrupt threshold after this record. */
static int ds_append(struct dsm_cpu *c, unsigned first, const void *rec, uint32_t size, bool circular,
                     bool *crossed)
{
    uint64_t f[4];
    *crossed = false;
    if (ds_read_fields(c, first, f))
        return 0;
    uint64_t base = f[0], idx = f[1], max = f[2], thr = f[3];
    if (!dsm_ds64(c)) {
        base &= 0xFFFFFFFFull;
    }
    if (idx < base || idx + size > max) {
        if (!circular || base + size > max)
            return 0;
        idx = base;   /* BTINT = 0: the BTS buffer wraps to its base */
        c->st.bts_wraps++;
    }
    if (c->mem->write(c->mem_ctx, idx, rec, size)) {
        c->st.mem_faults++;
        return 0;
    }
    uint64_t nidx = idx + size;
    if (ds_write_index(c, first + 1, nidx))
        return 0;
    /* The CPU compares after every record: each record that leaves the
     * index at or beyond the threshold requests the PMI (the handler resets
     * the index; until then the LVT mask holds further PMIs off). */
    if (nidx >= thr)
        *crossed = true;
    return 1;
}

/* ---- event path ---------------------------------------------------------- */
/* Per-microarchitecture event decoding. One row: what an EVTSEL event/umask
 * counts on the profile's core, whether a PEBS-enabled counter programmed
 * with it takes an assist, and on which GP counters it counts (bit n = PMCn).
 * An encoding missing from the core's table, or on a counter its row does not
 * list, counts nothing (a wrong umask gets no samples). Encodings and
 * counters: Intel perfmon JSON (github.com/intel/perfmon <dir>/events/
 * <core>_core.json, "EventCode", "UMask", "Counter"); Core 2 (no perfmon
 * file): SDM Vol. 3B "Performance Monitoring Events" (Intel Core
 * microarchitecture table). C0H/00H, C4H/00H, C5H/00H, 3CH/00H and 3CH/01H are
 * the SDM "Pre-defined Architectural Performance Events": they count on every
 * core even where perfmon lists another umask.
 * Assist (EP_*): the perfmon "PEBS" field (up to SKL: 0 "cannot collect a PEBS
 * record with a Precise IP", 1 precise, 2 PEBS only) or "Precise" with
 * "CollectPEBSRecord" (ICL and later, perfmon README); perfmon says nothing
 * for the PEBS-0 events, Linux decides: intel_core2_ and intel_nehalem_
 * pebs_event_constraints list the PEBS events and nothing else (EP_NONE: the
 * counter counts, no record, as the SDM's PEBS event lists say); intel_atom_,
 * intel_hsw_, intel_skl_pebs_event_constraints end with "Allow all events as
 * PEBS with no flags" (EP_IMPRECISE: the record is taken at the next retired
 * instruction after the overflow, not at an occurrence of the event). */
enum { EW_INST = 1, EW_CYC, EW_BR, EW_MISP, EW_LOAD, EW_STORE, EW_LL };
enum { EP_NONE = 0, EP_PRECISE, EP_IMPRECISE };
/* pctrs: the GP counters a PEBS assist is taken on (perfmon "PEBScounters"
 * where it differs from "Counter"); 0: every counter of ctrs. On another
 * counter the event counts and overflows (PMI if INT) but writes no record. */
struct ev_row { uint8_t ev, um, what, pebs; uint16_t ctrs, pctrs; };
#define EVC_ALL 0xFFFFu
#define EV_ARCH_CYC(p) { 0x3C, 0x00, EW_CYC, p, EVC_ALL, 0 }, { 0x3C, 0x01, EW_CYC, p, EVC_ALL, 0 }

/* Core 2 (06_0FH): SDM Core-microarchitecture table; PEBS: Linux
 * intel_core2_pebs_event_constraints (0x00c0, 0x00c5; PEBS on PMC0 only). */
static const struct ev_row ev_core2[] = {
    { 0xC0, 0x00, EW_INST, EP_PRECISE, EVC_ALL, 0 },   /* INST_RETIRED.ANY_P */
    { 0xC0, 0x01, EW_LOAD, EP_NONE, EVC_ALL, 0 },      /* INST_RETIRED.LOADS */
    { 0xC0, 0x02, EW_STORE, EP_NONE, EVC_ALL, 0 },     /* INST_RETIRED.STORES */
    { 0xC4, 0x00, EW_BR, EP_NONE, EVC_ALL, 0 },        /* BR_INST_RETIRED.ANY */
    { 0xC5, 0x00, EW_MISP, EP_PRECISE, EVC_ALL, 0 },   /* BR_INST_RETIRED.MISPRED */
    EV_ARCH_CYC(EP_NONE), { 0, 0, 0, 0, 0, 0 }
};
/* Bonnell (06_1CH): BNL/events/bonnell_core.json (v5). It has no retired-load
 * or retired-store event (L1D_CACHE.LD/ST 40H count cache accesses, not
 * retirement): loads and stores count nothing here. */
static const struct ev_row ev_bonnell[] = {
    { 0xC0, 0x00, EW_INST, EP_PRECISE, 0x3, 0 },       /* INST_RETIRED.ANY_P, PEBS 2 */
    { 0xC4, 0x00, EW_BR, EP_IMPRECISE, 0x3, 0 },       /* BR_INST_RETIRED.ANY, PEBS 0 */
    { 0xC5, 0x00, EW_MISP, EP_PRECISE, 0x3, 0 },       /* BR_INST_RETIRED.MISPRED, PEBS 1 */
    EV_ARCH_CYC(EP_IMPRECISE), { 0, 0, 0, 0, 0, 0 }
};
/* Nehalem (06_1AH): NHM-EP/events/NehalemEP_core.json (v4); PEBS: Linux
 * intel_nehalem_pebs_event_constraints (0xc0, 0xc4, 0x0b any umask; of 0xc5
 * only 0x02c5 NEAR_CALL). */
static const struct ev_row ev_nehalem[] = {
    { 0xC0, 0x00, EW_INST, EP_PRECISE, EVC_ALL, 0 },   /* architectural */
    { 0xC0, 0x01, EW_INST, EP_PRECISE, EVC_ALL, 0 },   /* INST_RETIRED.ANY_P, PEBS 1 */
    { 0xC4, 0x00, EW_BR, EP_PRECISE, EVC_ALL, 0 },     /* architectural */
    { 0xC4, 0x04, EW_BR, EP_PRECISE, EVC_ALL, 0 },     /* BR_INST_RETIRED.ALL_BRANCHES, PEBS 1 */
    { 0xC5, 0x00, EW_MISP, EP_NONE, EVC_ALL, 0 },      /* architectural; not a PEBS event */
    { 0x0B, 0x01, EW_LOAD, EP_PRECISE, EVC_ALL, 0 },   /* MEM_INST_RETIRED.LOADS, PEBS 1 */
    { 0x0B, 0x02, EW_STORE, EP_PRECISE, EVC_ALL, 0 },  /* MEM_INST_RETIRED.STORES, PEBS 1 */
    { 0x0B, 0x10, EW_LL, EP_PRECISE, 0x8, 0 },         /* ...LATENCY_ABOVE_THRESHOLD, PMC3 */
    EV_ARCH_CYC(EP_NONE), { 0, 0, 0, 0, 0, 0 }
};
/* Haswell (06_3CH): HSW/events/haswell_core.json (v36). Skylake (06_5EH):
 * SKL/events/skylake_core.json (v59): the same rows, load latency on PMC0-3. */
#define EV_HSW_SKL(llc)                                                                  \
    { 0xC0, 0x00, EW_INST, EP_IMPRECISE, EVC_ALL, 0 },  /* INST_RETIRED.ANY_P, PEBS 0 */    \
    { 0xC0, 0x01, EW_INST, EP_PRECISE, 0x2, 0 },        /* INST_RETIRED.PREC_DIST, PMC1 */  \
    { 0xC4, 0x00, EW_BR, EP_IMPRECISE, EVC_ALL, 0 },    /* BR_INST_RETIRED.ALL_BRANCHES */  \
    { 0xC4, 0x04, EW_BR, EP_PRECISE, EVC_ALL, 0 },      /* ...ALL_BRANCHES_PEBS, PEBS 2 */   \
    { 0xC5, 0x00, EW_MISP, EP_IMPRECISE, EVC_ALL, 0 },  /* BR_MISP_RETIRED.ALL_BRANCHES */  \
    { 0xC5, 0x04, EW_MISP, EP_PRECISE, EVC_ALL, 0 },    /* ...ALL_BRANCHES_PEBS, PEBS 2 */   \
    { 0xD0, 0x81, EW_LOAD, EP_PRECISE, EVC_ALL, 0 },    /* MEM_{UOPS,INST}_RETIRED.ALL_LOADS */ \
    { 0xD0, 0x82, EW_STORE, EP_PRECISE, EVC_ALL, 0 },   /* ...ALL_STORES, PEBS 1 */         \
    { 0xCD, 0x01, EW_LL, EP_PRECISE, llc, 0 },          /* MEM_TRANS_RETIRED.LOAD_LATENCY */ \
    EV_ARCH_CYC(EP_IMPRECISE), { 0, 0, 0, 0, 0, 0 }
static const struct ev_row ev_haswell[] = { EV_HSW_SKL(0x8) };
static const struct ev_row ev_skylake[] = { EV_HSW_SKL(0xF) };
/* Ice Lake (ICL/events/icelake_core.json v1.24), Golden Cove (SPR v1.39,
 * ADL goldencove v1.40), Redwood Cove (GNR v1.20), Lion Cove (LNL v1.26),
 * Cougar Cove (PTL v1.07): Precise 1 / CollectPEBSRecord 2 for all but the
 * cycles (Precise 0, CollectPEBSRecord 2); loads/stores on PMC0-3; load
 * latency on all (ICL), PMC1-7 (GLC, RWC), PMC2-9 (LNC, CGC).
 * INST_RETIRED.ANY_P (c0p): GLC/RWC "Counter" 0-7 but "PEBScounters" 1-7
 * (sapphirerapids_core.json, alderlake_goldencove_core.json,
 * graniterapids_core.json): counts on PMC0, no PEBS record there. */
#define EV_BIGCORE(llc, c0p)                                                             \
    { 0xC0, 0x00, EW_INST, EP_PRECISE, EVC_ALL, c0p }, /* INST_RETIRED.ANY_P */          \
    { 0xC4, 0x00, EW_BR, EP_PRECISE, EVC_ALL, 0 },     /* BR_INST_RETIRED.ALL_BRANCHES */   \
    { 0xC5, 0x00, EW_MISP, EP_PRECISE, EVC_ALL, 0 },   /* BR_MISP_RETIRED.ALL_BRANCHES */   \
    { 0xD0, 0x81, EW_LOAD, EP_PRECISE, 0xF, 0 },       /* MEM_INST_RETIRED.ALL_LOADS */     \
    { 0xD0, 0x82, EW_STORE, EP_PRECISE, 0xF, 0 },      /* MEM_INST_RETIRED.ALL_STORES */    \
    { 0xCD, 0x01, EW_LL, EP_PRECISE, llc, 0 },         /* MEM_TRANS_RETIRED.LOAD_LATENCY_GT_* */ \
    EV_ARCH_CYC(EP_IMPRECISE), { 0, 0, 0, 0, 0, 0 }
static const struct ev_row ev_icelake[] = { EV_BIGCORE(EVC_ALL, 0) };
static const struct ev_row ev_goldencove[] = { EV_BIGCORE(0xFE, 0xFE) };
static const struct ev_row ev_lioncove[] = { EV_BIGCORE(0x3FC, 0) };
/* Gracemont (ADL/events/alderlake_gracemont_core.json v1.40), Skymont
 * (LNL/events/lunarlake_skymont_core.json v1.26), Darkmont
 * (PTL/events/pantherlake_darkmont_core.json v1.07): MEM_UOPS_RETIRED; load
 * latency D0H/05H on PMC0-1 (Gracemont, Skymont), all (Darkmont). */
#define EV_ATOMCORE(llc)                                                                 \
    { 0xC0, 0x00, EW_INST, EP_PRECISE, EVC_ALL, 0 },   /* INST_RETIRED.ANY_P */             \
    { 0xC4, 0x00, EW_BR, EP_PRECISE, EVC_ALL, 0 },     /* BR_INST_RETIRED.ALL_BRANCHES */   \
    { 0xC5, 0x00, EW_MISP, EP_PRECISE, EVC_ALL, 0 },   /* BR_MISP_RETIRED.ALL_BRANCHES */   \
    { 0xD0, 0x81, EW_LOAD, EP_PRECISE, EVC_ALL, 0 },   /* MEM_UOPS_RETIRED.ALL_LOADS */     \
    { 0xD0, 0x82, EW_STORE, EP_PRECISE, EVC_ALL, 0 },  /* MEM_UOPS_RETIRED.ALL_STORES */    \
    { 0xD0, 0x05, EW_LL, EP_PRECISE, llc, 0 },         /* MEM_UOPS_RETIRED.LOAD_LATENCY_GT_* */ \
    EV_ARCH_CYC(EP_IMPRECISE), { 0, 0, 0, 0, 0, 0 }
static const struct ev_row ev_gracemont[] = { EV_ATOMCORE(0x3) };   /* and Skymont */
static const struct ev_row ev_darkmont[] = { EV_ATOMCORE(EVC_ALL) };

static const struct ev_row *ev_table(enum dsm_profile p)
{
    switch (p) {
    case DSM_CORE2: return ev_core2;
    case DSM_ATOM: return ev_bonnell;
    case DSM_NEHALEM: return ev_nehalem;
    case DSM_HASWELL: return ev_haswell;
    case DSM_SKYLAKE: case DSM_KVM_SKL: return ev_skylake;
    case DSM_ICELAKE: return ev_icelake;
    case DSM_SAPPHIRERAPIDS: case DSM_GRANITERAPIDS: case DSM_ALDERLAKE_P: case DSM_KVM_SPR:
        return ev_goldencove;
    case DSM_LUNARLAKE: case DSM_PTL_P: return ev_lioncove;
    /* Skymont (Lunar Lake E-core): Linux intel_pmu_init_skt starts from
     * intel_pmu_init_grt, the Gracemont PEBS constraints (load latency on PMC0-1) */
    case DSM_ALDERLAKE_E: case DSM_LUNARLAKE_E: return ev_gracemont;
    case DSM_PTL_E: return ev_darkmont;
    default: return NULL;
    }
}

/* The row GP counter n's EVTSEL selects, or NULL (counts nothing). */
static const struct ev_row *ev_row_of(const struct dsm_cpu *c, unsigned n)
{
    uint64_t sel = c->evtsel[n];
    unsigned e = (unsigned)(sel & 0xFF), um = (unsigned)((sel >> 8) & 0xFF);
    for (const struct ev_row *r = ev_table(c->profile); r && r->what; r++)
        if (r->ev == e && r->um == um)
            return (r->ctrs & (1u << n)) ? r : NULL;
    return NULL;
}

/* Whether the retired instruction is an occurrence of row r's event. */
static inline bool ev_occurs(const struct dsm_cpu *c, const struct ev_row *r, const struct dsm_event *ev)
{
    uint32_t f = ev->flags;
    switch (r->what) {
    case EW_INST: case EW_CYC: return true;   /* cycles: one per instruction (model choice) */
    case EW_BR: return (f & DSM_EV_BRANCH) != 0;
    case EW_MISP: return (f & DSM_EV_BRANCH) && (f & DSM_EV_MISPRED);
    case EW_LOAD: return (f & DSM_EV_LOAD) != 0;
    case EW_STORE: return (f & DSM_EV_STORE) != 0;
    case EW_LL: return c->ll && (f & DSM_EV_LOAD) && ev->load_latency > (c->ld_lat & 0xFFFF);
    default: return false;
    }
}

static bool is_ll_event(const struct dsm_cpu *c, unsigned n)
{
    const struct ev_row *r = ev_row_of(c, n);
    return r && r->what == EW_LL;
}

static bool is_load_event(const struct dsm_cpu *c, unsigned n)
{
    const struct ev_row *r = ev_row_of(c, n);
    return r && (r->what == EW_LOAD || r->what == EW_LL);
}

static bool pebs_on(const struct dsm_cpu *c, unsigned bit)
{
    if (c->ap.on)
        return dsm__apebs_counter_on(c, bit);
    if (!(c->pebs_enable & (1ull << bit)))
        return false;
    if (c->pebs_fmt == 0)
        return bit == 0;
    if (c->pebs_fmt <= 3)
        return bit < 4;
    return true;
}

/* Count one occurrence on architectural counter `bit` (n or 32+m). */
static inline void arch_count(struct dsm_cpu *c, unsigned bit)
{
    uint64_t *ctr;
    uint64_t mask;
    bool pmi;
    if (bit < 32) {
        ctr = &c->pmc[bit];
        mask = wmask(c->gp_width);
        pmi = (c->evtsel[bit] & DSM_EVT_INT) != 0;
    } else {
        unsigned m = bit - 32;
        ctr = &c->fixed[m];
        mask = wmask(c->fixed_width);
        pmi = ((c->fixed_ctrl >> (4 * m)) & 8) != 0;
    }
    *ctr = (*ctr + 1) & mask;
    if (*ctr == 0) {   /* overflow: SDM "Performance Monitoring Overflow" */
        c->gstatus |= 1ull << bit;
        /* a GP counter arms only with an event that takes an assist (ev_row EP_*) */
        const struct ev_row *r = bit < 32 ? ev_row_of(c, bit) : NULL;
        if ((has_pebs(c) || c->ap.on) && pebs_on(c, bit) &&
            (bit >= 32 || (r && r->pebs != EP_NONE && (!r->pctrs || (r->pctrs & (1u << bit))))))
            c->armed |= 1ull << bit;
        if (pmi)
            c->pmi_pending |= DSM_PMI_COUNTER;
    }
}

static void put64(uint8_t *p, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

/* Newest-first LBR entry k as {from, to, info} for the adaptive LBR group. */
static void lbr_entry(const struct dsm_cpu *c, uint32_t k, uint64_t out[3])
{
    uint32_t i = c->lbr.arch ? k : ((c->lbr_tos - k) & (c->lbr.depth - 1));
    out[0] = c->lbr_from[i];
    out[1] = c->lbr_to[i];
    out[2] = c->lbr_info[i];
}

/* Write the PEBS record for applicable counters `hit` (formats 0-4). */
static void pebs_record_arch(struct dsm_cpu *c, const struct dsm_event *ev, uint64_t hit)
{
    uint8_t rec[1456];   /* largest: 1232 + counters group 16 + 8 * (16 + 8) + metrics 16 */
    uint32_t size = 0;
    uint64_t rip = (c->perf_caps & DSM_CAP_PEBS_TRAP) ? ev->next_ip : ev->ip;
    bool ll = false, load = false, adaptive = false;
    for (unsigned n = 0; n < c->ngp; n++)
        if (hit & (1ull << n)) {
            if (is_ll_event(c, n) && (c->pebs_fmt >= 4 || (c->pebs_enable & (1ull << (32 + n)))))
                ll = true;
            if (is_load_event(c, n))
                load = true;
            if (c->evtsel[n] & DSM_EVT_ADAPTIVE)
                adaptive = true;
        }
    for (unsigned m = 0; m < c->nfixed; m++)
        if ((hit & (1ull << (32 + m))) && ((c->fixed_ctrl >> (32 + 4 * m)) & 1))
            adaptive = true;
    load = load && (ev->flags & DSM_EV_LOAD);
    ll = ll && (ev->flags & DSM_EV_LOAD);
    if (c->pebs_fmt <= 3) {
        /* SDM "PEBS Record Format" (Core 2), Core i7 (fmt 1), Haswell (fmt 2), Skylake (fmt 3) */
        static const uint32_t sizes[4] = { 0x90, 0xB0, 0xC0, 0xC8 };
        size = sizes[c->pebs_fmt];
        for (unsigned k = 0; k < 18; k++)
            put64(rec + 8 * k, k == DSM_R_IP ? rip : ev->regs[k]);
        if (c->pebs_fmt >= 1) {
            put64(rec + 0x90, c->pebs_fmt == 3 ? hit : c->gstatus);
            put64(rec + 0x98, (ll || (load && c->pebs_fmt >= 2)) ? ev->load_addr : 0);
            put64(rec + 0xA0, ll ? ev->data_src : 0);
            put64(rec + 0xA8, ll ? ev->load_latency : 0);
        }
        if (c->pebs_fmt >= 2) {
            put64(rec + 0xB0, ev->ip);   /* EventingIP */
            put64(rec + 0xB8, 0);        /* no TSX in the model */
        }
        if (c->pebs_fmt == 3)
            put64(rec + 0xC0, ev->tsc);
    } else {
        /* Adaptive PEBS (reference pebs-records.md "Format 4"): basic, then
         * meminfo, GPRs, XMM, LBR as selected by PEBS_DATA_CFG. */
        uint64_t cfg = adaptive ? c->pebs_cfg : 0;
        size = adaptive_size(cfg);
        /* header: groups 31:0, retire latency 47:32 with timed PEBS (Linux
         * struct pebs_basic format_group:32, retire_latency:16, format_size:16) */
        uint64_t rl = c->timed_pebs ? (uint64_t)ev->retire_latency << 32 : 0;
        put64(rec + 0, (cfg & 0xFFFFFFFFull) | rl | ((uint64_t)size << 48));
        put64(rec + 8, ev->ip);
        put64(rec + 16, hit);
        put64(rec + 24, ev->tsc);
        uint32_t o = 32;
        if (cfg & 1) {
            put64(rec + o, load ? ev->load_addr : 0);
            put64(rec + o + 8, load ? ev->data_src : 0);
            put64(rec + o + 16, ll ? ev->load_latency : 0);
            put64(rec + o + 24, 0);
            o += 32;
        }
        if (cfg & 2) {
            static const uint8_t order[18] = { DSM_R_FLAGS, DSM_R_IP, DSM_R_AX, DSM_R_CX, DSM_R_DX, DSM_R_BX,
                                               DSM_R_SP, DSM_R_BP, DSM_R_SI, DSM_R_DI, 10, 11, 12, 13, 14, 15, 16, 17 };
            for (unsigned k = 0; k < 18; k++)
                put64(rec + o + 8 * k, order[k] == DSM_R_IP ? rip : ev->regs[order[k]]);
            o += 144;
        }
        if (cfg & 4) {
            for (unsigned k = 0; k < 32; k++)
                put64(rec + o + 8 * k, ev->xmm ? ev->xmm[k] : 0);
            o += 256;
        }
        if (cfg & 8) {
            uint32_t n = (uint32_t)((cfg >> 24) & 0xFF) + 1;
            for (uint32_t k = 0; k < n; k++) {
                uint64_t e[3] = { 0, 0, 0 };
                if (k < c->lbr_depth)
                    lbr_entry(c, k, e);
                put64(rec + o, e[0]);
                put64(rec + o + 8, e[1]);
                put64(rec + o + 16, e[2]);
                o += 24;
            }
        }
        if (cfg & (DSM_CFG_CNTR | DSM_CFG_METRICS)) {
            /* counters snapshot at the assist, before the reload (format 6) */
            bool cn = (cfg & DSM_CFG_CNTR) != 0, met = (cfg & DSM_CFG_METRICS) != 0;
            uint32_t gp = cn ? (uint32_t)((cfg >> DSM_CFG_GP_SHIFT) & 0xFFFF) : 0;
            uint32_t fx = cn ? (uint32_t)((cfg >> DSM_CFG_FIX_SHIFT) & 0xFF) : 0;
            put64(rec + o, gp | ((uint64_t)fx << 32));
            put64(rec + o + 8, met ? DSM_CNTR_METRICS : 0);   /* metrics field; reserved 0 */
            o += 16;
            for (unsigned n = 0; n < 16; n++)
                if (gp & (1u << n)) {
                    put64(rec + o, c->pmc[n]);
                    o += 8;
                }
            for (unsigned m = 0; m < 8; m++)
                if (fx & (1u << m)) {
                    put64(rec + o, c->fixed[m]);
                    o += 8;
                }
            if (met) {   /* TOPDOWN.SLOTS = fixed counter 3, then IA32_PERF_METRICS */
                put64(rec + o, c->fixed[3]);
                put64(rec + o + 8, c->perf_metrics);
                o += 16;
            }
        }
    }
    bool crossed;
    if (ds_append(c, 4, rec, size, false, &crossed)) {
        c->st.pebs_written++;
        if (crossed) {
            c->gstatus |= DSM_GS_OVFBUF;
            c->pmi_pending |= DSM_PMI_PEBS;
        }
    } else {
        c->st.pebs_skipped++;
    }
}

/* LBR update for a taken branch (SDM "Last Branch Recording"). */
static void lbr_record(struct dsm_cpu *c, const struct dsm_event *ev)
{
    const struct dsm_lbr_row *r = &c->lbr;
    bool mis = (ev->flags & DSM_EV_MISPRED) != 0;
    uint64_t from = ev->ip, to = ev->br_to;
    uint64_t cyc = c->lbr_cycles > 0xFFFF ? 0xFFFF : c->lbr_cycles;
    if (r->arch) {
        uint64_t ctl = c->lbr_ctl;
        if (!(ctl & 1) || !(ctl & (ev->cpl == 0 ? 2u : 4u)))
            return;
        static const uint8_t tbit[7] = { 16, 17, 18, 19, 20, 21, 22 };
        static const uint8_t btype[7] = { 0, 2, 1, 4, 3, 5, 15 };
        unsigned k = ev->br_kind < 7 ? ev->br_kind : 6;
        if (!(ctl & (1ull << tbit[k])))
            return;
        for (uint32_t i = c->lbr_depth - 1; i > 0; i--) {
            c->lbr_from[i] = c->lbr_from[i - 1];
            c->lbr_to[i] = c->lbr_to[i - 1];
            c->lbr_info[i] = c->lbr_info[i - 1];
        }
        c->lbr_from[0] = from;
        c->lbr_to[0] = to;
        c->lbr_info[0] = ((uint64_t)mis << 63) | (1ull << 60) | ((uint64_t)btype[k] << 56) | cyc;
        c->lbr_cycles = 0;
        c->st.lbr_written++;
        return;
    }
    if (c->lbrsel_valid) {
        uint64_t s = c->lbr_select;
        if ((ev->cpl == 0 && (s & 1)) || (ev->cpl != 0 && (s & 2)))
            return;
        static const uint8_t sbit[7] = { 2, 7, 6, 3, 4, 5, 8 };
        unsigned k = ev->br_kind < 7 ? ev->br_kind : 6;
        if (s & (1ull << sbit[k]))
            return;
    }
    uint32_t t = (c->lbr_tos + 1) & (r->depth - 1);
    uint64_t f = from, o = to, info = 0;
    /* Knights Landing/Mill report format 1 (LIP) yet record MISPRED in FROM[63]
     * (Linux lbr.c intel_pmu_lbr_init_knl): modelled as format 3's FROM. */
    bool knl = r->family == 0x06 && (r->model == 0x57 || r->model == 0x85) && r->fmt == 1;
    switch (c->kind == K_NB ? 1 : knl ? 3 : r->fmt) {
    case 0: f &= 0xFFFFFFFFull; o &= 0xFFFFFFFFull; break;         /* packed 32-bit */
    case 3: f = (f & ~(1ull << 63)) | ((uint64_t)mis << 63); break; /* EIP_FLAGS */
    case 4: f = (f & ((1ull << 61) - 1)) | ((uint64_t)mis << 63); break; /* EIP_FLAGS2, no TSX */
    case 5: info = ((uint64_t)mis << 63) | cyc; break;              /* LBR_INFO */
    case 6: f = (f & ~(1ull << 63)) | ((uint64_t)mis << 63);        /* TIME */
            o = (o & 0xFFFFFFFFFFFFull) | (cyc << 48); break;
    case 7: info = ((uint64_t)mis << 63) | cyc; break;              /* INFO2 */
    default: break;                                                 /* LIP/EIP: plain */
    }
    c->lbr_from[t] = f;
    c->lbr_to[t] = o;
    c->lbr_info[t] = info;
    c->lbr_tos = t;
    c->lbr_cycles = 0;
    c->st.lbr_written++;
}

static void bts_record(struct dsm_cpu *c, const struct dsm_event *ev, bool btint)
{
    uint8_t rec[24];
    uint32_t size = dsm_bts_record_size(c);
    /* flags bit 4 = predicted; not supported on Core/Atom (SDM), the model
     * reports it only on NetBurst. */
    uint64_t flags = (c->kind == K_NB && !(ev->flags & DSM_EV_MISPRED)) ? 0x10 : 0;
    if (size == 24) {
        put64(rec, ev->ip);
        put64(rec + 8, ev->br_to);
        put64(rec + 16, flags);
    } else {
        uint32_t w[3] = { (uint32_t)ev->ip, (uint32_t)ev->br_to, (uint32_t)flags };
        for (int i = 0; i < 3; i++)
            for (int b = 0; b < 4; b++)
                rec[4 * i + b] = (uint8_t)(w[i] >> (8 * b));
    }
    bool crossed;
    if (ds_append(c, 0, rec, size, !btint, &crossed)) {
        c->st.bts_written++;
        if (crossed && btint)
            c->pmi_pending |= DSM_PMI_BTS;
    } else {
        c->st.bts_skipped++;
    }
}

/* NetBurst: increments of counter i's event for this instruction. */
static unsigned nb_inc(const struct dsm_cpu *c, unsigned i, const struct dsm_event *ev, bool fe_tag, bool rp_tag,
                       bool *at_ret_pebs)
{
    int s = c->nb_escr_of[i];
    uint64_t e = c->nb_escr[s];
    uint32_t msr = DSM_MSR_NB_ESCR_FIRST + (uint32_t)s;
    *at_ret_pebs = false;
    if (!(e & (ev->cpl == 0 ? DSM_ESCR_T0_OS : DSM_ESCR_T0_USR)))
        return 0;
    unsigned evsel = (unsigned)(e >> 25) & 0x3F, mask = (unsigned)(e >> 9) & 0xFFFF;
    bool br = (ev->flags & DSM_EV_BRANCH) != 0, mis = (ev->flags & DSM_EV_MISPRED) != 0;
    bool tagged = fe_tag || rp_tag;
    unsigned inc = 0;
    if (msr == 0x3B8 || msr == 0x3B9) {          /* CRU_ESCR0/1 */
        switch (evsel) {
        case 0x02: inc = ((mask & 1) && !tagged) || ((mask & 2) && tagged); break; /* instr_retired */
        case 0x01: inc = (mask & 1) != 0; break;                                   /* uops_retired */
        case 0x03: inc = (mask & 1) && br && mis; break;                           /* mispred_branch_retired */
        default: break;
        }
    } else if (msr == 0x3A2 || msr == 0x3A3) {   /* FSB_ESCR0/1 */
        /* global_power_events (13H), RUNNING (bit 0): cycles, one per instruction
         * (model choice); encoding: libpfm4 netburst_events.h, Linux p4 global_power_events */
        inc = evsel == 0x13 && (mask & 1);
    } else if (msr == 0x3CC || msr == 0x3CD) {   /* CRU_ESCR2/3 */
        switch (evsel) {
        case 0x08: inc = (mask & 1) && fe_tag; *at_ret_pebs = true; break;         /* front_end_event */
        case 0x09: inc = (mask & 1) && rp_tag; *at_ret_pebs = true; break;         /* replay_event */
        case 0x0C: inc = 0; *at_ret_pebs = true; break;  /* execution_event: no upstream tagging modelled */
        case 0x06:                                                                  /* branch_retired */
            if (br) {
                unsigned b = ((ev->flags & DSM_EV_TAKEN) ? 2u : 0u) + (mis ? 1u : 0u);
                inc = (mask >> b) & 1;
            }
            break;
        default: break;
        }
    }
    uint64_t cccr = c->nb_cccr[i];
    /* Active thread: 00 none; 01 single, 11 any count (one thread active); 10 both: no */
    unsigned at = (unsigned)(cccr >> DSM_CCCR_AT_SHIFT) & 3;
    if (at == 0 || at == 2)
        return 0;
    if (cccr & DSM_CCCR_COMPARE) {
        unsigned thr = (unsigned)(cccr >> DSM_CCCR_THR_SHIFT) & 0xF;
        bool pass = (cccr & DSM_CCCR_COMPLEMENT) ? inc <= thr : inc > thr;
        inc = pass ? inc : 0;
    }
    return inc;
}

static void nb_pebs_record(struct dsm_cpu *c, const struct dsm_event *ev)
{
    uint8_t rec[144];
    uint32_t size;
    if (dsm_ds64(c)) {
        size = 144;
        for (unsigned k = 0; k < 18; k++)
            put64(rec + 8 * k, k == DSM_R_IP ? ev->next_ip : ev->regs[k]);
    } else {
        /* 32-bit record: EFLAGS, EIP, EAX, EBX, ECX, EDX, ESI, EDI, EBP, ESP */
        size = 40;
        for (unsigned k = 0; k < 10; k++) {
            uint32_t v = (uint32_t)(k == DSM_R_IP ? ev->next_ip : ev->regs[k]);
            for (int b = 0; b < 4; b++)
                rec[4 * k + b] = (uint8_t)(v >> (8 * b));
        }
    }
    bool crossed;
    if (ds_append(c, 4, rec, size, false, &crossed)) {
        c->st.pebs_written++;
        if (crossed)
            c->pmi_pending |= DSM_PMI_PEBS;
    } else {
        c->st.pebs_skipped++;
    }
}

static void nb_retire(struct dsm_cpu *c, const struct dsm_event *ev)
{
    bool fe_tag = false, rp_tag = false;
    bool load = (ev->flags & DSM_EV_LOAD) != 0;
    /* Front-end tagging: uop_type (0x02) on RAT_ESCR0/1 with Tag enable */
    for (unsigned k = 0; k < 2; k++) {
        uint64_t e = c->nb_escr[0x3BC + k - DSM_MSR_NB_ESCR_FIRST];
        if (((e >> 25) & 0x3F) == 0x02 && (e & DSM_ESCR_TAG_EN) &&
            (e & (ev->cpl == 0 ? DSM_ESCR_T0_OS : DSM_ESCR_T0_USR))) {
            unsigned m = (unsigned)(e >> 9) & 0xFFFF;
            if (((m & 2) && load) || ((m & 4) && (ev->flags & DSM_EV_STORE)))
                fe_tag = true;
        }
    }
    /* Replay tagging (reference netburst.md "Replay-tagging metrics") */
    if (c->pebs_enable & DSM_NB_PEBS_UOP_TAG) {
        uint64_t pe = c->pebs_enable, mv = c->pebs_cfg;
        unsigned src = ev->data_src & 0xF;
        if (load && (mv & 1) && (pe & 1) && src != 0x1)
            rp_tag = true;                       /* 1stL_cache_load_miss_retired */
        if (load && (mv & 1) && (pe & 2) && src != 0x1 && src != 0x2 && src != 0x3)
            rp_tag = true;                       /* 2ndL_cache_load_miss_retired */
        if ((ev->flags & DSM_EV_BRANCH) && (ev->flags & DSM_EV_MISPRED) && (mv & 0x10) && (pe & 0x18000) == 0x18000)
            rp_tag = true;                       /* Tagged_mispred_branch */
    }
    bool pebs_hit = false;
    uint32_t act = c->nb_active;
    while (act) {
        unsigned i = (unsigned)__builtin_ctz(act);
        act &= act - 1;
        bool atret;
        unsigned inc = nb_inc(c, i, ev, fe_tag, rp_tag, &atret);
        uint64_t cccr = c->nb_cccr[i];
        if (!inc)
            continue;
        bool pebs = i == DSM_NB_PEBS_CTR && atret && (c->pebs_enable & DSM_NB_PEBS_MY_THR) && has_pebs(c);
        if (pebs && (c->armed & (1ull << 16))) {
            pebs_hit = true;
            continue;
        }
        c->nb_cnt[i] = (c->nb_cnt[i] + 1) & wmask(DSM_NB_WIDTH);
        if (c->nb_cnt[i] == 0 || (cccr & DSM_CCCR_FORCE_OVF)) {
            c->nb_cccr[i] |= DSM_CCCR_OVF;   /* sticky until software clears it */
            if (pebs)   /* PEBS counter: the PMI comes from the DS threshold */
                c->armed |= 1ull << 16;
            else if (cccr & DSM_CCCR_OVF_PMI_T0)
                c->pmi_pending |= DSM_PMI_COUNTER;
        }
    }
    if (pebs_hit) {
        nb_pebs_record(c, ev);
        c->armed &= ~(1ull << 16);
        c->nb_cnt[16] = ds_reset_value(c, 0) & wmask(DSM_NB_WIDTH);
        c->nb_cnt[16] = (c->nb_cnt[16] + 1) & wmask(DSM_NB_WIDTH);
        if (c->nb_cnt[16] == 0) {
            c->nb_cccr[16] |= DSM_CCCR_OVF;
            c->armed |= 1ull << 16;
        }
    }
}

/* IA32_PERF_METRICS (329H) is updated only while IA32_PERF_GLOBAL_CTRL bit 48
 * (EN_PERF_METRICS: reference msr.md, Linux GLOBAL_CTRL_EN_PERF_METRICS, set
 * by intel_set_masks for INTEL_PMC_IDX_METRIC_BASE) enables it and fixed
 * counter 3 counts TOPDOWN.SLOTS; otherwise it keeps its value (stale). Each
 * metric is an 8-bit fraction of the slots (Linux icl_get_metrics_event_value:
 * (metrics >> 8 * idx) & 0xff of 0xff); the model retires one uop per slot,
 * so Retiring (bits 7:0) is FFH and every other metric 0 (DSM_PM_RETIRING). */
#define DSM_GCTRL_EN_PERF_METRICS (1ull << 48)
#define DSM_PM_RETIRING 0xFFull
static void metrics_update(struct dsm_cpu *c)
{
    if ((c->perf_caps & DSM_CAP_PERF_METRICS) && (c->gctrl & DSM_GCTRL_EN_PERF_METRICS))
        c->perf_metrics = DSM_PM_RETIRING;
}

static void arch_retire(struct dsm_cpu *c, const struct dsm_event *ev)
{
    if (c->gstatus & DSM_GS_CTR_FRZ)   /* v4 streamlined freeze: counters stopped */
        return;
    uint64_t hit = 0, occ = ~0ull;   /* occ: hit counters whose event occurred */
    uint64_t en = c->version >= 2 ? c->gctrl : ~0ull;
    for (unsigned n = 0; n < c->ngp; n++) {
        uint64_t sel = c->evtsel[n];
        if (!(sel & DSM_EVT_EN) || !(en & (1ull << n)))
            continue;
        if (!(sel & (ev->cpl == 0 ? DSM_EVT_OS : DSM_EVT_USR)))
            continue;
        const struct ev_row *r = ev_row_of(c, n);
        bool o = r && ev_occurs(c, r, ev);
        bool armed = (c->armed & (1ull << n)) && pebs_on(c, n);
        /* precise: the assist waits for the next occurrence; imprecise: it is
         * taken at the next retired instruction (see ev_row) */
        if (armed && (o || (r && r->pebs == EP_IMPRECISE))) {
            hit |= 1ull << n;
            if (!o)
                occ &= ~(1ull << n);
        } else if (o) {
            arch_count(c, n);
        }
    }
    for (unsigned m = 0; m < c->nfixed; m++) {
        unsigned nib = (unsigned)(c->fixed_ctrl >> (4 * m)) & 0xF;
        if (!(en & (1ull << (32 + m))) || !(nib & (ev->cpl == 0 ? 1u : 2u)))
            continue;
        if ((c->armed & (1ull << (32 + m))) && pebs_on(c, 32 + m)) {
            hit |= 1ull << (32 + m);
        } else {
            arch_count(c, 32 + m);
            if (m == 3)
                metrics_update(c);
        }
    }
    if (hit) {
        /* PEBS assist (SDM "Processor Event Based Sampling"): one record,
         * then every applicable counter reloads from its DS reset slot. */
        if (c->ap.on)
            dsm__apebs_assist(c, ev, hit);
        else
            pebs_record_arch(c, ev, hit);
        c->armed &= ~hit;
        uint64_t h = hit;
        while (h) {
            unsigned bit = ctz64(h);
            h &= h - 1;
            /* DS counter reset slots: fixed m at 8+m up to format 4, at 32+m from
             * format 5 (Linux intel_pmu_pebs_enable: MAX_PEBS_EVENTS_FMT4 vs
             * MAX_PEBS_EVENTS + fixed index; struct debug_store pebs_event_reset[
             * MAX_PEBS_EVENTS + MAX_FIXED_COUNTERS]) */
            unsigned slot = bit < 32 ? bit : (c->pebs_fmt >= 5 ? 32u : 8u) + (bit - 32);
            uint64_t rv = 0;
            if (c->ap.on) {   /* arch PEBS: CFG_C reload field, not the DS area */
                unsigned w = bit < 32 ? c->gp_width : c->fixed_width;
                if (!dsm__apebs_reload(c, bit, w, &rv))
                    rv = bit < 32 ? c->pmc[bit] : c->fixed[bit - 32];
            } else {
                rv = ds_reset_value(c, slot);
            }
            if (bit < 32)
                c->pmc[bit] = rv & wmask(c->gp_width);
            else
                c->fixed[bit - 32] = rv & wmask(c->fixed_width);
            if (occ & (1ull << bit))
                arch_count(c, bit);
        }
    }
}

int dsm_retire(struct dsm_cpu *c, const struct dsm_event *ev)
{
    if (!c || !ev || ev->cpl > 3)
        return DSM_EINVAL;
    c->st.events++;
    c->lbr_cycles++;
    if (c->kind == K_NB)
        nb_retire(c, ev);
    else if (c->kind == K_ARCH)
        arch_retire(c, ev);
    if (c->kind != K_NONE && (ev->flags & DSM_EV_TAKEN)) {
        bool nb = c->kind == K_NB;
        uint64_t d = c->debugctl;
        /* BTS: TR and BTS set (SDM "Branch Trace Store"); PEBS is processed first */
        uint64_t tr = nb ? DSM_NBDBG_TR : DSM_DBG_TR, bts = nb ? DSM_NBDBG_BTS : DSM_DBG_BTS;
        uint64_t off_os = nb ? DSM_NBDBG_OFF_OS : DSM_DBG_BTS_OFF_OS;
        uint64_t off_usr = nb ? DSM_NBDBG_OFF_USR : DSM_DBG_BTS_OFF_USR;
        uint64_t btint = nb ? DSM_NBDBG_BTINT : DSM_DBG_BTINT;
        if ((d & tr) && (d & bts) && has_bts(c) && !((ev->cpl == 0) ? (d & off_os) : (d & off_usr)))
            bts_record(c, ev, (d & btint) != 0);
        /* LBR */
        bool lbr_on = c->lbr.arch ? true : (d & DSM_DBG_LBR) != 0;
        if (lbr_on && !(c->gstatus & DSM_GS_LBR_FRZ))
            lbr_record(c, ev);
    }
    if (c->pmi_pending) {
        uint32_t why = c->pmi_pending;
        c->pmi_pending = 0;
        if (c->kind == K_ARCH) {
            /* Freeze on PMI (SDM Table 17-3): legacy clears GLOBAL_CTRL and
             * DEBUGCTL.LBR; v4 sets CTR_Frz / LBR_Frz. */
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
            return DSM_OK;
        }
        if (c->lvt_model)
            c->lvt_masked = true;
        if (c->pmi)
            c->pmi(c->pmi_ctx, why);
    }
    return DSM_OK;
}
