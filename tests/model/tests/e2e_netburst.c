/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * End to end: libds's NetBurst ESCR/CCCR allocator and programming
 * (netburst.h) against the model. For every counter 0..17 requested
 * explicitly: where libds accepts the request, the model (which counts only
 * correctly paired ESCR/CCCR, as hardware) must count exactly the events
 * fed; where libds refuses, nothing is written. PEBS is accepted only on
 * IQ_COUNTER4 (thread 0) and refused on every other counter. Built only
 * when netburst.h is in the tree.
 */
#include <stdio.h>
#include "check.h"
#include "ds_model_ops.h"
#include "model_util.h"
#include <ds/cpu.h>
#include <ds/netburst.h>

static void setup(struct dsm_cpu *m, struct ds_cpu *c, enum dsm_profile p, struct ds_nb_alloc *a)
{
    dsm_init(m, p, NULL, NULL);
    CHECK_EQ(ds_model_cpu_init(c, m), DS_OK, "libds");
    CHECK_EQ(ds_cpu_identify(c), DS_OK, "identify");
    CHECK_EQ(ds_nb_alloc_init(a, c->caps.display_model, false), DS_OK, "alloc init");
}

static void test_pairing(enum dsm_profile p, const char *event, const char *mask, bool branches_only)
{
    const char *pn = dsm_profile_name(p);
    unsigned ev;
    uint32_t msk;
    CHECK_EQ(ds_nb_event_find(event, &ev), DS_OK, "event %s", event);
    CHECK_EQ(ds_nb_mask_parse(ev, mask, &msk), DS_OK, "mask %s", mask);
    unsigned accepted = 0;
    for (int ctr = 0; ctr < 18; ctr++) {
        struct dsm_cpu m;
        struct ds_cpu c;
        struct ds_nb_alloc a;
        setup(&m, &c, p, &a);
        struct ds_nb_request rq;
        memset(&rq, 0, sizeof(rq));
        rq.event = ev;
        rq.mask = msk;
        rq.escr = -1;
        rq.counter = ctr;
        rq.usr = rq.os = true;
        struct ds_nb_assignment as;
        uint64_t w0 = dsm_stats(&m)->wrmsr;
        int e = ds_nb_program(&c, &a, &rq, 0, &as);
        if (e != DS_OK) {
            CHECK_EQ(dsm_stats(&m)->wrmsr, w0, "%s %s counter %d refused (%d): nothing written", pn, event, ctr, e);
            continue;
        }
        accepted++;
        CHECK_EQ(as.counter, (unsigned)ctr, "%s counter honoured", pn);
        CHECK_EQ(as.counter_msr, 0x300u + ctr, "%s counter MSR", pn);
        CHECK_EQ(as.cccr_msr, 0x360u + ctr, "%s CCCR MSR", pn);
        unsigned expect = 0;
        for (unsigned k = 0; k < 20; k++) {
            struct dsm_event x = (k % 2) ? ev_branch(0x1000 + k, 0x2000, false) : ev_plain(0x1000 + k);
            x.cpl = (k % 4 == 0) ? 0 : 3;
            expect += branches_only ? (k % 2) : 1;
            dsm_retire(&m, &x);
        }
        uint64_t v = 0;
        CHECK_EQ(ds_nb_release(&c, &a, &as), DS_OK, "release");
        dsm_rdmsr(&m, 0x300 + ctr, &v);
        CHECK_EQ(v, expect, "%s %s on counter %d: the model counts the libds programming (correct pairing)", pn,
                 event, ctr);
    }
    CHECK(accepted > 0, "%s %s accepted somewhere", pn, event);
}

static void test_pebs_counter(enum dsm_profile p)
{
    const char *pn = dsm_profile_name(p);
    unsigned ev;
    uint32_t msk;
    CHECK_EQ(ds_nb_event_find("front_end_event", &ev), DS_OK, "front_end_event");
    CHECK_EQ(ds_nb_mask_parse(ev, "NBOGUS", &msk), DS_OK, "NBOGUS");
    for (int ctr = 0; ctr < 18; ctr++) {
        struct dsm_cpu m;
        struct ds_cpu c;
        struct ds_nb_alloc a;
        setup(&m, &c, p, &a);
        struct ds_nb_request rq;
        memset(&rq, 0, sizeof(rq));
        rq.event = ev;
        rq.mask = msk;
        rq.escr = -1;
        rq.counter = ctr;
        rq.usr = true;
        rq.pebs = true;
        struct ds_nb_assignment as;
        int e = ds_nb_program(&c, &a, &rq, 0, &as);
        if (ctr == 16)
            CHECK_EQ(e, DS_OK, "%s PEBS on IQ_COUNTER4", pn);
        else
            CHECK(e != DS_OK, "%s PEBS refused on counter %d", pn, ctr);
    }
}

int main(void)
{
    static const enum dsm_profile nb[] = { DSM_NETBURST_M2, DSM_NETBURST_M3, DSM_NETBURST_M4_64 };
    for (size_t i = 0; i < sizeof(nb) / sizeof(nb[0]); i++) {
        test_pairing(nb[i], "branch_retired", "MMNP|MMNM|MMTP|MMTM", true);
        test_pairing(nb[i], "instr_retired", "NBOGUSNTAG", false);
        test_pebs_counter(nb[i]);
    }
    return check_summary();
}
