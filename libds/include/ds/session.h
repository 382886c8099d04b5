/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Sessions: "sample instructions every 10,000" in a few calls (issue 16).
 *
 * A session packages the building blocks (area.h, pebs.h, pmc.h, pmi.h,
 * netburst.h, arch_pebs.h, bts.h, lbr.h, event.h) in the order a kernel
 * would wire them by hand (the host tests do: tests/host/test_pmi.c,
 * test_area.c, test_pmc.c). It is built ONLY from their
 * public functions; they stay available for callers that need control.
 *
 * One struct ds_session per logical CPU: IA32_DS_AREA, IA32_PEBS_ENABLE,
 * IA32_PEBS_BASE and the counters are per logical processor (SDM Vol. 3B
 * "DS Save Area", "Architectural PEBS"), so several samplers on one CPU are
 * several REQUESTS of one session (ds_session_add, at most
 * DS_SESSION_MAX_REQ), never two sessions at once. Nothing is global and
 * nothing is allocated: the caller owns the struct and one memory region.
 *
 * libds chooses, per request: the counter (pmc.h ds_pmc_pebs_check: PMC0
 * only on Core 2/Atom/Silvermont/Goldmont/KNL, PMC0-3 Nehalem..Skylake,
 * INST_RETIRED.PREC_DIST on PMC1, fixed-counter PEBS on adaptive parts and
 * Goldmont Plus; arch PEBS: CPUID.(23H,5) bitmaps; NetBurst: IQ_COUNTER4
 * with replay tagging through the ESCR/CCCR allocator), the record format
 * (ds_pebs_format_select), the buffer split and thresholds (from the bytes
 * given), reset values (ds_pmc_gp_period / ds_nb_period / arch-PEBS CFG_C
 * reload), the freeze mode and the ds_pmi_config; ds_session_describe says
 * what it chose.
 *
 * Sequence: ds_session_init, ds_session_add (each request), ds_session_start,
 * then in the PMI handler ds_session_pmi, and ds_session_stop,
 * ds_session_teardown. ds_session_start saves the value of every MSR it (or
 * a building block it calls) will write, before the first write;
 * ds_session_teardown writes each back (reverse order), so the CPU is left
 * as found. Not restorable: IA32_PERF_GLOBAL_STATUS (read-only; the PMI
 * acknowledges its bits) and the counter values a CPU without full-width
 * writes cannot load (IA32_PMCx takes 32 bits sign-extended).
 *
 * Life cycle, as a kernel meets it (tests/host/test_session_life.c):
 *  - ds_session_pmi may be called on the struct in every state, so the
 *    handler can be installed before the session exists. On a zeroed,
 *    initialised (READY: init/add done, not started) or torn-down session it
 *    returns DS_ERR_SESSION_SPURIOUS, touches no MSR, calls no callback and
 *    clears the caller's result: an NMI handler passes the NMI on.
 *  - After ds_session_stop (STOPPED, before teardown) the PMI handler is
 *    still set up: a PMI latched before the stop (its GLOBAL_STATUS bit
 *    set) is handled -- acknowledged, any records left drained, overflow
 *    counters reloaded and their samples delivered to the callbacks (which
 *    must therefore stay valid until teardown) -- and returns DS_OK; a PMI
 *    with none of its bits costs one RDMSR and returns
 *    DS_ERR_SESSION_SPURIOUS. It never restarts the stopped counters (the
 *    legacy-freeze GLOBAL_CTRL restore is skipped once stopped).
 *  - Mask the LVT Performance Counter entry around every other call on a
 *    live session (start, stop, drain_now, teardown): they must not run
 *    concurrently with ds_session_pmi on the same CPU, and an NMI cannot be
 *    held off with IF.
 *  - A failed ds_session_init changes nothing: a zeroed struct stays zeroed
 *    and takes a correct init next; a READY one keeps its configuration and
 *    requests. A failed ds_session_add adds nothing (the next add gets the
 *    next id). A failed ds_session_start writes back what it wrote and
 *    leaves the session READY with its requests: start again, or init again
 *    (a new region), while ds_session_teardown answers DS_ERR_SESSION_STATE
 *    (nothing to undo). ds_session_init on a STOPPED session is accepted and
 *    forgets the saved MSRs with the DS area still installed: tear down
 *    first, as the init contract says.
 *
 * Not verified on hardware here (no Intel PMU on this host): the host tests
 * run the fake CPUs of tests/host, the embed kernel the reference model.
 */
