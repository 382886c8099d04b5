/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * dsmodel: a reference model of the Intel Debug Store hardware (counters,
 * NetBurst ESCR/CCCR, PEBS and BTS record writing, PMI and freeze, LBR
 * stacks per model), written from the SDM facts in shared/reference/ and
 * deliberately independent of libds: it includes no libds header and states
 * every constant itself (DSM_ prefix). A wrong MSR address, bit, record
 * offset or LBR row in libds makes a test against this model fail.
 *
 * Freestanding C (stdint/stddef/stdbool only), no allocation, no globals:
 * the caller owns struct dsm_cpu. Static const tables only.
 *
 * One struct dsm_cpu models one logical processor (HT thread 0). It does
 * not execute code: the caller feeds one dsm_retire() per retired
 * instruction and the model updates counters, LBR, BTS and PEBS the way the
 * SDM says the hardware does, writing records through the caller's memory
 * operations at LINEAR addresses, and requests PMIs through a callback.
 *
 * Documented simplifications (not SDM behaviour, model choices):
 *  - one uop per instruction; core, reference cycles and TOPDOWN.SLOTS
 *    count one per retired instruction; every slot retires, so
 *    IA32_PERF_METRICS reads Retiring FFH once slots count with
 *    EN_PERF_METRICS (GLOBAL_CTRL bit 48), and is never updated without it;
 *  - architectural PEBS counters group: only counters whose CFG_C has
 *    CNTR_ALLOW (bit 35) appear (dsm_archpebs.c allowed());
 *  - legacy Freeze_PerfMon_On_PMI (v2/v3) clears GLOBAL_CTRL on EVERY PMI
 *    request, a BTS threshold PMI (no GLOBAL_STATUS bit) included;
 *  - EVTSEL edge/inv/cmask/any and CCCR edge/cascade are accepted but not
 *    modelled (every event increments by 0 or 1 per instruction);
 *  - GP counters decode event/umask per profile's core (dsm_event.c ev_table:
 *    perfmon JSON / SDM, counters per the perfmon "Counter" field): an
 *    encoding the core lacks counts nothing; non-PEBS events take no assist
 *    (Core 2, Nehalem) or an imprecise one at the next instruction;
 *  - a PEBS assist happens at the first occurrence of the event after the
 *    overflow; the counter is then reloaded from the DS reset slot and that
 *    occurrence is counted into the reloaded value. With counter and reset
 *    = -P the records are written at occurrences P+1, 2P+1, 3P+1, ...:
 *    floor((n-1)/P) records for n occurrences (dsm_pebs_expected());
 *  - NetBurst: thread 0 only (T0_* ESCR bits, PEBS_ENABLE bit 25);
 *    execution_event counts nothing (no upstream execution-tagging event is
 *    modelled); replay tagging covers 1stL/2ndL load misses (from data_src)
 *    and Tagged_mispred_branch only; front-end tagging is uop_type
 *    TAGLOADS/TAGSTORES on RAT_ESCR0/1 (the ESCR alone, no counter needed);
 *  - LER registers read 0 (no exceptions are fed); LBR call-stack mode
 *    records as normal; PEBS_FRONTEND is storage only;
 *  - BTS "predicted" flag (bit 4) is written only on NetBurst (the SDM says
 *    Core and Atom do not support it; the model extends that to later cores);
 *  - see model/src (one file per facility, dsmodel_int.h lists them) for
 *    the per-rule SDM citations.
 *
 * Concurrency / NMI: functions on different struct dsm_cpu are independent.
 * On one cpu, nothing is re-entrant except that the PMI callback may call
 * dsm_rdmsr/dsm_wrmsr/dsm_cpuid/dsm_stats (it runs after dsm_retire() has
 * finished updating state). A real NMI handler must not call into a cpu
 * whose dsm_retire() it interrupted. dsm_retire() uses up to ~1.5 KiB of
 * stack (the largest adaptive PEBS record is assembled there).
 */
#ifndef DSMODEL_H
#define DSMODEL_H

