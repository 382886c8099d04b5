/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * BTS: DEBUGCTL bits per family (P6 IA32_DEBUGCTL vs NetBurst MSR_DEBUGCTLA,
 * checked against the reference bit numbers), enable/disable preserving
 * other bits, threshold-mode drain, circular mode with wrap, 32-bit records.
 */
#include "check.h"
#include "ds_env.h"
#include <ds/ds.h>

static void put64(unsigned char *b, size_t off, uint64_t v) { memcpy(b + off, &v, 8); }
static void put32(unsigned char *b, size_t off, uint32_t v) { memcpy(b + off, &v, 4); }

struct col {
    struct ds_bts_branch b[128];
    int n;
};

static int col(void *a, const struct ds_bts_branch *b)
{
    struct col *c = a;
    if (c->n >= 128)
        return 1;
    c->b[c->n++] = *b;
    return 0;
}

static void test_bits(void)
{
    static struct env e;
    uint64_t v;
    fake_skylake_pmu(&e.f);
    env_identify(&e, 1);
    /* reference msr.md: TR 6, BTS 7, BTINT 8, BTS_OFF_OS 9, BTS_OFF_USR 10 */
    CHECK_EQ(ds_bts_debugctl_bits(&e.cpu, 0), (1u << 6) | (1u << 7), "P6 TR|BTS");
    CHECK_EQ(ds_bts_debugctl_bits(&e.cpu, DS_BTS_INT | DS_BTS_OFF_OS | DS_BTS_OFF_USR), 0x7C0, "P6 all");
    CHECK_EQ(ds_bts_debugctl_bits(&e.cpu, 0x100), 0, "invalid flags");
    fake_set_msr(&e.f, DS_MSR_IA32_DEBUGCTL, 0x1001); /* LBR + FREEZE_PERFMON: must survive */
    CHECK_EQ(ds_area_setup(&e.ctx, &e.cpu, &e.cfg), DS_OK, "setup");
    CHECK_EQ(ds_area_install(&e.ctx), DS_OK, "install");
    CHECK_EQ(ds_bts_enable(&e.ctx, DS_BTS_INT | DS_BTS_OFF_OS), DS_OK, "enable");
    v = fake_get_msr(&e.f, DS_MSR_IA32_DEBUGCTL);
    CHECK_EQ(v, 0x1001 | (1u << 6) | (1u << 7) | (1u << 8) | (1u << 9), "DEBUGCTL value");
    CHECK(e.ctx.bts_enabled, "enabled");
    CHECK_EQ(ds_bts_disable(&e.ctx), DS_OK, "disable");
    CHECK_EQ(fake_get_msr(&e.f, DS_MSR_IA32_DEBUGCTL), 0x1001, "other bits preserved");
    e.f.fault_on_write = DS_MSR_IA32_DEBUGCTL;
    CHECK_EQ(ds_bts_enable(&e.ctx, 0), DS_ERR_MSR_FAULT, "write fault");
    CHECK(!e.ctx.bts_enabled, "not marked enabled");

    fake_netburst(&e.f);
    env_identify(&e, 0);
    /* reference msr.md MSR_DEBUGCTLA: TR 2, BTS 3, BTINT 4, BTS_OFF_OS 5, BTS_OFF_USR 6 */
    CHECK_EQ(ds_bts_debugctl_bits(&e.cpu, 0), (1u << 2) | (1u << 3), "NetBurst TR|BTS");
    CHECK_EQ(ds_bts_debugctl_bits(&e.cpu, DS_BTS_INT), 0x1C, "NetBurst BTINT");
    CHECK_EQ(ds_bts_debugctl_bits(&e.cpu, DS_BTS_OFF_OS | DS_BTS_OFF_USR), 0x6C, "NetBurst CPL bits");
    CHECK_EQ(ds_area_setup(&e.ctx, &e.cpu, &e.cfg), DS_OK, "nb setup");
    CHECK_EQ(ds_area_install(&e.ctx), DS_OK, "nb install");
    CHECK_EQ(ds_bts_enable(&e.ctx, DS_BTS_INT), DS_OK, "nb enable");
    CHECK_EQ(fake_get_msr(&e.f, DS_MSR_IA32_DEBUGCTL), 0x1C, "MSR_DEBUGCTLA value");
    CHECK_EQ(ds_bts_enable(&e.ctx, DS_BTS_OFF_OS), DS_ERR_NO_DSCPL, "no DS-CPL on this P4");
    CHECK_EQ(ds_bts_disable(&e.ctx), DS_OK, "nb disable");
    CHECK_EQ(fake_get_msr(&e.f, DS_MSR_IA32_DEBUGCTL), 0, "cleared");
}

