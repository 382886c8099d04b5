// SPDX-License-Identifier: BSD-2-Clause
/*
 * The checks of each run and its DSLOG records. Expectations come from
 * kernel/workloads/workloads.h (the assembly's exact counts), the model's
 * documented sampling rule (dsm_pebs_expected) and the taken branches the
 * single-step feed saw; on hardware, the tolerances of the test kernel
 * (kernel/e2e): PEBS samples within 2 + 25 %, >= 75 % of the sampled IPs in
 * the workload (kernel code around it counts too), BTS records from the
 * workload = its taken branches.
 */
#include <linux/kernel.h>
#include <linux/string.h>
#include "ldk.h"
#include "dscheck.h"

static const u32 ldk_msr_list[LDK_NMSR] = {
    0x1D9u /* DEBUGCTL */, 0x600u /* DS_AREA */, 0x3F1u /* PEBS_ENABLE */, 0x3F2u /* DATA_CFG / MATRIX_VERT */,
    0x3F6u /* LD_LAT */, 0x38Du /* FIXED_CTR_CTRL */, 0x38Fu /* GLOBAL_CTRL */, 0x186u, 0x187u, 0x188u,
    0x189u /* PERFEVTSEL0-3 */, 0x1C8u /* LBR_SELECT */, 0x14CEu /* ARCH LBR_CTL */, 0x3F4u, 0x3F5u /* PEBS_BASE/INDEX */,
    0x1903u, 0x1907u /* GP0/1 CFG_C */, 0x370u, 0x371u /* IQ_CCCR4/5 */, 0x3B2u, 0x3B3u /* CRU_ESCR2/3 */,
};

/* Through the session's backend: the real MSR (rdmsrl_safe) or the model's. */
void ldk_msr_snap(struct ldk_cpu *c, struct ldk_msrs *m)
{
    for (unsigned i = 0; i < LDK_NMSR; i++)
        m->ok[i] = ds_msr_read(c->dc, ldk_msr_list[i], &m->v[i]) == DS_OK;
}

void ldk_msr_check(struct ldk_cpu *c, const struct ldk_run *r, const struct ldk_msrs *b, const struct ldk_msrs *a)
{
    unsigned same = 0, readable = 0;
    for (unsigned i = 0; i < LDK_NMSR; i++) {
        bool eq = b->ok[i] == a->ok[i] && (!b->ok[i] || b->v[i] == a->v[i]);
        same += eq;
        readable += b->ok[i];
        if (!eq)
            ldk_printf(c, "# cpu%u %s %s: MSR 0x%x was 0x%llx, after teardown 0x%llx\n", c->cpu, c->prof, r->name,
                       ldk_msr_list[i], (unsigned long long)b->v[i], (unsigned long long)a->v[i]);
    }
    ldk_check(c, same == LDK_NMSR, "%s: every perfmon/DS/LBR MSR as before the run (%u of %u readable)", r->name,
              readable, LDK_NMSR);
}

static u64 lost_of(const struct ds_drain_stats *s)
{
    return s->lost_beyond + s->lost_corrupt + s->lost_rejected + s->lost_race;
}

static void step_checks(struct ldk_cpu *c, const struct ldk_run *r, const struct wl_expect *x)
{
    ldk_check(c, !c->bad_steps && !c->dsm_err, "%s: every step decoded and fed (bad %llu, model errors %llu)",
              r->name, c->bad_steps, c->dsm_err);
    ldk_check(c, c->insns == x->insns && c->taken == x->taken && c->loads == x->loads,
              "%s: stepped %llu instructions, %llu taken, %llu loads (workloads.h: %llu, %llu, %llu)", r->name,
              c->insns, c->taken, c->loads, x->insns, x->taken, x->loads);
    ldk_check(c, !c->pmi_err, "%s: model PMIs handled by ds_session_pmi: %u (%u errors)", r->name, c->pmis,
              c->pmi_err);
}

