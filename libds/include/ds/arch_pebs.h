/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Architectural PEBS (Panther Lake 06_CCH, Clearwater Forest 06_DDH,
 * Diamond Rapids and later): detection, the buffer MSRs, per-counter
 * configuration (CFG_C), the record decoder and the drain.
 *
 * Architectural PEBS does not use the DS save area: the buffer is given to
 * the CPU by PHYSICAL address in IA32_PEBS_BASE, the write position lives in
 * IA32_PEBS_INDEX, and every record (or record fragment) starts with a
 * 16-byte header that says which groups follow and how long it is.
 *
 * Sources (facts only; the code is libds's own):
 *  - Intel "Architecture Instruction Set Extensions and Future Features",
 *    chapter "Architectural PEBS" (not reachable from this host; every fact
 *    below was taken from the Linux series that implements it);
 *  - Linux "arch-PEBS enabling for Intel platforms" (Dapeng Mi, Kan Liang,
 *    v4 June 2025 .. v9 October 2025, merged in perf/core for 6.19):
 *    arch/x86/include/asm/perf_event.h union arch_pebs_index, struct
 *    arch_pebs_header / _basic / _aux / _gprs / _xer_header / _lbr_header /
 *    _cntr_header, ARCH_PEBS_LBR_*; arch/x86/include/asm/msr-index.h
 *    MSR_IA32_PEBS_BASE, MSR_IA32_PEBS_INDEX, ARCH_PEBS_* (CFG_C bits),
 *    MSR_IA32_PMC_V6_GP0_CFG_C / FX0_CFG_C / STEP; arch/x86/events/intel/
 *    ds.c intel_pmu_drain_arch_pebs, setup_arch_pebs_sample_data,
 *    arch_pebs_record_continued, init_arch_pebs_on_cpu, intel_pebs_init
 *    (PEBS_FMT 0xF); core.c update_pmu_cap (CPUID 23H sub-leaves 4 and 5),
 *    intel_pmu_enable_event_ext (CFG_C); KVM arch/x86/kvm/vmx/pmu_intel.c
 *    arch_pebs_index_rsvd / arch_pebs_cfg_c_rsvd (reserved bits).
 *
 * Not verified on hardware: this host has no Intel PMU. The host tests use
 * the real Panther Lake CPUID words (../shared/cpuid/
 * GenuineIntel00C06C3_PantherLakeL_01_CPUID.txt) and records built by an
 * independent byte-level encoder.
 *
 * ds_pebs_format_select() (pebs.h) answers DS_PEBS_FMT_ARCH on a CPU
 * ds_arch_pebs_detect() accepts; the caller then sets the buffer up with
 * the functions below (ds_area_setup refuses a DS-area PEBS buffer there:
 * DS_ERR_APEBS_DS_AREA). The shared PMI handler drains it on
 * IA32_PERF_GLOBAL_STATUS bit 54 when given the state (pmi.h
 * ds_pmi_config.apebs).
 *
 * Configuration (ds/config.h): compiled with DS_CONFIG_PEBS; with
 * DS_CONFIG_PEBS=0 every function returns DS_ERR_UNSUPPORTED with its
 * outputs cleared (ds_arch_pebs_cfg_c_msr returns 0).
 */
#ifndef DS_ARCH_PEBS_H
#define DS_ARCH_PEBS_H

#include <stdint.h>
#include <stddef.h>
#include <stdbool.h>
#include <ds/err.h>
#include <ds/cpu.h>
#include <ds/area.h>
#include <ds/pebs.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Private to libds (arch_pebs.c): the group offsets of a decoded
 * single-fragment record and what in its group headers decides sizes;
 * struct ds_pmi keeps one for its scratch sample (pmi.h). */
struct ds__apebs_layout {
    uint64_t h, cw;
    uint32_t size, aux, gpr, vecr, lbr, cntr;
    uint32_t gp, fx;
    bool lbr_var, met, valid;
};

/* Private to libds: struct ds_pmi's PEBS scratch (pmi.h): what @s holds
 * (key, libds/src/pebs_int.h), the sample, and for an architectural PEBS
 * record its layout. One pointer for the arch PMI drain (6 arguments, all
 * in registers on x86_64: issue 29 item 3). */
struct ds__pmi_scratch {
    uint32_t key;
    struct ds_pebs_sample s;
    struct ds__apebs_layout lay;
};

/* --- MSRs (Linux msr-index.h) ----------------------------------------------- */
#define DS_MSR_IA32_PEBS_BASE      0x3F4u   /* MSR_IA32_PEBS_BASE */
#define DS_MSR_IA32_PEBS_INDEX     0x3F5u   /* MSR_IA32_PEBS_INDEX */
#define DS_MSR_IA32_PMC_GP0_CFG_C  0x1903u  /* MSR_IA32_PMC_V6_GP0_CFG_C; GP n at + 4n */
#define DS_MSR_IA32_PMC_FX0_CFG_C  0x1983u  /* MSR_IA32_PMC_V6_FX0_CFG_C; fixed m at + 4m */
#define DS_MSR_PMC_V6_STEP         4u       /* MSR_IA32_PMC_V6_STEP */

/* PERF_CAPABILITIES.PEBS_FMT value that means "architectural PEBS"
 * (Linux intel_pebs_init: pebs_format == 0xf -> intel_arch_pebs_init). */
#define DS_APEBS_PEBS_FMT          0xFu

/* --- IA32_PEBS_BASE ----------------------------------------------------------
 * Physical address of a 4 KiB aligned buffer ORed with a size code: the
 * buffer is 4 KiB << code (Linux init_arch_pebs_on_cpu: "Buffer Size =
 * 4KB * 2^SIZE", virt_to_phys(buf) | PEBS_BUFFER_SHIFT). The width of the
 * code field is documented nowhere reachable here (the ISE chapter is not;
 * Linux defines no size mask, only ARCH_PEBS_OFFSET_MASK 0x7fffff and
 * ARCH_PEBS_INDEX_WR_SHIFT 4; KVM stores the MSR unchecked). The maximum is
 * derived from the documented INDEX field: the write offset is 23 bits of
 * 16-byte units = 128 MiB = 4 KiB << 15, so no larger code is usable (a
 * bigger buffer could not be addressed); the code is written to bits 3:0
 * and bits 11:4 are left zero. Tests: test_arch_pebs.c:
 * test_size_code_width (15 accepted, 16 refused). */
#define DS_APEBS_BASE_SIZE_MASK    0xFull
#define DS_APEBS_SIZE_CODE_MAX     15u
#define DS_APEBS_PAGE              4096u

/* --- IA32_PEBS_INDEX (Linux union arch_pebs_index) ---------------------------- */
#define DS_APEBS_UNIT              16u                      /* bytes per offset/threshold unit */
#define DS_APEBS_INDEX_WR_SHIFT    4                        /* ARCH_PEBS_INDEX_WR_SHIFT */
#define DS_APEBS_INDEX_WR_MASK     (0x7FFFFFull << 4)       /* [26:4] write offset, 16-byte units */
#define DS_APEBS_INDEX_FULL        (1ull << 31)             /* [31] buffer full */
#define DS_APEBS_INDEX_EN          (1ull << 32)             /* [32] enable */
#define DS_APEBS_INDEX_THRESH_SHIFT 36
#define DS_APEBS_INDEX_THRESH_MASK (0x7FFFFFull << 36)      /* [58:36] PMI threshold, 16-byte units */
/* KVM arch_pebs_index_rsvd: 3:0, 30:27, 35:33, 63:59 */
#define DS_APEBS_INDEX_RSVD        (0xFull | (0xFull << 27) | (0x7ull << 33) | (0x1Full << 59))

/* IA32_PERF_GLOBAL_STATUS bit the CPU sets when the write offset reaches the
 * threshold (Linux GLOBAL_STATUS_ARCH_PEBS_THRESHOLD_BIT 54, serviced in
 * handle_pmi_common by draining). ds_pmi_handle (pmi.h) drains and
 * acknowledges it when ds_pmi_config.apebs is set. */
#define DS_APEBS_GLOBAL_STATUS_THRESHOLD (1ull << 54)

/* --- IA32_PMC_GPx_CFG_C / IA32_PMC_FXx_CFG_C (Linux ARCH_PEBS_*) --------------
 * CPUID.(23H,4):EBX is the layout of bits 63:32: bit n set = CFG_C bit
 * 32 + n may be used (Linux update_pmu_cap: caps = (u64)ebx << 32). */
#define DS_APEBS_CFG_RELOAD_MASK   0xFFFFFFFFull            /* [31:0] ARCH_PEBS_RELOAD */
#define DS_APEBS_CFG_CNTR_ALLOW    (1ull << 35)             /* counters group select [38:35] */
#define DS_APEBS_CFG_CNTR_GP       (1ull << 36)
#define DS_APEBS_CFG_CNTR_FIXED    (1ull << 37)
#define DS_APEBS_CFG_CNTR_METRICS  (1ull << 38)
#define DS_APEBS_CFG_LBR_SHIFT     40
#define DS_APEBS_CFG_LBR           (0x3ull << 40)           /* [41:40] LBR group (DS_APEBS_LBR_*) */
#define DS_APEBS_CFG_XMM           (1ull << 49)             /* ARCH_PEBS_VECR_XMM */
#define DS_APEBS_CFG_YMMH          (1ull << 50)             /* ARCH_PEBS_VECR_YMMH */
#define DS_APEBS_CFG_OPMASK        (1ull << 53)             /* ARCH_PEBS_VECR_OPMASK */
#define DS_APEBS_CFG_ZMMH          (1ull << 54)             /* ARCH_PEBS_VECR_ZMMH */
#define DS_APEBS_CFG_H16ZMM        (1ull << 55)             /* ARCH_PEBS_VECR_H16ZMM */
#define DS_APEBS_CFG_GPR           (1ull << 61)
#define DS_APEBS_CFG_AUX           (1ull << 62)
#define DS_APEBS_CFG_EN            (1ull << 63)
/* The group-selection bits ds_arch_pebs_counter_enable accepts. */
#define DS_APEBS_CFG_GROUPS        (DS_APEBS_CFG_CNTR_ALLOW | DS_APEBS_CFG_CNTR_GP | DS_APEBS_CFG_CNTR_FIXED | \
                                    DS_APEBS_CFG_CNTR_METRICS | DS_APEBS_CFG_LBR | DS_APEBS_CFG_XMM | \
                                    DS_APEBS_CFG_YMMH | DS_APEBS_CFG_OPMASK | DS_APEBS_CFG_ZMMH | \
                                    DS_APEBS_CFG_H16ZMM | DS_APEBS_CFG_GPR | DS_APEBS_CFG_AUX)

