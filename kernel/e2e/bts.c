/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The BTS flows: linear with threshold PMIs (bts-int) and circular
 * (bts-circular): the branch sink, the checks and the BTS runs of a
 * profile. See flow.h.
 */
#include "flow.h"

int bts_sink(void *arg, const struct ds_bts_branch *b)
{
    (void)arg;
    if (E.nbts >= MAX_BTS) {
        E.bts_over++;
        return 1;
    }
    E.bts[E.nbts++] = *b;
    return 0;
}

/* wl_loop under BTS: all but the final RET are the loop's back edge (one
 * Jcc, backward); the last record is the RET leaving wl_loop. */
static void bts_loop_shape(const struct run_cfg *rc, const struct wl_expect *x)
{
    uint64_t be = E.bts[0].from, tgt = E.bts[0].to;
    uint32_t edge = 0;
    for (uint32_t i = 0; i < E.nbts; i++)
        if (E.bts[i].from == be && E.bts[i].to == tgt)
            edge++;
    check(be >= E.lo && be < E.hi && tgt >= E.lo && tgt < be && edge + 1 == x->taken,
          "%s: %u records are the back edge %p -> %p of wl_loop", rc->name, edge, (void *)(uintptr_t)be,
          (void *)(uintptr_t)tgt);
    const struct ds_bts_branch *l = &E.bts[E.nbts - 1];
    check(l->from >= E.lo && l->from < E.hi && (l->to < E.lo || l->to >= E.hi),
          "%s: last BTS record is wl_loop's RET %p -> %p", rc->name, (void *)(uintptr_t)l->from,
          (void *)(uintptr_t)l->to);
}

/* BTS with threshold PMIs: the trace is the workload's taken branches in
 * order (model) or counts them (hardware); wl_loop's shape; PMIs; drain. */
void bts_int_checks(const struct run_cfg *rc, const struct wl_expect *x)
{
    uint32_t inr = 0;
    for (uint32_t i = 0; i < E.nbts; i++)
        if (E.bts[i].from >= E.lo && E.bts[i].from < E.hi)
            inr++;
    if (E.model) {
        bool same = E.nbts == E.taken_n && E.taken_n <= MAX_TAKEN;
        for (uint32_t i = 0; same && i < E.nbts; i++)
            same = E.bts[i].from == E.taken[i].from && E.bts[i].to == E.taken[i].to;
        check(E.nbts == x->taken && same, "%s: BTS trace = the %u taken branches of %s, in order (%u records)",
              rc->name, (unsigned)x->taken, wl_name(rc->wl), E.nbts);
    } else {
        check(inr == x->taken, "%s: %u BTS records from %s = %u taken branches", rc->name, inr,
              wl_name(rc->wl), (unsigned)x->taken);
    }
    if (rc->wl == WL_LOOP && E.nbts >= 2)
        bts_loop_shape(rc, x);
    check(E.handled > 0, "%s: BTS threshold PMIs handled: %u", rc->name, E.handled);
    check(E.bst.records + lost_of(&E.bst) == E.bst.present && lost_of(&E.bst) == 0,
          "%s: BTS drain: %u present = %u records + %u lost, none lost", rc->name, (unsigned)E.bst.present,
          (unsigned)E.bst.records, (unsigned)lost_of(&E.bst));
}

/* Circular BTS: the ring holds exactly the newest bts_nrec branches, the
 * wrap is reported, no PMI. */
void bts_circ_checks(const struct run_cfg *rc, const struct wl_expect *x)
{
    uint64_t want_taken = E.model ? E.taken_n : x->taken;
    uint64_t keep = want_taken < rc->bts_nrec ? want_taken : rc->bts_nrec;
    bool same = E.nbts == keep;
    if (E.model && E.taken_n <= MAX_TAKEN)
        for (uint32_t i = 0; same && i < E.nbts; i++) {
            const struct taken_br *t = &E.taken[E.taken_n - keep + i];
            same = E.bts[i].from == t->from && E.bts[i].to == t->to;
        }
    check(same, "%s: circular BTS holds the newest %u of %u taken branches of %s, in order (%u records)",
          rc->name, (unsigned)keep, (unsigned)want_taken, wl_name(rc->wl), E.nbts);
    bool wrapped = want_taken > rc->bts_nrec;
    check(!wrapped || (E.bst.anomalies & DS_DRAIN_WRAPPED),
          "%s: the drain reports the wrap (older records overwritten, not lost silently)", rc->name);
    check(E.handled == 0, "%s: circular mode raised no PMI (%u)", rc->name, E.handled);
    if (E.model)
        check(dsm_stats(&E.m)->bts_written == want_taken, "%s: the model wrote %u BTS records", rc->name,
              (unsigned)dsm_stats(&E.m)->bts_written);
}

/* The BTS runs (where BTS is advertised) appended to @runs; returns the new
 * count. */
unsigned bts_runs(struct run_cfg *runs, unsigned nr)
{
    const struct ds_caps *caps = &E.cpu->caps;
    if (!caps->bts_advertised && E.model) {
        E.skipped++;
        ktest_skip("%s: BTS runs: BTS not advertised (CPUID.01H:EDX.DS %d, MISC_ENABLE.BTS_UNAVAILABLE %d)",
                   E.prof_name, caps->ds, caps->bts_unavailable);
    }
    if (caps->bts_advertised) {
        runs[nr++] = (struct run_cfg){.name = "bts-int", .lbr = true, .kind = "bts", .wl = WL_LOOP, .n = BTS_LOOP_N,
                                      .bts = true, .bts_int = true, .bts_nrec = BTS_NREC};
        runs[nr++] = (struct run_cfg){.name = "bts-circular", .kind = "bts-circular", .wl = WL_CALLS,
                                      .n = BTS_CALLS_N, .bts = true, .bts_nrec = BTS_CIRC_NREC};
    }
    return nr;
}
