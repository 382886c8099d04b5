/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * PEBS records: every layout, the format choice, the decoder into one
 * normalized sample, and the drain.
 *
 * Sources: SDM Vol. 3B "Precise Event Based Sampling (PEBS)" for NetBurst,
 * Core 2 ("PEBS Record Format" 0), Nehalem ("PEBS Record Format" 1, load
 * latency), Haswell (format 2, EventingIP), Skylake (format 3, TSC,
 * applicable counters), Ice Lake "Adaptive PEBS" (format 4; 5: fixed-counter
 * reset slots at 32 + m; 6, Lunar Lake / Arrow Lake: counters-snapshot group,
 * Linux "perf/x86/intel/ds: Add PEBS format 6"); reference pebs-records.md
 * (cross-checked with Linux intel_ds.h / perf_event.h / ds.c).
 *
 * Configuration (ds/config.h): DS_CONFIG_PEBS=0 compiles PEBS out; every
 * function below then returns DS_ERR_UNSUPPORTED with its outputs cleared
 * (ds_pebs_record_size returns 0). DS_CONFIG_NETBURST=0: the NetBurst
 * formats (DS_PEBS_FMT_NB32/NB64) are unsupported: format selection on a
 * NetBurst CPU, decode and attribute return DS_ERR_UNSUPPORTED, their
 * record size is 0.
 */
#ifndef DS_PEBS_H
#define DS_PEBS_H

#include <stdint.h>
#include <stddef.h>
#include <stdbool.h>
#include <ds/err.h>
#include <ds/cpu.h>
#include <ds/area.h>