#ifndef DS_SESSION_H
#define DS_SESSION_H

#include <stdint.h>
#include <stddef.h>
#include <stdbool.h>
#include <ds/err.h>
#include <ds/cpu.h>
#include <ds/area.h>
#include <ds/pebs.h>
#include <ds/pmc.h>
#include <ds/pmi.h>
#include <ds/bts.h>
#include <ds/lbr.h>
#include <ds/netburst.h>
#include <ds/arch_pebs.h>
#include <ds/event.h>

#ifdef __cplusplus
extern "C" {
#endif

#define DS_SESSION_MAX_REQ 8u
#define DS_SESSION_MAX_SAVED 48u   /* MSRs saved at start for teardown (the most a start saves is 45:
                                      session_msr.c checks it at compile time) */
#define DS_SESSION_LBR_CAP 64u     /* LBR snapshot entries (Arch LBR depth <= 64) */

/* How a request samples. */
enum ds_sample_mode {
    DS_SAMPLE_AUTO = 0,        /* PEBS where the event is precise and a PEBS counter is free, else overflow */
    DS_SAMPLE_PRECISE = 1,     /* PEBS, or DS_ERR_SESSION_NOT_PRECISE / _NO_COUNTER / _NO_DS */
    DS_SAMPLE_OVERFLOW = 2,    /* counter-overflow PMI; the sample is the interrupted IP */
    DS_TRACE_BTS = 3,          /* BTS linear buffer with threshold PMIs: every taken branch delivered */
    DS_TRACE_BTS_CIRCULAR = 4, /* BTS ring, no PMI: read at stop / ds_session_drain_now */
    DS_COUNT = 5,              /* count only, from 0, no PMI, no sample: the value appears in the
                                  counters group of the PEBS records (DS_GROUP_CNTR); period ignored */
};

/* Record groups (adaptive PEBS MSR_PEBS_DATA_CFG, arch PEBS CFG_C). */
#define DS_GROUP_MEM  0x1u     /* data address, data source, latency */
#define DS_GROUP_GPRS 0x2u     /* general-purpose registers */
#define DS_GROUP_XMM  0x4u     /* XMM registers */
#define DS_GROUP_LBR  0x8u     /* LBR entries in the record */
#define DS_GROUP_ALL  0xFu     /* the four above (not the counters group below) */
/* Counters group (PEBS format 6 with PEBS_BASELINE: MSR_PEBS_DATA_CFG bits
 * 4/5 and the GP [47:32] / fixed [55:48] masks; arch PEBS: CFG_C bits
 * 35-38 where CPUID.(23H,4) has them; Linux intel_pmu_enable_event_ext,
 * setup_pebs_adaptive_sample_data). DS_GROUP_CNTR: every record carries the
 * values of the session's counters (its PEBS, overflow and DS_COUNT
 * counters; arch PEBS: each of them with CFG_C CNTR_ALLOW (bit 35), the
 * counting ones through ds_arch_pebs_counter_allow, as Linux
 * intel_pmu_enable_event_ext sets it on every group member), decoded into
 * ds_session_sample.pebs->cntr_gp[] / cntr_fixed[] with their masks.
 * DS_GROUP_METRICS (needs PERF_CAPABILITIES.PERF_METRICS, and on arch PEBS
 * CFG_C bit 38 as well): TOPDOWN.SLOTS and IA32_PERF_METRICS
 * (pebs->topdown_slots, perf_metrics); the session counts TOPDOWN.SLOTS on
 * fixed counter 3 from 0 for it and sets IA32_PERF_GLOBAL_CTRL bit 48
 * (EN_PERF_METRICS, Linux intel_set_masks), without which PERF_METRICS is
 * not updated. */
#define DS_GROUP_CNTR    0x10u
#define DS_GROUP_METRICS 0x20u

#define DS_RING_KERNEL 0x1u    /* CPL 0 (EVTSEL.OS) */
#define DS_RING_USER   0x2u    /* CPL > 0 (EVTSEL.USR) */

