/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Last Branch Records: per-model stack layout (keyed by
 * DisplayFamily_DisplayModel, never guessed; Arch LBR by CPUID.(07H,0):EDX[19]),
 * record-format decoding
 * (IA32_PERF_CAPABILITIES[5:0]), enable/disable, FREEZE_LBRS_ON_PMI,
 * MSR_LBR_SELECT filtering, and a reader returning entries newest first.
 *
 * Sources: SDM Vol. 3B "Last Branch, Interrupt, and Exception Recording"
 * (Table "LBR Stack Size and TOS Pointer Range"), "LBR Stack" for NetBurst
 * ("Last Branch Recording Overview" for Pentium 4), "Filtering of Last
 * Branch Records", "Freezing LBR and Performance Counters on PMI";
 * ../shared/reference/lbr.md and msr.md section 6.
 *
 * Configuration (ds/config.h): DS_CONFIG_LBR=0 compiles this out; every
 * function below then returns DS_ERR_UNSUPPORTED with its outputs cleared
 * (ds_lbr_models returns NULL, count 0). DS_CONFIG_NETBURST=0 removes the
 * NetBurst rows: ds_lbr_lookup(0x0F, ...) and every call with a
 * DS_LBR_F_NETBURST model return DS_ERR_UNSUPPORTED.
 */
#ifndef DS_LBR_H
#define DS_LBR_H

#include <stdint.h>
#include <stddef.h>
#include <stdbool.h>
#include <ds/err.h>
#include <ds/msr.h>
#include <ds/cpu.h>