static void test_threshold_drain(void)
{
    static struct env e;
    static struct col c;
    struct ds_drain_stats st;
    bool reached;
    fake_skylake_pmu(&e.f);
    env_identify(&e, 1);
    ds_area_setup(&e.ctx, &e.cpu, &e.cfg);
    uint64_t base = (uint64_t)(uintptr_t)e.bts;
    for (int i = 0; i < 40; i++) {
        put64(e.bts, i * 24, 0x400000 + i);
        put64(e.bts, i * 24 + 8, 0x500000 + i);
        put64(e.bts, i * 24 + 16, (i & 1) ? 0x10 : 0);
    }
    e.area.a64.bts_index = base + 31 * 24;
    CHECK_EQ(ds_bts_threshold_reached(&e.ctx, &reached), DS_OK, "thr");
    CHECK(!reached, "31 < 32");
    e.area.a64.bts_index = base + 40 * 24;
    ds_bts_threshold_reached(&e.ctx, &reached);
    CHECK(reached, "40 >= 32");
    memset(&c, 0, sizeof(c));
    CHECK_EQ(ds_bts_drain(&e.ctx, col, &c, &st), DS_OK, "drain");
    CHECK_EQ(c.n, 40, "40 branches");
    CHECK_EQ(c.b[3].from, 0x400003, "from @0");
    CHECK_EQ(c.b[3].to, 0x500003, "to @8");
    CHECK(c.b[3].predicted && !c.b[2].predicted, "predicted = flags bit 4");
    CHECK_EQ(st.present, 40, "present");
    CHECK_EQ(e.area.a64.bts_index, base, "reset");
    e.area.a64.bts_index = base + 1000 * 24 + 5;
    memset(&c, 0, sizeof(c));
    ds_bts_drain(&e.ctx, col, &c, &st);
    CHECK_EQ(st.records, 64, "whole buffer");
    CHECK_EQ(st.lost_beyond, 936, "beyond");
    CHECK(st.anomalies & DS_DRAIN_INDEX_PAST_MAX, "flag");
    CHECK(st.anomalies & DS_DRAIN_INDEX_MISALIGNED, "misaligned flag");
}

