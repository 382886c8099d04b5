/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * libds.ko (issue 30): libds's test flows on the PMU of every online CPU of
 * a running Linux, or on the reference model (backend=model). One struct
 * ldk_cpu per CPU; nothing else is shared between CPUs except the module
 * parameters. See docs/design.md "On Linux".
 *
 *  ldk_main.c  module parameters, PMU ownership check, per-CPU dispatch
 *              (work_on_cpu), the NMI handler, the debugfs log
 *  ldk_msr.c   the ds_msr_ops backend (rdmsrl_safe / wrmsrl_safe / cpuid)
 *              and the PMU-in-use check
 *  ldk_flow.c  the flows over libds's session API, their checks (TAP) and
 *              their records (DSLOG, kernel/records)
 *  ldk_step.c  the model backend's single-step feed: a DIE_DEBUG notifier
 *              turns each #DB of a stepped workload into one dsm_retire
 */
#ifndef LDK_H
#define LDK_H

#include <linux/types.h>
#include <ds/ds.h>
#include <ds/session.h>
#include "dsmodel.h"
#include "ds_model_ops.h"
#include "records.h"
#include "feed.h"
#include "workloads.h"

#define LDK_MEM_ORDER 4u                   /* 64 KiB session region per CPU */
#define LDK_MEM_BYTES (4096u << LDK_MEM_ORDER)
#define LDK_LOG_KIB 512u                   /* one CPU's DSLOG + TAP text (vzalloc), default of log_kib= */
#define LDK_MAX_PEBS 128u
#define LDK_MAX_BTS 512u
#define LDK_MAX_SNAP 4u
#define LDK_LBR_CAP 64u
#define LDK_CHASE_LEN 64u

/* What the PMU-in-use check found on one CPU (ldk_msr.c). */
struct ldk_busy {
    bool busy;
    char why[160];                         /* "IA32_PERFEVTSEL0=0x53003c (EN)" ... */
};

struct ldk_cpu {
    unsigned cpu;                          /* Linux CPU number */
    unsigned seq;                          /* its rank among the CPUs used (0, 1, ...) */
    u32 apic;                              /* its APIC ID (DSLOG cpu=) */
    struct ds_cpu host;                    /* this CPU through ldk_msr_ops */
    int host_err;                          /* ds_cpu_identify's answer */
    /* the session and its region: physically contiguous, page aligned,
     * from the page allocator on the CPU's node (ldk_main.c) */
    struct ds_session ses;
    void *mem;
    u64 phys;
    /* the model backend; backend=bare: the workload this many times, nothing else */
    bool model;
    u32 bare;
    struct dsm_cpu *m;
    struct ds_cpu mc;
    struct ds_model_mem mm;
    struct ds_cpu *dc;                     /* &host or &mc: what the session runs on */
    const char *prof;                      /* "native" or the model profile's token */
    char proftok[32];
    char text[2048];                       /* ds_caps_format's text */
    /* the current run */
    volatile bool live;                    /* the session may raise PMIs (NMI handler) */
    u32 pmis, spurious, pmi_err, ovf;      /* PMIs handled, foreign, failed; overflow samples */
    u32 npebs, pebs_over, nbts, bts_over, nsnap, snap_over;
    struct dsrec_pebs *pebs;               /* [LDK_MAX_PEBS] */
    u64 *pebs_ip;                          /* [LDK_MAX_PEBS] eventing IP (or IP) of each */
    bool pebs_mem[LDK_MAX_PEBS];           /* the record has the memory group (data_la) */
    struct ds_bts_branch *bts;             /* [LDK_MAX_BTS] */
    struct ds_lbr_entry (*snap)[LDK_LBR_CAP];
    u32 snap_n[LDK_MAX_SNAP];
    u64 snap_taken[LDK_MAX_SNAP];          /* model: taken branches fed when the snapshot was read */
    u32 *chase;                            /* [LDK_CHASE_LEN] */
    int rec_counter;
    /* single-step feed (model backend, ldk_step.c) */
    volatile bool stepping;
    bool have_prev, pmi_pending;
    struct step_regs prev;
    u64 lo, hi;
    u64 insns, loads, branches, taken, bad_steps, dsm_err;
    u64 *tk_from, *tk_to;                  /* [LDK_MAX_BTS] the taken branches fed, in order */
    /* the log */
    char *log;
    size_t loglen, logcap;                 /* logcap: log_kib KiB */
    u32 log_over;
    struct dsrec_out out;
    u32 tap, passed, failed, skipped;       /* of the current log */
    u32 tot_passed, tot_failed, tot_skipped; /* of all the CPU's logs */
};

enum ldk_wl { LDK_LOOP, LDK_CHASE, LDK_CALLS };

/* One run of the flow table (ldk_flow.c). */
struct ldk_run {
    const char *name, *kind;               /* DSLOG run name and kind */
    enum ldk_wl wl;
    u32 n;                                 /* workload argument */
    enum ds_sample_mode mode;
    enum ds_event event;
    u64 period;
    u32 nrec;                              /* BTS records of the region / PEBS records to the threshold */
    u8 evsel, umask;                       /* != 0: the raw event asked for (event: what it counts) */
    bool lbr_group;                        /* adaptive PEBS: the LBR group too, where the CPU has LBRs */
    bool cntr;                             /* PEBS format 6: the counters group (kernel/records/dscheck.h) */
};

/* The MSRs a run may change (SDM Vol. 4 numbers, independent of the
 * session's own save list), read before and after each run (ldk_check.c). */
#define LDK_NMSR 21u
struct ldk_msrs {
    u64 v[LDK_NMSR];
    bool ok[LDK_NMSR];
};

/* ldk_check.c */
bool ldk_check(struct ldk_cpu *c, bool ok, const char *fmt, ...) __printf(3, 4);
u32 ldk_groups(struct ldk_cpu *c, const struct ldk_run *r);
void ldk_msr_snap(struct ldk_cpu *c, struct ldk_msrs *m);
void ldk_msr_check(struct ldk_cpu *c, const struct ldk_run *r, const struct ldk_msrs *b, const struct ldk_msrs *a);
void ldk_run_checks(struct ldk_cpu *c, const struct ldk_run *r, const struct wl_expect *x, u64 lo, u64 hi);
bool ldk_check_cb(void *ctx, bool ok, const char *fmt, ...) __printf(3, 4);
void ldk_records(struct ldk_cpu *c, const struct ldk_run *r, const struct wl_expect *x);
void ldk_busy_checks(struct ldk_cpu *c);

/* ldk_msr.c */
extern const struct ds_msr_ops ldk_msr_ops;
void ldk_pmu_busy(const struct ds_cpu *dc, struct ldk_busy *b);

/* ldk_flow.c: every flow of one CPU on the calling CPU (pinned). */
void ldk_flows(struct ldk_cpu *c, const char *profiles);
void ldk_printf(struct ldk_cpu *c, const char *fmt, ...) __printf(2, 3);

/* ldk_step.c */
int ldk_step_register(void);
void ldk_step_unregister(void);
u32 ldk_step_run(struct ldk_cpu *c, u32 (*fn)(struct ldk_cpu *c, u32 n), u32 n, u64 lo, u64 hi);

/* ldk_main.c: the CPU running now (NMI and #DB handlers) */
struct ldk_cpu *ldk_this(void);

#endif