#ifdef __cplusplus
extern "C" {
#endif

/* SDM "PEBS Record Format" (NetBurst, 32-bit DS format): 40 bytes. */
struct ds_pebs_nb32 {
    uint32_t eflags; /* 0x00 */
    uint32_t eip;    /* 0x04 linear IP after the triggering instruction */
    uint32_t eax;    /* 0x08 */
    uint32_t ebx;    /* 0x0C */
    uint32_t ecx;    /* 0x10 */
    uint32_t edx;    /* 0x14 */
    uint32_t esi;    /* 0x18 */
    uint32_t edi;    /* 0x1C */
    uint32_t ebp;    /* 0x20 */
    uint32_t esp;    /* 0x24 */
};
DS_ASSERT_SIZE(struct ds_pebs_nb32, 40);
DS_ASSERT_OFFSET(struct ds_pebs_nb32, eflags, 0x00);
DS_ASSERT_OFFSET(struct ds_pebs_nb32, eip, 0x04);
DS_ASSERT_OFFSET(struct ds_pebs_nb32, eax, 0x08);
DS_ASSERT_OFFSET(struct ds_pebs_nb32, ebx, 0x0C);
DS_ASSERT_OFFSET(struct ds_pebs_nb32, ecx, 0x10);
DS_ASSERT_OFFSET(struct ds_pebs_nb32, edx, 0x14);
DS_ASSERT_OFFSET(struct ds_pebs_nb32, esi, 0x18);
DS_ASSERT_OFFSET(struct ds_pebs_nb32, edi, 0x1C);
DS_ASSERT_OFFSET(struct ds_pebs_nb32, ebp, 0x20);
DS_ASSERT_OFFSET(struct ds_pebs_nb32, esp, 0x24);

/* The 18 quadwords shared by the NetBurst 64-bit record and formats 0-3. */
#define DS__PEBS_GPR_BLOCK                                                            \
    uint64_t rflags; /* 0x00 */                                                       \
    uint64_t rip;    /* 0x08 (next instruction when PEBS_TRAP) */                     \
    uint64_t rax;    /* 0x10 */                                                       \
    uint64_t rbx;    /* 0x18 */                                                       \
    uint64_t rcx;    /* 0x20 */                                                       \
    uint64_t rdx;    /* 0x28 */                                                       \
    uint64_t rsi;    /* 0x30 */                                                       \
    uint64_t rdi;    /* 0x38 */                                                       \
    uint64_t rbp;    /* 0x40 */                                                       \
    uint64_t rsp;    /* 0x48 */                                                       \
    uint64_t r8, r9, r10, r11, r12, r13, r14, r15; /* 0x50..0x88 */

#define DS__PEBS_ASSERT_GPRS(T)                                                       \
    DS_ASSERT_OFFSET(T, rflags, 0x00); DS_ASSERT_OFFSET(T, rip, 0x08);                \
    DS_ASSERT_OFFSET(T, rax, 0x10); DS_ASSERT_OFFSET(T, rbx, 0x18);                   \
    DS_ASSERT_OFFSET(T, rcx, 0x20); DS_ASSERT_OFFSET(T, rdx, 0x28);                   \
    DS_ASSERT_OFFSET(T, rsi, 0x30); DS_ASSERT_OFFSET(T, rdi, 0x38);                   \
    DS_ASSERT_OFFSET(T, rbp, 0x40); DS_ASSERT_OFFSET(T, rsp, 0x48);                   \
    DS_ASSERT_OFFSET(T, r8, 0x50); DS_ASSERT_OFFSET(T, r9, 0x58);                     \
    DS_ASSERT_OFFSET(T, r10, 0x60); DS_ASSERT_OFFSET(T, r11, 0x68);                   \
    DS_ASSERT_OFFSET(T, r12, 0x70); DS_ASSERT_OFFSET(T, r13, 0x78);                   \
    DS_ASSERT_OFFSET(T, r14, 0x80); DS_ASSERT_OFFSET(T, r15, 0x88)

/* SDM "PEBS Record Format" (NetBurst, 64-bit DS format): 144 bytes. */
struct ds_pebs_nb64 {
    DS__PEBS_GPR_BLOCK
};
DS_ASSERT_SIZE(struct ds_pebs_nb64, 0x90);
DS__PEBS_ASSERT_GPRS(struct ds_pebs_nb64);

/* SDM "PEBS Record Format" for Core 2 / Atom (format 0): 144 bytes. */
struct ds_pebs_fmt0 {
    DS__PEBS_GPR_BLOCK
};
DS_ASSERT_SIZE(struct ds_pebs_fmt0, 0x90);
DS__PEBS_ASSERT_GPRS(struct ds_pebs_fmt0);

/* SDM "PEBS Record Format" Nehalem (format 1): fmt0 plus status and load latency. */
struct ds_pebs_fmt1 {
    DS__PEBS_GPR_BLOCK
    uint64_t status;      /* 0x90 IA32_PERF_GLOBAL_STATUS snapshot */
    uint64_t dla;         /* 0x98 data linear address */
    uint64_t dse;         /* 0xA0 data source encoding */
    uint64_t lat;         /* 0xA8 load latency, core cycles */
};
DS_ASSERT_SIZE(struct ds_pebs_fmt1, 0xB0);
DS__PEBS_ASSERT_GPRS(struct ds_pebs_fmt1);
DS_ASSERT_OFFSET(struct ds_pebs_fmt1, status, 0x90);
DS_ASSERT_OFFSET(struct ds_pebs_fmt1, dla, 0x98);
DS_ASSERT_OFFSET(struct ds_pebs_fmt1, dse, 0xA0);
DS_ASSERT_OFFSET(struct ds_pebs_fmt1, lat, 0xA8);

/* SDM "PEBS Record Format" Haswell (format 2): fmt1 plus EventingIP and TSX info. */
struct ds_pebs_fmt2 {
    DS__PEBS_GPR_BLOCK
    uint64_t status;      /* 0x90 */
    uint64_t dla;         /* 0x98 */
    uint64_t dse;         /* 0xA0 */
    uint64_t lat;         /* 0xA8 */
    uint64_t eventing_ip; /* 0xB0 */
    uint64_t tsx_tuning;  /* 0xB8 */
};
DS_ASSERT_SIZE(struct ds_pebs_fmt2, 0xC0);
DS__PEBS_ASSERT_GPRS(struct ds_pebs_fmt2);
DS_ASSERT_OFFSET(struct ds_pebs_fmt2, status, 0x90);
DS_ASSERT_OFFSET(struct ds_pebs_fmt2, dla, 0x98);
DS_ASSERT_OFFSET(struct ds_pebs_fmt2, dse, 0xA0);
DS_ASSERT_OFFSET(struct ds_pebs_fmt2, lat, 0xA8);
DS_ASSERT_OFFSET(struct ds_pebs_fmt2, eventing_ip, 0xB0);
DS_ASSERT_OFFSET(struct ds_pebs_fmt2, tsx_tuning, 0xB8);

/* SDM "PEBS Record Format" Skylake (format 3): fmt2 plus TSC; 0x90 is "applicable counters". */
struct ds_pebs_fmt3 {
    DS__PEBS_GPR_BLOCK
    uint64_t applicable;  /* 0x90 applicable counters bitmap */
    uint64_t dla;         /* 0x98 */
    uint64_t dse;         /* 0xA0 */
    uint64_t lat;         /* 0xA8 */
    uint64_t eventing_ip; /* 0xB0 */
    uint64_t tsx_tuning;  /* 0xB8 */
    uint64_t tsc;         /* 0xC0 */
};
DS_ASSERT_SIZE(struct ds_pebs_fmt3, 0xC8);
DS__PEBS_ASSERT_GPRS(struct ds_pebs_fmt3);
DS_ASSERT_OFFSET(struct ds_pebs_fmt3, applicable, 0x90);
DS_ASSERT_OFFSET(struct ds_pebs_fmt3, dla, 0x98);
DS_ASSERT_OFFSET(struct ds_pebs_fmt3, dse, 0xA0);
DS_ASSERT_OFFSET(struct ds_pebs_fmt3, lat, 0xA8);
DS_ASSERT_OFFSET(struct ds_pebs_fmt3, eventing_ip, 0xB0);
DS_ASSERT_OFFSET(struct ds_pebs_fmt3, tsx_tuning, 0xB8);
DS_ASSERT_OFFSET(struct ds_pebs_fmt3, tsc, 0xC0);

/* --- Adaptive PEBS (formats 4, 5, 6): SDM "Adaptive PEBS" record groups --- */

/* MSR_PEBS_DATA_CFG (0x3F2) fields; the record header echoes bits 31:0. */
#define DS_PEBS_DATA_CFG_MEMINFO   (1ull << 0)
#define DS_PEBS_DATA_CFG_GPRS      (1ull << 1)
#define DS_PEBS_DATA_CFG_XMMS      (1ull << 2)
#define DS_PEBS_DATA_CFG_LBRS      (1ull << 3)
#define DS_PEBS_DATA_CFG_LBR_SHIFT 24        /* bits 31:24 = LBR entries - 1 */
#define DS_PEBS_DATA_CFG_LBR_MASK  (0xFFull << 24)
#define DS_PEBS_DATA_CFG_VALID     (0xFull | DS_PEBS_DATA_CFG_LBR_MASK)   /* formats 4, 5 */
/* Format 6 (Linux "perf/x86/intel/ds: Add PEBS format 6", PEBS_DATACFG_CNTR/
 * METRICS/CNTR_SHIFT/FIX_SHIFT in asm/perf_event.h): counters snapshot. */
#define DS_PEBS_DATA_CFG_CNTRS     (1ull << 4)  /* counters group: GP/fixed values */
#define DS_PEBS_DATA_CFG_METRICS   (1ull << 5)  /* counters group: slots + PERF_METRICS */
#define DS_PEBS_DATA_CFG_GP_SHIFT  32           /* bits 47:32: GP counters to snapshot */
#define DS_PEBS_DATA_CFG_GP_MASK   (0xFFFFull << 32)
#define DS_PEBS_DATA_CFG_FIX_SHIFT 48           /* bits 55:48: fixed counters to snapshot */
#define DS_PEBS_DATA_CFG_FIX_MASK  (0xFFull << 48)
#define DS_PEBS_DATA_CFG_VALID6    (DS_PEBS_DATA_CFG_VALID | DS_PEBS_DATA_CFG_CNTRS | DS_PEBS_DATA_CFG_METRICS | \
                                    DS_PEBS_DATA_CFG_GP_MASK | DS_PEBS_DATA_CFG_FIX_MASK)

