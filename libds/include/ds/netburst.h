/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * NetBurst (Pentium 4 / Xeon, DisplayFamily 0FH) performance monitoring:
 * 18 counters, 18 CCCRs, 45 ESCRs, the event tables, an allocator that
 * follows the SDM's eight programming steps, PEBS on IQ_COUNTER4/5 with
 * replay tagging, and a PMI helper.
 *
 * Sources: SDM Vol. 3B "Performance Monitoring (Processors Based on Intel
 * NetBurst Microarchitecture)", "Programming the Performance Counters for
 * Non-Retirement Events", "At-Retirement Counting", "Processor Event-Based
 * Sampling (PEBS)", "Tagging Mechanism for Replay_event"; SDM Vol. 3B
 * chapter "Performance Monitoring Events" (event tables for NetBurst);
 * ../shared/reference/netburst.md (every number, with its second source).
 *
 * State: libds keeps no globals. The caller owns one struct ds_nb_alloc per
 * physical processor core (ESCRs and counters are shared by both logical
 * processors of a Hyper-Threading core) and serialises access to it.
 *
 * Configuration (ds/config.h): DS_CONFIG_NETBURST=0 compiles all of this
 * out: every function returns DS_ERR_UNSUPPORTED with its outputs cleared
 * (the table getters return NULL, count 0). DS_CONFIG_NETBURST_TABLES=0
 * removes the counter/ESCR/event tables and what needs them: the table
 * getters (NULL, count 0), ds_nb_event_find, ds_nb_escr_find,
 * ds_nb_mask_parse and the allocator (ds_nb_alloc_init, ds_nb_assign,
 * ds_nb_program, ds_nb_release) return DS_ERR_UNSUPPORTED; program with
 * ds_nb_program_raw / ds_nb_release_raw. ds_nb_period, the metric table and
 * replay tagging, ds_nb_pmi_scan and ds_nb_rearm stay.
 */
#ifndef DS_NETBURST_H
#define DS_NETBURST_H

#include <stdint.h>
#include <stddef.h>
#include <stdbool.h>
#include <ds/err.h>
#include <ds/msr.h>
#include <ds/cpu.h>

