/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The checks of a DS-area run after its final drain (PEBS, BTS, counter
 * overflow, LBR; each family's own in pebs.c, bts.c, lbr.c) and those every
 * model run makes (steps fed, counts, PMIs delivered). See flow.h.
 */
#include "flow.h"

/* Model runs: every step fed, the stepped counts as workloads.h says, and
 * every model PMI delivered (fixed vector, NMI, or held by the LVT mask). */
static void model_run_checks(const struct run_cfg *rc, const struct wl_expect *x)
{
    check(E.bad_steps == 0 && E.dsm_err == 0, "%s: every step of %s decoded and fed (bad %u, model errors %u)",
          rc->name, wl_name(rc->wl), (unsigned)E.bad_steps, (unsigned)E.dsm_err);
    check(E.insns == x->insns && E.taken_n == x->taken && E.loads == x->loads,
          "%s: stepped %u instructions, %u taken, %u loads (workloads.h: %u, %u, %u)", rc->name,
          (unsigned)E.insns, (unsigned)E.taken_n, (unsigned)E.loads, (unsigned)x->insns, (unsigned)x->taken,
          (unsigned)x->loads);
    if (rc->nmi)
        check(E.delivered > 0 && E.handled == E.delivered && E.nmi_timeouts == 0,
              "%s: %u model PMIs delivered as NMI through LVT PC, %u handled, %u lost", rc->name, E.delivered,
              E.handled, E.nmi_timeouts);
    if (rc->hold_first)
        check(E.held == HOLD_STEPS - 1 && E.delivered > 0 && E.handled == E.delivered,
              "%s: a PMI requested while LVT PC was masked stayed pending for %u more steps until unmasked, then arrived (%u delivered)",
              rc->name, E.held, E.delivered);
    else if (!rc->nmi)
        check(E.delivered == 0 || E.handled == E.delivered,
              "%s: %u model PMIs delivered on vector 0x%x through LVT PC, %u handled (%u held by the mask)",
              rc->name, E.delivered, K_VEC_PMI, E.handled, E.held);
}

/* The checks of a DS-area run (PEBS, BTS, counter overflow, LBR) after the
 * final drain (do_session_run); the RUN line's event and expected-sample
 * counts come back for print_run. */
void run_checks(const struct run_cfg *rc, uint64_t *out_events, uint64_t *out_expect)
{
    struct wl_expect x;
    wl_expect_of(rc->wl, rc->n, &x);
    uint64_t events = rc->loads || E.nb ? x.loads : x.insns;
    if (E.model) {
        model_run_checks(rc, &x);
        events = rc->loads || E.nb ? E.loads : E.insns;
    }
    check(E.pmi_err == DS_OK, "%s: ds_pmi_handle without error (%s)", rc->name, ds_errname(E.pmi_err));
    uint64_t expect = 0;
    if (rc->pebs)
        expect = pebs_run_checks(rc, events);
    if (rc->bts) {
        check(E.bts_over == 0, "%s: BTS records fit the kernel's array", rc->name);
        if (rc->bts_int)
            bts_int_checks(rc, &x);
        else
            bts_circ_checks(rc, &x);
    }
    if (rc->ctr_pmi)
        expect = ctr_pmi_checks(rc, &x, &events);
    check_lbr(rc);

    /* RUN line: PEBS runs give the sampled event count, BTS runs the taken
     * branches of the workload (what BTS records). */
    if (rc->bts)
        events = E.model ? E.taken_n : x.taken;
    *out_events = events;
    *out_expect = rc->pebs || rc->ctr_pmi ? expect : (rc->bts ? E.nbts : 0);
}