#include <stdint.h>
#include <stddef.h>
#include <stdbool.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Return codes of dsm_rdmsr / dsm_wrmsr / dsm_init. */
#define DSM_OK        0
#define DSM_GP        13   /* the access raised #GP (missing MSR, reserved bit, RO) */
#define DSM_EINVAL    (-1) /* bad argument to a model function */

enum dsm_profile {
    DSM_NONE_DS = 0,        /* GenuineIntel 06_CFH as a hypervisor without a vPMU shows it: no DS, no
                             * leaf 0AH, MISC_ENABLE says BTS/PEBS unavailable (KVM's reset value) */
    DSM_NETBURST_M2,        /* 0F_02H: 32-bit DS only, LBR 4 packed at 0x1DB, IQ_ESCR0/1 present */
    DSM_NETBURST_M3,        /* 0F_03H: 32-bit DS (no DTES64), LBR 16 at 0x680/0x6C0 */
    DSM_NETBURST_M4_64,     /* 0F_04H: Intel 64, DTES64 + DS-CPL, 64-bit DS, LBR 16 */
    DSM_CORE2,              /* 06_0FH: perfmon v2, PEBS fmt 0 on PMC0 only, LBR 4 at 0x40/0x60 */
    DSM_ATOM,               /* 06_1CH stepping 0AH: perfmon v3, PEBS fmt 0, LBR 8 */
    DSM_NEHALEM,            /* 06_1AH: v3, PEBS fmt 1 + load latency, LBR fmt 3, 16 */
    DSM_HASWELL,            /* 06_3CH: v3, PEBS fmt 2, LBR fmt 4, 16, full-width writes */
    DSM_SKYLAKE,            /* 06_5EH: v4 (streamlined freeze), PEBS fmt 3, LBR fmt 5, 32 + LBR_INFO */
    DSM_ICELAKE,            /* 06_7EH: v5, PEBS fmt 4 adaptive (PEBS_DATA_CFG), 8 GP, 4 fixed */
    /* Issue 11 profiles: CPUID words copied from the real dumps in shared/cpuid
     * (constants in dsm_dispatch.c say which file); PERF_CAPABILITIES is not in a
     * dump and is composed from the SDM bit definitions (cited there). */
    DSM_SAPPHIRERAPIDS,     /* 06_8FH: v5, PEBS fmt 4 + baseline, Arch LBR (07H EDX[19], 1CH depth 32) */
    DSM_GRANITERAPIDS,      /* 06_ADH: as Sapphire Rapids + timed PEBS (PERF_CAPABILITIES[17]) */
    DSM_LUNARLAKE,          /* 06_BDH P-core: v6 aliased MSRs, leaf 23H (10 GP, 4 fixed), PEBS fmt 6 */
    DSM_ALDERLAKE_P,        /* 06_97H hybrid P-core (1AH type 40H): 8 GP, 4 fixed, fmt 4, Arch LBR */
    DSM_ALDERLAKE_E,        /* 06_97H hybrid E-core (1AH type 20H): 6 GP, 3 fixed, fmt 4, Arch LBR */
    /* Issue 14: what a KVM guest sees (CPUID.1:ECX[31] hypervisor, perfmon v2, no BTS) */
    DSM_KVM_SPR,            /* on a Sapphire Rapids host: PEBS fmt 4 basic-only (no PEBS_BASELINE),
                             * no LBR (Arch LBR host), DEBUGCTL.TR/BTS/BTINT #GP */
    DSM_KVM_SKL,            /* on a Skylake host: no DS/PEBS, legacy LBR fmt 5 (32 entries) */
    DSM_PTL_P,              /* 06_CCH Panther Lake Cougar Cove P-core: architectural PEBS (dsm_archpebs.c) */
    DSM_PTL_E,              /* 06_CCH Panther Lake Darkmont E-core: architectural PEBS (dsm_archpebs.c) */
    DSM_LUNARLAKE_E,        /* 06_BDH Skymont E-core (1AH 20000003H): v6, 23H.1 8 GP / fixed 77H, PEBS fmt 6 */
    DSM_ARROWLAKE_H,        /* 06_C5H Lion Cove P-core: v5, 10 GP / 4 fixed, PEBS fmt 5 + PEBS_BASELINE
                             * (adaptive groups; fixed-counter reset slots at 32 + m) */
    DSM_PROFILE__COUNT
};

