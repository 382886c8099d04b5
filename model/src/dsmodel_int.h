/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * dsmodel private header: the model's own statement of the SDM constants
 * (MSR numbers, bits), small helpers and the functions one facility file
 * calls in another (dsm__ prefix). Included by the model/src C files only; like the
 * rest of the model it includes no libds header.
 *
 * Files (one facility each, as libds/src):
 *   dsmodel.c      setters, dsm_ds64, statistics getters, the MSR table
 *                  walkers (below every facility file)
 *   dsm_dispatch.c profiles, dsm_init, CPUID, the MSR dispatch (rdmsr/wrmsr)
 *                  and dsm_retire (above every facility file)
 *   dsm_pmc.c      architectural counters: EVTSEL/PMC/fixed/global MSRs,
 *                  perfmon v6 aliases, counting, freeze, PEBS assist reload
 *   dsm_event.c    per-core event tables (what an EVTSEL encoding counts)
 *   dsm_area.c     DS save area: IA32_DS_AREA, buffer fields, record append
 *   dsm_pebs.c     PEBS MSRs, record sizes, record writers (formats 0-6)
 *   dsm_archpebs.c architectural PEBS (Panther Lake)
 *   dsm_bts.c      BTS records
 *   dsm_lbr.c      LBR rows, LBR/LER MSRs, LBR stack updates
 *   dsm_netburst.c NetBurst ESCR/CCCR counters, tagging, PEBS
 *   dsm_identity.c identity memory operations
 */
#ifndef DSMODEL_INT_H
#define DSMODEL_INT_H

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

#define DSM_ARCH_LBR_MAX 32   /* CPUID.1CH:EAX[7:0] = 0x0F in the model: depths 8,16,24,32 */

/* ---- helpers ------------------------------------------------------------ */
static inline void dsm_zero(void *p, size_t n)
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

static inline uint64_t wmask(unsigned w) { return w >= 64 ? ~0ull : ((1ull << w) - 1); }

static inline uint32_t popc(uint32_t v)
{
    uint32_t n = 0;
    for (; v; v &= v - 1)
        n++;
    return n;
}