/* Record header (basic group offset 0) */
#define DS_PEBS_HDR_SIZE_SHIFT     48        /* bits 63:48 record size in bytes */
#define DS_PEBS_HDR_RETIRE_LAT_SHIFT 32      /* bits 47:32 retire latency (PERF_CAPABILITIES[17]) */

struct ds_pebs_basic {
    uint64_t header;      /* 0x00 group bits (47:0 echo DATA_CFG), size (63:48) */
    uint64_t ip;          /* 0x08 EventingIP */
    uint64_t applicable;  /* 0x10 bit n GP n, bit 32+m fixed m */
    uint64_t tsc;         /* 0x18 */
};
DS_ASSERT_SIZE(struct ds_pebs_basic, 32);
DS_ASSERT_OFFSET(struct ds_pebs_basic, header, 0x00);
DS_ASSERT_OFFSET(struct ds_pebs_basic, ip, 0x08);
DS_ASSERT_OFFSET(struct ds_pebs_basic, applicable, 0x10);
DS_ASSERT_OFFSET(struct ds_pebs_basic, tsc, 0x18);

struct ds_pebs_meminfo {
    uint64_t dla;         /* 0x00 data linear address */
    uint64_t aux;         /* 0x08 data source / store status (0xA0 encoding) */
    uint64_t lat;         /* 0x10 latency: load latency, or on the parts of
                           * ds_pebs_latency_split() instr 15:0 / cache 47:32 */
    uint64_t tsx_tuning;  /* 0x18 */
};
DS_ASSERT_SIZE(struct ds_pebs_meminfo, 32);
DS_ASSERT_OFFSET(struct ds_pebs_meminfo, dla, 0x00);
DS_ASSERT_OFFSET(struct ds_pebs_meminfo, aux, 0x08);
DS_ASSERT_OFFSET(struct ds_pebs_meminfo, lat, 0x10);
DS_ASSERT_OFFSET(struct ds_pebs_meminfo, tsx_tuning, 0x18);