static void pebs_checks(struct ldk_cpu *c, const struct ldk_run *r, const struct wl_expect *x, u64 lo, u64 hi)
{
    bool loads = r->event == DS_EVENT_LOADS;
    const char *wl = loads ? "wl_chase" : "wl_loop";
    u64 events = loads ? (c->model ? c->loads : x->loads) : (c->model ? c->insns : x->insns);
    u32 mem_n = 0, mem_ok = 0;
    u64 expect = dsm_pebs_expected(events, r->period), got = c->npebs + c->pebs_over;
    u64 ret_to = c->model && c->taken && c->taken <= LDK_MAX_BTS ? c->tk_to[c->taken - 1] : 0;
    const struct ds_drain_stats *st = &c->ses.pebs_stats;
    u32 in = 0;
    for (u32 i = 0; i < c->npebs; i++) {
        u64 a = c->pebs[i].data_la, b = (uintptr_t)c->chase;
        in += (c->pebs_ip[i] >= lo && c->pebs_ip[i] < hi) || c->pebs_ip[i] == ret_to;
        if (loads && c->pebs_mem[i]) {
            mem_n++;
            mem_ok += a >= b && a < b + LDK_CHASE_LEN * sizeof(u32) && !((a - b) & 3);
        }
    }
    if (c->model) {
        ldk_check(c, got == expect, "%s: %llu PEBS samples = floor((%llu %s - 1) / %llu) (model rule)", r->name, got,
                  events, loads ? "loads" : "instructions", r->period);
        ldk_check(c, c->npebs && in == c->npebs, "%s: all %u sampled IPs inside %s", r->name, c->npebs, wl);
        ldk_check(c, st->present == dsm_stats(c->m)->pebs_written, "%s: the model wrote %llu PEBS records, all drained",
                  r->name, (u64)dsm_stats(c->m)->pebs_written);
    } else {
        u64 tol = 2 + expect / 4;
        ldk_check(c, got + tol >= expect && got <= expect + tol, "%s: %llu PEBS samples ~ %llu (+-%llu)", r->name, got,
                  expect, tol);
        ldk_check(c, c->npebs && in * 4 >= c->npebs * 3, "%s: %u of %u sampled IPs inside %s (>= 75%%)", r->name,
                  in, c->npebs, wl);
    }
    if (mem_n)
        ldk_check(c, mem_ok == mem_n, "%s: %u of %u sampled data addresses inside the chased array", r->name, mem_ok,
                  mem_n);
    ldk_check(c, st->records + lost_of(st) == st->present && !lost_of(st) && !c->pebs_over,
              "%s: PEBS drain: %llu present = %llu records, none lost", r->name, (u64)st->present, (u64)st->records);
}

static void bts_checks(struct ldk_cpu *c, const struct ldk_run *r, const struct wl_expect *x, u64 lo, u64 hi)
{
    const struct ds_drain_stats *st = &c->ses.bts_stats;
    bool circ = r->mode == DS_TRACE_BTS_CIRCULAR;
    u64 taken = c->model ? c->taken : x->taken;
    u64 keep = circ && taken > r->nrec ? r->nrec : taken, first = taken - keep;
    u32 in = 0;
    bool same = c->model && c->nbts == keep && c->taken <= LDK_MAX_BTS;
    for (u32 i = 0; i < c->nbts; i++)
        in += c->bts[i].from >= lo && c->bts[i].from < hi;
    for (u32 i = 0; same && i < c->nbts; i++)
        same = c->bts[i].from == c->tk_from[first + i] && c->bts[i].to == c->tk_to[first + i];
    if (c->model)
        ldk_check(c, same, "%s: BTS holds the %s%llu of %llu taken branches, in order (%u records)", r->name,
                  circ ? "newest " : "", keep, taken, c->nbts);
    else
        ldk_check(c, circ ? c->nbts == keep : in == x->taken, "%s: %u BTS records (%u from the workload), %llu taken",
                  r->name, c->nbts, in, taken);
    if (circ) {
        ldk_check(c, taken <= r->nrec || (st->anomalies & DS_DRAIN_WRAPPED), "%s: the drain reports the wrap",
                  r->name);
        ldk_check(c, c->pmis == 0, "%s: circular BTS raised no PMI (%u)", r->name, c->pmis);
    } else {
        ldk_check(c, c->pmis > 0, "%s: BTS threshold PMIs handled: %u", r->name, c->pmis);
    }
    ldk_check(c, st->records + lost_of(st) == st->present && !lost_of(st) && !c->bts_over,
              "%s: BTS drain: %llu present = %llu records, none lost", r->name, (u64)st->present, (u64)st->records);
}

/* Counter overflows on branches with an LBR snapshot at each PMI: the
 * newest entry of each snapshot is a branch of the workload. */