static inline void put64(uint8_t *p, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

static inline bool has_ds(const struct dsm_cpu *c) { return (c->cpuid1[3] & DSM_C1_EDX_DS) != 0; }
static inline bool has_pdcm(const struct dsm_cpu *c) { return (c->cpuid1[2] & DSM_C1_ECX_PDCM) != 0; }
static inline bool has_pebs(const struct dsm_cpu *c)
{
    return has_ds(c) && !(c->misc_enable & DSM_MISC_NO_PEBS) &&
           (c->kind == K_NB || c->pebs_fmt >= 0);
}
static inline bool has_bts(const struct dsm_cpu *c) { return has_ds(c) && !(c->misc_enable & DSM_MISC_NO_BTS); }
/* Adaptive PEBS (PEBS_DATA_CFG, EVTSEL/FIXED_CTR_CTRL adaptive bits): format 4+ with
 * PERF_CAPABILITIES.PEBS_BASELINE (SDM "IA32_PERF_CAPABILITIES"); every format 4+
 * profile but DSM_KVM_SPR sets it. */
static inline bool adaptive_ok(const struct dsm_cpu *c)
{
    return c->pebs_fmt >= 4 && (c->perf_caps & DSM_CAP_PEBS_BASELINE);
}

/* The fixed counters that exist: CPUID 23H.1 EBX where it has holes, else 0..nfixed-1. */
static inline uint64_t fxmask(const struct dsm_cpu *c)
{
    return c->fixed_avail ? c->fixed_avail : wmask(c->nfixed);
}

static inline bool fx_exists(const struct dsm_cpu *c, unsigned m)
{
    return m < c->nfixed && ((fxmask(c) >> m) & 1);
}

/* ---- MSR tables (dsmodel.c) ------------------------------------------------
 * A facility states its MSRs as tables: single MSRs (dsm_msr_op) and ranges
 * of numbered MSRs (dsm_msr_range, @count entries from @first for this cpu).
 * A handler returns DSM_OK or DSM_GP; *v is read into or written from. */
typedef int (*dsm_msr_fn)(struct dsm_cpu *c, uint32_t msr, bool wr, uint64_t *v);
typedef int (*dsm_msr_idx_fn)(struct dsm_cpu *c, unsigned idx, bool wr, uint64_t *v);
struct dsm_msr_op { uint32_t msr; dsm_msr_fn fn; };
struct dsm_msr_range { uint32_t first; unsigned (*count)(const struct dsm_cpu *c); dsm_msr_idx_fn fn; };

/* 1 (with *rc the handler's result) if @msr is in the table, else 0. */
int dsm__msr_ops(const struct dsm_msr_op *t, size_t n, struct dsm_cpu *c, uint32_t msr, bool wr, uint64_t *v,
                 int *rc);
int dsm__msr_ranges(const struct dsm_msr_range *t, size_t n, struct dsm_cpu *c, uint32_t msr, bool wr,
                    uint64_t *v, int *rc);

/* A plain read/write register: a write with a bit outside @valid #GPs. */
static inline int dsm_rw(uint64_t *reg, bool wr, uint64_t *v, uint64_t valid)
{
    if (wr) {
        if (*v & ~valid)
            return DSM_GP;
        *reg = *v;
    } else {
        *v = *reg;
    }
    return DSM_OK;
}

/* ---- per-facility entry points ------------------------------------------ */
/* dsm_pmc.c */
int dsm__msr_arch(struct dsm_cpu *c, uint32_t msr, bool wr, uint64_t *v);
void dsm__arch_retire(struct dsm_cpu *c, const struct dsm_event *ev);

/* dsm_event.c: the event table row GP counter n's EVTSEL selects */
enum { EW_INST = 1, EW_CYC, EW_BR, EW_MISP, EW_LOAD, EW_STORE, EW_LL };
enum { EP_NONE = 0, EP_PRECISE, EP_IMPRECISE };
/* pctrs: the GP counters a PEBS assist is taken on (perfmon "PEBScounters"
 * where it differs from "Counter"); 0: every counter of ctrs. On another
 * counter the event counts and overflows (PMI if INT) but writes no record. */
struct ev_row { uint8_t ev, um, what, pebs; uint16_t ctrs, pctrs; };
const struct ev_row *dsm__ev_row_of(const struct dsm_cpu *c, unsigned n);
bool dsm__ev_occurs(const struct dsm_cpu *c, const struct ev_row *r, const struct dsm_event *ev);
bool dsm__ev_is_ll(const struct dsm_cpu *c, unsigned n);
bool dsm__ev_is_load(const struct dsm_cpu *c, unsigned n);

/* dsm_area.c */
int dsm__msr_ds_area(struct dsm_cpu *c, uint32_t msr, bool wr, uint64_t *v);
int dsm__ds_append(struct dsm_cpu *c, unsigned first, const void *rec, uint32_t size, bool circular,
                   bool *crossed);
uint64_t dsm__ds_reset_value(struct dsm_cpu *c, unsigned slot);

/* dsm_pebs.c */
int dsm__msr_pebs_enable(struct dsm_cpu *c, uint32_t msr, bool wr, uint64_t *v);
int dsm__msr_pebs_data_cfg(struct dsm_cpu *c, uint32_t msr, bool wr, uint64_t *v);
int dsm__msr_pebs_ld_lat(struct dsm_cpu *c, uint32_t msr, bool wr, uint64_t *v);
int dsm__msr_pebs_frontend(struct dsm_cpu *c, uint32_t msr, bool wr, uint64_t *v);
bool dsm__pebs_on(const struct dsm_cpu *c, unsigned bit);
void dsm__pebs_record(struct dsm_cpu *c, const struct dsm_event *ev, uint64_t hit);

/* dsm_bts.c */
void dsm__bts_taken(struct dsm_cpu *c, const struct dsm_event *ev);

/* dsm_lbr.c */
const struct dsm_lbr_row *dsm__lbr_find_row(uint16_t fam, uint8_t model);
void dsm__lbr_reset(struct dsm_cpu *c);
int dsm__lbr_msr(struct dsm_cpu *c, uint32_t msr, bool wr, uint64_t *v, int *rc);
int dsm__msr_lbr_select(struct dsm_cpu *c, uint32_t msr, bool wr, uint64_t *v);
int dsm__msr_ler(struct dsm_cpu *c, uint32_t msr, bool wr, uint64_t *v);
void dsm__lbr_entry(const struct dsm_cpu *c, uint32_t k, uint64_t out[3]);
void dsm__lbr_record(struct dsm_cpu *c, const struct dsm_event *ev);

/* dsm_netburst.c */
int dsm__msr_nb(struct dsm_cpu *c, uint32_t msr, bool wr, uint64_t *v);
void dsm__nb_retire(struct dsm_cpu *c, const struct dsm_event *ev);

#endif /* DSMODEL_INT_H */