/* Linear-memory access used for the DS area and the BTS/PEBS buffers.
 * Return 0 on success, non-zero if the range is not mapped (the model then
 * skips the record and counts a memory fault; real hardware would take a
 * fault the SDM says must never happen). */
struct dsm_mem_ops {
    int (*read)(void *ctx, uint64_t linear, void *buf, size_t len);
    int (*write)(void *ctx, uint64_t linear, const void *buf, size_t len);
};

/* Identity operations for a kernel: linear address == pointer (byte copies,
 * volatile). Fail (-1) for ranges a pointer cannot reach (i386: >= 4 GiB).
 * Never for host programs. */
extern const struct dsm_mem_ops dsm_identity_mem_ops;

/* PMI reasons (bitmask passed to the PMI callback). */
#define DSM_PMI_COUNTER   (1u << 0)  /* counter overflow with EVTSEL.INT / fixed PMI / CCCR OVF_PMI_T0 */
#define DSM_PMI_PEBS      (1u << 1)  /* PEBS index reached the interrupt threshold */
#define DSM_PMI_BTS       (1u << 2)  /* BTS index reached the threshold with BTINT = 1 */

/* Called once at the end of dsm_retire() when the instruction requested a
 * PMI (after the freeze actions). The caller owns LVT semantics. The
 * callback may call dsm_rdmsr/dsm_wrmsr on the same cpu (not dsm_retire). */
typedef void (*dsm_pmi_fn)(void *ctx, uint32_t reasons);
/* Handler-time MSR hook (dsm_set_msr_hook). */
typedef void (*dsm_msr_hook_fn)(void *ctx, uint32_t msr, bool wr);

/* Branch kinds (LBR_SELECT filtering, Arch LBR branch type). */
enum dsm_br_kind {
    DSM_BR_JCC = 0, DSM_BR_NEAR_REL_JMP, DSM_BR_NEAR_IND_JMP, DSM_BR_NEAR_REL_CALL,
    DSM_BR_NEAR_IND_CALL, DSM_BR_NEAR_RET, DSM_BR_FAR
};

/* Event flags */
#define DSM_EV_BRANCH   (1u << 0)  /* the instruction is a branch (retired) */
#define DSM_EV_TAKEN    (1u << 1)  /* ... and it was taken: to = br_to */
#define DSM_EV_MISPRED  (1u << 2)  /* ... and it was mispredicted */
#define DSM_EV_LOAD     (1u << 3)  /* the instruction loaded from load_addr */
#define DSM_EV_STORE    (1u << 4)  /* the instruction stored */

/* General registers in the order of PEBS formats 0-3 (SDM "PEBS Record
 * Format"): RFLAGS, RIP, RAX, RBX, RCX, RDX, RSI, RDI, RBP, RSP, R8-R15. */
enum { DSM_R_FLAGS = 0, DSM_R_IP, DSM_R_AX, DSM_R_BX, DSM_R_CX, DSM_R_DX, DSM_R_SI,
       DSM_R_DI, DSM_R_BP, DSM_R_SP, DSM_R_R8, DSM_R__COUNT = 18 };

/* One retired instruction. regs[] is the architectural state after the
 * instruction (what a trap-like PEBS assist records); regs[DSM_R_IP] is
 * ignored, the model stores next_ip or ip as the format requires. */
struct dsm_event {
    uint64_t ip, next_ip;
    uint64_t regs[DSM_R__COUNT];
    uint32_t flags;               /* DSM_EV_* */
    uint8_t cpl;                  /* 0..3 */
    uint8_t br_kind;              /* enum dsm_br_kind, if DSM_EV_BRANCH */
    uint64_t br_to;               /* branch target if DSM_EV_TAKEN */
    uint64_t load_addr;           /* if DSM_EV_LOAD */
    uint32_t load_latency;        /* core cycles */
    uint32_t data_src;            /* PEBS data-source encoding (bits 3:0 + SNB+ bits) */
    uint64_t tsc;
    const uint64_t *xmm;          /* 32 qwords (XMM0-15) for the adaptive XMM group, or NULL = zeros */
    uint16_t retire_latency;      /* core cycles; recorded only with timed PEBS (PERF_CAPABILITIES[17]) */
};