/* GPR group: note RCX, RDX, RBX order (differs from formats 0-3). */
struct ds_pebs_gprs {
    uint64_t rflags, rip, rax, rcx, rdx, rbx, rsp, rbp, rsi, rdi; /* 0x00..0x48 */
    uint64_t r8, r9, r10, r11, r12, r13, r14, r15;                /* 0x50..0x88 */
};
DS_ASSERT_SIZE(struct ds_pebs_gprs, 144);
DS_ASSERT_OFFSET(struct ds_pebs_gprs, rflags, 0x00);
DS_ASSERT_OFFSET(struct ds_pebs_gprs, rip, 0x08);
DS_ASSERT_OFFSET(struct ds_pebs_gprs, rax, 0x10);
DS_ASSERT_OFFSET(struct ds_pebs_gprs, rcx, 0x18);
DS_ASSERT_OFFSET(struct ds_pebs_gprs, rdx, 0x20);
DS_ASSERT_OFFSET(struct ds_pebs_gprs, rbx, 0x28);
DS_ASSERT_OFFSET(struct ds_pebs_gprs, rsp, 0x30);
DS_ASSERT_OFFSET(struct ds_pebs_gprs, rbp, 0x38);
DS_ASSERT_OFFSET(struct ds_pebs_gprs, rsi, 0x40);
DS_ASSERT_OFFSET(struct ds_pebs_gprs, rdi, 0x48);
DS_ASSERT_OFFSET(struct ds_pebs_gprs, r8, 0x50);
DS_ASSERT_OFFSET(struct ds_pebs_gprs, r15, 0x88);

struct ds_pebs_xmms {
    uint64_t xmm[32];     /* XMM0..XMM15, low quadword first */
};
DS_ASSERT_SIZE(struct ds_pebs_xmms, 256);

struct ds_pebs_lbr_entry {
    uint64_t from, to, info; /* same encoding as the LBR MSRs / LBR_INFO */
};
DS_ASSERT_SIZE(struct ds_pebs_lbr_entry, 24);
DS_ASSERT_OFFSET(struct ds_pebs_lbr_entry, to, 8);
DS_ASSERT_OFFSET(struct ds_pebs_lbr_entry, info, 16);

/*
 * Format 6 counters group (after the LBR group; Linux struct pebs_cntr_header
 * and setup_pebs_adaptive_sample_data): this 16-byte header, then one
 * quadword per set bit of gp (ascending), one per set bit of fixed, then,
 * when metrics == DS_PEBS_CNTR_METRICS, two quadwords: TOPDOWN.SLOTS and
 * PERF_METRICS. The group is present when the header has bit 4 or bit 5.
 */
struct ds_pebs_cntr_hdr {
    uint32_t gp;          /* 0x0 GP counters in the snapshot */
    uint32_t fixed;       /* 0x4 fixed counters */
    uint32_t metrics;     /* 0x8 DS_PEBS_CNTR_METRICS: slots + metrics follow */
    uint32_t reserved;    /* 0xC */
};
DS_ASSERT_SIZE(struct ds_pebs_cntr_hdr, 16);
DS_ASSERT_OFFSET(struct ds_pebs_cntr_hdr, fixed, 4);
DS_ASSERT_OFFSET(struct ds_pebs_cntr_hdr, metrics, 8);
#define DS_PEBS_CNTR_METRICS 0x3u  /* Linux INTEL_CNTR_METRICS */

#define DS_PEBS_ADAPTIVE_MIN 32u   /* basic group only */
#define DS_PEBS_ADAPTIVE_MAX (32u + 32u + 144u + 256u + 24u * 256u + 16u + 8u * (16u + 8u) + 16u)