/* --- Record / fragment header (Linux struct arch_pebs_header, 16 bytes) ------- */
#define DS_APEBS_HDR_BYTES         16u
#define DS_APEBS_HDR_SIZE_MASK     0xFFFFull                /* [15:0] fragment size in bytes, header included */
#define DS_APEBS_HDR_MODE64        (1ull << 30)             /* 64BIT_MODE */
#define DS_APEBS_HDR_CONT          (1ull << 31)             /* continued in the next fragment */
#define DS_APEBS_HDR_CNTR_SHIFT    35
#define DS_APEBS_HDR_CNTR          (0x1Full << 35)          /* [39:35] counters group */
#define DS_APEBS_HDR_LBR_SHIFT     40
#define DS_APEBS_HDR_LBR           (0x3ull << 40)           /* [41:40] DS_APEBS_LBR_* */
#define DS_APEBS_HDR_XMM           (1ull << 49)
#define DS_APEBS_HDR_YMMH          (1ull << 50)
#define DS_APEBS_HDR_OPMASK        (1ull << 53)
#define DS_APEBS_HDR_ZMMH          (1ull << 54)
#define DS_APEBS_HDR_H16ZMM        (1ull << 55)
#define DS_APEBS_HDR_GPR           (1ull << 61)
#define DS_APEBS_HDR_AUX           (1ull << 62)
#define DS_APEBS_HDR_BASIC         (1ull << 63)
/* The vector-register group: an XER header (16 bytes) when any of these is
 * set, then the parts present in this order: XMM, YMMH, OPMASK, ZMMH,
 * H16ZMM (Linux "perf/x86/intel: Support arch-PEBS vector registers group
 * capturing", Dapeng Mi, v3 17/22 April 2025: setup_arch_pebs_sample_data,
 * struct arch_pebs_ymmh/_opmask/_zmmh/_h16zmm). */