#ifdef __cplusplus
extern "C" {
#endif

#define DS_MSR_LBR_SELECT        0x1C8u
#define DS_MSR_LASTBRANCH_TOS    0x1C9u   /* family 6 */
#define DS_MSR_NB_LASTBRANCH_TOS 0x1DAu   /* NetBurst */
#define DS_MSR_NB_LASTBRANCH_0   0x1DBu   /* NetBurst models 0-2: 0x1DB..0x1DE packed */
#define DS_MSR_LASTBRANCH_0_FROM_IP 0x680u
#define DS_MSR_LASTBRANCH_0_TO_IP   0x6C0u
#define DS_MSR_CORE_LASTBRANCH_0_FROM_IP 0x40u
#define DS_MSR_CORE_LASTBRANCH_0_TO_IP   0x60u
#define DS_MSR_LBR_INFO_0        0xDC0u
#define DS_MSR_IA32_LBR_CTL      0x14CEu
#define DS_MSR_IA32_LBR_DEPTH    0x14CFu
#define DS_MSR_IA32_LBR_0_FROM_IP 0x1500u
#define DS_MSR_IA32_LBR_0_TO_IP   0x1600u
#define DS_MSR_IA32_LBR_0_INFO    0x1200u

/* IA32_DEBUGCTL (family 6) */
#define DS_DEBUGCTL_LBR                (1ull << 0)
#define DS_DEBUGCTL_FREEZE_LBRS_ON_PMI (1ull << 11)
/* MSR_DEBUGCTLA (NetBurst: different layout, no freeze bit) */
#define DS_NB_DEBUGCTLA_LBR            (1ull << 0)

/* MSR_LBR_SELECT: set bit = suppress that class (bit 9 positive: call stack) */
#define DS_LBR_SELECT_CPL_EQ_0     (1ull << 0)
#define DS_LBR_SELECT_CPL_NEQ_0    (1ull << 1)
#define DS_LBR_SELECT_JCC          (1ull << 2)
#define DS_LBR_SELECT_NEAR_REL_CALL (1ull << 3)
#define DS_LBR_SELECT_NEAR_IND_CALL (1ull << 4)
#define DS_LBR_SELECT_NEAR_RET     (1ull << 5)
#define DS_LBR_SELECT_NEAR_IND_JMP (1ull << 6)
#define DS_LBR_SELECT_NEAR_REL_JMP (1ull << 7)
#define DS_LBR_SELECT_FAR_BRANCH   (1ull << 8)
#define DS_LBR_SELECT_EN_CALLSTACK (1ull << 9)  /* Haswell+ only */
#define DS_LBR_SELECT_VALID        0x3FFull

/* IA32_LBR_CTL (Arch LBR) */
#define DS_LBR_CTL_LBREN      (1ull << 0)
#define DS_LBR_CTL_OS         (1ull << 1)
#define DS_LBR_CTL_USR        (1ull << 2)
#define DS_LBR_CTL_CALL_STACK (1ull << 3)
#define DS_LBR_CTL_BRANCHES   0x7F0000ull   /* bits 22:16: JCC .. OTHER_BRANCH */
#define DS_LBR_CTL_VALID      (0x7F000Eull | 1ull)

/* LBR_INFO / Arch LBR INFO */
#define DS_LBR_INFO_MISPRED   (1ull << 63)
#define DS_LBR_INFO_IN_TX     (1ull << 62)
#define DS_LBR_INFO_ABORT     (1ull << 61)
#define DS_LBR_INFO_CYC_VALID (1ull << 60)   /* Arch LBR */
#define DS_LBR_INFO_BRTYPE_SHIFT 56          /* Arch LBR, bits 59:56 */
#define DS_LBR_INFO_CYCLES    0xFFFFull
/* Arch LBR INFO[39:32]: branch counters, 2 bits per GP counter 0..3, saturating
 * at 3 (Linux msr-index.h LBR_INFO_BR_CNTR_*) */
#define DS_LBR_INFO_BR_CNTR_SHIFT 32
/* CPUID.1CH:ECX (Linux perf_event.h union cpuid28_ecx; reference msr.md): which
 * Arch LBR INFO fields the CPU records */
#define DS_LBR_1C_ECX_MISPRED    (1u << 0)    /* INFO[63] */
#define DS_LBR_1C_ECX_TIMED      (1u << 1)    /* INFO[60], [15:0] cycle count */
#define DS_LBR_1C_ECX_BRTYPE     (1u << 2)    /* INFO[59:56] */
#define DS_LBR_1C_ECX_CNTR_SHIFT 16           /* [19:16]: GP counters 0-3 logged in INFO[39:32] */

/* LBR formats (IA32_PERF_CAPABILITIES[5:0]); DS_LBR_FMT_ARCH is libds's own tag */
enum ds_lbr_format {
    DS_LBR_FMT_32 = 0,          /* one MSR per entry: FROM 31:0, TO 63:32 */
    DS_LBR_FMT_LIP = 1,
    DS_LBR_FMT_EIP = 2,
    DS_LBR_FMT_EIP_FLAGS = 3,   /* FROM bit 63 mispredict */
    DS_LBR_FMT_EIP_FLAGS2 = 4,  /* FROM 63 mispred, 62 IN_TX, 61 ABORT */
    DS_LBR_FMT_INFO = 5,        /* LBR_INFO: mispred, TSX, cycles */
    DS_LBR_FMT_TIME = 6,        /* Goldmont: FROM 63 mispred; TO 63:48 cycles */
    DS_LBR_FMT_INFO2 = 7,       /* Goldmont Plus: LBR_INFO without TSX */
    DS_LBR_FMT_ARCH = 0x100,    /* Arch LBR (IA32_LBR_x_*), not a PERF_CAPABILITIES value */
};

#define DS_LBR_F_PACKED      0x01u  /* one MSR per record, FROM 31:0 / TO 63:32 */
#define DS_LBR_F_NETBURST    0x02u  /* MSR_DEBUGCTLA, TOS 0x1DA */
#define DS_LBR_F_SELECT      0x04u  /* MSR_LBR_SELECT present */
#define DS_LBR_F_CALLSTACK   0x08u  /* LBR_SELECT bit 9 valid (Haswell+) */
#define DS_LBR_F_ARCH        0x10u  /* Arch LBR: depth from CPUID.1CH, no TOS */
#define DS_LBR_F_UNCONFIRMED 0x20u  /* single source (reference lbr.md) */
#define DS_LBR_F_LIP_MISPRED 0x40u  /* reports format 1 (LIP) but FROM[63] is mispredict:
                                     * decoded as EIP_FLAGS (Knights Landing/Mill; Linux
                                     * intel_pmu_lbr_init_knl) */

/* One row of the LBR table */
/* Field order and 16-bit MSR numbers (every LBR MSR is below 10000H): 24
 * bytes a row on x86_64, not 40 (issue 28 item 6). */
struct ds_lbr_model {
    const char *uarch;
    uint16_t family;         /* DisplayFamily */
    uint8_t model;           /* DisplayModel */
    uint8_t depth;           /* entries; 0 for Arch LBR (CPUID.1CH) */
    uint16_t from_base, to_base, info_base;  /* MSR numbers; 0 = none */
    uint16_t tos_msr;        /* 0 = none (Arch LBR) */
    uint8_t tos_max;         /* TOS range 0..tos_max */
    uint8_t flags;           /* DS_LBR_F_* */
};

/* The whole table; *out_n (may be NULL) gets the row count (NULL and 0 with
 * DS_CONFIG_LBR=0). No error return. MSRs: none. NMI-safe: yes (pure). */
const struct ds_lbr_model *ds_lbr_models(size_t *out_n);

/* Look up a DisplayFamily_DisplayModel. DS_ERR_LBR_UNKNOWN_MODEL when the
 * table has no row: libds never guesses. DS_ERR_NULL; DS_ERR_UNSUPPORTED
 * for family 0FH with DS_CONFIG_NETBURST=0. MSRs: none. NMI-safe: yes. */
int ds_lbr_lookup(uint16_t family, uint8_t model, const struct ds_lbr_model **out);

/*
 * The LBR source of this CPU, decided by CPUID before the model table (SDM
 * Vol. 3B "Architectural Last Branch Records"; Linux intel_pmu_init):
 * CPUID.(07H,0):EDX[19] (caps.arch_lbr) set: the model's Arch row, or, for a
 * model without one, a generic Arch LBR descriptor (family 0, model 0: fits
 * any CPU with Arch LBR). EDX[19] clear: the model's legacy row; an Arch-only
 * model (the bit hidden, e.g. by KVM) is DS_ERR_LBR_ARCH_HIDDEN (these models
 * have no legacy LBR MSRs). DS_ERR_LBR_UNKNOWN_MODEL when no row fits.
 * Errors: DS_ERR_NULL, DS_ERR_NOT_IDENTIFIED, DS_ERR_LBR_UNKNOWN_MODEL,
 * DS_ERR_LBR_ARCH_HIDDEN, DS_ERR_UNSUPPORTED (as ds_lbr_lookup). *out is
 * NULL on error. MSRs: none (uses caps). NMI-safe: yes (pure).
 */
int ds_lbr_cpu_model(const struct ds_cpu *cpu, const struct ds_lbr_model **out);

/* One decoded branch */
struct ds_lbr_entry {
    uint64_t from, to;       /* addresses, sign-extended where the format needs it */
    bool has_mispred;        /* format reports mispredict */
    bool mispred;
    bool has_tsx;            /* format reports TSX bits */
    bool in_tx, abort;
    bool has_cycles;         /* cycle count valid */
    uint16_t cycles;
    int8_t br_type;          /* Arch LBR branch type 0..15, -1 when not reported */
    /* Arch LBR branch counters (appended): br_cntr_mask bit i set = GP counter i
     * is logged (CPUID.1CH:ECX[16+i]); br_cntr[i] = INFO[33+2i:32+2i]
     * occurrences of counter i's event (3 = 3 or more), 0 where not logged. */
    uint8_t br_cntr_mask;
    uint8_t br_cntr[4];
};

/*
 * Decode raw MSR values of one record in @format (0..7). For DS_LBR_FMT_32
 * pass the packed MSR as @from_raw (@to_raw ignored). @info_raw is used by
 * formats INFO and INFO2. DS_ERR_LBR_BAD_FORMAT for other values, including
 * DS_LBR_FMT_ARCH: what an Arch LBR INFO holds depends on the CPU
 * (ds_lbr_decode_arch). DS_ERR_NULL. MSRs: none. NMI-safe: yes (pure).
 */
int ds_lbr_decode(unsigned format, uint64_t from_raw, uint64_t to_raw, uint64_t info_raw,
                  struct ds_lbr_entry *out);

/*
 * Decode one Arch LBR record (IA32_LBR_x_FROM_IP/TO_IP/INFO) for a CPU whose
 * CPUID.1CH:ECX is @cpuid_1c_ecx (caps.lbr_1c_ecx): a field the CPU does not
 * record reads "not recorded", never 0: has_mispred only with ECX[0];
 * has_cycles only with ECX[1] and INFO[60] (CYC_CNT_VALID); br_type -1
 * unless ECX[2]; br_cntr_mask = ECX[19:16] and br_cntr[i] from INFO[39:32]
 * (SDM Vol. 3B "Architectural Last Branch Records"; Linux lbr.c
 * intel_pmu_arch_lbr_init / intel_pmu_store_lbr). in_tx/abort: INFO[62]/[61].
 * DS_ERR_NULL. MSRs: none. NMI-safe: yes (pure).
 */
int ds_lbr_decode_arch(uint32_t cpuid_1c_ecx, uint64_t from_raw, uint64_t to_raw, uint64_t info_raw,
                       struct ds_lbr_entry *out);

/*
 * The format to decode @m's records with: caps.lbr_format when
 * IA32_PERF_CAPABILITIES was read; DS_ERR_LBR_FMT_UNKNOWN (*out 0) when
 * PDCM is set but the read faulted (a hypervisor) and the row does not fix
 * the format; otherwise DS_LBR_FMT_32 (what Linux assumes without PDCM:
 * intel_pmu_lbr_init_core) and for packed rows, DS_LBR_FMT_LIP for the 16-entry NetBurst layout
 * (SDM: linear addresses; unverified here), DS_LBR_FMT_ARCH for Arch rows.
 * Rows with DS_LBR_F_LIP_MISPRED (Knights Landing/Mill) that report format
 * 1 (LIP) get DS_LBR_FMT_EIP_FLAGS: they keep MISPRED in FROM bit 63
 * (Linux intel_pmu_lbr_init_knl); ds_lbr_read applies the same rule.
 * DS_ERR_NULL, DS_ERR_NOT_IDENTIFIED, DS_ERR_LBR_BAD_FORMAT (> 7),
 * DS_ERR_UNSUPPORTED (NetBurst row with DS_CONFIG_NETBURST=0).
 * MSRs: none (uses caps). NMI-safe: yes (pure).
 */
int ds_lbr_format(const struct ds_cpu *cpu, const struct ds_lbr_model *m, unsigned *out_format);

/* Every function below that takes a CPU and a row (ds_lbr_format, _enable,
 * _disable, _unfreeze, _read) returns, before any MSR access,
 * DS_ERR_NOT_INTEL when the CPU is not GenuineIntel (every row is an Intel
 * DisplayFamily_DisplayModel: AMD K8 is family 0FH too, and its MSRs 0x1D9+
 * differ) and DS_ERR_LBR_ARCH_HIDDEN for an Arch row on a CPU without
 * CPUID.(07H,0):EDX[19]. ds_lbr_cpu_model() returns DS_ERR_NOT_INTEL too. */

/* Enable options */
struct ds_lbr_config {
    bool freeze_on_pmi;      /* IA32_DEBUGCTL[11]: needs PDCM and perfmon v2+ (SDM MSR
                              * table), so not on NetBurst, Pentium M, Yonah, Merom */
    bool use_select;         /* write MSR_LBR_SELECT = select */
    uint64_t select;         /* DS_LBR_SELECT_* (suppress bits) */
    uint64_t arch_ctl;       /* Arch LBR: IA32_LBR_CTL value; 0 = LBREn|OS|USR|all branches,
                              * less what CPUID.1CH:EBX[2:0] says is not implemented */
};

/*
 * Enable LBR recording on this logical CPU. Family 6: (MSR_LBR_SELECT), then
 * IA32_DEBUGCTL |= LBR (| FREEZE_LBRS_ON_PMI) by read-modify-write. NetBurst:
 * MSR_DEBUGCTLA |= bit 0. Arch LBR: IA32_LBR_DEPTH = max depth from
 * CPUID.1CH (this also clears the entries), IA32_LBR_CTL = arch_ctl; bits
 * whose feature CPUID.1CH:EBX does not report (CPL filter [0], branch
 * filter [1], call stack [2]) are refused (DS_ERR_LBR_BAD_SELECT).
 * FREEZE_LBRS_ON_PMI (IA32_DEBUGCTL[11], Arch LBR included) is set with
 * freeze_on_pmi and cleared otherwise, so a stale freeze bit never survives.
 * Call-stack mode (LBR_SELECT[9] with use_select, IA32_LBR_CTL[3]) together
 * with freeze_on_pmi is refused (DS_ERR_LBR_CALLSTACK_FREEZE): a PMI near a
 * call/return corrupts the stack (Linux __intel_pmu_lbr_enable clears the
 * freeze in call-stack mode). Without use_select MSR_LBR_SELECT is left as
 * it is; on call-stack rows (DS_LBR_F_CALLSTACK) freeze_on_pmi then reads it
 * and refuses when its bit 9 is already set.
 * @cfg may be NULL (defaults). The model row must be the CPU's own
 * (caps.display_family/model), else DS_ERR_INVAL.
 * Errors: DS_ERR_NULL, DS_ERR_NOT_IDENTIFIED, DS_ERR_INVAL,
 * DS_ERR_LBR_NO_FREEZE, DS_ERR_LBR_NO_SELECT, DS_ERR_LBR_BAD_SELECT,
 * DS_ERR_LBR_CALLSTACK_FREEZE, DS_ERR_LBR_FREEZE_ERRATUM (freeze_on_pmi on
 * Atom 06_1CH stepping < 10, whose LBRs cannot freeze on a PMI: Linux
 * intel_pmu_lbr_init_atom disables LBR there; libds refuses only the freeze,
 * LBR without it is allowed and unverified here),
 * DS_ERR_LBR_ARCH_DEPTH, DS_ERR_UNSUPPORTED (NetBurst row with
 * DS_CONFIG_NETBURST=0), DS_ERR_MSR_FAULT (earlier writes of the sequence
 * stay done).
 * MSRs: family 6: writes MSR_LBR_SELECT (0x1C8) when use_select, reads it
 * with freeze_on_pmi and no use_select on call-stack rows; reads and
 * writes IA32_DEBUGCTL (0x1D9). NetBurst: reads and writes MSR_DEBUGCTLA
 * (0x1D9). Arch LBR: reads and writes IA32_DEBUGCTL (bit 11 only);
 * writes IA32_LBR_DEPTH (0x14CF), IA32_LBR_CTL (0x14CE);
 * CPUID 1CH. NMI-safe: no, because of the read-modify-write of DEBUGCTL,
 * which the BTS code also modifies: the caller serialises.
 */
int ds_lbr_enable(struct ds_cpu *cpu, const struct ds_lbr_model *m, const struct ds_lbr_config *cfg);

/* Disable: clear DEBUGCTL.LBR and FREEZE_LBRS_ON_PMI (DEBUGCTLA.LBR on
 * NetBurst; IA32_LBR_CTL = 0 on Arch LBR). Errors: DS_ERR_NULL,
 * DS_ERR_NOT_IDENTIFIED, DS_ERR_INVAL (row not the CPU's),
 * DS_ERR_UNSUPPORTED (NetBurst row, DS_CONFIG_NETBURST=0), DS_ERR_MSR_FAULT.
 * MSRs: reads and writes IA32_DEBUGCTL / MSR_DEBUGCTLA (0x1D9); Arch LBR:
 * writes IA32_LBR_CTL (0x14CE) only. NMI-safe: no (as ds_lbr_enable). */
int ds_lbr_disable(struct ds_cpu *cpu, const struct ds_lbr_model *m);

/*
 * After a PMI with FREEZE_LBRS_ON_PMI: perfmon v4+ write
 * IA32_PERF_GLOBAL_STATUS_RESET bit 58 (LBR_Frz); earlier versions set
 * DEBUGCTL.LBR again (the CPU cleared it). Errors: DS_ERR_NULL,
 * DS_ERR_NOT_IDENTIFIED, DS_ERR_INVAL (row not the CPU's),
 * DS_ERR_UNSUPPORTED (NetBurst row, DS_CONFIG_NETBURST=0),
 * DS_ERR_LBR_NO_FREEZE (NetBurst row), DS_ERR_MSR_FAULT.
 * MSRs: v4+: writes IA32_PERF_GLOBAL_STATUS_RESET (0x390); else reads and
 * writes IA32_DEBUGCTL (0x1D9). NMI-safe: yes if the backend is (meant for
 * the PMI handler; the pre-v4 DEBUGCTL read-modify-write must not
 * interrupt another DEBUGCTL read-modify-write on this CPU).
 */
int ds_lbr_unfreeze(struct ds_cpu *cpu, const struct ds_lbr_model *m);

/*
 * Read the stack newest first: out[0] is the most recent branch. TOS models:
 * RDMSR TOS (value must be within 0..tos_max, else DS_ERR_LBR_BAD_TOS), then
 * entry k = (TOS - k) mod depth; FROM, TO and (formats INFO/INFO2 with an
 * INFO base) INFO. Arch LBR: entry 0 is newest, depth from IA32_LBR_DEPTH,
 * reading stops at the first FROM = 0; entries decoded by ds_lbr_decode_arch
 * with caps.lbr_1c_ecx. @cap must be >= the depth
 * (DS_ERR_LBR_NOSPC). *out_n = entries stored. Empty entries (FROM = 0 and
 * TO = 0) are kept on TOS models so that out_n is the depth.
 * Errors: DS_ERR_NULL, DS_ERR_NOT_IDENTIFIED, DS_ERR_LBR_BAD_FORMAT,
 * DS_ERR_LBR_BAD_TOS, DS_ERR_LBR_ARCH_DEPTH, DS_ERR_LBR_NOSPC,
 * DS_ERR_LBR_BAD_DEPTH (a legacy row, e.g. caller-built, whose depth is
 * not 4, 8, 16 or 32),
 * DS_ERR_INVAL (row not the CPU's), DS_ERR_UNSUPPORTED (NetBurst row,
 * DS_CONFIG_NETBURST=0), DS_ERR_MSR_FAULT.
 * MSRs: reads the row's TOS MSR (MSR_LASTBRANCH_TOS 0x1C9 / NetBurst
 * 0x1DA) or IA32_LBR_DEPTH (0x14CF), then the row's FROM/TO/INFO MSRs
 * (e.g. 0x680+i, 0x6C0+i, 0xDC0+i; Arch 0x1500+i, 0x1600+i, 0x1200+i);
 * writes none. Cost: 1 + 2 * depth (+ depth with INFO) RDMSR.
 * NMI-safe: yes if the backend is.
 */
int ds_lbr_read(struct ds_cpu *cpu, const struct ds_lbr_model *m, unsigned format,
                struct ds_lbr_entry *out, size_t cap, size_t *out_n);

#ifdef __cplusplus
}
#endif

#endif /* DS_LBR_H */