static void test_circular(void)
{
    static struct env e;
    static struct col c;
    struct ds_drain_stats st;
    fake_skylake_pmu(&e.f);
    env_identify(&e, 1);
    e.cfg.bts.thresh_records = 0;
    CHECK_EQ(ds_area_setup(&e.ctx, &e.cpu, &e.cfg), DS_OK, "setup circular");
    uint64_t base = (uint64_t)(uintptr_t)e.bts;
    CHECK_EQ(e.area.a64.bts_thresh, base + 65 * 24, "threshold past the maximum");
    ds_area_install(&e.ctx);
    CHECK_EQ(ds_bts_enable(&e.ctx, DS_BTS_INT), DS_ERR_BTS_MODE, "no interrupt mode without threshold");
    CHECK_EQ(ds_bts_enable(&e.ctx, 0), DS_OK, "circular");
    CHECK_EQ(fake_get_msr(&e.f, DS_MSR_IA32_DEBUGCTL) & (1u << 8), 0, "BTINT clear");
    /* not wrapped: 10 records */
    for (int i = 0; i < 10; i++)
        put64(e.bts, i * 24, 0x1000 + i);
    e.area.a64.bts_index = base + 10 * 24;
    memset(&c, 0, sizeof(c));
    ds_bts_drain(&e.ctx, col, &c, &st);
    CHECK_EQ(c.n, 10, "10");
    CHECK(!(st.anomalies & DS_DRAIN_WRAPPED), "not wrapped");
    CHECK_EQ(e.bts[0], 0, "buffer zeroed after drain");
    /* wrapped: the CPU wrote 64 + 5 records: slots 0..4 newest (64..68), 5..63 older (5..63) */
    for (int i = 0; i < 64; i++)
        put64(e.bts, i * 24, 0x2000 + (i < 5 ? 64 + i : i));
    e.area.a64.bts_index = base + 5 * 24;
    memset(&c, 0, sizeof(c));
    ds_bts_drain(&e.ctx, col, &c, &st);
    CHECK(st.anomalies & DS_DRAIN_WRAPPED, "wrapped flagged");
    CHECK_EQ(c.n, 64, "whole ring");
    CHECK_EQ(c.b[0].from, 0x2000 + 5, "oldest first");
    CHECK_EQ(c.b[58].from, 0x2000 + 63, "then up to the end");
    CHECK_EQ(c.b[59].from, 0x2000 + 64, "then the wrapped part");
    CHECK_EQ(c.b[63].from, 0x2000 + 68, "newest last");
    CHECK_EQ(st.present, st.records, "all present taken");
    CHECK_EQ(ds_area_uninstall(&e.ctx), DS_ERR_DS_BUSY, "busy while enabled");
    ds_bts_disable(&e.ctx);
    CHECK_EQ(ds_area_uninstall(&e.ctx), DS_OK, "uninstall");
}

static void test_bts32(void)
{
    static struct env e;
    static struct col c;
    struct ds_drain_stats st;
    fake_netburst(&e.f);
    env_identify(&e, 0);
    CHECK_EQ(ds_area_setup(&e.ctx, &e.cpu, &e.cfg), DS_OK, "setup");
    for (int i = 0; i < 33; i++) {
        put32(e.bts, i * 12, 0xC0100000u + i);
        put32(e.bts, i * 12 + 4, 0xC0200000u + i);
        put32(e.bts, i * 12 + 8, 0x10);
    }
    e.area.a32.bts_index = 0x20000 + 33 * 12; /* linear addresses, not pointers */
    memset(&c, 0, sizeof(c));
    ds_bts_drain(&e.ctx, col, &c, &st);
    CHECK_EQ(c.n, 33, "33 records of 12 bytes");
    CHECK_EQ(c.b[32].from, 0xC0100020u, "from @0");
    CHECK_EQ(c.b[32].to, 0xC0200020u, "to @4");
    CHECK(c.b[32].predicted, "flags @8");
    CHECK_EQ(e.area.a32.bts_index, 0x20000, "reset to linear base");
    struct ds_bts_branch arr[4];
    size_t n;
    e.area.a32.bts_index = 0x20000 + 6 * 12;
    CHECK_EQ(ds_bts_drain_array(&e.ctx, arr, 4, &n, &st), DS_OK, "array");
    CHECK_EQ(n, 4, "4");
    CHECK_EQ(st.lost_rejected, 2, "2 lost");
}

/*
 * Issue 10 item 4: a buffer set up with a threshold but enabled without
 * DS_BTS_INT runs circular in hardware (SDM "BTS and DS Save Area": BTINT
 * clear -> the index wraps to base at the absolute maximum). The drain
 * follows the programmed mode; the threshold field goes beyond the maximum
 * (SDM set-up note: avoids threshold interrupts) and nothing claims a
 * threshold; enabling with DS_BTS_INT again restores the threshold.
 */
