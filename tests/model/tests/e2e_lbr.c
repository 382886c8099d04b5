/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * End to end: libds's LBR code (lbr.h) against the model for EVERY row of
 * the model's LBR table (reference lbr.md): libds finds the row, enables
 * recording, and its snapshot equals the last N branches fed, newest first,
 * with the mispredict bit where the format has one. Then both freeze modes,
 * through ds_pmi_handle() in the model's PMI callback: legacy (Haswell,
 * Nehalem, v3: DEBUGCTL.LBR cleared on PMI) and streamlined (Skylake, v4:
 * LBR_Frz), with the handler's LBR snapshot step and with the caller's read
 * after the handler; the handler's own branches are fed after each of its
 * MSR accesses and must not be in the snapshot (issue 10 item 1). Built
 * only when lbr.h is in the tree.
 */
#include <stdio.h>
#include "check.h"
#include "ds_model_ops.h"
#include "model_util.h"
#include <ds/cpu.h>
#include <ds/lbr.h>
#include <ds/pmi.h>

#define MAXE 64

static uint64_t from_of(unsigned k) { return 0x10000 + 0x40 * (uint64_t)k; }
static uint64_t to_of(unsigned k) { return 0x80000 + 0x40 * (uint64_t)k; }

static void feed(struct dsm_cpu *m, unsigned first, unsigned n)
{
    for (unsigned k = first; k < first + n; k++) {
        struct dsm_event b = ev_branch(from_of(k), to_of(k), (k % 3) == 1);
        dsm_retire(m, &b);
    }
}

static void test_rows(void)
{
    size_t nrows;
    const struct dsm_lbr_row *rows = dsm_lbr_rows(&nrows);
    for (size_t i = 0; i < nrows; i++) {
        const struct dsm_lbr_row *r = &rows[i];
        struct dsm_cpu m;
        struct ds_cpu c;
        char id[16];
        snprintf(id, sizeof(id), "%02X_%02XH", r->family, r->model);
        CHECK_EQ(dsm_init(&m, dsm_profile_for_row(r), NULL, NULL), DSM_OK, "model %s", id);
        CHECK_EQ(dsm_set_lbr_row(&m, r), DSM_OK, "row %s", id);
        CHECK_EQ(ds_model_cpu_init(&c, &m), DS_OK, "libds %s", id);
        CHECK_EQ(ds_cpu_identify(&c), DS_OK, "identify %s", id);
        const struct ds_lbr_model *lm = NULL;
        int e = ds_lbr_lookup(r->family, r->model, &lm);
        CHECK_EQ(e, DS_OK, "libds knows row %s", id);
        if (e != DS_OK || !lm)
            continue;
        unsigned fmt = 0;
        e = ds_lbr_format(&c, lm, &fmt);
        CHECK_EQ(e, DS_OK, "format %s", id);
        if (e != DS_OK)
            continue;
        e = ds_lbr_enable(&c, lm, NULL);
        CHECK_EQ(e, DS_OK, "enable %s", id);
        if (e != DS_OK)
            continue;
        uint32_t depth = r->arch ? 32 : r->depth;
        unsigned nb = depth + 5;
        feed(&m, 0, nb);
        struct ds_lbr_entry out[MAXE];
        size_t n = 0;
        e = ds_lbr_read(&c, lm, fmt, out, MAXE, &n);
        CHECK_EQ(e, DS_OK, "read %s", id);
        CHECK_EQ(n, depth, "snapshot holds the depth %s", id);
        for (size_t k = 0; k < n && k < depth; k++) {
            unsigned b = nb - 1 - (unsigned)k;
            uint64_t ef = from_of(b), et = to_of(b);
            if (r->to == r->from) {   /* packed 32-bit rows */
                ef &= 0xFFFFFFFFull;
                et &= 0xFFFFFFFFull;
            }
            CHECK_EQ(out[k].from, ef, "%s entry %zu FROM (newest first)", id, k);
            CHECK_EQ(out[k].to, et, "%s entry %zu TO", id, k);
            if (out[k].has_mispred)
                CHECK_EQ(out[k].mispred, (b % 3) == 1, "%s entry %zu mispredict", id, k);
        }
        CHECK_EQ(dsm_stats(&m)->rdmsr_gp + dsm_stats(&m)->wrmsr_gp, 0, "no MSR fault %s", id);
    }
}