#define DS_APEBS_HDR_VECR          (DS_APEBS_HDR_XMM | DS_APEBS_HDR_YMMH | DS_APEBS_HDR_OPMASK | DS_APEBS_HDR_ZMMH | \
                                    DS_APEBS_HDR_H16ZMM)

/* LBR group entry count (ARCH_PEBS_LBR_NUM_*): 1 = 8, 2 = 16, 3 = the
 * depth field of the LBR group header. */
#define DS_APEBS_LBR_NUM_8         1u
#define DS_APEBS_LBR_NUM_16        2u
#define DS_APEBS_LBR_NUM_VAR       3u

/* Group sizes in bytes (the Linux structs) */
#define DS_APEBS_BASIC_BYTES       48u   /* ip, applicable, tsc, retire[15:0] valid[16], 2 reserved */
#define DS_APEBS_AUX_BYTES         64u   /* address, 4 reserved, aux, latency, tsx_tuning */
#define DS_APEBS_GPR_BYTES         160u  /* flags, ip, 16 GPRs, ssp, reserved */
#define DS_APEBS_XER_BYTES         16u   /* xstate, reserved */
#define DS_APEBS_XMM_BYTES         256u  /* XMM0..15, two quadwords each */
#define DS_APEBS_YMMH_BYTES        256u  /* YMM0..15 bits 255:128, two quadwords each */
#define DS_APEBS_OPMASK_BYTES      64u   /* k0..k7 */
#define DS_APEBS_ZMMH_BYTES        512u  /* ZMM0..15 bits 511:256, four quadwords each */
#define DS_APEBS_H16ZMM_BYTES      1024u /* ZMM16..31, eight quadwords each */
#define DS_APEBS_LBR_HDR_BYTES     48u   /* reserved, ctl, depth, ler_from, ler_to, ler_info */
#define DS_APEBS_LBR_ENTRY_BYTES   24u   /* from, to, info */
#define DS_APEBS_CNTR_HDR_BYTES    16u   /* gp, fixed, metrics, reserved (u32 each) */