static void test_mode_follows_enable(void)
{
    static struct env e;
    static struct col c;
    struct ds_drain_stats st;
    bool reached;
    fake_skylake_pmu(&e.f);
    env_identify(&e, 1); /* BTS 64 records, threshold 32 */
    CHECK_EQ(ds_area_setup(&e.ctx, &e.cpu, &e.cfg), DS_OK, "setup with threshold");
    uint64_t base = (uint64_t)(uintptr_t)e.bts;
    CHECK_EQ(e.area.a64.bts_thresh, base + 32 * 24, "threshold at 32 records");
    CHECK_EQ(ds_area_install(&e.ctx), DS_OK, "install");
    CHECK_EQ(ds_bts_enable(&e.ctx, 0), DS_OK, "enable circular on a threshold buffer");
    CHECK_EQ(fake_get_msr(&e.f, DS_MSR_IA32_DEBUGCTL) & (1u << 8), 0, "BTINT clear");
    CHECK_EQ(e.area.a64.bts_thresh, base + 65 * 24, "circular: threshold beyond the absolute maximum");
    /* The CPU wrote 64 + 6 = 70 branches: slots 0..5 newest (64..69), 6..63 older. */
    for (int i = 0; i < 64; i++) {
        put64(e.bts, i * 24, 0x3000 + (i < 6 ? 64 + i : i));
        put64(e.bts, i * 24 + 8, 0x9000);
    }
    e.area.a64.bts_index = base + 6 * 24;
    CHECK_EQ(ds_bts_threshold_reached(&e.ctx, &reached), DS_OK, "threshold query");
    CHECK(!reached, "no threshold in circular mode");
    e.area.a64.bts_index = base + 40 * 24;
    ds_bts_threshold_reached(&e.ctx, &reached);
    CHECK(!reached, "index past the setup threshold: still no threshold in circular mode");
    e.area.a64.bts_index = base + 6 * 24;
    ds_bts_disable(&e.ctx); /* the mode of what was recorded stays circular */
    memset(&c, 0, sizeof(c));
    CHECK_EQ(ds_bts_drain(&e.ctx, col, &c, &st), DS_OK, "drain");
    CHECK(st.anomalies & DS_DRAIN_WRAPPED, "wrap detected");
    CHECK(!(st.anomalies & DS_DRAIN_THRESH_CHANGED), "threshold beyond max is the expected value");
    CHECK_EQ(c.n, 64, "the whole ring, not the 6 newest");
    CHECK_EQ(c.b[0].from, 0x3000 + 6, "oldest first");
    CHECK_EQ(c.b[63].from, 0x3000 + 69, "newest last");
    CHECK_EQ(st.present, 64, "present");
    CHECK_EQ(e.bts[0], 0, "buffer zeroed for the next wrap check");
    /* Back to interrupt mode: the threshold is programmed again, linear drain. */
    CHECK_EQ(ds_bts_enable(&e.ctx, DS_BTS_INT), DS_OK, "enable with interrupt");
    CHECK_EQ(e.area.a64.bts_thresh, base + 32 * 24, "threshold restored");
    for (int i = 0; i < 40; i++)
        put64(e.bts, i * 24, 0x5000 + i);
    e.area.a64.bts_index = base + 40 * 24;
    ds_bts_threshold_reached(&e.ctx, &reached);
    CHECK(reached, "interrupt mode: 40 >= 32");
    memset(&c, 0, sizeof(c));
    ds_bts_drain(&e.ctx, col, &c, &st);
    CHECK_EQ(c.n, 40, "linear: 40");
    CHECK_EQ(st.anomalies, 0, "clean");
    /* A faulting DEBUGCTL write leaves the previous mode and threshold in place. */
    e.f.fault_on_write = DS_MSR_IA32_DEBUGCTL;
    CHECK_EQ(ds_bts_enable(&e.ctx, 0), DS_ERR_MSR_FAULT, "write fault");
    CHECK_EQ(e.area.a64.bts_thresh, base + 32 * 24, "threshold unchanged after the fault");
    e.f.fault_on_write = 0;
    ds_bts_disable(&e.ctx);
}