/* Statistics. MSR accesses counted per kind and (dsm_msr_count) per MSR. */
struct dsm_stats {
    uint64_t rdmsr, wrmsr, rdmsr_gp, wrmsr_gp, cpuid;
    uint64_t events;
    uint64_t pebs_written, pebs_skipped;      /* skipped: DS bounds check failed */
    uint64_t bts_written, bts_skipped, bts_wraps;
    uint64_t lbr_written;
    uint64_t pmis, pmi_counter, pmi_pebs, pmi_bts;
    uint64_t mem_faults;
    uint64_t pmi_masked;                      /* PMIs requested while LVTPC was masked: lost */
};

#define DSM_MSR_STAT_SLOTS 256   /* distinct MSRs counted; more are totalled in msr_st_dropped */
struct dsm_msr_stat { uint32_t msr; uint32_t reads, writes, faults; };

/* LBR geometry: one row of SDM Table 17-4 / reference lbr.md. */
struct dsm_lbr_row {
    uint16_t family;              /* DisplayFamily */
    uint8_t model;                /* DisplayModel */
    uint8_t depth;                /* entries; 0 for Arch LBR (from CPUID 1CH) */
    uint32_t from, to, info;      /* MSR bases; info 0 = none; to == from: packed 32-bit FROM/TO */
    uint32_t tos;                 /* TOS MSR; 0 = Arch LBR (no TOS) */
    uint8_t fmt;                  /* LBR format reported in PERF_CAPABILITIES[5:0] */
    bool arch;                    /* Arch LBR (IA32_LBR_CTL/DEPTH) */
};

#define DSM_LBR_MAX 64
#define DSM_GP_MAX 16             /* GP counters a profile may have (Lunar Lake P-core: 10) */
#define DSM_NB_ESCR_SLOTS 0x42    /* 0x3A0 .. 0x3E1 */

/* Architectural PEBS state (DSM_PTL_P / DSM_PTL_E; dsm_archpebs.c). */
#define DSM_AP_NGP 10
#define DSM_AP_NFX 8
struct dsm_apebs {
    bool on;                      /* the profile has architectural PEBS */
    bool ecore;
    uint64_t base, index;         /* IA32_PEBS_BASE (3F4H), IA32_PEBS_INDEX (3F5H) */
    uint64_t cfg_gp[DSM_AP_NGP];  /* IA32_PMC_GPx_CFG_C (1903H + 4x) */
    uint64_t cfg_fx[DSM_AP_NFX];  /* IA32_PMC_FXx_CFG_C (1983H + 4x) */
    uint32_t frag_max;            /* dsm_apebs_set_fragment(); 0 = never split */
    uint64_t records, fragments, dropped_full, dropped_off, thresh_pmis;
};

/* The modelled CPU. Storage owned by the caller; fields are the model's
 * private state (tests may read them, never write them). */