/* Drain anomaly bits beyond those of area.h (struct ds_drain_stats.anomalies). */
#define DS_DRAIN_APEBS_ORPHAN      (1u << 16) /* a fragment without a basic group outside a record: lost_corrupt */

/* --- Detection ---------------------------------------------------------------- */

/*
 * What the CPU enumerates for architectural PEBS (Linux update_pmu_cap).
 * Counter bitmaps: bit n = GP counter n / fixed counter n.
 */
struct ds_arch_pebs_caps {
    uint64_t cfg_c_caps;      /* CPUID.(23H,4):EBX << 32: CFG_C bits 63:32 that may be set */
    uint32_t gp_mask;         /* CPUID.(23H,5):EAX PEBS-capable GP counters */
    uint32_t pdist_gp_mask;   /* CPUID.(23H,5):EBX PDIST-capable GP counters */
    uint32_t fixed_mask;      /* CPUID.(23H,5):ECX PEBS-capable fixed counters */
    uint32_t pdist_fixed_mask;/* CPUID.(23H,5):EDX PDIST-capable fixed counters */
    uint8_t phys_bits;        /* MAXPHYADDR: CPUID.80000008H:EAX[7:0], else 36 (PAE) or 32 */
};

/*
 * Detect architectural PEBS on the identified @cpu: Intel, IA32_PERF_
 * CAPABILITIES present with PEBS_FMT = 0xF, CPUID.23H.0:EAX[4] and [5]
 * both set (Linux: "Bits[5:4] should be set simultaneously"), and the
 * sub-leaf 5 bitmaps subsets of the counters that exist (caps.gp_mask /
 * caps.fixed_mask; Linux disables arch-PEBS otherwise). Reads CPUID
 * 80000000H/80000008H through @cpu's backend for MAXPHYADDR.
 * *out is zeroed first and filled only on DS_OK.
 * Errors: DS_ERR_NULL, DS_ERR_NOT_IDENTIFIED, DS_ERR_NOT_INTEL,
 * DS_ERR_NO_PDCM, DS_ERR_APEBS_NOT_ENUMERATED, DS_ERR_APEBS_MASKS.
 * MSRs: none (reads CPUID). NMI-safe: yes if the backend's CPUID is.
 */
