/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The e2e flows' private header (issue 26: the flows one file per family).
 * See e2e.h and docs/design.md, "Test kernel end to end".
 *
 * One flow, two backends:
 *  - hw: libds over the native MSRs (k_ds_msr_ops); the workloads run at
 *    full speed and the CPU raises real PMIs;
 *  - model: libds over the reference model (model/, through
 *    ds_model_msr_ops); the workloads run under EFLAGS.TF and the #DB
 *    handler feeds the model every retired instruction (step_feed +
 *    step_to_dsm) with the trap frame's registers, so every record
 *    describes the real execution. PMIs the model requests go out through
 *    the real local APIC (deliver_pmi), and the PMI handler is the same in
 *    both cases: ds_session_pmi() plus an LBR snapshot.
 * The only differences between the backends are the struct ds_cpu the flow
 * uses and whether run_workload() single-steps.
 *
 * The files, each calling only those below it (tests/layout/depgraph.py):
 *   e2e.c      backend choice (the functional probe), entry points, the group
 *   profile.c  model profiles, the runs of one profile
 *   session.c  one run through the session API: the run driver
 *   checks.c   the checks of a DS-area run, the model-run checks
 *   apebs.c    architectural PEBS      netburst.c  NetBurst's PEBS runs
 *   pebs.c     PEBS records, checks, format 6 counters group, PEBS runs
 *   bts.c      BTS                     lbr.c       LBR, counter overflow
 *   handler.c  the PMI handler         step.c      single-step driver, workloads
 *   log.c      check lines and DSLOG output
 *   state.c    the per-CPU state (E) and helpers
 *
 * Kernel scaffolding: the state lives in one struct per CPU (E, the calling
 * CPU's: k_e2e_run_all runs the flows on every CPU at once, issue 13);
 * libds and the model themselves keep no globals.
 */
#ifndef K_E2E_FLOW_H
#define K_E2E_FLOW_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <ds/ds.h>
#include <ds/area.h>
#include <ds/arch_pebs.h>
#include <ds/bts.h>
#include <ds/lbr.h>
#include <ds/netburst.h>
#include <ds/pebs.h>
#include <ds/pmc.h>
#include <ds/pmi.h>
#include <ds/probe.h>
#include <ds/session.h>

#include <k/cmdline.h>
#include <k/console.h>
#include <k/io.h>
#include <k/smp.h>
#include <k/verdict.h>
#include <k/kernel.h>
#include <k/ktest.h>
#include <k/lapic.h>
#include <k/pmi.h>
#include <k/safe.h>
#include <k/trap.h>

#include "ds_model_ops.h"
#include "feed.h"
#include "records.h"
#include "step_dsm.h"
#include "workloads.h"

#define TF_BIT 0x100u

/* Sizes: modest, so a run single-steps a few thousand instructions. */
#define LOOP_N 300u        /* wl_loop(300): 905 instructions */
#define LOOP_PERIOD 47u    /* -> 19 samples */
#define CHASE_N 200u       /* wl_chase(.., 200): 200 array loads */
#define CHASE_PERIOD 9u    /* loads -> 22 samples */
#define CHASE_IPERIOD 31u  /* instructions (Core 2: C0H) */
#define BTS_LOOP_N 100u    /* wl_loop(100): 100 taken branches */
#define LBR_PERIOD 23u     /* BR_INST_RETIRED.ALL_BRANCHES on wl_calls(12): 110 -> 4 PMIs */
#define BTS_CALLS_N 12u    /* wl_calls(12): 108 taken branches */
#define CHASE_LEN 64u

#define HOLD_STEPS 20u     /* < LOOP_PERIOD: while the PMI is held at most one more record arrives
                              (the session leaves >= 1 record beyond the threshold) */
#define PEBS_THR 8u
#define BTS_NREC 32u
#define BTS_CIRC_NREC 16u

#define MAX_PEBS 64u
#define MAX_BTS 256u
#define MAX_TAKEN 512u
#define MAX_SNAP 4u
#define PRINT_SNAP 2u
#define LBR_CAP 64u

enum wl_id { WL_LOOP, WL_CHASE, WL_CALLS };

struct taken_br {
    uint64_t from, to;
};

struct snap {
    uint32_t n;              /* entries read */
    uint64_t taken_at;       /* taken branches fed when the LBR stopped changing */
    uint64_t since;          /* taken workload branches before the previous handler's branches */
    uint64_t hb_lo, hb_hi;   /* model: FROM range of this PMI's fed handler branches */
    bool in_handler;         /* read by ds_pmi_handle's snapshot step (before the ack) */
    int err;
    struct ds_lbr_entry e[LBR_CAP];
};

/* Per-sample facts the checks need, kept beside the printed record. */
struct pinfo {
    uint64_t check_ip;  /* eventing IP if the format has it, else the IP field */
    bool next;          /* check_ip is the next instruction (trap-like) */
    bool has_mem;
    bool mode64;        /* architectural PEBS: first fragment's header 64BIT_MODE [30] */
    uint64_t data_addr;
};

#define SES_BYTES (4096u + 16384u) /* session region: DS area page + PEBS or BTS part */
#define E2E_LOG_BYTES (128u * 1024u) /* one DSLOG log of one profile: 59 KB the longest measured */

/* Everything one CPU's flow uses: one per CPU (issue 13), so that the flows
 * run on every CPU at once; E is the calling CPU's (e2e_self). */
struct e2e {
    /* the probe's DS area and buffer (identity-mapped: linear == pointer) */
    _Alignas(4096) union ds_area probe_area;
    _Alignas(4096) uint8_t probe_buf[16 * DS_BTS_REC64_SIZE];
    /* Session runs (issue 16, do_session_run): the session's one region (DS
     * area page + PEBS or BTS part; arch PEBS: one 4 KiB buffer) */
    _Alignas(4096) uint8_t ses_mem[SES_BYTES];
    uint32_t chase_arr[CHASE_LEN];
    struct pinfo pinfo[MAX_PEBS];
    /* lbr-calls: overflow samples the session delivered */
    uint32_t ctr_ovf;
    /* the session, whether the PMI is the session's, and the DSLOG counter= of
     * the records (GP n, fixed 32+m: the counter the session chose) */
    struct ds_session ses;
    int32_t rec_counter;
    /* ds_pmi_config.lbr.buf: the handler's snapshot step reads here before the ack. */
    struct ds_lbr_entry lbr_step_buf[LBR_CAP];
    /* this CPU (issue 13): its own identification, profile list, label */
    struct ds_cpu host;      /* the CPU's own ds_cpu (the BSP's k_cpu, or the AP's) */
    int host_err;
    const char *override;    /* model profiles for this CPU (cpu_profile.N=), or NULL */
    char tag[16];            /* "cpuN " in front of every check when CPUs run at once */
    char kname[24], profbuf[32], whyt[32], vlabel[48], why[64];
    char probe_text[1024];   /* 5 probe lines, each naming its MSR */
    unsigned logs, tot_passed, tot_failed, tot_skipped; /* over all logs of the CPU */
    uint64_t t0, t1;         /* TSC when the CPU's flow started and ended (k_e2e_run_all) */
    bool log_buffered;       /* several CPUs at once: the log goes out whole at log_end */
    unsigned log_over;       /* times the log outgrew logbuf */
    size_t loglen;
    char logbuf[E2E_LOG_BYTES];
    bool ran;
    bool posted;             /* k_e2e_run_all posted the flows to this CPU */
    /* backend */
    bool model;
    enum dsm_profile prof;
    const char *prof_name;
    struct dsm_cpu m;
    struct ds_cpu mc;
    struct ds_cpu *cpu;
    const struct ds_lbr_model *lbrm;
    unsigned lbrfmt;
    bool lbr_on, lbr_freeze;
    /* current run */
    volatile bool active;    /* a run owns the PMI */
    bool nb;                 /* NetBurst PEBS (no global status) */
    uint64_t lo, hi;         /* workload range */
    /* stepping */
    volatile bool stepping;
    bool have_prev;
    struct step_regs prev;
    uint64_t insns, loads, branches, taken_n, bad_steps, dsm_err;
    struct taken_br taken[MAX_TAKEN];
    /* PMI delivery (model) */
    volatile bool pmi_pending;
    uint64_t pend_taken_at;
    uint32_t raised, held, delivered;
    uint32_t hold_steps;     /* > 0: unmask LVT PC after this many steps with a PMI pending */
    volatile uint32_t handled;
    int pmi_err;
    uint32_t nmi_timeouts;
    /* collected */
    struct ds_drain_stats pst, bst;
    uint32_t npebs, pebs_over;
    struct dsrec_pebs pebs[MAX_PEBS];
    uint32_t nbts, bts_over;
    struct ds_bts_branch bts[MAX_BTS];
    uint32_t nsnap, snap_over;
    struct snap snap[MAX_SNAP];
    /* model: the PMI handler's own branches (issue 10 item 1) */
    bool feed_hb;            /* feed one per handler MSR access (dsm_set_msr_hook) */
    uint32_t hb_pmi;         /* handler invocations that fed branches */
    uint64_t hb_fed, hb_mark;/* fed in total; E.taken_n when the last handler ended */
    /* log */
    struct dsrec_out out;
    unsigned passed, failed, skipped;
    const char *profile;     /* of the current log, for the verdict */
};

/* The calling CPU's state (state.c); a function never changes CPU, hence
 * const. CPU @i's: e2e_cpu(i) (k_e2e_run_all). */
struct e2e *e2e_self(void) __attribute__((const));
struct e2e *e2e_cpu(unsigned i);
#define E (*e2e_self())

/* --- run plumbing ----------------------------------------------------------- */

struct run_cfg {
    const char *name;
    const char *kind;        /* DSLOG RUN kind */
    enum wl_id wl;
    uint32_t n;
    bool pebs;
    uint8_t event, umask;    /* architectural PEBS event */
    bool loads;              /* the event counts loads (else instructions) */
    uint64_t period;
    bool bts, bts_int;
    uint32_t bts_nrec;
    bool nmi;
    enum ds_freeze_mode freeze;
    bool adaptive_lbr;       /* fmt 4+: LBR group in the record */
    bool lbr;                /* LBR on, snapshots in the PMI handler */
    bool ctr_pmi;            /* PMC1 counts event/umask with EVTSEL.INT, reloaded by the hook */
    bool hold_first;         /* model: start with LVT PC masked; unmask HOLD_STEPS steps
                                after the first PMI request (it must wait, then arrive) */
    bool cntr;               /* fmt 6: counters group of PMC0, PMC1 (same event, no PMI)
                                and fixed 0 in every record */
    enum ds_event generic;   /* session runs: the generic event the run means (event.h), else raw event/umask */
};

/* state.c */
void zero(void *v, size_t n);
uint64_t lost_of(const struct ds_drain_stats *s);

/* log.c: check lines (counted per log) and the DSLOG log of a profile */
bool check(bool cond, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
bool vcheck(bool cond, const char *fmt, va_list ap) __attribute__((format(printf, 2, 0)));
bool need(bool cond, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void log_begin(const char *backend, const char *profile, const char *why);
void log_end(void);
void print_run(const struct run_cfg *rc, uint64_t events, uint64_t samples_expected);

/* step.c: the model's PMI, the single-step driver, the workloads */
void model_pmi(void *ctx, uint32_t reasons);
void deliver_pmi(void);
void db_handler(struct k_trap_frame *f, void *ctx);
void wl_range(enum wl_id w, uint64_t *lo, uint64_t *hi);
const char *wl_name(enum wl_id w);
void wl_expect_of(enum wl_id w, uint32_t n, struct wl_expect *x);
uint32_t run_workload(enum wl_id w, uint32_t n);

/* handler.c */
bool pmi_handler(struct k_trap_frame *f, bool in_nmi, void *ctx);

/* pebs.c */
int pebs_sink(void *arg, const struct ds_pebs_sample *s);
bool ip_ok(uint32_t i, uint64_t ret_to);
uint64_t ret_to_of_run(void);
uint64_t pebs_run_checks(const struct run_cfg *rc, uint64_t events);
uint64_t cntr_data_cfg(void);
void check_cntr(const struct run_cfg *rc, uint64_t data_cfg);
unsigned pebs_runs(struct run_cfg *runs, unsigned nr, enum ds_freeze_mode fz);

/* netburst.c */
unsigned nb_runs(struct run_cfg *runs, unsigned nr);

/* bts.c */
int bts_sink(void *arg, const struct ds_bts_branch *b);
void bts_int_checks(const struct run_cfg *rc, const struct wl_expect *x);
void bts_circ_checks(const struct run_cfg *rc, const struct wl_expect *x);
unsigned bts_runs(struct run_cfg *runs, unsigned nr);

/* lbr.c */
void lbr_setup(void);
void check_lbr(const struct run_cfg *rc);
uint64_t ctr_pmi_checks(const struct run_cfg *rc, const struct wl_expect *x, uint64_t *events);
unsigned lbr_runs(struct run_cfg *runs, unsigned nr);

/* apebs.c */
void apebs_run_checks(const struct run_cfg *rc, uint32_t want_frags);

/* checks.c */
void run_checks(const struct run_cfg *rc, uint64_t *out_events, uint64_t *out_expect);

/* session.c */
void do_session_run(const struct run_cfg *rc);

/* profile.c */
void run_all(void);
void run_model_profile(const char *name, const char *why);
void run_model(const char *why);

#endif