/* What a request asks for. Zero-initialise, then set event (or raw) and period. */
struct ds_request {
    enum ds_event event;       /* generic event (event.h), or DS_EVENT_NONE with raw.set */
    struct {
        bool set;              /* use the fields below instead of a generic event */
        uint8_t evsel, umask, cmask; /* IA32_PERFEVTSELx encoding */
        bool inv;
        const char *nb_event;  /* NetBurst: event name (ds_nb_event_find) */
        const char *nb_mask;   /* NetBurst: mask names (ds_nb_mask_parse) */
        int nb_metric;         /* NetBurst PEBS: replay-tagging metric (enum ds_nb_metric), -1 = none */
    } raw;
    uint64_t period;           /* sample every @period events (1..counter range); BTS: ignored */
    enum ds_sample_mode mode;
    uint32_t ldlat;            /* load-latency threshold in cycles (3..65535), 0 = none */
    uint32_t groups;           /* DS_GROUP_*; 0 = what the format records anyway */
    unsigned rings;            /* DS_RING_*; 0 = both */
    /* Most precise (Linux precise_ip 3): DS_SAMPLE_PRECISE on architectural
     * PEBS only, on a counter CPUID.(23H,5) EBX (GP) / EDX (fixed) names
     * PDIST-capable (Linux intel_pmu_hw_config: pebs_cap.pdists); else
     * DS_ERR_SESSION_PDIST (any other mode, or DS-area PEBS). */
    bool pdist;
};

/* One sample delivered to on_sample. */
struct ds_session_sample {
    unsigned req;                      /* request id from ds_session_add */
    const struct ds_pebs_sample *pebs; /* PEBS record (counters group: pebs->present & DS_SAMPLE_CNTRS);
                                          NULL for an overflow sample */
    uint64_t ip;                       /* PEBS: the record's ip; overflow: the IP given to ds_session_pmi */
    /* The instruction that caused the event, where the hardware tells it
     * (eip_exact): PEBS formats >= 2 (EventingIP, record offset B0H), the
     * adaptive formats and architectural PEBS (basic group IP), as Linux
     * setup_pebs_*_sample_data sets PERF_EFLAGS_EXACT. Elsewhere the best IP
     * known, eip_exact false: PEBS formats 0/1 and NetBurst give the IP of
     * the instruction AFTER the event (trap-like; Linux rewinds it with the
     * LBR and the code bytes, intel_pmu_pebs_fixup_ip: a session has
     * neither), an overflow sample the interrupted IP (skid: some
     * instructions after the event). Profilers attribute to eip. */
    uint64_t eip;
    bool eip_exact;
};

struct ds_session_config {
    /* ONE caller-owned region: libds carves the DS area (when one is needed),
     * the PEBS or architectural-PEBS buffer and the BTS buffer out of it, in
     * 4 KiB aligned parts. Mapped present and writable, never paged out.
     * May be NULL/0 for a session with overflow requests only. */
    void *mem;
    size_t bytes;
    uint64_t mem_linear;       /* linear address of mem as the CPU sees it; 0 = (uintptr_t)mem */
    uint64_t mem_phys;         /* physical address of mem (arch PEBS writes physical memory); 0 = identity */
                               /* (so physical page 0 cannot be named: Linux never hands it out either,
                                  x86 keeps low memory reserved, since 5.13 the whole first 1 MiB: "x86/
                                  setup: always reserve the first 1M of RAM"). On the reference
                                  model, give the model memory ops that translate this physical address
                                  (ds_model_ops.h ds_model_mem_ops), never dsm_identity_mem_ops */
    bool lbr;                  /* snapshot the LBR stack at each PMI while frozen (on_lbr) */
    bool freeze_set;           /* use @freeze; else auto: streamlined v4+, legacy v2/v3, none v1/NetBurst */
    enum ds_freeze_mode freeze;
    unsigned pebs_flags;       /* ds_pmc_pebs_enable_ex flags (DS_PMC_PEBS_ALLOW_ERRATA) */
    bool probe;                /* start runs the functional probe first (probe.h ds_probe, no BTS
                                  scratch): a counter, DS area or arch-PEBS buffer the session
                                  needs that is advertised but inert (emulators that read PMU MSRs
                                  as 0 and drop writes, QEMU TCG) fails start with
                                  DS_ERR_NOT_WORKING instead of a session with zero samples */
    void (*on_sample)(void *arg, const struct ds_session_sample *s);
    void (*on_branch)(void *arg, const struct ds_bts_branch *b);
    void (*on_lbr)(void *arg, const struct ds_lbr_entry *e, size_t n);
    void *arg;
    /* PEBS records straight from the drain (pebs.h ds_pebs_sink, called
     * with @arg): no ds_session_sample, no request id, no routing (with
     * several PEBS requests, ds_pebs_attribute tells them apart); return 0
     * when taken, else it is counted lost_rejected. The PMI path's fastest
     * delivery (bench.sh section 6). When set, on_sample gets only the
     * overflow samples. */
    ds_pebs_sink on_pebs;
};