#ifdef __cplusplus
extern "C" {
#endif

#define DS_NB_NUM_COUNTERS 18u
#define DS_NB_NUM_ESCRS    45u
#define DS_NB_COUNTER_BITS 40u           /* counters are 40 bits wide */
#define DS_NB_COUNTER_MASK 0xFFFFFFFFFFull

/* Counter i is MSR 0x300 + i, its CCCR 0x360 + i ("Performance Counters" table) */
#define DS_MSR_NB_COUNTER(i) (0x300u + (uint32_t)(i))
#define DS_MSR_NB_CCCR(i)    (0x360u + (uint32_t)(i))
#define DS_MSR_IQ_COUNTER4   0x310u
#define DS_MSR_IQ_CCCR4      0x370u
#define DS_MSR_IQ_COUNTER5   0x311u
#define DS_MSR_IQ_CCCR5      0x371u
#define DS_MSR_NB_PEBS_ENABLE      DS_MSR_IA32_PEBS_ENABLE  /* 0x3F1, NetBurst layout */
#define DS_MSR_NB_PEBS_MATRIX_VERT DS_MSR_PEBS_MATRIX_VERT  /* 0x3F2 */
/*
 * MSR_SSU_ESCR1 (0x3BF) is NOT part of the table: no SDM edition read for
 * this project lists it, FreeBSD omits it and Linux's msr-index.h marks the
 * address "guess: not in manual" (reference netburst.md). libds never
 * touches it; no event in the tables needs it.
 */
#define DS_MSR_NB_SSU_ESCR1_UNCONFIRMED 0x3BFu

/* ESCR fields (SDM "Event Selection Control Register (ESCR)"); bits 63:31 reserved */
#define DS_NB_ESCR_EVENT_SHIFT 25
#define DS_NB_ESCR_EVENT_MASK  0x7E000000ull
#define DS_NB_ESCR_EMASK_SHIFT 9
#define DS_NB_ESCR_EMASK_MASK  0x01FFFE00ull
#define DS_NB_ESCR_TAG_SHIFT   5
#define DS_NB_ESCR_TAG_MASK    0x000001E0ull
#define DS_NB_ESCR_TAG_ENABLE  (1ull << 4)
#define DS_NB_ESCR_T0_OS       (1ull << 3)
#define DS_NB_ESCR_T0_USR      (1ull << 2)
#define DS_NB_ESCR_T1_OS       (1ull << 1)
#define DS_NB_ESCR_T1_USR      (1ull << 0)
#define DS_NB_ESCR_VALID       0x7FFFFFFFull  /* bits 30:0 */

/* CCCR fields (SDM "Counter Configuration Control Register (CCCR)") */
#define DS_NB_CCCR_ENABLE        (1ull << 12)
#define DS_NB_CCCR_SELECT_SHIFT  13
#define DS_NB_CCCR_SELECT_MASK   0x0000E000ull
#define DS_NB_CCCR_ACTIVE_SHIFT  16
#define DS_NB_CCCR_ACTIVE_MASK   0x00030000ull
#define DS_NB_CCCR_ACTIVE_NONE   0u
#define DS_NB_CCCR_ACTIVE_SINGLE 1u
#define DS_NB_CCCR_ACTIVE_BOTH   2u
#define DS_NB_CCCR_ACTIVE_ANY    3u   /* the value to use on non-HT parts */
#define DS_NB_CCCR_COMPARE       (1ull << 18)
#define DS_NB_CCCR_COMPLEMENT    (1ull << 19)
#define DS_NB_CCCR_THRESH_SHIFT  20
#define DS_NB_CCCR_THRESH_MASK   0x00F00000ull
#define DS_NB_CCCR_EDGE          (1ull << 24)
#define DS_NB_CCCR_FORCE_OVF     (1ull << 25)
#define DS_NB_CCCR_OVF_PMI_T0    (1ull << 26)
#define DS_NB_CCCR_OVF_PMI_T1    (1ull << 27)
#define DS_NB_CCCR_CASCADE       (1ull << 30)
#define DS_NB_CCCR_OVF           (1ull << 31)
/* Bits software may write: 27:12 and 30 (11:0, 29:28 and 63:32 reserved;
 * OVF is the sticky overflow flag, only ever cleared). */
#define DS_NB_CCCR_VALID         0x4FFFF000ull

/*
 * MSR_PEBS_ENABLE (0x3F1) on NetBurst. The SDM's non-HT PEBS section calls
 * bit 24 "Enable PEBS", but the SDM's own MSR table, its Hyper-Threading
 * PEBS section, its replay-metric table ("set bit N, bit 24, bit 25"),
 * EDK2's Pentium4Msr.h and Linux's perf_event_p4.h all say: bit 24 =
 * UOP_Tag (replay tagging), bit 25 = PEBS for this logical processor,
 * bit 26 = PEBS for the other one (reference README, correction 1). libds
 * programs what hardware implements: bit 24 for tagging, and bits 24 AND 25
 * to sample, so a PEBS setup is right under either reading.
 */
#define DS_NB_PEBS_METRIC_MASK   0x1FFFull
#define DS_NB_PEBS_UOP_TAG       (1ull << 24)
#define DS_NB_PEBS_MY_THR        (1ull << 25)
#define DS_NB_PEBS_OTH_THR       (1ull << 26)

/* Counter table row ("Performance Counter MSRs and Associated CCCR and ESCR MSRs") */
/* The names are arrays in the rows, not pointers (issue 28 item 6: no
 * relocated pointer and padding per row in the kernel archive). */
struct ds_nb_counter_info {
    char name[19];           /* "MSR_IQ_COUNTER4" (longest "MSR_FLAME_COUNTER0") */
    char cccr_name[16];      /* "MSR_IQ_CCCR4" */
    uint32_t msr;            /* counter MSR */
    uint32_t cccr_msr;
};

#define DS_NB_ESCR_F_EARLY_ONLY 0x1u  /* exists only on family 0FH models 01H-02H (IQ_ESCR0/1) */

/* ESCR table row */
struct ds_nb_escr_info {
    char name[16];           /* "MSR_CRU_ESCR2" (longest "MSR_FLAME_ESCR0") */
    uint32_t msr;
    uint8_t select;          /* value for CCCR[15:13] */
    uint8_t ncounters;       /* 2 or 3 */
    uint8_t counters[3];     /* counter indices it can drive */
    uint8_t flags;           /* DS_NB_ESCR_F_* */
};

/* One named event-mask bit (bit index within ESCR[24:9]) */
struct ds_nb_mask_bit {
    char name[16];           /* longest: "FROM_TC_DELIVER", "WCB_FULL_EVICTS" (15) */
    uint8_t bit;
};

#define DS_NB_EV_AT_RETIREMENT 0x1u  /* at-retirement event */
#define DS_NB_EV_PEBS          0x2u  /* PEBS-capable (front_end, execution, replay_event) */
#define DS_NB_EV_MODELS_346    0x4u  /* only on models 03H, 04H, 06H (instr_completed) */

/* Event table row (SDM event tables for NetBurst; reference netburst.md) */
struct ds_nb_event_info {
    const char *name;             /* "branch_retired" */
    uint8_t event_select;         /* ESCR[30:25] */
    uint8_t cccr_select;          /* must equal the select of each allowed ESCR */
    uint8_t nescrs;               /* 1 or 2 */
    uint8_t escrs[2];             /* ESCR table indices allowed */
    uint8_t flags;                /* DS_NB_EV_* */
    uint8_t nmasks;
    const struct ds_nb_mask_bit *masks;
};

/* Table access. *out_n (may be NULL) receives the row count. With
 * DS_CONFIG_NETBURST_TABLES=0: NULL and *out_n = 0. No error return.
 * MSRs: none. NMI-safe: yes (pure). */
const struct ds_nb_counter_info *ds_nb_counters(size_t *out_n);
const struct ds_nb_escr_info *ds_nb_escrs(size_t *out_n);
const struct ds_nb_event_info *ds_nb_events(size_t *out_n);

/* Find an event or ESCR by name (case-sensitive; ESCR name with or without
 * the "MSR_" prefix). DS_OK, DS_ERR_NULL, DS_ERR_NB_BAD_EVENT / _BAD_ESCR.
 * MSRs: none. NMI-safe: yes (pure). */
int ds_nb_event_find(const char *name, unsigned *out_index);
int ds_nb_escr_find(const char *name, unsigned *out_index);

/* Event-mask value (ESCR[24:9] bit space, not shifted) for a list of mask-bit
 * names separated by '|' or ','. Errors: DS_ERR_NULL, DS_ERR_NB_BAD_EVENT
 * (event index), DS_ERR_NB_BAD_MASK (unknown name, an empty name between
 * or after separators: "A||B", "A|", or an empty mask).
 * MSRs: none. NMI-safe: yes (pure). */
int ds_nb_mask_parse(unsigned event, const char *names, uint32_t *out_mask);

/*
 * Allocation state for one physical core. display_model decides which ESCRs
 * exist (IQ_ESCR0/1 on models 01H-02H only) and which events (instr_completed
 * on 03H/04H/06H); ht = Hyper-Threading enabled (logical CPU 1 exists).
 */
struct ds_nb_alloc {
    uint64_t escr_used;      /* bit i = ESCR table row i allocated */
    uint32_t counter_used;   /* bit i = counter i allocated */
    uint8_t display_model;   /* for ds_nb_assign (pure); ds_nb_program uses the CPU's */
    bool ht;                 /* thread 1 allowed (ds_nb_program also needs the CPU to have HT) */
    uint8_t counter_escr[DS_NB_NUM_COUNTERS]; /* counter i: ESCR table row driving it + 1, 0 = none (set by ds_nb_program) */
};

/* Initialise @a (nothing allocated). DS_OK or DS_ERR_NULL.
 * MSRs: none. NMI-safe: yes (memory only). */
int ds_nb_alloc_init(struct ds_nb_alloc *a, uint8_t display_model, bool ht);

/* A counting or sampling request (SDM programming steps 1-8). */
struct ds_nb_request {
    unsigned event;          /* index into ds_nb_events() */
    uint32_t mask;           /* event mask, ESCR[24:9] bit space; non-zero subset of the event's bits */
    int escr;                /* ESCR table index, or -1: allocator chooses */
    int counter;             /* counter index, or -1: allocator chooses */
    unsigned thread;         /* logical processor 0 or 1 (1 needs ht) */
    bool os, usr;            /* count at CPL 0 / CPL > 0 (at least one) */
    bool tag_enable;         /* ESCR tag enable (front-end/execution tagging) */
    uint8_t tag_value;       /* 0..15 */
    bool compare, complement, edge;
    uint8_t threshold;       /* 0..15 */
    bool pmi;                /* OVF_PMI_T<thread> on overflow */
    bool cascade;            /* CCCR.Cascade: start when the pair counter overflows */
    bool pebs;               /* PEBS: counter must be IQ_COUNTER4 (thread 0) / 5 (thread 1).
                              * The PEBS PMI comes from the DS threshold; whether the
                              * SDM also needs OVF_PMI (pmi) here is unconfirmed
                              * (reference netburst.md): the caller decides. */
};

/* Result of an allocation: which registers and which values. */
struct ds_nb_assignment {
    uint8_t escr;            /* ESCR table index */
    uint8_t counter;         /* counter index */
    uint32_t escr_msr, cccr_msr, counter_msr;
    uint64_t escr_val;       /* value written to the ESCR */
    uint64_t cccr_val;       /* value written to the CCCR (with Enable) */
};

/*
 * Steps 1-3 and the values of steps 4-7, without touching any MSR: check
 * the request, choose (or check) an ESCR allowed for the event and a free
 * counter that ESCR can drive, and compute the ESCR and CCCR values.
 * Automatic choice skips MSR_BPU_CCCR1 (counter 1): Linux p4.c calls that
 * CCCR broken and never uses it (what is broken is unconfirmed); an explicit
 * counter = 1 is honoured. Errors: DS_ERR_NULL, DS_ERR_NB_BAD_EVENT,
 * _BAD_ESCR, _BAD_COUNTER, _ESCR_EVENT, _ESCR_COUNTER, _ESCR_BUSY,
 * _COUNTER_BUSY, _NO_FREE, _BAD_MASK, _BAD_THREAD, _BAD_FILTER,
 * _PEBS_COUNTER, _PEBS_EVENT, _MODEL.
 * MSRs: none. NMI-safe: yes (pure; reads @a).
 */
int ds_nb_assign(const struct ds_nb_alloc *a, const struct ds_nb_request *req,
                 struct ds_nb_assignment *out);

/*
 * Allocate and program (step 8 included): ds_nb_assign(), then write
 * CCCR = 0 (counter stopped, OVF clear), ESCR, the counter (twice: Pentium 4
 * erratum N15, "counter writes may not stick", Linux p4.c
 * p4_pmu_set_period), then the CCCR with Enable. @start is the 40-bit
 * initial counter value (ds_nb_period() gives it for a sampling period).
 * Preconditions: cpu identified and NetBurst with MISC_ENABLE[7] set.
 * Model and Hyper-Threading come from @cpu, not from @a: the request is
 * assigned as if @a had cpu->caps.display_model (instr_completed only on
 * 03H/04H/06H: DS_ERR_NB_MODEL; IQ_ESCR0/1 only on 01H/02H) and ht only
 * when both @a->ht and the CPU has two logical processors per core
 * (CPUID.01H:EDX[28] HTT and EBX[23:16] >= 2; HTT alone is set on
 * single-thread Northwood/Cedar Mill parts: DS_ERR_NB_BAD_THREAD).
 * MSRs written: CCCR, ESCR, counter. On a backend fault the CCCR and ESCR
 * are written back to 0, nothing stays allocated, DS_ERR_MSR_FAULT.
 * Other errors as ds_nb_assign plus DS_ERR_NOT_IDENTIFIED,
 * DS_ERR_NB_NOT_NETBURST, DS_ERR_NO_PERFMON, DS_ERR_PMC_VALUE_WIDE (start
 * wider than 40 bits).
 * MSRs: writes the chosen CCCR (0x360+counter), ESCR (0x3A0-0x3E1) and
 * counter (0x300+counter); reads none. NMI-safe: no, because it updates
 * the allocator @a without a lock.
 */
int ds_nb_program(struct ds_cpu *cpu, struct ds_nb_alloc *a, const struct ds_nb_request *req,
                  uint64_t start, struct ds_nb_assignment *out);

/*
 * Stop and free an assignment: CCCR = 0 (also clears OVF), ESCR = 0.
 * Errors: DS_ERR_NULL, DS_ERR_NOT_IDENTIFIED, DS_ERR_NB_NOT_NETBURST,
 * DS_ERR_NO_PERFMON, DS_ERR_NB_NOT_ALLOCATED (@as not held by @a),
 * DS_ERR_NB_MISMATCH (ESCR and counter both held, but the counter is
 * driven by another ESCR: nothing written, so another assignment's counter
 * is never stopped),
 * DS_ERR_MSR_FAULT (both writes are still tried and the pair is freed).
 * MSRs: writes the CCCR (0x360+counter) and ESCR; reads none. NMI-safe: no,
 * because it updates the allocator @a without a lock.
 */
int ds_nb_release(struct ds_cpu *cpu, struct ds_nb_alloc *a, const struct ds_nb_assignment *as);

/*
 * Raw programming, without the event tables (available whenever
 * DS_CONFIG_NETBURST=1, and the only way to program a counter when
 * DS_CONFIG_NETBURST_TABLES=0). The caller supplies the ESCR and CCCR values
 * from the SDM tables itself (ESCR event select/mask/tag/T0-T1 bits; CCCR
 * Enable, ESCR select, active thread, filters, OVF_PMI); libds does the
 * ds_nb_program sequence: CCCR = 0, ESCR = @escr_val, counter = @start
 * (written twice, erratum N15), CCCR = @cccr_val.
 * Checked: the CPU (identified, NetBurst, MISC_ENABLE[7]); @counter < 18;
 * @escr_msr is an ESCR of the SDM counter table on this model (0x3A0-0x3BE,
 * 0x3C0-0x3C5, 0x3C8-0x3CD, 0x3E0-0x3E1; not 0x3BF; 0x3BA/0x3BB on models
 * 01H-02H only); no reserved bit in @escr_val (DS_NB_ESCR_VALID) or
 * @cccr_val (DS_NB_CCCR_VALID, OVF excluded); @start within 40 bits.
 * NOT checked (that needs the tables): that the ESCR can drive @counter,
 * that CCCR[15:13] is that ESCR's select value, that the event exists on
 * this ESCR; no allocator records the pair (the caller owns it).
 * Errors: DS_ERR_NULL, DS_ERR_NOT_IDENTIFIED, DS_ERR_NB_NOT_NETBURST,
 * DS_ERR_NO_PERFMON, DS_ERR_NB_BAD_COUNTER, DS_ERR_NB_BAD_ESCR,
 * DS_ERR_PMC_RESERVED, DS_ERR_PMC_VALUE_WIDE, DS_ERR_MSR_FAULT (CCCR and
 * ESCR then written back to 0); DS_ERR_UNSUPPORTED with
 * DS_CONFIG_NETBURST=0.
 * MSRs: writes CCCR (0x360+counter), @escr_msr, counter (0x300+counter);
 * reads none. NMI-safe: yes if the backend is.
 */
int ds_nb_program_raw(struct ds_cpu *cpu, unsigned counter, uint32_t escr_msr, uint64_t escr_val,
                      uint64_t cccr_val, uint64_t start);

/*
 * Stop a raw-programmed counter: CCCR = 0 (also clears OVF), ESCR = 0. Same
 * checks and errors as ds_nb_program_raw for @counter and @escr_msr
 * (DS_ERR_MSR_FAULT if either write faults; both are tried).
 * MSRs: writes CCCR (0x360+counter) and @escr_msr; reads none.
 * NMI-safe: yes if the backend is.
 */
int ds_nb_release_raw(struct ds_cpu *cpu, unsigned counter, uint32_t escr_msr);

/*
 * Start value for a sampling @period on a 40-bit counter: (-period) & mask.
 * Period must be 1..2^39 so bit 39 is set at start and a cleared bit 39
 * proves an overflow (the erratum check below). Errors: DS_ERR_NULL,
 * DS_ERR_PMC_PERIOD_ZERO, DS_ERR_PMC_PERIOD_WIDE.
 * MSRs: none. NMI-safe: yes (pure).
 */
int ds_nb_period(uint64_t period, uint64_t *out_start);

/* Replay-tagging metrics (SDM "Tagging Mechanism for Replay_event";
 * reference netburst.md, Linux p4.c p4_pebs_bind_map). */
enum ds_nb_metric {
    DS_NB_METRIC_1STL_CACHE_LOAD_MISS = 0,
    DS_NB_METRIC_2NDL_CACHE_LOAD_MISS = 1,
    DS_NB_METRIC_DTLB_LOAD_MISS = 2,
    DS_NB_METRIC_DTLB_STORE_MISS = 3,
    DS_NB_METRIC_DTLB_ALL_MISS = 4,
    DS_NB_METRIC_TAGGED_MISPRED_BRANCH = 5,
    DS_NB_METRIC_MOB_LOAD_REPLAY = 6,
    DS_NB_METRIC_SPLIT_LOAD = 7,
    DS_NB_METRIC_SPLIT_STORE = 8,
    DS_NB_METRIC__COUNT = 9,
};

struct ds_nb_metric_info {
    const char *name;
    uint32_t pebs_enable;    /* MSR_PEBS_ENABLE metric bits (12:0 and 15/16), without 24/25 */
    uint32_t matrix_vert;    /* MSR_PEBS_MATRIX_VERT */
    const char *upstream;    /* extra event the caller must program, or NULL */
};

/* Metric table. Errors: DS_ERR_NULL, DS_ERR_NB_BAD_METRIC (unknown metric).
 * MSRs: none. NMI-safe: yes (pure). */
int ds_nb_metric_info(unsigned metric, const struct ds_nb_metric_info **out);

/*
 * Arm replay tagging for @metric: MSR_PEBS_MATRIX_VERT = vertical bits, then
 * MSR_PEBS_ENABLE = metric bits | UOP_Tag (bit 24) | (pebs ? bit 25 : 0).
 * Count with replay_event, mask NBOGUS, on CRU_ESCR2/3; for PEBS that must
 * be on IQ_COUNTER4 (logical CPU 0) / IQ_COUNTER5 (logical CPU 1), see
 * ds_nb_program with req.pebs. Also needs IA32_MISC_ENABLE[12] = 0 and the
 * DS area set up (area.h) when pebs (the DS area is the caller's: not
 * checked here). Errors: DS_ERR_NULL,
 * DS_ERR_NOT_IDENTIFIED, DS_ERR_NB_NOT_NETBURST, DS_ERR_NO_PERFMON,
 * DS_ERR_NB_BAD_METRIC, DS_ERR_PEBS_UNAVAILABLE (MISC_ENABLE[12], checked
 * with or without @pebs), DS_ERR_NO_DS (pebs only), DS_ERR_MSR_FAULT.
 * MSRs: writes MSR_PEBS_MATRIX_VERT (0x3F2), then MSR_PEBS_ENABLE (0x3F1);
 * reads none. NMI-safe: yes if the backend is.
 */
int ds_nb_replay_tag(struct ds_cpu *cpu, unsigned metric, bool pebs);

/*
 * Turn tagging and NetBurst PEBS off: MSR_PEBS_ENABLE = 0, MATRIX_VERT = 0.
 * Errors: DS_ERR_NULL, DS_ERR_NOT_IDENTIFIED, DS_ERR_NB_NOT_NETBURST,
 * DS_ERR_NO_PERFMON, DS_ERR_MSR_FAULT (both writes are still tried).
 * MSRs: writes MSR_PEBS_ENABLE (0x3F1), MSR_PEBS_MATRIX_VERT (0x3F2); reads
 * none. NMI-safe: yes if the backend is.
 */
int ds_nb_replay_untag(struct ds_cpu *cpu);

/*
 * PMI helper. For each counter in @armed (bit i = counter i armed for
 * sampling with a ds_nb_period() start value): RDMSR CCCR; if OVF is set,
 * WRMSR CCCR with OVF cleared; if OVF is clear, RDMSR the counter and treat
 * bit 39 clear as an overflow (Pentium 4 erratum, Linux p4.c
 * p4_pmu_clear_cccr_ovf: the PMI can arrive without CCCR.OVF). Cost per
 * armed counter: 1 RDMSR + 1 WRMSR (OVF set) or 2 RDMSR (OVF clear).
 * Clear every OVF *before* unmasking the LVT performance-counter entry, or
 * the still-set OVF raises the PMI again (Linux p4.c comment): call this
 * first, then ds_nb_rearm(), then rewrite LVTPC.
 * out_overflowed: bit i = counter i overflowed. Errors: DS_ERR_NULL,
 * DS_ERR_NOT_IDENTIFIED, DS_ERR_NB_NOT_NETBURST, DS_ERR_NO_PERFMON,
 * DS_ERR_NB_BAD_COUNTER (bits above 17), DS_ERR_MSR_FAULT (remaining
 * counters not scanned; the bits found so far are reported).
 * MSRs: reads and writes the armed CCCRs (0x360+i); reads the armed
 * counters (0x300+i). NMI-safe: yes if the backend is.
 */
int ds_nb_pmi_scan(struct ds_cpu *cpu, uint32_t armed, uint32_t *out_overflowed);

/*
 * Reload counter @counter with @start, written twice (erratum N15 above).
 * Errors: DS_ERR_NULL, DS_ERR_NOT_IDENTIFIED, DS_ERR_NB_NOT_NETBURST,
 * DS_ERR_NO_PERFMON, DS_ERR_NB_BAD_COUNTER, DS_ERR_PMC_VALUE_WIDE (> 40
 * bits), DS_ERR_MSR_FAULT. MSRs: writes the counter (0x300+counter);
 * reads none. NMI-safe: yes if the backend is.
 */
int ds_nb_rearm(struct ds_cpu *cpu, unsigned counter, uint64_t start);

#ifdef __cplusplus
}
#endif

#endif /* DS_NETBURST_H */
