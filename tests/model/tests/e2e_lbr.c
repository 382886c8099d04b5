/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * End to end: libds's LBR code (lbr.h) against the model for EVERY row of
 * the model's LBR table (reference lbr.md): libds finds the row, enables
 * recording, and its snapshot equals the last N branches fed, newest first,
 * with the mispredict bit where the format has one. Then both freeze modes:
 * legacy (Haswell, v3: DEBUGCTL.LBR cleared on PMI) and streamlined
 * (Skylake, v4: LBR_Frz), each undone by ds_lbr_unfreeze(). Built only when
 * lbr.h is in the tree.
 */
#include <stdio.h>
#include "check.h"
#include "ds_model_ops.h"
#include "model_util.h"
#include <ds/cpu.h>
#include <ds/lbr.h>

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

static void freeze_case(enum dsm_profile p, bool v4)
{
    const char *n = dsm_profile_name(p);
    struct dsm_cpu m;
    struct ds_cpu c;
    dsm_init(&m, p, NULL, NULL);
    CHECK_EQ(ds_model_cpu_init(&c, &m), DS_OK, "libds %s", n);
    CHECK_EQ(ds_cpu_identify(&c), DS_OK, "identify %s", n);
    const struct ds_lbr_model *lm = NULL;
    CHECK_EQ(ds_lbr_lookup(c.caps.display_family, c.caps.display_model, &lm), DS_OK, "lookup %s", n);
    if (!lm)
        return;
    unsigned fmt = 0;
    ds_lbr_format(&c, lm, &fmt);
    struct ds_lbr_config cfg = { .freeze_on_pmi = true };
    CHECK_EQ(ds_lbr_enable(&c, lm, &cfg), DS_OK, "enable with freeze %s", n);
    /* PMC0 counts instructions with INT: overflow -> PMI -> LBR freeze */
    dsm_wrmsr(&m, 0x186, 0xC0 | (1 << 16) | (1 << 20) | (1 << 22));
    dsm_wrmsr(&m, 0xC1, (uint32_t)-3);
    dsm_wrmsr(&m, 0x38F, 1);
    feed(&m, 0, 3);    /* third instruction overflows: frozen after it */
    CHECK(v4 ? (m.gstatus & (1ull << 58)) != 0 : (m.debugctl & 1) == 0, "frozen %s", n);
    feed(&m, 100, 4);  /* not recorded */
    struct ds_lbr_entry out[MAXE];
    size_t cnt = 0;
    CHECK_EQ(ds_lbr_read(&c, lm, fmt, out, MAXE, &cnt), DS_OK, "read frozen %s", n);
    CHECK_EQ(out[0].from, from_of(2), "frozen stack ends at the PMI branch %s", n);
    dsm_wrmsr(&m, 0x390, 1);   /* the PMI handler acknowledges the counter */
    CHECK_EQ(ds_lbr_unfreeze(&c, lm), DS_OK, "unfreeze %s", n);
    feed(&m, 200, 1);
    CHECK_EQ(ds_lbr_read(&c, lm, fmt, out, MAXE, &cnt), DS_OK, "read %s", n);
    CHECK_EQ(out[0].from, from_of(200), "recording resumes after ds_lbr_unfreeze %s", n);
    CHECK_EQ(out[1].from, from_of(2), "nothing recorded while frozen %s", n);
}

int main(void)
{
    test_rows();
    freeze_case(DSM_HASWELL, false);
    freeze_case(DSM_NEHALEM, false);
    freeze_case(DSM_SKYLAKE, true);
    return check_summary();
}