/* How libds serves a request (ds_session_describe prints it). */
enum ds_session_how {
    DS_HOW_NONE = 0,
    DS_HOW_PEBS,               /* DS-area PEBS, formats 0-6 */
    DS_HOW_APEBS,              /* architectural PEBS (CFG_C) */
    DS_HOW_NB_PEBS,            /* NetBurst PEBS: IQ_COUNTER4 + replay tagging */
    DS_HOW_OVERFLOW,           /* GP counter with EVTSEL.INT, reloaded in the PMI */
    DS_HOW_NB_OVERFLOW,        /* NetBurst counter with CCCR.OVF_PMI */
    DS_HOW_BTS,                /* BTS (linear or circular) */
    DS_HOW_COUNT,              /* DS_COUNT: counter enabled from 0 without EVTSEL.INT */
};

/* Per request, what libds chose (read-only for the caller). */
struct ds_session_req {
    struct ds_request rq;
    enum ds_session_how how;
    enum ds_ctr_kind kind;     /* DS_CTR_GP or DS_CTR_FIXED */
    unsigned idx;              /* counter index (NetBurst: the assignment's counter) */
    int nb_metric;             /* NetBurst PEBS: replay-tagging metric */
    uint64_t evtsel;           /* EVTSEL value written (family 6) */
    uint64_t start, reset;     /* counter start and reload values */
    const char *name;          /* vendor event name, or "raw" */
    struct ds_nb_request nbq;  /* NetBurst: the request given to the allocator */
    bool nb_tagged;            /* NetBurst front-end tagging: the upstream ESCR in nbtag */
    struct ds_nb_assignment nbas;
    struct ds_nb_assignment nbtag; /* its ESCR and value (no counter: SDM front-end tagging) */
};

enum ds_session_state {
    DS_SESSION_ZERO = 0,       /* not initialised */
    DS_SESSION_READY,          /* init done; requests may be added */
    DS_SESSION_RUNNING,        /* started */
    DS_SESSION_STOPPED,        /* stopped; teardown (or start again) */
};

/*
 * sizeof(struct ds_session) is 5592 bytes (i386) / 6072 (x86_64) with
 * gcc 12 (ctest embed.session_size checks these figures), not the 2 KB
 * issue 29 asked for. Where the bytes are (i386 / x86_64): the LBR snapshot
 * lbr_buf 2048 / 2048 (DS_SESSION_LBR_CAP = 64 entries of 32: Arch LBR
 * depth goes to 64, and the PMI copies the frozen stack here for on_lbr);
 * the DS_SESSION_MAX_REQ = 8 requests req 1568 / 1792 (196 / 224 each: the
 * request as asked 52 / 72, the choice, and the NetBurst allocator request
 * and two assignments, 96); the PMI handler's state pmi 828 / 952 (its
 * decoded-sample scratch, struct ds_pebs_sample, is 500 / 528 of it, and
 * the result ds_session_pmi writes when given none, pmi.res, 168 / 184); the
 * saved MSRs 576 (48 addresses and values: the most a start saves is 45);
 * the DS-area context ctx 140 / 176;
 * everything else 432 / 528. 2 KB would take the LBR snapshot, the PMI
 * result and the decoded sample in caller-given storage and fewer
 * requests: an API change, not made. No smaller configuration is offered:
 * ds/config.h's options never change a layout (the kernel and the library
 * would silently disagree on this struct if they were built with different
 * values).
 */