struct dsm_cpu {
    /* identity */
    enum dsm_profile profile;
    uint8_t kind;                 /* 0 no perfmon, 1 NetBurst, 2 architectural */
    bool lm, ia32e;
    uint32_t cpuid0[4], cpuid1[4], cpuid_a[4], cpuid_1c[4], cpuid_7[4], cpuid_x0[4], cpuid_x1[4];
    uint32_t cpuid_7_1[4];   /* CPUID.(07H,1): the profiles with leaf 23H (real dumps) */
    uint64_t misc_enable, perf_caps;
    uint8_t version, ngp, nfixed, gp_width, fixed_width;
    int8_t pebs_fmt;              /* -1 none, 0..6 (5: DSM_ARROWLAKE_H); NetBurst uses DSM_PEBS_NB */
    bool ll;                      /* load latency (PEBS_LD_LAT) */
    uint64_t debugctl_valid, evtsel_valid, lbrsel_valid;
    uint64_t debugctl_drop;   /* DEBUGCTL bits a write accepts and discards (KVM guests) */
    struct dsm_lbr_row lbr;
    /* environment */
    const struct dsm_mem_ops *mem;
    void *mem_ctx;
    dsm_pmi_fn pmi;
    void *pmi_ctx;
    /* architectural MSR state */
    uint64_t debugctl, ds_area, pebs_enable, pebs_cfg, ld_lat, frontend;
    uint64_t pmc[DSM_GP_MAX], evtsel[DSM_GP_MAX], fixed[8], fixed_ctrl, gstatus, gctrl;
    uint64_t ler_from, ler_to, lbr_select, lbr_ctl;
    uint32_t lbr_tos, lbr_depth, lbr_cycles;
    uint64_t lbr_from[DSM_LBR_MAX], lbr_to[DSM_LBR_MAX], lbr_info[DSM_LBR_MAX];
    /* NetBurst */
    uint64_t nb_cnt[18], nb_cccr[18], nb_escr[DSM_NB_ESCR_SLOTS];
    int8_t nb_escr_of[18];        /* ESCR slot the CCCR select resolves to for this counter, -1 none */
    uint32_t nb_active;           /* counters with CCCR.Enable and a valid ESCR pairing */
    /* internal event state */
    uint64_t armed;               /* PEBS armed: bit n GP n, bit 32+m fixed m, bit 16 NetBurst ctr 16 */
    uint32_t pmi_pending;
    /* statistics */
    struct dsm_stats st;
    struct dsm_msr_stat msr_st[DSM_MSR_STAT_SLOTS];
    uint32_t msr_st_used;
    uint64_t msr_st_dropped;
    /* Hypervisor quirk (dsm_set_msr_gp): MSRs CPUID advertises that #GP anyway. */
    uint32_t quirk_gp[2];
    /* local APIC LVT performance-counter entry (dsm_set_lvt_model) */
    bool lvt_model, lvt_masked;
    /* handler-time hook (dsm_set_msr_hook) */
    dsm_msr_hook_fn msr_hook;
    void *msr_hook_ctx;
    bool in_msr_hook;
    /* issue 11 identity: leaf 1AH (hybrid core type), leaf 23H sub-leaves 0, 1, 3 */
    uint32_t cpuid_1a[4], cpuid_23[4][4];
    bool timed_pebs;              /* PERF_CAPABILITIES[17]: retire latency in the basic group */
    /* architectural PEBS (profiles DSM_PTL_*) */
    struct dsm_apebs ap;
    /* CPUID 23H.1 EBX: the fixed counters that exist where the bitmap has holes
     * (Skymont 77H: no fixed 3); 0 = fixed 0..nfixed-1 (leaf 0AH count) */
    uint32_t fixed_avail;
    /* IA32_PERF_METRICS (329H) with PERF_CAPABILITIES.PERF_METRICS: as written,
     * and while IA32_PERF_GLOBAL_CTRL bit 48 (EN_PERF_METRICS) is set and fixed
     * counter 3 counts, Retiring = FFH (every slot retires; dsm_pmc.c
     * metrics_update); without bit 48 it stays stale. Copied into the format 6
     * counters group (MSR_PEBS_DATA_CFG bit 5) and the arch-PEBS one (CFG_C bit 38) */
    uint64_t perf_metrics;
};

/* Create a CPU of @profile. @mem may be NULL only if no DS facility is used
 * (records then count as memory faults). All MSRs take their reset values
 * (counters 0, LBR stack 0, DEBUGCTL 0). Returns DSM_OK or DSM_EINVAL. */
int dsm_init(struct dsm_cpu *cpu, enum dsm_profile profile,
             const struct dsm_mem_ops *mem, void *mem_ctx);

/* Replace the CPU's identity and LBR geometry with row @row of the LBR
 * table (dsm_lbr_rows()); the performance-monitoring profile stays that of
 * the CPU (use a compatible one: NetBurst rows need a NetBurst profile).
 * CPUID.01H signature becomes DisplayFamily_DisplayModel of the row and
 * PERF_CAPABILITIES[5:0] the row's LBR format. Resets the LBR state.
 * Returns DSM_OK or DSM_EINVAL (bad row or family mismatch). */