/* --- Normalized sample ----------------------------------------------------- */

/* GPR indexes in struct ds_pebs_sample.gpr: x86 register-encoding order. */
enum ds_gpr {
    DS_GPR_RAX = 0, DS_GPR_RCX, DS_GPR_RDX, DS_GPR_RBX, DS_GPR_RSP, DS_GPR_RBP,
    DS_GPR_RSI, DS_GPR_RDI, DS_GPR_R8, DS_GPR_R9, DS_GPR_R10, DS_GPR_R11,
    DS_GPR_R12, DS_GPR_R13, DS_GPR_R14, DS_GPR_R15, DS_GPR__COUNT
};

/* ds_pebs_sample.present bits: which fields the record carried. */
#define DS_SAMPLE_IP          (1u << 0)  /* ip (RIP/EIP field; next instruction if ip_is_next) */
#define DS_SAMPLE_EVENTING_IP (1u << 1)  /* eventing_ip: the instruction that caused the event */
#define DS_SAMPLE_FLAGS       (1u << 2)  /* flags (RFLAGS/EFLAGS) */
#define DS_SAMPLE_GPRS        (1u << 3)  /* gpr[0..7] (and [8..15] unless DS_SAMPLE_GPRS32) */
#define DS_SAMPLE_GPRS32      (1u << 4)  /* only the 8 legacy 32-bit registers (NetBurst 32-bit) */
#define DS_SAMPLE_STATUS      (1u << 5)  /* counters = GLOBAL_STATUS snapshot (fmt 1-2) */
#define DS_SAMPLE_APPLICABLE  (1u << 6)  /* counters = exact applicable-counter bitmap (fmt 3+) */
#define DS_SAMPLE_MEM         (1u << 7)  /* data_addr, data_source, latency */
#define DS_SAMPLE_TSX         (1u << 8)  /* tsx */
#define DS_SAMPLE_TSC         (1u << 9)  /* tsc */
#define DS_SAMPLE_XMM         (1u << 10) /* xmm */
#define DS_SAMPLE_LBR         (1u << 11) /* lbr, lbr_count */
#define DS_SAMPLE_RETIRE_LAT  (1u << 12) /* retire_latency (timed PEBS, PERF_CAPABILITIES[17]) */
#define DS_SAMPLE_CNTRS       (1u << 13) /* cntr_gp_mask/cntr_fixed_mask, cntr_gp[], cntr_fixed[] (fmt 6) */
#define DS_SAMPLE_METRICS     (1u << 14) /* topdown_slots, perf_metrics (fmt 6 counters group) */
#define DS_SAMPLE_LAT_SPLIT   (1u << 15) /* instr_latency, cache_latency (with DS_SAMPLE_MEM) */
#define DS_SAMPLE_SSP         (1u << 16) /* ssp (architectural PEBS GPR group) */
/* Architectural PEBS vector-register group parts beyond XMM (arch_pebs.h). */
#define DS_SAMPLE_YMMH        (1u << 17) /* ymmh: YMM0-15 bits 255:128 */
#define DS_SAMPLE_OPMASK      (1u << 18) /* opmask: k0-k7 */
#define DS_SAMPLE_ZMMH        (1u << 19) /* zmmh: ZMM0-15 bits 511:256 */
#define DS_SAMPLE_H16ZMM      (1u << 20) /* h16zmm: ZMM16-31, all 512 bits */