struct ds_session {
    struct ds_cpu *cpu;
    struct ds_session_config cfg;
    enum ds_session_state state;
    unsigned nreq;
    struct ds_session_req req[DS_SESSION_MAX_REQ];
    enum ds_layout layout;
    enum ds_pebs_fmt fmt;      /* format of the PEBS requests (NONE without) */
    enum ds_uarch uarch;
    uint64_t data_cfg;         /* adaptive MSR_PEBS_DATA_CFG */
    uint64_t gctl;             /* IA32_PERF_GLOBAL_CTRL enables of the session's counters */
    uint64_t pebs_bits;        /* status bits of PEBS counters */
    uint64_t ovf_bits;         /* status bits of overflow-sampled GP counters */
    uint64_t cnt_bits;         /* GLOBAL_CTRL bits of DS_COUNT counters (and fixed 3 for DS_GROUP_METRICS) */
    bool slots;                /* DS_GROUP_METRICS: fixed counter 3 counts TOPDOWN.SLOTS from 0 */
    uint32_t nb_armed;         /* NetBurst overflow counters (bit i = counter i) */
    enum ds_freeze_mode freeze;
    bool use_area, use_apebs, lbr_on, nb_live, started;
    unsigned one_pebs;         /* the only PEBS request (fast dispatch), or DS_SESSION_MAX_REQ */
    uint64_t pmi_ip;           /* interrupted IP of the PMI being handled */
    struct ds_session_sample ev; /* the sample being delivered (PMI path: no stack copy) */
    struct ds_session_sample pev; /* one PEBS request: its sample (req set at start) */
    struct ds_ctx ctx;
    struct ds_arch_pebs ap;
    struct ds_pmi pmi;
    struct ds_nb_alloc nba;
    const struct ds_lbr_model *lbrm;
    unsigned lbrfmt;
    struct ds_lbr_entry lbr_buf[DS_SESSION_LBR_CAP];
    unsigned nsaved;
    uint32_t saved_msr[DS_SESSION_MAX_SAVED]; /* read at start, written back at teardown (IA32_PMCx through */
    uint64_t saved_val[DS_SESSION_MAX_SAVED]; /* IA32_A_PMCx where PERF_CAPABILITIES.FW_WRITE says so) */
    /* Drain accounting (read-only for the caller): the ds_drain_stats
     * (pebs.h) of every drain since ds_session_start, summed: each PMI's
     * (ds_pmi_result.pebs / .bts), each ds_session_drain_now and the final
     * drain of ds_session_stop (counts added, anomalies OR-ed). Cleared by
     * ds_session_start; kept through stop and teardown. After stop:
     * present == records + lost_beyond + lost_corrupt + lost_rejected +
     * lost_race for each; lost_rejected counts the PEBS records no request
     * claims (several PEBS requests, ds_pebs_attribute). */
    struct ds_drain_stats pebs_stats;  /* PEBS, NetBurst PEBS and arch PEBS */
    struct ds_drain_stats bts_stats;   /* BTS */
};

/*
 * Prepare @s for @cpu (identified) with @c (copied). Memory only. @s must
 * be zero-initialised (static storage or = {0}) or torn down before
 * (ds_session_unrestored(@s) == 0).
 * Errors: DS_ERR_NULL, DS_ERR_NOT_IDENTIFIED, DS_ERR_NOT_INTEL,
 * DS_ERR_SESSION_NO_PMU (family 6 with neither architectural perfmon,
 * CPUID 0AH version >= 1, nor DS/BTS: QEMU's default qemu32; the CPU
 * checks come before the config's), DS_ERR_SESSION_STATE (@s running, stopped, or with MSRs still to
 * restore: its saved values would be lost), DS_ERR_SESSION_NO_SINK (no
 * on_sample, on_pebs or on_branch), DS_ERR_SESSION_MEM (bytes without
 * mem), DS_ERR_SESSION_MEM_RANGE (mem + bytes, mem_linear + bytes or
 * mem_phys + bytes wraps; the linear range is not canonical at the CPU's
 * linear-address width, CPUID 80000008H:EAX[15:8], or crosses from the
 * lower to the upper half, with the 64-bit DS layout; the 32-bit layout's
 * 4 GiB limit is checked on the parts carved, at start),
 * DS_ERR_SESSION_MEM_OVERLAP (the region overlaps @s or @cpu: libds would
 * write the DS area over them), DS_ERR_BAD_FLAGS (pebs_flags bits other
 * than DS_PMC_PEBS_ALLOW_ERRATA), DS_ERR_PMI_FREEZE_MODE (freeze_set with
 * a mode the CPU lacks or an unknown one: pmi.h ds_pmi_freeze_check),
 * DS_ERR_SESSION_LBR (cfg.lbr without on_lbr, or no LBR row for the CPU).
 * MSRs: none. NMI-safe: no (configuration time).
 */
int ds_session_init(struct ds_session *s, struct ds_cpu *cpu, const struct ds_session_config *c);