/* A sink that plays the CPU: on the first branch, moves the index to race_to. */
static struct env *race_env;
static uint64_t race_to;
static int racing(void *a, const struct ds_bts_branch *b)
{
    (void)b;
    int *n = a;
    if ((*n)++ == 0)
        race_env->area.a64.bts_index = race_to;
    return 0;
}

/*
 * Exact boundaries (issue 10 test-strength class): the threshold is
 * reached at index == threshold, not one byte before; index == maximum is
 * FULL with every record returned; one byte past is INDEX_PAST_MAX (item
 * 19 for BTS); a race that ends exactly at the maximum counts every record
 * the CPU appended. Expectations from the SDM DS-area semantics
 * (threshold/maximum are byte addresses; 24-byte records).
 */
static void test_bts_boundaries(void)
{
    static struct env e;
    static struct col c;
    struct ds_drain_stats st;
    bool reached;
    fake_skylake_pmu(&e.f);
    env_identify(&e, 1); /* 64 records, threshold 32 */
    CHECK_EQ(ds_area_setup(&e.ctx, &e.cpu, &e.cfg), DS_OK, "setup");
    CHECK_EQ(ds_area_install(&e.ctx), DS_OK, "install");
    CHECK_EQ(ds_bts_enable(&e.ctx, DS_BTS_INT), DS_OK, "interrupt mode");
    uint64_t base = (uint64_t)(uintptr_t)e.bts, max = base + 64 * 24;
    e.area.a64.bts_index = base + 32 * 24 - 1;
    ds_bts_threshold_reached(&e.ctx, &reached);
    CHECK(!reached, "one byte below the threshold");
    e.area.a64.bts_index = base + 32 * 24;
    ds_bts_threshold_reached(&e.ctx, &reached);
    CHECK(reached, "index == threshold");
    for (int i = 0; i < 64; i++)
        put64(e.bts, i * 24, 0x7000 + i);
    e.area.a64.bts_index = max;
    memset(&c, 0, sizeof(c));
    ds_bts_drain(&e.ctx, col, &c, &st);
    CHECK_EQ(st.anomalies, DS_DRAIN_FULL, "index == max: FULL only");
    CHECK_EQ(c.n, 64, "all 64");
    CHECK_EQ(c.b[63].from, 0x7000 + 63, "the last record");
    e.area.a64.bts_index = max + 1;
    memset(&c, 0, sizeof(c));
    ds_bts_drain(&e.ctx, col, &c, &st);
    CHECK(st.anomalies & DS_DRAIN_INDEX_PAST_MAX, "max + 1 byte: past max");
    CHECK(!(st.anomalies & DS_DRAIN_FULL), "max + 1 byte: not FULL");
    CHECK_EQ(st.lost_beyond, 0, "no whole record beyond");
    /* race: 60 records seen, the CPU appends 4 more, ending exactly at the maximum */
    int n = 0;
    race_env = &e;
    race_to = max;
    e.area.a64.bts_index = base + 60 * 24;
    ds_bts_drain(&e.ctx, racing, &n, &st);
    CHECK_EQ(st.records, 60, "60 walked");
    CHECK_EQ(st.lost_race, 4, "4 appended up to the maximum");
    CHECK_EQ(st.present, 64, "present");
    CHECK(st.anomalies & DS_DRAIN_RACE, "race flagged");
    CHECK_EQ(e.area.a64.bts_index, base, "reset");
    ds_bts_disable(&e.ctx);
}

static void test_circular_boundaries(void);

static void test_bts_refusals_mut4b(void);
int main(void)
{
    test_bits();
    test_threshold_drain();
    test_circular();
    test_bts32();
    test_mode_follows_enable();
    test_bts_boundaries();
    test_circular_boundaries();
    test_bts_refusals_mut4b();
    return check_summary();
}