int ds_arch_pebs_detect(const struct ds_cpu *cpu, struct ds_arch_pebs_caps *out);

/* --- Buffer setup and the INDEX/BASE MSRs -------------------------------------- */

struct ds_arch_pebs_config {
    void *mem;           /* what libds reads: 4 KiB aligned, (4 KiB << size_code) bytes, mapped */
    uint64_t phys;       /* physical address of mem (what the CPU writes): 4 KiB aligned, contiguous */
    unsigned size_code;  /* buffer bytes = 4 KiB << size_code, 0..DS_APEBS_SIZE_CODE_MAX */
    /* PMI threshold in bytes from the buffer start (IA32_PEBS_INDEX[58:36] x 16):
     * a multiple of 16, below the buffer size. 0 = default: buffer - 4 KiB
     * (Linux ARCH_PEBS_THRESH_MULTI: "the largest PEBS record could consume
     * a page"), or 16 (ARCH_PEBS_THRESH_SINGLE: a PMI per record) for a
     * 4 KiB buffer. */
    uint64_t thresh;
};

/* Per-logical-CPU state (IA32_PEBS_BASE/INDEX are per logical processor). Plain data. */
struct ds_arch_pebs {
    const struct ds_cpu *cpu;
    struct ds_arch_pebs_caps caps;
    unsigned char *mem;
    uint64_t phys;
    uint64_t bytes;      /* 4 KiB << size_code */
    uint64_t base_msr;   /* the IA32_PEBS_BASE value install writes */
    uint64_t thresh;     /* bytes; a multiple of 16 */
    bool setup;
    bool installed;
};

/*
 * Validate @cfg against @cpu (ds_arch_pebs_detect) and fill @ap. Nothing is
 * written to an MSR. On error @ap is zeroed (never set up).
 * Errors: DS_ERR_NULL (@ap, @cpu, @cfg or cfg->mem), those of
 * ds_arch_pebs_detect, DS_ERR_APEBS_SIZE_CODE, DS_ERR_APEBS_MEM_ALIGN,
 * DS_ERR_APEBS_BASE_ALIGN, DS_ERR_APEBS_PHYS_ADDR (the buffer does not lie
 * below 2^MAXPHYADDR), DS_ERR_APEBS_THRESH_ALIGN, DS_ERR_APEBS_THRESH_RANGE.
 * MSRs: none. NMI-safe: yes (memory and CPUID only).
 */
int ds_arch_pebs_setup(struct ds_arch_pebs *ap, const struct ds_cpu *cpu, const struct ds_arch_pebs_config *cfg);

/*
 * Program the buffer: IA32_PEBS_BASE = phys | size code, then
 * IA32_PEBS_INDEX = threshold with offset 0, FULL 0, EN 0. Records are
 * written only after ds_arch_pebs_enable. Errors: DS_ERR_NULL,
 * DS_ERR_APEBS_NOT_SETUP, DS_ERR_APEBS_INSTALLED, DS_ERR_MSR_FAULT (then
 * not installed; BASE is written back to 0 if the INDEX write faulted).
 * MSRs: writes IA32_PEBS_BASE, IA32_PEBS_INDEX. NMI-safe: yes.
 */
int ds_arch_pebs_install(struct ds_arch_pebs *ap);

/*
 * Set / clear IA32_PEBS_INDEX.EN (read-modify-write; offset and FULL kept,
 * the threshold rewritten from setup, reserved bits cleared).
 * Errors: DS_ERR_NULL, DS_ERR_APEBS_NOT_INSTALLED, DS_ERR_MSR_FAULT.
 * MSRs: reads and writes IA32_PEBS_INDEX. NMI-safe: yes.
 */
int ds_arch_pebs_enable(struct ds_arch_pebs *ap);
int ds_arch_pebs_disable(struct ds_arch_pebs *ap);