/*
 * Add request @rq; *@out_id (may be NULL) = its index, given back in
 * ds_session_sample.req. Chooses counter and mode without touching an MSR.
 * The cause first: after the request's own checks, what the CPU lacks
 * comes before the event lookup: DS_ERR_SESSION_NO_DS for DS_SAMPLE_PRECISE
 * without DS-area or architectural PEBS (BTS modes: without DS or BTS),
 * then DS_ERR_NO_PERFMON for any counter request on family 6 without
 * architectural perfmon (never DS_ERR_EVENT_UARCH for a CPU that has no
 * counters at all).
 * Errors: DS_ERR_NULL, DS_ERR_SESSION_STATE (not READY), _TOO_MANY,
 * _NO_EVENT (neither event nor raw), _BAD_MODE, _BAD_PERIOD (0 or beyond
 * the counter), _BAD_RINGS, _NO_COUNTER, _NOT_PRECISE, _NO_DS, _NO_LDLAT,
 * _GROUPS, _BTS_TWICE, _RAW (raw request not usable on this CPU: NetBurst
 * without nb_event / family 6 without evsel, or with nb_event, nb_mask or
 * an nb_metric other than 0 and -1), _NO_CNTR_GROUP
 * (DS_GROUP_CNTR/METRICS where the format has no counters group: formats
 * 0-5, format 6 without PEBS_BASELINE, arch PEBS without CPUID.(23H,4)
 * bit 35 (CNTR_ALLOW), or bits 36/37 resp. 38), _NO_METRICS (DS_GROUP_METRICS without
 * PERF_CAPABILITIES.PERF_METRICS (format 6 and arch PEBS), arch PEBS without
 * CPUID.(23H,4) bit 38, or without fixed counter 3; fixed 3 taken:
 * _NO_COUNTER), _NO_CALLBACK (overflow sampling without on_sample, PEBS
 * without on_sample or on_pebs), the ds_event_lookup
 * errors (DS_ERR_EVENT_*), DS_ERR_UNSUPPORTED (generic events not linked).
 * On error nothing is added. MSRs: none. NMI-safe: no.
 */
int ds_session_add(struct ds_session *s, const struct ds_request *rq, unsigned *out_id);

/*
 * Save every MSR the session will write, carve the region, set up the DS
 * area / arch-PEBS buffer, install it, program every counter, initialise
 * the PMI handler (freeze mode), enable LBR, BTS and IA32_PERF_GLOBAL_CTRL.
 * Errors: DS_ERR_NULL, DS_ERR_SESSION_STATE (not READY or no request),
 * DS_ERR_SESSION_BUF_SMALL (the region cannot hold one record of each
 * buffer), DS_ERR_SESSION_SAVE (more MSRs than DS_SESSION_MAX_SAVED), the
 * region errors of ds_area_setup / ds_arch_pebs_setup (alignment, range,
 * MAXPHYADDR): all these before the first MSR access (the region is
 * carved and checked in memory, then every MSR is read, then written);
 * the PEBS errata gates below (pmc.h ds_pmc_pebs_errata_check) before
 * any PMU MSR (Sandy Bridge: IA32_BIOS_SIGN_ID only);
 * and the building blocks' errors while programming (then everything
 * already written is restored and the session is READY again; if a
 * restore write fails too, the session is STOPPED with
 * ds_session_unrestored() > 0: call ds_session_teardown), among them the PEBS errata
 * gates that ds_pmc_pebs_check leaves out (DS_ERR_PMC_PEBS_ERRATUM on
 * Merom 06_0FH, DS_ERR_PMC_PEBS_UCODE on old Sandy Bridge microcode;
 * cfg.pebs_flags = DS_PMC_PEBS_ALLOW_ERRATA accepts them). With cfg.probe:
 * ds_probe before the first save (it restores what it wrote), then
 * DS_ERR_NOT_WORKING where an item the session needs (counter for any
 * counter request, DS area for DS-area PEBS/BTS, arch PEBS) is INERT, its
 * reason where it FAULTs; nothing else is written then.
 * MSRs: reads then writes those of the requests (see ds_session_describe).
 * NMI-safe: no (configuration time; PMIs may arrive once it returns).
 */
int ds_session_start(struct ds_session *s);

/*
 * Stop: GLOBAL_CTRL = 0 (or each counter disabled), BTS and LBR off, then
 * the final drain of every buffer to the callbacks (counted in
 * pebs_stats / bts_stats). The DS area stays
 * installed until teardown. Errors: DS_ERR_NULL, DS_ERR_SESSION_STATE
 * (not running), building-block errors (first wins; every step is tried).
 */
int ds_session_stop(struct ds_session *s);

