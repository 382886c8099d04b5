/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Issue 10 item 4 on the reference model: a BTS buffer set up with a
 * threshold but enabled without DS_BTS_INT runs circular in hardware (the
 * model wraps the index at the absolute maximum when BTINT is clear, SDM
 * "BTS and DS Save Area"). libds must drain it as the ring it is (the
 * newest records, oldest first, DS_DRAIN_WRAPPED) instead of walking base
 * to index (before the fix: 40 branches written into 16 slots, 8 returned,
 * 0 reported lost), and no BTS PMI may be requested. Then the same buffer
 * enabled with DS_BTS_INT: linear, the threshold PMI drains it.
 * Buffers helper test (new file; the model is the pmi helper's).
 */
#include <stdio.h>
#include <stdlib.h>
#include "check.h"
#include "ds_model_ops.h"
#include "model_util.h"
#include <ds/cpu.h>
#include <ds/area.h>
#include <ds/pebs.h>
#include <ds/bts.h>

#define LIN 0xFFFF800000100000ull
static _Alignas(4096) uint8_t blk[1 << 16];
static struct fake_mem mem;
static struct dsm_cpu m;
static struct ds_cpu c;
static struct ds_ctx ctx;
static unsigned pmis, bts_pmis;
static uint64_t got[64];
static unsigned ngot;

static void on_pmi(void *a, uint32_t why)
{
    (void)a;
    pmis++;
    if (why & DSM_PMI_BTS)
        bts_pmis++;
}

static int sink(void *a, const struct ds_bts_branch *b)
{
    (void)a;
    if (ngot < 64)
        got[ngot++] = b->from;
    return 0;
}

static void branches(unsigned first, unsigned n)
{
    for (unsigned i = first; i < first + n; i++) {
        struct dsm_event b = ev_branch(0x401000 + 16 * i, 0x402000 + 16 * i, false);
        b.cpl = 0;
        dsm_retire(&m, &b);
    }
}

int main(void)
{
    mem.base = LIN;
    mem.buf = blk;
    mem.size = sizeof(blk);
    CHECK_EQ(dsm_init(&m, DSM_SKYLAKE, &fm_ops, &mem), DSM_OK, "model");
    CHECK_EQ(ds_model_cpu_init(&c, &m), DS_OK, "libds cpu");
    CHECK_EQ(ds_cpu_identify(&c), DS_OK, "identify");
    dsm_set_pmi(&m, on_pmi, NULL);
    struct ds_area_config cfg;
    memset(&cfg, 0, sizeof(cfg));
    cfg.area = (union ds_area *)blk;
    cfg.area_linear = LIN;
    cfg.bts.mem = blk + 0x1000;
    cfg.bts.linear = LIN + 0x1000;
    cfg.bts.bytes = 16 * DS_BTS_REC64_SIZE;
    cfg.bts.thresh_records = 8;
    CHECK_EQ(ds_area_setup(&ctx, &c, &cfg), DS_OK, "setup: 16 records, threshold 8");
    CHECK_EQ(ds_area_install(&ctx), DS_OK, "install");

    /* circular: 40 branches into 16 slots */
    CHECK_EQ(ds_bts_enable(&ctx, 0), DS_OK, "enable without DS_BTS_INT");
    branches(0, 40);
    CHECK_EQ(dsm_stats(&m)->bts_written, 40, "the model wrote 40 records");
    CHECK_EQ(bts_pmis, 0, "no BTS PMI in circular mode");
    CHECK_EQ(ds_bts_disable(&ctx), DS_OK, "disable");
    struct ds_drain_stats st;
    ngot = 0;
    CHECK_EQ(ds_bts_drain(&ctx, sink, NULL, &st), DS_OK, "drain");
    CHECK(st.anomalies & DS_DRAIN_WRAPPED, "wrap reported");
    CHECK_EQ(ngot, 16, "the ring's 16 records (not 40 mod 16 = 8)");
    int order = 1;
    for (unsigned i = 0; i < ngot; i++)
        order &= got[i] == 0x401000 + 16 * (24 + i);
    CHECK(order, "branches 24..39, oldest first");

    /* interrupt mode on the same buffer: threshold PMI at 8 records, linear drain */
    pmis = bts_pmis = 0;
    CHECK_EQ(ds_bts_enable(&ctx, DS_BTS_INT), DS_OK, "enable with DS_BTS_INT");
    branches(100, 10);
    CHECK(bts_pmis >= 1, "threshold PMI requested (%u)", bts_pmis);
    ds_bts_disable(&ctx);
    ngot = 0;
    ds_bts_drain(&ctx, sink, NULL, &st);
    CHECK_EQ(ngot, 10, "10 records, base to index");
    CHECK(!(st.anomalies & DS_DRAIN_WRAPPED), "no wrap");
    CHECK_EQ(got[0], 0x401000 + 16 * 100, "first");
    return check_summary();
}