int dsm_set_lbr_row(struct dsm_cpu *cpu, const struct dsm_lbr_row *row);

/* The model's LBR table: every row of reference lbr.md, one per
 * DisplayFamily_DisplayModel. *out_n receives the count. */
const struct dsm_lbr_row *dsm_lbr_rows(size_t *out_n);

/* A profile that dsm_set_lbr_row() accepts for @row (NetBurst M2/M3 for
 * family 0FH, Core 2 for depth 4/8 packed rows, ...). */
enum dsm_profile dsm_profile_for_row(const struct dsm_lbr_row *row);

/* Select IA-32e mode (decides the DS layout when DTES64 = 0). Default: true
 * for Intel 64 profiles, false for 32-bit-only ones. DSM_EINVAL if the
 * profile is not Intel 64 and ia32e is requested. */
int dsm_set_ia32e(struct dsm_cpu *cpu, bool ia32e);

/* Make @msr raise #GP on every read and write although the profile's CPUID
 * advertises it, as hypervisors and emulators do (e.g. IA32_PERF_CAPABILITIES
 * with CPUID.01H:ECX.PDCM set, IA32_MISC_ENABLE with perfmon advertised;
 * issue 10 item 15). Up to 2 MSRs; @msr 0 clears the list. DSM_OK, or
 * DSM_EINVAL (NULL cpu, list full). */
int dsm_set_msr_gp(struct dsm_cpu *cpu, uint32_t msr);

/* PMI callback (NULL: only counted). */
void dsm_set_pmi(struct dsm_cpu *cpu, dsm_pmi_fn fn, void *ctx);

/* The local APIC's LVT performance-counter entry (SDM Vol. 3A "Local Vector
 * Table": "When a performance-monitoring counters interrupt is generated, the
 * mask bit for its associated LVT entry is set"). Off (default): every PMI
 * request reaches the callback and the caller owns LVT semantics. On: LVTPC
 * starts unmasked; delivering a PMI masks it; a PMI requested while it is
 * masked is not delivered and not latched (counted in st.pmi_masked: lost;
 * the freeze actions still happen, its GLOBAL_STATUS bits stay set). The
 * kernel's LVTPC rewrite after its handler is dsm_lvt_unmask(). */
void dsm_set_lvt_model(struct dsm_cpu *cpu, bool on);
void dsm_lvt_unmask(struct dsm_cpu *cpu);

/* Called after every dsm_rdmsr / dsm_wrmsr (faulting ones included) with
 * the MSR and the direction; never re-entered (MSR accesses the hook makes
 * do not call it). It stands for the instructions the PMI handler executes
 * around each MSR access: it may call dsm_retire() (e.g. OS-mode
 * instructions and branches of the handler), which can overflow a counter
 * inside the handler and record the handler's branches in the LBRs. With
 * that, use dsm_set_lvt_model(cpu, true) so that a PMI requested inside
 * the handler is not delivered recursively. NULL removes it. */
void dsm_set_msr_hook(struct dsm_cpu *cpu, dsm_msr_hook_fn fn, void *ctx);

/* MSR access as the CPU performs it. Returns DSM_OK or DSM_GP (missing
 * MSR, reserved bits set, write to a read-only MSR; state unchanged).
 * Counted in the statistics. @out is left untouched on #GP. */
int dsm_rdmsr(struct dsm_cpu *cpu, uint32_t msr, uint64_t *out);
int dsm_wrmsr(struct dsm_cpu *cpu, uint32_t msr, uint64_t val);

/* CPUID of the profile; unknown leaves return zeros (as Intel returns the
 * highest basic leaf's data only above max; we return zeros). */
void dsm_cpuid(struct dsm_cpu *cpu, uint32_t leaf, uint32_t subleaf, uint32_t out[4]);

/* Retire one instruction. Returns DSM_OK or DSM_EINVAL (NULL args, cpl > 3).
 * Fast path: no MSR bookkeeping, one memory write per record. */