/* The PMI handler's own code: every MSR access it makes is followed by one
 * kernel-mode branch in HANDLER_LO..HANDLER_HI (dsm_set_msr_hook), so a
 * snapshot read after the LBRs were unfrozen holds handler branches. */
#define HANDLER_LO 0xFFFFFFFF81000000ull
#define HANDLER_HI 0xFFFFFFFF81100000ull
static struct {
    struct dsm_cpu m;
    struct ds_cpu c;
    struct ds_pmi pmi;
    const struct ds_lbr_model *lm;
    unsigned fmt, hb, calls;
    bool step, v4;
    int herr, rerr, uerr;
    struct ds_pmi_result r;
    struct ds_lbr_entry snap[MAXE], after[MAXE];
    size_t nsnap, nafter;
} F;

static void handler_branch(void *ctx, uint32_t msr, bool wr)
{
    (void)ctx;
    (void)msr;
    (void)wr;
    uint64_t ip = HANDLER_LO + 0x20 * (F.hb++ % 0x1000);
    struct dsm_event b = ev_branch(ip, ip + 0x10, false);
    b.cpl = 0;
    dsm_retire(&F.m, &b);
}

static bool in_handler(uint64_t a) { return a >= (HANDLER_LO & 0xFFFFFFFFull) && a < HANDLER_HI; }

/* The kernel's PMI handler: ds_pmi_handle (with or without the snapshot
 * step), the still-frozen read where the handler left the LBRs frozen,
 * then ds_lbr_unfreeze, then one more read to prove that handler branches
 * do reach the LBRs once they record again. */
static void pmi_cb(void *ctx, uint32_t why)
{
    (void)ctx;
    (void)why;
    F.calls++;
    dsm_set_msr_hook(&F.m, handler_branch, NULL);
    F.herr = ds_pmi_handle(&F.pmi, &F.r);
    if (F.step) {
        F.nsnap = F.r.lbr_n; /* the handler read into F.snap (cfg.lbr.buf) */
    } else {
        F.rerr = ds_lbr_read(&F.c, F.lm, F.fmt, F.snap, MAXE, &F.nsnap);
    }
    F.uerr = ds_lbr_unfreeze(&F.c, F.lm);
    handler_branch(NULL, 0, false); /* the handler's return path */
    ds_lbr_read(&F.c, F.lm, F.fmt, F.after, MAXE, &F.nafter);
    dsm_set_msr_hook(&F.m, NULL, NULL);
    dsm_lvt_unmask(&F.m);
}

/* Freeze on PMI through ds_pmi_handle (issue 10 item 1): legacy (v3:
 * DEBUGCTL.LBR cleared) and streamlined (v4: LBR_Frz); with the handler's
 * snapshot step (@step) and without it (the caller reads after the
 * handler, which must then have left LBR_Frz set). */