static void lbr_checks(struct ldk_cpu *c, const struct ldk_run *r, const struct wl_expect *x, u64 lo, u64 hi)
{
    u64 br = c->model ? c->branches : x->taken + x->jcc_not_taken, want = br / r->period;
    u32 in = 0;
    for (u32 i = 0; i < c->nsnap; i++)
        in += c->snap_n[i] && c->snap[i][0].from >= lo && c->snap[i][0].from < hi;
    u64 tol = c->model ? 0 : 2 + want / 4;  /* hardware: the kernel's own branches count too (kernel/e2e) */
    if (c->model)
        ldk_check(c, c->branches == x->taken + x->jcc_not_taken, "%s: stepped %llu branches (workloads.h: %llu)",
                  r->name, c->branches, x->taken + x->jcc_not_taken);
    ldk_check(c, c->ovf + tol >= want && c->ovf <= want + tol,
              "%s: %u counter overflows = floor(%llu branches / %llu) = %llu, each delivered as a sample (+-%llu)",
              r->name, c->ovf, br, r->period, want, tol);
    if (c->ses.freeze == DS_FREEZE_NONE)  /* session.h: snapshots are taken while frozen only */
        ldk_check(c, c->nsnap == 0, "%s: no LBR freeze on PMI on this CPU: no snapshot (%u)", r->name, c->nsnap);
    else
        ldk_check(c, c->nsnap && in == c->nsnap, "%s: %u LBR snapshots, the newest entry of each inside wl_calls",
                  r->name, c->nsnap);
}

/* The LBR snapshots of a PEBS run with LBRs on (the test kernel's
 * check_lbr): one per PMI where the session froze the LBRs (session.h);
 * model: the newest entries of each are the last taken branches the feed
 * saw, newest first (the module's PMI handler feeds no branch of its own);
 * hardware: at least half of the non-empty entries are branches of the
 * workload (the kernel's own branches around it count too). */
static void snap_checks(struct ldk_cpu *c, const struct ldk_run *r, u64 lo, u64 hi)
{
    const char *wl = r->wl == LDK_LOOP ? "wl_loop" : "wl_chase";
    if (!ldk_check(c, c->nsnap > 0, "%s: LBR snapshot taken in the PMI handler (%u)", r->name, c->nsnap))
        return;
    for (u32 k = 0; k < c->nsnap; k++) {
        u64 at = c->snap_taken[k], want = min_t(u64, at, c->snap_n[k]);
        u32 in = 0, match = 0, nonempty = 0;
        for (u32 i = 0; i < c->snap_n[k]; i++) {
            const struct ds_lbr_entry *e = &c->snap[k][i];
            nonempty += e->from || e->to;
            in += e->from >= lo && e->from < hi;
            if (c->model && i < want && at <= LDK_MAX_BTS)
                match += e->from == c->tk_from[at - 1 - i] && e->to == c->tk_to[at - 1 - i];
        }
        if (c->model)
            ldk_check(c, want > 0 && match == want, "%s: LBR snapshot %u newest first = the last %llu taken branches (%u match)",
                      r->name, k, want, match);
        else
            ldk_check(c, nonempty && 2 * in >= nonempty, "%s: LBR snapshot %u: %u of %u entries are branches of %s",
                      r->name, k, in, nonempty, wl);
    }
}

void ldk_run_checks(struct ldk_cpu *c, const struct ldk_run *r, const struct wl_expect *x, u64 lo, u64 hi)
{
    if (c->model)
        step_checks(c, r, x);
    if (r->mode == DS_SAMPLE_PRECISE)
        pebs_checks(c, r, x, lo, hi);
    else if (r->mode == DS_TRACE_BTS || r->mode == DS_TRACE_BTS_CIRCULAR)
        bts_checks(c, r, x, lo, hi);
    else
        lbr_checks(c, r, x, lo, hi);
    if (r->mode == DS_SAMPLE_PRECISE && c->ses.cfg.lbr && c->ses.freeze != DS_FREEZE_NONE)
        snap_checks(c, r, lo, hi);
    if (r->cntr) {   /* the test kernel's counters-group checks (kernel/records/dscheck.c) */
        struct dscheck_run run = {r->name, r->period, c->model, ldk_check_cb, c};
        dscheck_cntr(&run, c->pebs, c->npebs, dscheck_data_cfg(ldk_groups(c, r), 0));
    }
}

static void lbr_records(struct ldk_cpu *c, const struct ldk_run *r)
{
    for (u32 s = 0; s < c->nsnap; s++) {
        u32 snap = dsrec_lbr_snapshot(&c->out);
        for (u32 i = 0; i < c->snap_n[s]; i++) {
            const struct ds_lbr_entry *e = &c->snap[s][i];
            struct dsrec_lbr l = {0};
            l.snap = snap;
            l.idx = i;
            l.of = c->snap_n[s];
            l.from = e->from;
            l.to = e->to;
            l.has_mispred = e->has_mispred;
            l.mispred = e->mispred;
            l.has_cycles = e->has_cycles;
            l.cycles = e->cycles;
            l.lbrfmt = c->dc->caps.netburst ? -1 : c->dc->caps.lbr_format;
            dsrec_lbr(&c->out, r->name, &l);
        }
    }
}