/* The part of ds_session_pmi after ds_pmi_handle that is not the common
 * case (session_pmi.c): errors, an uninitialised session, drains with losses or
 * anomalies, BTS, LBR. Called only by ds_session_pmi. */
int ds__session_pmi_rest(struct ds_session *s, struct ds_pmi_result *res, int err);

/*
 * The PMI handler body: ds_pmi_handle (drains PEBS/BTS into the callbacks,
 * reloads overflow counters and reports them as samples with IP
 * @interrupted_ip, takes the LBR snapshot while frozen), then on_lbr.
 * @out (may be NULL) gets ds_pmi_handle's result; its pebs / bts drain
 * stats are also added to s->pebs_stats / s->bts_stats.
 * Returns DS_OK when the PMI was the session's, DS_ERR_SESSION_SPURIOUS
 * when nothing was (an NMI handler passes it on), else the ds_pmi_handle
 * error. NMI-safe: yes if the callbacks are.
 * Inline (issue 16: at most 5 % over the hand-wired ds_pmi_handle, bench.sh
 * section 6): a foreign NMI and a clean PEBS drain cost ds_pmi_handle plus
 * a few tests; everything else is ds__session_pmi_rest. A PMI the session
 * took always has result.handled (every drain and every ack sets it; the
 * LBR snapshot is only taken for status bits that are then acked).
 * Stack, on the interrupted (or IST) stack: at most 492 bytes (i386) /
 * 432 (x86_64) as a function of its own, with the session's sinks, plus
 * your callbacks and MSR backend (ctest embed.stack.*: gcc 12 -O2 with the
 * installed library's flags; PMI-path budget 512 on both, issue 29's goal;
 * docs/porting.md section 11). @out NULL: the result goes to
 * s->pmi.res (struct ds_pmi keeps one; the session no longer has its own).
 * sizeof(struct ds_session): see struct ds_session (more than a 4 KiB
 * kernel stack): place it statically per CPU, never on a kernel stack.
 */
static inline int ds_session_pmi(struct ds_session *s, uint64_t interrupted_ip, struct ds_pmi_result *out)
{
    struct ds_pmi_result *r;
    int e;
    if (!s)
        return DS_ERR_NULL;
    r = out ? out : &s->pmi.res; /* struct ds_pmi holds one */
    s->pmi_ip = interrupted_ip;
    /* ds_pmi_handle without its NULL and result checks, made above (issue 28
     * item 5); not initialised: DS_ERR_PMI_NOT_INIT, @r untouched */
    e = ds__pmi_handle_r(&s->pmi, r);
    if (!e && !r->handled)
        return DS_ERR_SESSION_SPURIOUS; /* nothing drained, acked or to unfreeze */
    /* (r->pebs is zero when nothing was drained; a clean drain has
     * present == records: no loss, so the lost_* counts are 0) */
    if (e || s->lbr_on || r->bts_drained || r->pebs.present != r->pebs.records || r->pebs.anomalies)
        return ds__session_pmi_rest(s, r, e);
    uint64_t n = r->pebs.records; /* == present: one value live (i386 frame) */
    s->pebs_stats.present += n;
    s->pebs_stats.records += n;
    return DS_OK;
}

/* Drain the PEBS and BTS buffers now (circular BTS: read the ring); the
 * drains' ds_drain_stats are added to pebs_stats / bts_stats.
 * Errors: DS_ERR_NULL, DS_ERR_SESSION_STATE (never started), drain errors.
 * NMI-safe: not concurrently with ds_session_pmi on this CPU. */
int ds_session_drain_now(struct ds_session *s);

/*
 * Stop if running, uninstall, release the NetBurst counters, and write back
 * every MSR saved at start (reverse order). When every write-back
 * succeeded the session returns to READY with its requests (start may be
 * called again). When some failed (DS_ERR_MSR_FAULT; every write is still
 * tried), those MSRs stay saved and the session STOPPED:
 * ds_session_unrestored() says how many, and ds_session_teardown may be
 * called again (it retries only them, in the same order) until it is 0.
 * Errors: DS_ERR_NULL, DS_ERR_SESSION_STATE (never started, or already
 * torn down completely), DS_ERR_MSR_FAULT, a ds_session_stop error (the
 * restore is done anyway). NMI-safe: no.
 */
int ds_session_teardown(struct ds_session *s);