static void freeze_case(enum dsm_profile p, bool v4, bool step)
{
    const char *n = dsm_profile_name(p);
    memset(&F, 0, sizeof(F));
    F.v4 = v4;
    F.step = step;
    dsm_init(&F.m, p, NULL, NULL);
    CHECK_EQ(ds_model_cpu_init(&F.c, &F.m), DS_OK, "libds %s", n);
    CHECK_EQ(ds_cpu_identify(&F.c), DS_OK, "identify %s", n);
    CHECK_EQ(ds_lbr_lookup(F.c.caps.display_family, F.c.caps.display_model, &F.lm), DS_OK, "lookup %s", n);
    if (!F.lm)
        return;
    ds_lbr_format(&F.c, F.lm, &F.fmt);
    struct ds_lbr_config cfg = { .freeze_on_pmi = true };
    CHECK_EQ(ds_lbr_enable(&F.c, F.lm, &cfg), DS_OK, "enable with freeze %s", n);
    struct ds_pmi_config pc = { .freeze = DS_FREEZE_NONE };
    if (step)
        pc.lbr = (struct ds_pmi_lbr){ .model = F.lm, .format = F.fmt, .buf = F.snap, .cap = MAXE };
    CHECK_EQ(ds_pmi_init(&F.pmi, &F.c, NULL, &pc), DS_OK, "pmi init %s", n);
    dsm_set_lvt_model(&F.m, true);
    dsm_set_pmi(&F.m, pmi_cb, NULL);
    /* PMC0 counts user instructions with INT: overflow -> PMI -> LBR freeze */
    dsm_wrmsr(&F.m, 0x186, 0xC0 | (1 << 16) | (1 << 20) | (1 << 22));
    dsm_wrmsr(&F.m, 0xC1, (uint32_t)-3);
    dsm_wrmsr(&F.m, 0x38F, 1);
    feed(&F.m, 0, 3);    /* third instruction overflows: PMI, frozen after it */
    CHECK_EQ(F.calls, 1, "one PMI %s step=%d", n, step);
    CHECK_EQ(F.herr, DS_OK, "ds_pmi_handle %s step=%d", n, step);
    CHECK_EQ(F.rerr, DS_OK, "read %s step=%d", n, step);
    CHECK_EQ(F.uerr, DS_OK, "unfreeze %s step=%d", n, step);
    CHECK(F.hb > 0, "handler branches fed %s step=%d", n, step);
    CHECK_EQ(F.r.lbr_taken, step, "snapshot step taken %s step=%d", n, step);
    if (v4)
        CHECK_EQ(F.r.lbr_frozen, !step, "LBR_Frz left set without the step %s step=%d", n, step);
    CHECK_EQ(F.nsnap, (size_t)F.lm->depth, "full snapshot %s step=%d", n, step);
    CHECK(F.nsnap > 0 && F.snap[0].from == from_of(2), "snapshot newest = the PMI branch %s step=%d", n, step);
    unsigned bad = 0, work = 0;
    for (size_t k = 0; k < F.nsnap && k < MAXE; k++) {
        if (in_handler(F.snap[k].from) || in_handler(F.snap[k].to))
            bad++;
        else if (F.snap[k].from || F.snap[k].to)
            work++;
    }
    CHECK_EQ(bad, 0, "no handler branch in the snapshot %s step=%d", n, step);
    CHECK_EQ(work, 3, "the 3 workload branches %s step=%d", n, step);
    /* the test can see pollution: after the unfreeze the handler's own
     * branches are recorded (newest = its return path) */
    CHECK(F.nafter > 0 && in_handler(F.after[0].from), "handler branches recorded once unfrozen %s step=%d", n,
          step);
    feed(&F.m, 200, 1);
    struct ds_lbr_entry out[MAXE];
    size_t cnt = 0;
    CHECK_EQ(ds_lbr_read(&F.c, F.lm, F.fmt, out, MAXE, &cnt), DS_OK, "read %s", n);
    CHECK_EQ(out[0].from, from_of(200), "recording resumes %s step=%d", n, step);
    CHECK_EQ(dsm_stats(&F.m)->rdmsr_gp + dsm_stats(&F.m)->wrmsr_gp, 0, "no MSR fault %s step=%d", n, step);
}

int main(void)
{
    test_rows();
    for (int step = 0; step < 2; step++) {
        freeze_case(DSM_HASWELL, false, step);
        freeze_case(DSM_NEHALEM, false, step);
        freeze_case(DSM_SKYLAKE, true, step);
    }
    return check_summary();
}
