/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The PMI handler of the flows, the same on both backends: ds_session_pmi
 * plus an LBR snapshot; on the model it also feeds the handler's own
 * branches (issue 10 item 1). See flow.h.
 */
#include "flow.h"

/* --- PMI handler: the same on both backends -------------------------------- */

/* Model: the FROM range of handler branch number E.hb_pmi (inside
 * pmi_handler's own code, 0x40 bytes per PMI, wrapping after 16). */
static uint64_t hb_base(uint32_t k) { return (uint64_t)(uintptr_t)&pmi_handler + 0x40u * (k % 16u); }

/* dsm_set_msr_hook: the model retires one kernel branch of the PMI handler
 * after each MSR access the handler makes. Only on runs whose counters do
 * not count branches or plain instructions (load event, no BTS, no PMC1), so
 * the counts the run checks stay exact. */
static void hb_feed(void *ctx, uint32_t msr, bool wr)
{
    (void)ctx;
    (void)msr;
    (void)wr;
    struct dsm_event b;
    zero(&b, sizeof b);
    b.ip = hb_base(E.hb_pmi) + 4u * (uint32_t)(E.hb_fed % 16u);
    b.next_ip = b.br_to = b.ip + 0x400u;
    b.flags = DSM_EV_BRANCH | DSM_EV_TAKEN;
    b.br_kind = DSM_BR_NEAR_REL_JMP;
    b.cpl = 0;
    E.hb_fed++;
    if (dsm_retire(&E.m, &b) != DSM_OK)
        E.dsm_err++;
}

/* The snapshot of this PMI: from ds_pmi_handle's step (read while the LBRs
 * were frozen, before the ack), else read now: LBR_Frz was left set. */
static void take_snapshot(const struct ds_pmi_result *res)
{
    struct snap *s = &E.snap[E.nsnap++];
    s->in_handler = res->lbr_taken;
    if (res->lbr_taken) {
        s->err = DS_OK;
        s->n = (uint32_t)res->lbr_n;
        for (uint32_t i = 0; i < s->n && i < LBR_CAP; i++)
            s->e[i] = E.lbr_step_buf[i];
    } else {
        size_t n = 0;
        s->err = ds_lbr_read(E.cpu, E.lbrm, E.lbrfmt, s->e, LBR_CAP, &n);
        s->n = (uint32_t)n;
    }
    /* Frozen on PMI: the stack stopped at the PMI request. */
    s->taken_at = E.lbr_freeze ? E.pend_taken_at : E.taken_n;
    s->since = E.feed_hb ? E.hb_mark : 0;
    s->hb_lo = hb_base(E.hb_pmi);
    s->hb_hi = s->hb_lo + (E.feed_hb ? 0x40u : 0u);
}

bool pmi_handler(struct k_trap_frame *f, bool in_nmi, void *ctx)
{
    (void)in_nmi;
    (void)ctx;
    if (!E.active)
        return false;
    struct ds_pmi_result res;
    if (E.feed_hb)
        dsm_set_msr_hook(&E.m, hb_feed, NULL);
    /* ds_session_pmi: ds_pmi_handle + dispatch + LBR unfreeze; the session
     * sums the drain stats (pebs_stats); "not the session's" is no error here. */
    int e = ds_session_pmi(&E.ses, f ? f->ip : 0, &res);
    if (e == DS_ERR_SESSION_SPURIOUS)
        e = DS_OK;
    if (e && !E.pmi_err)
        E.pmi_err = e;
    if (E.lbr_on) {
        if (E.nsnap < MAX_SNAP)
            take_snapshot(&res);
        else
            E.snap_over++;
    }
    if (E.feed_hb) {
        hb_feed(NULL, 0, false); /* the handler's return path, LBRs recording again */
        dsm_set_msr_hook(&E.m, NULL, NULL);
        E.hb_mark = E.taken_n;
        E.hb_pmi++;
    }
    E.handled++;
    return true;
}