struct ds_pebs_sample {
    enum ds_pebs_fmt fmt;
    uint32_t present;           /* DS_SAMPLE_* */
    uint32_t size;              /* record size in bytes */
    bool ip_is_next;            /* ip is the instruction after the event (trap-like PEBS) */
    uint64_t ip;
    uint64_t eventing_ip;
    uint64_t flags;
    uint64_t gpr[DS_GPR__COUNT];
    uint64_t counters;          /* see DS_SAMPLE_STATUS / DS_SAMPLE_APPLICABLE */
    uint64_t data_addr;
    uint64_t data_source;
    uint64_t latency;
    uint64_t tsx;
    uint64_t tsc;
    uint64_t header;            /* adaptive: raw record header; else 0 */
    /* Header bits 47:32 when the CPU has timed PEBS (DS_SAMPLE_RETIRE_LAT);
     * else 0: not recorded (see ds_pebs_decode / ds_pebs_decode_cpu). */
    uint32_t retire_latency;
    uint32_t lbr_count;
    /* Meminfo latency split (DS_SAMPLE_LAT_SPLIT): latency bits 15:0 and 47:32. */
    uint32_t instr_latency;
    uint32_t cache_latency;
    /* Format 6 counters group (DS_SAMPLE_CNTRS): counter n's value at
     * cntr_gp[n] / cntr_fixed[n] for the bits of the masks, 0 elsewhere. */
    uint32_t cntr_gp_mask;
    uint32_t cntr_fixed_mask;
    uint64_t cntr_gp[16];
    uint64_t cntr_fixed[8];
    uint64_t topdown_slots;     /* DS_SAMPLE_METRICS */
    uint64_t perf_metrics;
    /* Point into the PEBS buffer: valid only until the buffer is re-armed
     * (i.e. during the drain callback). NULL when absent. */
    const struct ds_pebs_xmms *xmm;
    const struct ds_pebs_lbr_entry *lbr;
    /* Architectural PEBS (DS_PEBS_FMT_ARCH, arch_pebs.h); 0 for the other formats. */
    uint64_t ssp;               /* GPR group shadow-stack pointer (DS_SAMPLE_SSP) */
    uint32_t fragments;         /* fragments the record was written in (1: not split) */
    /* Architectural PEBS vector-register group (Linux struct
     * arch_pebs_xer_header + arch_pebs_xmm/_ymmh/_opmask/_zmmh/_h16zmm):
     * views into the record, like xmm and lbr (valid during the drain
     * callback; NULL when the part is absent). Pointers, not copies: the
     * parts total 1856 bytes, which would triple the sample every drain
     * clears and copies per record. Lengths are fixed by the part:
     * ymmh 32 qwords (2 per register, low first), opmask 8, zmmh 64 (4 per
     * register), h16zmm 128 (8 per register). */
    uint64_t xstate;            /* XER header xstate (any vector part present), else 0 */
    const uint64_t *ymmh;       /* DS_SAMPLE_YMMH */
    const uint64_t *opmask;     /* DS_SAMPLE_OPMASK */
    const uint64_t *zmmh;       /* DS_SAMPLE_ZMMH */
    const uint64_t *h16zmm;     /* DS_SAMPLE_H16ZMM */
};

/*
 * Choose the PEBS record format: THE one place libds decides it.
 * NetBurst (DisplayFamily 0FH): NB32 with the 32-bit layout, NB64 with the
 * 64-bit one. Otherwise IA32_PERF_CAPABILITIES[11:8]: 0..6 -> FMT_0..FMT_6;
 * formats 0-6 require the 64-bit layout (DS_ERR_LAYOUT otherwise: no such
 * CPU exists); 0xF -> DS_PEBS_FMT_ARCH when ds_arch_pebs_detect() accepts
 * the CPU (either layout: architectural PEBS does not use the DS area, its
 * buffer is set up with arch_pebs.h; DS, MISC_ENABLE and PEBS_UNAVAILABLE
 * are not consulted), else the detection error
 * (DS_ERR_APEBS_NOT_ENUMERATED, DS_ERR_APEBS_MASKS); any other value ->
 * DS_ERR_PEBS_FORMAT.
 * Errors: DS_ERR_NULL, DS_ERR_INVAL (layout), DS_ERR_NOT_IDENTIFIED,
 * DS_ERR_NOT_INTEL, DS_ERR_NO_DS, DS_ERR_PEBS_UNAVAILABLE (PEBS not
 * advertised: IA32_MISC_ENABLE read and says so, or no perfmon),
 * DS_ERR_MISC_ENABLE_UNREAD (IA32_MISC_ENABLE could not be read: whether
 * PEBS is available is unknown; caps.misc_enable_err says why),
 * DS_ERR_NO_PDCM (non-NetBurst without PERF_CAPABILITIES: PDCM = 0),
 * DS_ERR_PEBS_CAPS_UNREAD (PDCM = 1 but the read faulted: format unknown),
 * DS_ERR_PEBS_FORMAT, DS_ERR_LAYOUT, DS_ERR_UNSUPPORTED (NetBurst CPU with
 * DS_CONFIG_NETBURST=0). On every error but DS_ERR_NULL *@out_fmt is
 * DS_PEBS_FMT_NONE.
 * MSRs: none (uses caps). NMI-safe: yes (pure).
 */
int ds_pebs_format_select(const struct ds_cpu *cpu, enum ds_layout layout, enum ds_pebs_fmt *out_fmt);