/*
 * Disable, then IA32_PEBS_BASE = 0 (before the caller frees the buffer:
 * Linux fini_arch_pebs_on_cpu order). Errors: as ds_arch_pebs_disable; the
 * state is "not installed" afterwards unless an MSR write faulted.
 * MSRs: IA32_PEBS_INDEX (read, write), IA32_PEBS_BASE (write). NMI-safe: yes.
 */
int ds_arch_pebs_uninstall(struct ds_arch_pebs *ap);

/* --- Counter configuration (CFG_C) --------------------------------------------- */

/* The CFG_C MSR of GP counter @index / fixed counter @index; 0 for an
 * unknown kind or an index >= 32. No error return. MSRs: none. NMI-safe: yes. */
uint32_t ds_arch_pebs_cfg_c_msr(enum ds_ctr_kind kind, uint32_t index);

/*
 * Write CFG_C of one counter: EN | @groups | @reload (bits 31:0, the value
 * the counter is reloaded with after each record; 0 = no auto-reload, as
 * Linux writes it without PERF_X86_EVENT_AUTO_RELOAD). The event select and
 * the counter value are programmed through pmc.h as for any counter.
 * @groups: DS_APEBS_CFG_GROUPS bits only, each enumerated in
 * CPUID.(23H,4):EBX (Linux intel_pmu_enable_event_ext masks with caps).
 * Errors: DS_ERR_NULL, DS_ERR_APEBS_NOT_SETUP, DS_ERR_INVAL (kind),
 * DS_ERR_APEBS_COUNTER (not PEBS-capable per CPUID.(23H,5); index >= 32),
 * DS_ERR_APEBS_CFG_RESERVED (bits outside DS_APEBS_CFG_GROUPS),
 * DS_ERR_APEBS_GROUP (a group not enumerated), DS_ERR_MSR_FAULT.
 * Nothing is written on a validation error.
 * MSRs: writes that CFG_C. NMI-safe: yes.
 */
int ds_arch_pebs_counter_enable(struct ds_arch_pebs *ap, enum ds_ctr_kind kind, uint32_t index, uint32_t reload,
                                uint64_t groups);

/* CFG_C = 0 for a PEBS-capable counter. Errors: DS_ERR_NULL,
 * DS_ERR_APEBS_NOT_SETUP, DS_ERR_INVAL, DS_ERR_APEBS_COUNTER,
 * DS_ERR_MSR_FAULT. MSRs: writes that CFG_C. NMI-safe: yes. */
int ds_arch_pebs_counter_disable(struct ds_arch_pebs *ap, enum ds_ctr_kind kind, uint32_t index);

/*
 * CFG_C of a counter that COUNTS in a counters group without sampling (a
 * DS_COUNT or overflow counter, fixed 3 counting TOPDOWN.SLOTS): @allow
 * true writes CNTR_ALLOW (bit 35) alone, no EN, no reload, no groups; false
 * writes 0. Linux intel_pmu_enable_event_ext sets ARCH_PEBS_CNTR_ALLOW on
 * every member of a PEBS counter group (is_pebs_counter_event_group), EN
 * only on the precise one; a counter without it is not recorded in the
 * counters group of the records (the model, model/src/dsm_archpebs.c
 * grp_cntr, is as strict). The PEBS counter itself takes CNTR_ALLOW through
 * ds_arch_pebs_counter_enable's @groups.
 * Errors: DS_ERR_NULL, DS_ERR_APEBS_NOT_SETUP, DS_ERR_INVAL (kind),
 * DS_ERR_APEBS_COUNTER (not PEBS-capable per CPUID.(23H,5): its CFG_C bits
 * are reserved, KVM arch_pebs_cfg_c_rsvd; index >= 32), DS_ERR_APEBS_GROUP
 * (@allow where CPUID.(23H,4):EBX[3] does not enumerate CNTR_ALLOW),
 * DS_ERR_MSR_FAULT. Nothing is written on a validation error.
 * MSRs: writes that CFG_C. NMI-safe: yes.
 */
int ds_arch_pebs_counter_allow(struct ds_arch_pebs *ap, enum ds_ctr_kind kind, uint32_t index, bool allow);