/* The run's records, LOST lines and RUN summary (docs/records.md). */
void ldk_records(struct ldk_cpu *c, const struct ldk_run *r, const struct wl_expect *x)
{
    struct dsrec_run run = {0};
    struct dsrec_lost lost = {0};
    u32 over = 0;
    for (u32 i = 0; i < c->npebs; i++)
        dsrec_pebs(&c->out, r->name, i, &c->pebs[i]);
    for (u32 i = 0; i < c->nbts; i++) {
        struct dsrec_bts b = {c->bts[i].from, c->bts[i].to, c->bts[i].flags};
        dsrec_bts(&c->out, r->name, i, &b);
    }
    lbr_records(c, r);
    over = c->pebs_over + c->bts_over + c->snap_over;
    if (over) {
        lost.kind = c->pebs_over ? DSREC_KIND_PEBS : c->bts_over ? DSREC_KIND_BTS : DSREC_KIND_LBR;
        lost.reason = "overflow";
        lost.count = over;
        dsrec_lost(&c->out, r->name, &lost);
    }
    run.name = r->name;
    run.kind = r->kind;
    run.workload = r->wl == LDK_LOOP ? "wl_loop" : r->wl == LDK_CHASE ? "wl_chase" : "wl_calls";
    run.events = r->mode != DS_SAMPLE_PRECISE ? 0 : r->event == DS_EVENT_LOADS ? (c->model ? c->loads : x->loads)
                                                                             : (c->model ? c->insns : x->insns);
    run.period = r->period;
    run.samples = c->npebs + c->nbts + c->nsnap;
    dsrec_run(&c->out, &run);
}

/*
 * The refusal's decision, checked on the model (the hardware backend cannot
 * be made busy under QEMU TCG, whose PMU MSRs read 0): for each enable the
 * module must refuse to start on (SDM Vol. 4 bit positions, written out
 * here), set it on the model CPU, ldk_pmu_busy must say busy and name the
 * MSR; written back, it must say not busy. Enables the profile's model
 * does not accept (no such MSR or bit) are not tried.
 */
static const struct {
    u32 msr;
    u64 bit;
    const char *name;
} ldk_busy_cases[] = {
    {0x186u, 1ull << 22, "IA32_PERFEVTSEL.EN"},
    {0x38Du, 0x3ull, "IA32_FIXED_CTR_CTRL"},
    {0x3F1u, 0x1ull, "IA32_PEBS_ENABLE"},
    {0x3F5u, 1ull << 32, "IA32_PEBS_INDEX.EN"},
    {0x1D9u, 0x1ull, "IA32_DEBUGCTL"},      /* LBR */
    {0x14CEu, 0x1ull, "IA32_LBR_CTL.LBREn"},
    {0x370u, 1ull << 12, "CCCR.Enable"},    /* NetBurst MSR_IQ_CCCR4 */
};

void ldk_busy_checks(struct ldk_cpu *c)
{
    struct ldk_busy b;
    unsigned tried = 0;
    ldk_pmu_busy(c->dc, &b);
    if (!ldk_check(c, !b.busy, "busy: the model CPU at reset is not in use (%s)", b.why))
        return;
    for (unsigned i = 0; i < ARRAY_SIZE(ldk_busy_cases); i++) {
        u64 old = 0;
        u32 m = ldk_busy_cases[i].msr;
        if (dsm_rdmsr(c->m, m, &old) != DSM_OK || dsm_wrmsr(c->m, m, old | ldk_busy_cases[i].bit) != DSM_OK)
            continue;
        tried++;
        ldk_pmu_busy(c->dc, &b);
        ldk_check(c, b.busy && strstr(b.why, ldk_busy_cases[i].name),
                  "busy: %s (0x%x) set: refuses, naming it (%s)", ldk_busy_cases[i].name, m, b.why);
        dsm_wrmsr(c->m, m, old);
        ldk_pmu_busy(c->dc, &b);
        ldk_check(c, !b.busy, "busy: %s written back: not in use", ldk_busy_cases[i].name);
    }
    ldk_check(c, tried >= 2, "busy: %u of %zu enables exist on this profile", tried, ARRAY_SIZE(ldk_busy_cases));
}