/*
 * Circular mode at its exact boundaries (issue 10 test strength). SDM Vol.
 * 3B "BTS and DS Save Area": without BTINT the CPU, after writing the
 * record at the absolute maximum - 24, sets the index back to the BTS
 * base. So
 * - index == base with slot 0 written: the ring wrapped exactly; all 64
 *   records are older than the index, oldest = slot 0;
 * - index == maximum (a snapshot before the reset): 64 records, no wrap, no
 *   loss; the bytes past the ring are not the caller's buffer and are never
 *   looked at (the fixture's slack holds non-zero bytes here);
 * - a slot is "written" when its branch-from OR its branch-to is non-zero
 *   (a branch from linear address 0 still leaves its to-address).
 */
static void test_circular_boundaries(void)
{
    static struct env e;
    static struct col c;
    struct ds_drain_stats st;
    fake_skylake_pmu(&e.f);
    env_identify(&e, 1);
    e.cfg.bts.thresh_records = 0; /* circular */
    CHECK_EQ(ds_area_setup(&e.ctx, &e.cpu, &e.cfg), DS_OK, "setup circular");
    CHECK_EQ(ds_area_install(&e.ctx), DS_OK, "install");
    CHECK_EQ(ds_bts_enable(&e.ctx, 0), DS_OK, "circular");
    uint64_t base = (uint64_t)(uintptr_t)e.bts, max = base + 64 * 24;

    /* wrapped exactly: 64 records, index back at base */
    for (int i = 0; i < 64; i++) {
        put64(e.bts, i * 24, 0x5000 + i);
        put64(e.bts, i * 24 + 8, 0x6000 + i);
    }
    e.area.a64.bts_index = base;
    memset(&c, 0, sizeof(c));
    CHECK_EQ(ds_bts_drain(&e.ctx, col, &c, &st), DS_OK, "drain wrapped at base");
    CHECK(st.anomalies & DS_DRAIN_WRAPPED, "index == base, slot 0 written: wrapped");
    CHECK_EQ(c.n, 64, "the whole ring");
    CHECK_EQ(c.b[0].from, 0x5000, "oldest = slot 0");
    CHECK_EQ(c.b[63].from, 0x5000 + 63, "newest = slot 63");
    CHECK_EQ(st.present, 64, "present");
    CHECK_EQ(st.records, 64, "records");

    /* index == maximum: slack past the ring holds non-zero bytes */
    for (int i = 0; i < 64; i++)
        put64(e.bts, i * 24, 0x5100 + i);
    memset(e.bts + 64 * 24, 0xA5, 64);
    e.area.a64.bts_index = max;
    memset(&c, 0, sizeof(c));
    CHECK_EQ(ds_bts_drain(&e.ctx, col, &c, &st), DS_OK, "drain at max");
    CHECK_EQ(st.anomalies, 0, "index == max in circular mode: no anomaly (no WRAPPED, no FULL)");
    CHECK_EQ(c.n, 64, "64 records");
    CHECK_EQ(c.b[0].from, 0x5100, "slot 0 first");
    CHECK_EQ(c.b[63].from, 0x5100 + 63, "slot 63 last");
    CHECK_EQ(st.present, 64, "present");
    CHECK_EQ(st.lost_beyond + st.lost_race + st.lost_corrupt + st.lost_rejected, 0, "nothing lost");
    memset(e.bts + 64 * 24, 0, 64);

    /* wrapped, the slot at the index holds a branch from address 0 */
    for (int i = 0; i < 64; i++) {
        put64(e.bts, i * 24, 0x5200 + i);
        put64(e.bts, i * 24 + 8, 0x6200 + i);
    }
    put64(e.bts, 3 * 24, 0); /* from = 0, to = 0x6203 */
    e.area.a64.bts_index = base + 3 * 24;
    memset(&c, 0, sizeof(c));
    CHECK_EQ(ds_bts_drain(&e.ctx, col, &c, &st), DS_OK, "drain from-0 head");
    CHECK(st.anomalies & DS_DRAIN_WRAPPED, "from 0, to non-zero: the slot was written, wrapped");
    CHECK_EQ(c.n, 64, "the whole ring");
    CHECK_EQ(c.b[0].from, 0, "oldest = slot 3, from 0");
    CHECK_EQ(c.b[0].to, 0x6203, "its to-address");
    CHECK_EQ(c.b[63].from, 0x5202, "newest = slot 2");
    ds_bts_disable(&e.ctx);
}