int dsm_retire(struct dsm_cpu *cpu, const struct dsm_event *ev);

/* Statistics access. dsm_msr_count: accesses to @msr (0 if never). */
const struct dsm_stats *dsm_stats(const struct dsm_cpu *cpu);
void dsm_msr_count(const struct dsm_cpu *cpu, uint32_t msr, uint32_t *out_reads,
                   uint32_t *out_writes, uint32_t *out_faults);
void dsm_stats_reset(struct dsm_cpu *cpu);

/* PEBS record size for the CPU's format in its current mode (NetBurst: 40
 * or 144; fmt 4, 6: size for the current PEBS_DATA_CFG with an adaptive
 * counter); 0 if the CPU has no PEBS. */
uint32_t dsm_pebs_record_size(const struct dsm_cpu *cpu);
/* BTS record size in the current mode: 12 or 24. */
uint32_t dsm_bts_record_size(const struct dsm_cpu *cpu);
/* Whether the 64-bit DS layout is in effect (DTES64 or IA-32e). */
bool dsm_ds64(const struct dsm_cpu *cpu);
/* PEBS records the model writes (or skips) for n occurrences of the event
 * when the counter starts at -period and the DS reset slot holds -period. */
static inline uint64_t dsm_pebs_expected(uint64_t n, uint64_t period)
{
    return (n == 0 || period == 0) ? 0 : (n - 1) / period;
}

/* Profile name (static string). */
const char *dsm_profile_name(enum dsm_profile p);

/* ---- Architectural PEBS (dsm_archpebs.c; profiles DSM_PTL_P / DSM_PTL_E) ----
 * Independent of libds; facts from the Linux series "arch-PEBS enabling for
 * Intel platforms" (perf/core, 6.19) and the real Panther Lake CPUID dump,
 * cited in dsm_archpebs.c. Records are written at the PHYSICAL address of
 * IA32_PEBS_BASE through the cpu's memory operations (identity in a kernel). */
#define DSM_MSR_PEBS_BASE     0x3F4u
#define DSM_MSR_PEBS_INDEX    0x3F5u
#define DSM_MSR_GP0_CFG_C     0x1903u
#define DSM_MSR_FX0_CFG_C     0x1983u
#define DSM_GS_ARCH_PEBS      (1ull << 54)   /* IA32_PERF_GLOBAL_STATUS: arch-PEBS threshold */

/* Split every record larger than @max bytes into fragments (CONT set on all
 * but the last), at group boundaries; 0 = never (default). The sources do
 * not say when the hardware fragments; this knob lets tests produce them.
 * DSM_OK, or DSM_EINVAL (cpu NULL or without arch PEBS, @max not 0 and
 * below 64 or not a multiple of 8). */
int dsm_apebs_set_fragment(struct dsm_cpu *cpu, uint32_t max);

/* Size in bytes of the record the model writes when the counters @hit (bit
 * n GP n, bit 32+m fixed m) take an assist with the current CFG_C values,
 * all fragments included; 0 without arch PEBS. */
uint32_t dsm_apebs_record_size(const struct dsm_cpu *cpu, uint64_t hit);

/* Hooks called by the model's other files (dsm_dispatch.c, dsm_pmc.c; not for callers). */
void dsm__apebs_init(struct dsm_cpu *c, bool ecore);
bool dsm__apebs_cpuid(const struct dsm_cpu *c, uint32_t leaf, uint32_t sub, uint32_t out[4]);
bool dsm__apebs_msr(struct dsm_cpu *c, uint32_t msr, bool wr, uint64_t *v, int *rc);
uint32_t dsm__apebs_alias(const struct dsm_cpu *c, uint32_t msr);
bool dsm__apebs_counter_on(const struct dsm_cpu *c, unsigned bit);
void dsm__apebs_assist(struct dsm_cpu *c, const struct dsm_event *ev, uint64_t hit);
bool dsm__apebs_reload(const struct dsm_cpu *c, unsigned bit, unsigned width, uint64_t *out);

#ifdef __cplusplus
}
#endif

#endif /* DSMODEL_H */