/*
 * Fixed record size of @fmt in bytes; for FMT_4/5/6 the size of a record
 * produced with @data_cfg (basic + selected groups; fmt 6: + the counters
 * group, 16 + 8 * (GP mask bits + fixed mask bits) + 16 with METRICS).
 * Returns 0 for an unknown format or a data_cfg with bits outside
 * DS_PEBS_DATA_CFG_VALID (fmt 4/5) / DS_PEBS_DATA_CFG_VALID6 (fmt 6) (and
 * for any format when PEBS is compiled out). No error return.
 * MSRs: none. NMI-safe: yes (pure).
 */
uint32_t ds_pebs_record_size(enum ds_pebs_fmt fmt, uint64_t data_cfg);

/*
 * Decode one record at @rec (@avail bytes readable there) into @out.
 * @pebs_trap: PERF_CAPABILITIES.PEBS_TRAP (sets out->ip_is_next; NetBurst
 * records are always trap-like). Adaptive records are validated: header
 * size >= 32, a multiple of 8, equal to the size implied by the header's
 * group bits (fmt 6: and by the counters group's own header), and <= @avail.
 * Without the CPU, two facts are unknown: whether header bits 47:32 hold a
 * retire latency (reported, DS_SAMPLE_RETIRE_LAT, only when non-zero) and
 * whether the meminfo latency is split (never split here). Use
 * ds_pebs_decode_cpu() to decode as the CPU writes it.
 * Errors: DS_ERR_NULL; DS_ERR_PEBS_FORMAT; DS_ERR_REC_SHORT (avail smaller
 * than the record); DS_ERR_REC_SIZE (adaptive size field inconsistent);
 * DS_ERR_REC_ALIGN (adaptive record with the XMM or LBR group at an address
 * not 8-byte aligned: out->xmm / out->lbr point into the record and must be
 * valid for natural access); DS_ERR_UNSUPPORTED (NetBurst format with
 * DS_CONFIG_NETBURST=0). On any error *out is cleared.
 * Reads only [rec, rec + min(avail, record size)). Alignment: none needed
 * for fixed formats and for adaptive records without XMM/LBR groups (fields
 * are copied out with unaligned-safe loads); 8 bytes with XMM/LBR groups
 * (records in a DS buffer always are).
 * MSRs: none. NMI-safe: yes (pure).
 */
int ds_pebs_decode(enum ds_pebs_fmt fmt, const void *rec, size_t avail, bool pebs_trap,
                   struct ds_pebs_sample *out);

/*
 * Same as ds_pebs_decode() with the facts taken from @cpu (identified): the
 * trap flag from caps.pebs_trap; the retire latency (DS_SAMPLE_RETIRE_LAT,
 * zero included) only with timed PEBS (caps.pebs_timing_info, PERF_CAPABILITIES
 * [17]), else retire_latency = 0, "not recorded"; the meminfo latency split
 * per ds_pebs_latency_split(). This is what ds_pebs_drain() hands out.
 * Errors: those of ds_pebs_decode(), DS_ERR_NOT_IDENTIFIED.
 * MSRs: none. NMI-safe: yes (pure).
 */
int ds_pebs_decode_cpu(const struct ds_cpu *cpu, enum ds_pebs_fmt fmt, const void *rec, size_t avail,
                       struct ds_pebs_sample *out);

/*
 * Does @cpu write the adaptive meminfo latency as instruction latency
 * (bits 15:0) + cache latency (bits 47:32) rather than one load latency?
 * A property of the microarchitecture, not of the PEBS format (Linux sets
 * PMU_FL_INSTR_LATENCY per model in intel_pmu_init; adl_latency_data_small,
 * mtl_latency_data_small). Table (Intel DisplayFamily_DisplayModel):
 *   Golden Cove / Raptor Cove servers: 06_8FH SPR, 06_CFH EMR;
 *   Redwood Cove servers: 06_ADH, 06_AEH GNR;
 *   hybrid Alder/Raptor Lake (both core types): 06_97H, 06_9AH, 06_B7H, 06_BAH, 06_BFH;
 *   Gracemont: 06_BEH ADL-N; Crestmont: 06_AFH SRF, 06_B6H GRR;
 *   Meteor Lake 06_AAH, 06_ACH; Lunar Lake 06_BDH; Arrow Lake 06_C5H,
 *   06_C6H, 06_B5H; Panther Lake 06_CCH (Wildcat Lake 06_D5H with it);
 *   Clearwater Forest 06_DDH. On hybrid parts Linux's flag is one global
 *   x86_pmu.flags bit (set by intel_pmu_init_grt and the hybrid cases), so
 *   it covers every core type: the model decides, not core_type.
 * Not split: Ice Lake / Tiger Lake / Rocket Lake / Tremont (format 4 parts
 * before Golden Cove) and everything older. Unknown models: not split.
 * Returns false for NULL or an unidentified/non-Intel @cpu.
 * MSRs: none. NMI-safe: yes (pure).
 */