/*
 * mut4B: the BTS refusals no other test reaches (bts.h contracts):
 * - a context never set up is DS_ERR_NOT_SETUP on every BTS entry point
 *   (not DS_ERR_NO_BTS_BUFFER, which a zeroed context would also give);
 * - ds_bts_enable after the CPU was identified again with
 *   IA32_MISC_ENABLE.BTS_UNAVAILABLE (bit 11, SDM Vol. 4 Table 2-2) set is
 *   DS_ERR_BTS_UNAVAILABLE and writes no DEBUGCTL (caps are plain data the
 *   context reads at enable time);
 * - ds_bts_drain with records present and no sink is DS_ERR_NULL and
 *   leaves the index where it was.
 */
static void test_bts_refusals_mut4b(void)
{
    static struct env e;
    static struct ds_ctx z;
    struct ds_drain_stats st;
    struct ds_bts_branch arr[2];
    size_t n = 0;
    bool reached = true;
    static struct col c;
    memset(&z, 0, sizeof z);
    CHECK_EQ(ds_bts_enable(&z, 0), DS_ERR_NOT_SETUP, "enable, not set up");
    CHECK_EQ(ds_bts_disable(&z), DS_ERR_NOT_SETUP, "disable, not set up");
    CHECK_EQ(ds_bts_drain(&z, col, &c, &st), DS_ERR_NOT_SETUP, "drain, not set up");
    CHECK_EQ(ds_bts_drain_array(&z, arr, 2, &n, &st), DS_ERR_NOT_SETUP, "drain_array, not set up");
    CHECK_EQ(ds_bts_threshold_reached(&z, &reached), DS_ERR_NOT_SETUP, "threshold_reached, not set up");

    fake_skylake_pmu(&e.f);
    env_identify(&e, 1);
    CHECK_EQ(ds_area_setup(&e.ctx, &e.cpu, &e.cfg), DS_OK, "setup");
    CHECK_EQ(ds_area_install(&e.ctx), DS_OK, "install");
    uint64_t misc = fake_get_msr(&e.f, DS_MSR_IA32_MISC_ENABLE);
    fake_set_msr(&e.f, DS_MSR_IA32_MISC_ENABLE, misc | (1ull << 11));
    CHECK_EQ(ds_cpu_identify(&e.cpu), DS_OK, "identified again");
    CHECK(!e.cpu.caps.bts_advertised, "BTS_UNAVAILABLE now set");
    e.f.nlog = 0;
    CHECK_EQ(ds_bts_enable(&e.ctx, 0), DS_ERR_BTS_UNAVAILABLE, "enable refused");
    CHECK_EQ(fake_writes_to(&e.f, DS_MSR_IA32_DEBUGCTL, NULL), 0, "DEBUGCTL not written");
    CHECK(!e.ctx.bts_enabled, "not enabled");

    uint64_t base = (uint64_t)(uintptr_t)e.bts;
    for (int i = 0; i < 3; i++)
        put64(e.bts, i * 24, 0x9000 + i);
    e.area.a64.bts_index = base + 3 * 24;
    CHECK_EQ(ds_bts_drain(&e.ctx, NULL, NULL, &st), DS_ERR_NULL, "drain without a sink");
    CHECK_EQ(e.area.a64.bts_index, base + 3 * 24, "index unchanged");
    memset(&c, 0, sizeof c);
    CHECK_EQ(ds_bts_drain(&e.ctx, col, &c, &st), DS_OK, "drain with a sink");
    CHECK_EQ(c.n, 3, "3 branches");
    CHECK_EQ(c.b[2].from, 0x9002, "the third");
    CHECK_EQ(st.records, 3, "the 3 records still there");
}
