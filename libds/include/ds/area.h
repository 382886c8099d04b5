/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * DS save area (the "DS buffer management area") and the per-CPU DS context;
 * the drain results every buffer drain reports (struct ds_drain_stats).
 *
 * IA32_DS_AREA (0x600) holds the linear address of a management area that
 * describes the BTS buffer and the PEBS buffer (SDM Vol. 3B, "Debug Store
 * (DS) Mechanism", "DS Save Area"). Two layouts exist:
 *
 *   - 32-bit: 4-byte fields (SDM figure "DS Save Area" for 32-bit mode);
 *   - 64-bit: 8-byte fields, PEBS counter-reset slots from offset 0x40
 *     (SDM "DS Save Area and IA-32e Mode Operation"; reference ds-area.md
 *     correction 2: NOT 0x30).
 *
 * Layout rule (SDM "DS Save Area and IA-32e Mode Operation" and the DTES64
 * text): CPUID.01H:ECX.DTES64 = 1 -> 64-bit in every mode; else 64-bit in
 * IA-32e mode, 32-bit outside it. ds_area_layout() is the only place that
 * applies this rule.
 *
 * Every buffer has two addresses: the pointer libds reads and writes through
 * (mem) and the linear address programmed into the DS area (linear), which
 * is what the CPU uses. They are the same in a kernel with identity or
 * direct mappings (leave linear 0 and libds uses (uintptr_t)mem); a
 * hypervisor, or a host test of the 32-bit layout, sets linear explicitly.
 *
 * The context (struct ds_ctx) holds all state: nothing in libds is global.
 * One context per logical processor (IA32_DS_AREA is per logical CPU).
 *
 * Configuration (ds/config.h): DS_CONFIG_AREA=0 compiles this facility out;
 * every function below except ds_linear_canonical then returns
 * DS_ERR_UNSUPPORTED (ds_area_setup zeroes the context, ds_area_layout
 * gives DS_LAYOUT_NONE). With DS_CONFIG_BTS=0 / DS_CONFIG_PEBS=0
 * ds_area_setup refuses a BTS / PEBS buffer with DS_ERR_UNSUPPORTED, and
 * with DS_CONFIG_PEBS=0 ds_area_set_reset returns DS_ERR_UNSUPPORTED.
 */
#ifndef DS_AREA_H
#define DS_AREA_H

#include <stdint.h>
#include <stddef.h>
#include <stdbool.h>
#include <ds/err.h>
#include <ds/cpu.h>

#ifdef __cplusplus
extern "C" {
#endif

#ifdef __cplusplus
#define DS_STATIC_ASSERT static_assert
#else
#define DS_STATIC_ASSERT _Static_assert
#endif
#define DS_ASSERT_SIZE(T, n) DS_STATIC_ASSERT(sizeof(T) == (n), "size of " #T)
#define DS_ASSERT_OFFSET(T, f, o) DS_STATIC_ASSERT(offsetof(T, f) == (o), "offset of " #T "." #f)

/* SDM Vol. 3B, "DS Save Area" (32-bit format): every field 4 bytes. */
struct ds_area32 {
    uint32_t bts_base;       /* 0x00 */
    uint32_t bts_index;      /* 0x04 */
    uint32_t bts_max;        /* 0x08 absolute maximum: first byte after the buffer */
    uint32_t bts_thresh;     /* 0x0C interrupt threshold */
    uint32_t pebs_base;      /* 0x10 */
    uint32_t pebs_index;     /* 0x14 */
    uint32_t pebs_max;       /* 0x18 */
    uint32_t pebs_thresh;    /* 0x1C */
    uint32_t pebs_reset_lo;  /* 0x20 NetBurst 40-bit counter reset, bits 31:0 */
    uint32_t pebs_reset_hi;  /* 0x24 bits 39:32 */
    uint32_t reserved_28[2]; /* 0x28 */
    uint32_t reserved_30;    /* 0x30 reserved (SDM figure tick 30H) */
    uint32_t pad_34[3];      /* 0x34 libds padding to 64 bytes, never read by the CPU */
};
DS_ASSERT_SIZE(struct ds_area32, 0x40);
DS_ASSERT_OFFSET(struct ds_area32, bts_base, 0x00);
DS_ASSERT_OFFSET(struct ds_area32, bts_index, 0x04);
DS_ASSERT_OFFSET(struct ds_area32, bts_max, 0x08);
DS_ASSERT_OFFSET(struct ds_area32, bts_thresh, 0x0C);
DS_ASSERT_OFFSET(struct ds_area32, pebs_base, 0x10);
DS_ASSERT_OFFSET(struct ds_area32, pebs_index, 0x14);
DS_ASSERT_OFFSET(struct ds_area32, pebs_max, 0x18);
DS_ASSERT_OFFSET(struct ds_area32, pebs_thresh, 0x1C);
DS_ASSERT_OFFSET(struct ds_area32, pebs_reset_lo, 0x20);
DS_ASSERT_OFFSET(struct ds_area32, pebs_reset_hi, 0x24);
DS_ASSERT_OFFSET(struct ds_area32, reserved_30, 0x30);

/*
 * Counter-reset slots in the 64-bit area: fmt 0 slot 0 (PMC0); fmt 1-3
 * slots 0..3 (Goldmont Plus 06_7AH, extended PEBS: fixed m -> 8 + m too);
 * fmt 4 GP n -> n (n < 8), fixed m -> 8 + m; fmt 5/6 GP n -> n (n < 32),
 * fixed m -> 32 + m (reference ds-area.md, Linux intel_ds.h,
 * intel_pmu_pebs_enable). Fixed slots only for counters in caps.fixed_mask.
 * 48 slots cover format 5 with 16 fixed counters.
 */
#define DS_AREA64_RESET_SLOTS 48

/* SDM Vol. 3B, "DS Save Area and IA-32e Mode Operation" (64-bit format). */
struct ds_area64 {
    uint64_t bts_base;       /* 0x00 */
    uint64_t bts_index;      /* 0x08 */
    uint64_t bts_max;        /* 0x10 */
    uint64_t bts_thresh;     /* 0x18 */
    uint64_t pebs_base;      /* 0x20 */
    uint64_t pebs_index;     /* 0x28 */
    uint64_t pebs_max;       /* 0x30 */
    uint64_t pebs_thresh;    /* 0x38 */
    uint64_t pebs_reset[DS_AREA64_RESET_SLOTS]; /* 0x40 + 8 * slot */
};
DS_ASSERT_SIZE(struct ds_area64, 0x40 + 8 * DS_AREA64_RESET_SLOTS);
DS_ASSERT_OFFSET(struct ds_area64, bts_base, 0x00);
DS_ASSERT_OFFSET(struct ds_area64, bts_index, 0x08);
DS_ASSERT_OFFSET(struct ds_area64, bts_max, 0x10);
DS_ASSERT_OFFSET(struct ds_area64, bts_thresh, 0x18);
DS_ASSERT_OFFSET(struct ds_area64, pebs_base, 0x20);
DS_ASSERT_OFFSET(struct ds_area64, pebs_index, 0x28);
DS_ASSERT_OFFSET(struct ds_area64, pebs_max, 0x30);
DS_ASSERT_OFFSET(struct ds_area64, pebs_thresh, 0x38);
DS_ASSERT_OFFSET(struct ds_area64, pebs_reset, 0x40);

/* Caller-provided storage for either layout; place it in memory that is
 * mapped present+dirty and never faults (SDM "Setting Up the DS Save Area"). */
union ds_area {
    struct ds_area32 a32;
    struct ds_area64 a64;
};

enum ds_layout {
    DS_LAYOUT_NONE = 0,
    DS_LAYOUT_32 = 32,
    DS_LAYOUT_64 = 64,
};

/*
 * PEBS record formats. Values are libds's own (0x100 + PERF_CAPABILITIES
 * PEBS_FMT; 0x200.. NetBurst), so that 0 means "none". Chosen only by
 * ds_pebs_format_select() (pebs.h).
 */
enum ds_pebs_fmt {
    DS_PEBS_FMT_NONE = 0,
    DS_PEBS_FMT_0 = 0x100,    /* Core 2, Atom: 0x90 bytes */
    DS_PEBS_FMT_1 = 0x101,    /* Nehalem..Ivy Bridge: 0xB0 */
    DS_PEBS_FMT_2 = 0x102,    /* Haswell, Broadwell: 0xC0 */
    DS_PEBS_FMT_3 = 0x103,    /* Skylake..: 0xC8 */
    /* Which CPU writes which format: docs/design.md "Which CPUs write which PEBS format" */
    DS_PEBS_FMT_4 = 0x104,    /* Ice Lake, Sapphire Rapids, Alder Lake: adaptive */
    DS_PEBS_FMT_5 = 0x105,    /* Arrow Lake-H (06_C5H): adaptive, fixed resets at 32+m */
    DS_PEBS_FMT_6 = 0x106,    /* Lunar Lake, Arrow Lake-S: fmt5 + counters-snapshot group */
    DS_PEBS_FMT_NB32 = 0x200, /* NetBurst, 32-bit DS layout: 40 bytes */
    DS_PEBS_FMT_NB64 = 0x201, /* NetBurst, 64-bit DS layout: 144 bytes */
    DS_PEBS_FMT_ARCH = 0x10F, /* architectural PEBS (PEBS_FMT 0xF): own buffer, arch_pebs.h */
};

/* Adaptive PEBS formats (record size from MSR_PEBS_DATA_CFG / the record header). */
static inline bool ds_pebs_fmt_adaptive(enum ds_pebs_fmt f)
{
    return f == DS_PEBS_FMT_4 || f == DS_PEBS_FMT_5 || f == DS_PEBS_FMT_6;
}

/* Record sizes (bytes) */
#define DS_BTS_REC32_SIZE 12u
#define DS_BTS_REC64_SIZE 24u

/*
 * The interrupt threshold must leave records between it and the absolute
 * maximum: records keep arriving between the threshold being crossed and
 * the PMI being serviced (SDM: the threshold should be "several records
 * short" of the maximum). BTS: DS_THRESH_MARGIN records. PEBS: one record
 * per PEBS-capable counter that exists, ds_pebs_thresh_margin() (Linux ds.c
 * pebs_update_threshold). Callers wanting more slack choose a lower
 * threshold.
 */
#define DS_THRESH_MARGIN 2u

/* One buffer as the caller describes it to ds_area_setup(). */
struct ds_buf_config {
    void *mem;               /* NULL: this buffer is not used */
    uint64_t linear;         /* address programmed into the DS area; 0 = (uintptr_t)mem */
    size_t bytes;            /* a non-zero multiple of the record size */
    /*
     * Interrupt threshold as a record count: the PMI is requested when this
     * many records are stored (1 = after every record). Must satisfy
     * 1 <= thresh_records <= records - margin, margin = DS_THRESH_MARGIN
     * for BTS and ds_pebs_thresh_margin() for PEBS. 0 = no interrupt:
     * the threshold field is set one record past the absolute maximum, so
     * the index can never reach it (EDK2's SMM profiler does the same with
     * absmax + 1; that this suppresses the PMI is an inference, reference
     * ds-area.md marks it unconfirmed). BTS with 0 is circular mode only.
     */
    uint32_t thresh_records;
};

struct ds_area_config {
    union ds_area *area;     /* management area storage */
    uint64_t area_linear;    /* 0 = (uintptr_t)area */
    struct ds_buf_config bts;
    struct ds_buf_config pebs;
    /*
     * Adaptive PEBS (format 4/5/6) only: the MSR_PEBS_DATA_CFG value the
     * caller will program (pmc.h does that). It sizes the records for the
     * buffer-size and threshold checks. Must be 0 for other formats.
     * Format 6 adds the counters group (bits 4, 5, GP mask 47:32, fixed
     * mask 55:48: only counters that exist, masks only with bit 4).
     */
    uint64_t pebs_data_cfg;
    bool la57;               /* linear addresses are 57-bit canonical (5-level paging) */
};

/* A buffer as set up (read-only for the caller). */
struct ds_buf_state {
    unsigned char *mem;
    uint64_t linear;
    uint64_t bytes;
    uint32_t rec_size;       /* fixed record size; adaptive: size for pebs_data_cfg */
    uint32_t nrec;           /* bytes / rec_size */
    uint32_t thresh_records; /* 0 = no interrupt */
    /* The threshold field value setup programs: base + thresh_records *
     * rec_size, or past the absolute maximum without a threshold (computed
     * once here: the PMI path compares the index with it on every NMI). */
    uint64_t thresh_at;
};

/* Per-logical-CPU DS context. Zero-initialise it before the first
 * ds_area_setup() (static storage or = {0}); then fields are read-only. */
struct ds_ctx {
    struct ds_cpu *cpu;
    enum ds_layout layout;
    union ds_area *area;
    uint64_t area_linear;
    struct ds_buf_state bts;     /* bts.mem == NULL: no BTS buffer */
    struct ds_buf_state pebs;    /* pebs.mem == NULL: no PEBS buffer */
    enum ds_pebs_fmt pebs_fmt;   /* DS_PEBS_FMT_NONE without a PEBS buffer */
    uint64_t pebs_data_cfg;
    bool pebs_trap;              /* PERF_CAPABILITIES.PEBS_TRAP: IP is the next instruction */
    bool pebs_timed;             /* PERF_CAPABILITIES[17] timed PEBS: retire latency recorded */
    bool pebs_lat_split;         /* meminfo latency = instr 15:0 / cache 47:32 (ds_pebs_latency_split) */
    bool setup;
    bool installed;
    uint64_t saved_ds_area;      /* IA32_DS_AREA before ds_area_install() */
    bool bts_enabled;            /* set by ds_bts_enable() (bts.h) */
    uint32_t bts_flags;          /* flags given to ds_bts_enable() */
    /*
     * The BTS buffer runs (or last ran) circular: no threshold at setup, or
     * the last ds_bts_enable() was without DS_BTS_INT (BTINT clear: the CPU
     * wraps the index at the maximum whatever the threshold field holds).
     * The drain follows it; the threshold field then lies beyond the
     * absolute maximum (bts.h).
     */
    bool bts_circular;
};

/* --- Drain results (PEBS, BTS, architectural PEBS) --------------------------- */

/* ds_drain_stats.anomalies: what was wrong with the DS management fields. */
#define DS_DRAIN_INDEX_BELOW_BASE (1u << 0) /* index < base: nothing trusted, reset */
#define DS_DRAIN_INDEX_PAST_MAX   (1u << 1) /* index beyond the buffer's end */
#define DS_DRAIN_INDEX_MISALIGNED (1u << 2) /* index not on a record boundary (partial record ignored) */
#define DS_DRAIN_BASE_CHANGED     (1u << 3) /* base field differs from setup: repaired */
#define DS_DRAIN_MAX_CHANGED      (1u << 4) /* absolute-maximum field differs: repaired */
#define DS_DRAIN_THRESH_CHANGED   (1u << 5) /* threshold field differs: repaired */
#define DS_DRAIN_SIZE_LIE         (1u << 6) /* an adaptive record's size field was inconsistent */
#define DS_DRAIN_FULL             (1u << 7) /* index == max: the CPU may have dropped records it never counted */
#define DS_DRAIN_WRAPPED          (1u << 8) /* BTS circular buffer wrapped: older records overwritten (uncountable) */
#define DS_DRAIN_RACE             (1u << 9) /* records arrived while draining (counted in lost_race) */

/*
 * Drain accounting. Invariant, always:
 *   present == records + lost_beyond + lost_corrupt + lost_rejected + lost_race
 * present is the number of records the index claims: (index - base) / size
 * for fixed-size records (0 when index < base). For adaptive PEBS, records
 * are walked by their size fields; a record whose size field is
 * inconsistent ends the walk and the rest of the readable bytes count as
 * one lost_corrupt record; bytes claimed beyond the buffer count as
 * ceil(bytes / configured record size) lost_beyond records.
 */
struct ds_drain_stats {
    uint64_t present;
    uint64_t records;        /* decoded and accepted by the sink */
    uint64_t lost_beyond;    /* claimed by the index but outside the caller's buffer */
    uint64_t lost_corrupt;   /* inside the buffer but undecodable */
    uint64_t lost_rejected;  /* the sink refused it (e.g. array full) */
    uint64_t lost_race;      /* written while the drain ran, dropped by the index reset */
    uint32_t anomalies;      /* DS_DRAIN_* */
};

/*
 * Which DS layout @cpu uses: DS_LAYOUT_64 if caps.dtes64 or cpu->ia32e,
 * else DS_LAYOUT_32. Returns DS_OK, DS_ERR_NULL, DS_ERR_NOT_IDENTIFIED
 * (DS_ERR_UNSUPPORTED, *out_layout = DS_LAYOUT_NONE, with DS_CONFIG_AREA=0).
 * MSRs: none. NMI-safe: yes (pure).
 */
int ds_area_layout(const struct ds_cpu *cpu, enum ds_layout *out_layout);

/*
 * Validate @cfg and build the DS management area in cfg->area (memory only;
 * no MSR is touched). Zeroes the BTS buffer (circular-mode wrap detection
 * relies on it, see bts.h) and every counter-reset slot.
 * Preconditions: ds_cpu_identify(cpu) done; @ctx not installed.
 * Checks, each with its own error:
 *   NULL pointers -> DS_ERR_NULL; not identified -> DS_ERR_NOT_IDENTIFIED;
 *   installed ctx -> DS_ERR_INSTALLED; not Intel -> DS_ERR_NOT_INTEL;
 *   no DS -> DS_ERR_NO_DS; BTS buffer with BTS_UNAVAILABLE ->
 *   DS_ERR_BTS_UNAVAILABLE; PEBS buffer with PEBS not advertised ->
 *   DS_ERR_PEBS_UNAVAILABLE; either not advertised because IA32_MISC_ENABLE
 *   could not be read -> DS_ERR_MISC_ENABLE_UNREAD (unknown, not
 *   unavailable); no buffers -> DS_ERR_NO_BUFFERS; area pointer
 *   or linear misaligned -> DS_ERR_AREA_ALIGN; area linear not canonical /
 *   not below 4 GiB for the 32-bit layout -> DS_ERR_AREA_ADDR; buffer
 *   misaligned (pointer: record field alignment; linear: 4 bytes for the
 *   32-bit layout, 8 for 64-bit) -> DS_ERR_BUF_ALIGN; buffer range
 *   non-canonical, wrapping, or beyond 4 GiB for 32-bit -> DS_ERR_BUF_ADDR;
 *   size 0, not a multiple of the record size, or more than 0xFFFFFFFF
 *   records (ds_buf_state.nrec is 32-bit) -> DS_ERR_BUF_SIZE; too few
 *   records for threshold + margin -> DS_ERR_BUF_SMALL; threshold beyond
 *   the buffer -> DS_ERR_THRESH_RANGE; threshold closer than the margin
 *   (BTS: DS_THRESH_MARGIN; PEBS: ds_pebs_thresh_margin()) to the maximum
 *   -> DS_ERR_THRESH_MARGIN; none of the format's PEBS counters exists ->
 *   DS_ERR_PEBS_NO_COUNTERS; PEBS format 0 buffer above 4 KiB ->
 *   DS_ERR_PEBS_BUF_4K; PEBS
 *   format unknown -> DS_ERR_PEBS_FORMAT; architectural PEBS CPU (PEBS_FMT
 *   0xF: its buffer is set up with arch_pebs.h) -> DS_ERR_APEBS_DS_AREA
 *   (or the ds_arch_pebs_detect() error); format impossible in the layout
 *   -> DS_ERR_LAYOUT; bad pebs_data_cfg -> DS_ERR_DATA_CFG; overlapping
 *   area/buffers -> DS_ERR_OVERLAP; a BTS or PEBS buffer given in a build
 *   that compiled that facility out (ds/config.h) -> DS_ERR_UNSUPPORTED.
 * On error @ctx is left not set up and nothing is written anywhere.
 * MSRs: none. NMI-safe: no, because it rewrites @ctx and zeroes the buffers
 * a PMI-time drain reads (configuration time; it takes no locks).
 */
int ds_area_setup(struct ds_ctx *ctx, struct ds_cpu *cpu, const struct ds_area_config *cfg);

/*
 * Records a PEBS threshold must leave before the maximum for @fmt on @cpu:
 * the PEBS-capable counters that exist (caps.gp_mask / caps.fixed_mask):
 * NetBurst 1; fmt 0 PMC0; fmt 1-3 PMC0-3 (Goldmont Plus 06_7AH: every GP
 * and fixed counter, extended PEBS); fmt 4 GP 0-7 + fixed; fmt 5 GP 0-31 +
 * fixed (Linux ds.c pebs_update_threshold: one record per PEBS counter,
 * plus fixed counters with PEBS on all counters).
 * Errors: DS_ERR_NULL, DS_ERR_NOT_IDENTIFIED, DS_ERR_PEBS_FORMAT (unknown
 * @fmt), DS_ERR_PEBS_NO_COUNTERS (none exists; *out_records = 0),
 * DS_ERR_UNSUPPORTED (DS_CONFIG_AREA=0).
 * MSRs: none. NMI-safe: yes (pure).
 */
int ds_pebs_thresh_margin(const struct ds_cpu *cpu, enum ds_pebs_fmt fmt, uint32_t *out_records);

/* Counter classes for ds_area_set_reset(). */
enum ds_ctr_kind {
    DS_CTR_GP = 1,     /* IA32_PMCn; on NetBurst index 0 = the PEBS counter (IQ_COUNTER4/5) */
    DS_CTR_FIXED = 2,  /* IA32_FIXED_CTRm (PEBS format 4+) */
};

/*
 * Set the PEBS counter-reset value for one counter (memory only): the raw
 * counter value the CPU reloads after writing a PEBS record; pass
 * (-period) masked to the counter width, or 0 for no reload.
 * Errors: DS_ERR_NULL; DS_ERR_NOT_SETUP; DS_ERR_NO_PEBS_BUFFER; DS_ERR_INVAL
 * (unknown kind); DS_ERR_RESET_SLOT (no slot for that counter in this
 * format, or the CPU lacks the counter: not in caps.gp_mask /
 * caps.fixed_mask, the CPUID bitmaps, which may be non-contiguous); DS_ERR_RESET_WIDTH (value has bits
 * at or above the counter width: GP/fixed width from CPUID.0AH, 40 bits on
 * NetBurst); DS_ERR_PEBS_FORMAT (context holds an unknown format);
 * DS_ERR_UNSUPPORTED (DS_CONFIG_PEBS=0). On error nothing is written.
 * MSRs: none (memory only). NMI-safe: yes (one store, no locks).
 */
int ds_area_set_reset(struct ds_ctx *ctx, enum ds_ctr_kind kind, uint32_t index, uint64_t value);

/*
 * Program IA32_DS_AREA with the context's area (after saving the previous
 * value). MSRs: reads and writes IA32_DS_AREA (0x600). Errors: DS_ERR_NULL,
 * DS_ERR_NOT_SETUP, DS_ERR_INSTALLED, DS_ERR_MSR_FAULT (read fault: nothing
 * written; write fault: ctx stays uninstalled).
 * MSRs: reads and writes IA32_DS_AREA (0x600). NMI-safe: no, because a PMI
 * handler must not see IA32_DS_AREA change under it (configuration time).
 */
int ds_area_install(struct ds_ctx *ctx);

/*
 * Restore IA32_DS_AREA to the value saved by ds_area_install(). Fails with
 * DS_ERR_DS_BUSY, writing nothing, while BTS is enabled through this
 * context (disable it first: the CPU would keep writing to the old area).
 * MSRs: writes IA32_DS_AREA. Errors: DS_ERR_NULL, DS_ERR_NOT_SETUP,
 * DS_ERR_NOT_INSTALLED, DS_ERR_DS_BUSY, DS_ERR_MSR_FAULT (ctx stays
 * installed).
 * MSRs: reads none; writes IA32_DS_AREA (0x600). NMI-safe: no, because a
 * PMI handler must not see IA32_DS_AREA change under it (configuration
 * time), though it takes no locks.
 */
int ds_area_uninstall(struct ds_ctx *ctx);

/*
 * Is @linear canonical? 48-bit unless @la57 (57-bit). No error return.
 * MSRs: none. NMI-safe: yes (pure).
 */
bool ds_linear_canonical(uint64_t linear, bool la57);

#ifdef __cplusplus
}
#endif

#endif /* DS_AREA_H */