bool ds_pebs_latency_split(const struct ds_cpu *cpu);

/*
 * Which PEBS-enabled counter(s) produced @s. @pebs_enabled: the counters
 * with PEBS enabled, as GLOBAL_STATUS bits (bit n GP n, 32+m fixed m).
 *   fmt 0 (Core 2): always PMC0 (bit 0), whatever the mask says;
 *   NetBurst: the single PEBS counter: *out = @pebs_enabled;
 *   fmt 1-2: the status snapshot & @pebs_enabled must name exactly one
 *     counter; if it names none and exactly one counter is PEBS-enabled,
 *     that one (Linux intel_pmu_drain_pebs_nhm does the same); otherwise
 *     DS_ERR_PEBS_AMBIGUOUS (*out = the candidates);
 *   fmt 3+, adaptive: applicable counters & @pebs_enabled (exact; may name
 *     several counters programmed for the same event).
 * Errors: DS_ERR_NULL, DS_ERR_PEBS_FORMAT, DS_ERR_PEBS_AMBIGUOUS,
 * DS_ERR_UNSUPPORTED (NetBurst format with DS_CONFIG_NETBURST=0).
 * MSRs: none. NMI-safe: yes (pure).
 */
int ds_pebs_attribute(const struct ds_pebs_sample *s, uint64_t pebs_enabled, uint64_t *out_counters);

/* --- Drain ------------------------------------------------------------------ */

/* struct ds_drain_stats and the DS_DRAIN_* anomaly bits are in area.h:
 * PEBS, BTS and architectural PEBS drains share them. */

/* Sink: return 0 to take the sample, non-zero to refuse it (counted lost_rejected).
 * @s is valid only during the call (one sample storage is reused for every
 * record of a drain): copy what you keep; do not write through it (casting
 * const away): the adaptive drain compares the next records' header, size
 * and counter masks with this sample's, so a changed sample misreads the
 * buffer. */
typedef int (*ds_pebs_sink)(void *arg, const struct ds_pebs_sample *s);

/*
 * Walk the PEBS records from base to index, hand each to @sink, then reset
 * the index to base and repair base/max/threshold fields that differ from
 * setup. Bounds hold whatever the area fields contain: only the caller's
 * buffer [mem, mem + bytes) as given to ds_area_setup() is ever read.
 * @out may be NULL. Memory only: no MSR access. Bounded by the buffer size;
 * no locks: NMI-safe (call it with PEBS counters frozen or disabled for
 * exact accounting; otherwise records arriving during the walk are
 * counted in lost_race when detectable).
 * Errors: DS_ERR_NULL (ctx or sink), DS_ERR_NOT_SETUP, DS_ERR_NO_PEBS_BUFFER.
 * Anomalies are reported in @out, not as errors (the drain still succeeds).
 * MSRs: none. NMI-safe: yes (one drainer per ctx at a time).
 */
int ds_pebs_drain(struct ds_ctx *ctx, ds_pebs_sink sink, void *arg, struct ds_drain_stats *out);

/*
 * Same as ds_pebs_drain() into @arr (up to @cap samples, count in *out_n);
 * records beyond @cap are counted as lost_rejected. Errors: DS_ERR_NULL
 * (@out_n NULL, or @arr NULL with @cap > 0), then those of ds_pebs_drain().
 * MSRs: none. NMI-safe: yes.
 */
int ds_pebs_drain_array(struct ds_ctx *ctx, struct ds_pebs_sample *arr, size_t cap, size_t *out_n,
                        struct ds_drain_stats *out);

/*
 * Records currently stored (index - base) / size, 0 if the index is
 * corrupt. Adaptive formats: stored bytes / configured record size.
 * Errors: DS_ERR_NULL (@ctx or @out_records), DS_ERR_NOT_SETUP,
 * DS_ERR_NO_PEBS_BUFFER. MSRs: none (reads the DS area). NMI-safe: yes.
 */
int ds_pebs_pending(const struct ds_ctx *ctx, uint64_t *out_records);

#ifdef __cplusplus
}
#endif

#endif /* DS_PEBS_H */