/* --- Decoder -------------------------------------------------------------------- */

/*
 * Decode one record starting at @rec: its first fragment (basic group
 * required) and every fragment that continues it (header CONT bit, or a
 * null fragment with header bits 63:16 all zero: Linux
 * arch_pebs_record_continued), never reading outside [rec, rec + avail).
 * Fills @out, meaningful on DS_OK only (fmt DS_PEBS_FMT_ARCH, header = first fragment's header,
 * size = bytes of all fragments, fragments = their count); xmm, ymmh,
 * opmask, zmmh, h16zmm and lbr point into @rec (each part must lie inside
 * its fragment, 8-byte aligned: DS_ERR_APEBS_REC_ALIGN otherwise); xstate
 * is the XER header's first quadword. *@out_consumed = bytes of the record's fragments; on
 * DS_ERR_APEBS_NO_BASIC the size of that first fragment alone (it is
 * skipped, its CONT bit not followed, and the next fragment starts a
 * record: Linux intel_pmu_drain_arch_pebs); 0 on the other errors.
 * @out_consumed may be NULL.
 * Errors: DS_ERR_NULL, DS_ERR_APEBS_REC_SHORT (a header or fragment, or a
 * promised continuation, extends past @avail; size field < 16),
 * DS_ERR_APEBS_REC_ALIGN (size not a multiple of 8), DS_ERR_APEBS_REC_SIZE
 * (the groups the header names do not fit its size), DS_ERR_APEBS_NO_BASIC.
 * MSRs: none. NMI-safe: yes (pure).
 */
int ds_arch_pebs_decode(const void *rec, size_t avail, struct ds_pebs_sample *out, uint32_t *out_consumed);

/* --- Drain ---------------------------------------------------------------------- */

/*
 * Read IA32_PEBS_INDEX, walk [base, base + write offset) record by record
 * (never past the offset, never past the buffer), hand each to @sink,
 * then write IA32_PEBS_INDEX with offset 0 and FULL 0, EN and the
 * threshold kept (Linux intel_pmu_drain_arch_pebs). Accounting as
 * ds_pebs_drain (present == records + every lost_*):
 *   lost_beyond: 1 when the offset points past the buffer (the number of
 *     records there is unknowable; DS_DRAIN_INDEX_PAST_MAX);
 *   lost_corrupt: 1 for an undecodable tail (the walk ends there;
 *     DS_DRAIN_SIZE_LIE), 1 per skipped first fragment without the basic
 *     group, null fragments included (DS_DRAIN_APEBS_ORPHAN);
 *   lost_rejected: refused by the sink;
 *   lost_race: records written between the first INDEX read and the reset
 *     (INDEX read again before the write; DS_DRAIN_RACE).
 * FULL set: DS_DRAIN_FULL (the CPU may have dropped records it never
 * counted). @out may be NULL. With offset 0 and FULL 0 nothing is written.
 * A record written after the second read and before the reset is lost
 * uncounted (as in Linux): drain with the PEBS counters frozen or
 * disabled for exact accounting.
 * Errors: DS_ERR_NULL (@ap or @sink), DS_ERR_APEBS_NOT_INSTALLED,
 * DS_ERR_MSR_FAULT (INDEX read: nothing walked; reset write: records were
 * delivered, the index was not reset).
 * MSRs: reads IA32_PEBS_INDEX twice, writes it once. NMI-safe: yes.
 */
int ds_arch_pebs_drain(struct ds_arch_pebs *ap, ds_pebs_sink sink, void *arg, struct ds_drain_stats *out);

/* Same into @arr (up to @cap samples, count in *out_n); beyond @cap:
 * lost_rejected. Errors: DS_ERR_NULL (@out_n; @arr NULL with @cap > 0),
 * then those of ds_arch_pebs_drain. MSRs, NMI-safe: as ds_arch_pebs_drain. */
int ds_arch_pebs_drain_array(struct ds_arch_pebs *ap, struct ds_pebs_sample *arr, size_t cap, size_t *out_n,
                             struct ds_drain_stats *out);

#ifdef __cplusplus
}
#endif

#endif /* DS_ARCH_PEBS_H */