/*
 * Change the sampling period of request @req_id (Linux perf_event_period).
 * @period is validated exactly as ds_session_add validates rq.period (0,
 * beyond the counter width, above 2^31 for arch PEBS, NetBurst's
 * ds_nb_period: DS_ERR_SESSION_BAD_PERIOD); on error nothing changes.
 * READY or STOPPED: the new values are kept for the next start. RUNNING
 * (family 6): the counter is stopped (its IA32_PERF_GLOBAL_CTRL bit off;
 * perfmon v1: EVTSEL.EN off), -@period written to it, the reload written
 * (DS-area PEBS: the DS reset slot; arch PEBS: IA32_PMC_x_CFG_C[31:0];
 * overflow: what the PMI reloads), and the session's GLOBAL_CTRL written
 * back. RUNNING (NetBurst, Linux p4.c): the CCCR written without Enable
 * and OVF, 2^40 - @period written to the counter twice (erratum N15), the
 * DS reset slot for NetBurst PEBS, the CCCR with Enable again. Either way
 * the next sample comes @period events after the call. Events
 * counted before the call toward the old period are dropped, as in Linux.
 * Not concurrently with ds_session_pmi on the same session (call it with
 * the LVT PC masked, or from the PMI path after ds_session_pmi returned).
 * Errors: DS_ERR_NULL, DS_ERR_SESSION_STATE (never initialised),
 * DS_ERR_SESSION_BAD_REQ (@req_id not returned by ds_session_add),
 * DS_ERR_SESSION_NO_PERIOD (BTS, DS_COUNT), DS_ERR_SESSION_BAD_PERIOD,
 * DS_ERR_MSR_FAULT and the pmc.h / arch_pebs.h / netburst.h programming
 * errors.
 * MSRs: RUNNING: writes IA32_PERF_GLOBAL_CTRL (0x38F) twice, the counter
 * (GP: IA32_PMCx / A_PMCx; fixed: IA32_FIXED_CTR_CTRL + IA32_FIXED_CTRx),
 * arch PEBS IA32_PMC_x_CFG_C; perfmon v1: IA32_PERFEVTSELx twice;
 * NetBurst: the CCCR (0x360+n) twice and the counter (0x300+n) twice.
 * Else none.
 * NMI-safe: yes (no locks), but not concurrently with ds_session_pmi.
 */
int ds_session_set_period(struct ds_session *s, unsigned req_id, uint64_t period);

/*
 * No frequency mode (perf's attr.freq): Linux derives the period from the
 * event rate measured against a clock (perf_calculate_period, from the
 * count and the nanoseconds since the last adjustment) on every timer tick
 * (perf_adjust_freq_unthr_context) and in each PMI. libds has neither a
 * clock nor a tick, and guessing one (TSC rate) would be a policy the
 * kernel knows better. The kernel has both: from its tick, count the
 * samples of each request since the last tick and call
 * ds_session_set_period with period * (samples wanted / samples seen)
 * (Linux's arithmetic, perf_calculate_period), clamped to what add accepts.
 */

/*
 * MSRs that ds_session_start saved and no teardown has written back yet:
 * 0 for a session never started, torn down completely, or NULL; while
 * started, every saved MSR; after a teardown (or a failed start) whose
 * write-backs partly failed, the ones still to restore. No error return.
 * MSRs: none. NMI-safe: yes.
 */
unsigned ds_session_unrestored(const struct ds_session *s);

/*
 * What the session chose, one line per item: microarchitecture, PEBS
 * format, per request event name + encoding, counter (PMCn, FIXEDn,
 * NetBurst counter + ESCR), PEBS / arch PEBS / overflow / BTS, period and
 * reset, buffers (records, threshold), freeze mode. Valid after add;
 * before start the buffers are the planned ones ("planned PEBS buffer:
 * ...", computed as start will carve them, or the error start would give
 * for the region), after start the ones set up. A fixed counter shows its
 * IA32_FIXED_CTR_CTRL field ("fixed_ctr_ctrl 0x3 on FIXED0"), a GP counter
 * its EVTSEL. DS_ERR_BUFSZ when truncated (NUL-terminated).
 * Errors: DS_ERR_NULL, DS_ERR_BUFSZ, DS_ERR_UNSUPPORTED (DS_CONFIG_FORMAT=0).
 * MSRs: none. NMI-safe: yes.
 */
int ds_session_describe(const struct ds_session *s, char *buf, size_t len);

#ifdef __cplusplus
}
#endif

#endif /* DS_SESSION_H */
