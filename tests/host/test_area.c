/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * DS save area: layout choice, field placement (checked against the
 * reference offsets with raw byte arithmetic, not libds's structs), setup
 * validation, counter-reset slots, install/uninstall, and the table of bad
 * inputs (each with its own documented error and no MSR written).
 */
#include <stdint.h>
#include "check.h"
#include "ds_env.h"
#include <ds/ds.h>

static uint64_t rd64(const void *base, size_t off)
{
    uint64_t v;
    memcpy(&v, (const unsigned char *)base + off, 8);
    return v;
}

static uint32_t rd32(const void *base, size_t off)
{
    uint32_t v;
    memcpy(&v, (const unsigned char *)base + off, 4);
    return v;
}

/* Replace a CPUID leaf of a fake profile (fake_set_cpuid appends; the first match wins). */
static void set_leaf(struct fake_cpu *f, uint32_t leaf, uint32_t a, uint32_t b, uint32_t c, uint32_t d)
{
    for (int i = 0; i < f->nleaves; i++)
        if (f->leaves[i].leaf == leaf && f->leaves[i].sub == 0) {
            f->leaves[i].r[0] = a, f->leaves[i].r[1] = b, f->leaves[i].r[2] = c, f->leaves[i].r[3] = d;
            return;
        }
    fake_set_cpuid(f, leaf, 0, a, b, c, d);
}

static void test_layout_rule(void)
{
    struct env e;
    enum ds_layout l;
    fake_skylake(&e.f);
    env_identify(&e, 0); /* DTES64 = 1, not IA-32e: still 64-bit */
    CHECK_EQ(ds_area_layout(&e.cpu, &l), DS_OK, "layout");
    CHECK_EQ(l, DS_LAYOUT_64, "DTES64 -> 64-bit layout in every mode");
    fake_netburst(&e.f);
    env_identify(&e, 0);
    ds_area_layout(&e.cpu, &l);
    CHECK_EQ(l, DS_LAYOUT_32, "no DTES64, not IA-32e -> 32-bit");
    env_identify(&e, 1);
    ds_area_layout(&e.cpu, &l);
    CHECK_EQ(l, DS_LAYOUT_64, "no DTES64, IA-32e -> 64-bit");
    struct ds_cpu raw;
    ds_cpu_init(&raw, &fake_ops, &e.f);
    CHECK_EQ(ds_area_layout(&raw, &l), DS_ERR_NOT_IDENTIFIED, "needs identify");
    CHECK_EQ(ds_area_layout(NULL, &l), DS_ERR_NULL, "null");
}

static void test_setup64(void)
{
    static struct env e;
    fake_skylake_pmu(&e.f);
    env_identify(&e, 1);
    unsigned w0 = e.f.writes;
    memset(e.bts, 0xAB, sizeof(e.bts));
    CHECK_EQ(ds_area_setup(&e.ctx, &e.cpu, &e.cfg), DS_OK, "setup");
    CHECK_EQ(e.f.writes, w0, "setup writes no MSR");
    CHECK_EQ(e.ctx.pebs_fmt, DS_PEBS_FMT_3, "fmt3");
    uint64_t b = (uint64_t)(uintptr_t)e.bts, p = (uint64_t)(uintptr_t)e.pebs;
    /* Reference ds-area.md 64-bit offsets */
    CHECK_EQ(rd64(&e.area, 0x00), b, "bts base @0");
    CHECK_EQ(rd64(&e.area, 0x08), b, "bts index @8");
    CHECK_EQ(rd64(&e.area, 0x10), b + 64 * 24, "bts max @0x10");
    CHECK_EQ(rd64(&e.area, 0x18), b + 32 * 24, "bts thresh @0x18");
    CHECK_EQ(rd64(&e.area, 0x20), p, "pebs base @0x20");
    CHECK_EQ(rd64(&e.area, 0x28), p, "pebs index @0x28");
    CHECK_EQ(rd64(&e.area, 0x30), p + 16 * 0xC8, "pebs max @0x30");
    CHECK_EQ(rd64(&e.area, 0x38), p + 0xC8, "pebs thresh @0x38");
    CHECK_EQ(e.ctx.pebs.thresh_at, p + 0xC8, "ctx pebs.thresh_at = the threshold field");
    CHECK_EQ(e.ctx.bts.thresh_at, b + 32 * 24, "ctx bts.thresh_at = the threshold field");
    CHECK_EQ(e.bts[0], 0, "bts buffer zeroed");
    CHECK_EQ(e.bts[64 * 24 - 1], 0, "bts buffer zeroed to the end");
    CHECK_EQ(e.bts[64 * 24], 0xAB, "nothing written past the buffer");

    /* counter-reset slots: 0x40 + 8 * i */
    CHECK_EQ(ds_area_set_reset(&e.ctx, DS_CTR_GP, 0, 0xFFFFFFFFFF00ull), DS_OK, "reset pmc0");
    CHECK_EQ(rd64(&e.area, 0x40), 0xFFFFFFFFFF00ull, "reset slot 0 at 0x40 (not 0x30)");
    CHECK_EQ(rd64(&e.area, 0x30), p + 16 * 0xC8, "0x30 still the PEBS max");
    CHECK_EQ(ds_area_set_reset(&e.ctx, DS_CTR_GP, 3, 7), DS_OK, "reset pmc3");
    CHECK_EQ(rd64(&e.area, 0x58), 7, "slot 3 at 0x58");
    CHECK_EQ(ds_area_set_reset(&e.ctx, DS_CTR_GP, 3, 1ull << 48), DS_ERR_RESET_WIDTH, "48-bit counter");
    CHECK_EQ(ds_area_set_reset(&e.ctx, DS_CTR_GP, 4, 1), DS_ERR_RESET_SLOT, "fmt3 has 4 slots");
    CHECK_EQ(ds_area_set_reset(&e.ctx, DS_CTR_FIXED, 0, 1), DS_ERR_RESET_SLOT, "no fixed slot before fmt4");

    /* install / uninstall */
    e.f.msrs[0].val = e.f.msrs[0].val; /* no-op, keep map */
    fake_set_msr(&e.f, DS_MSR_IA32_DS_AREA, 0x1234000);
    CHECK_EQ(ds_area_install(&e.ctx), DS_OK, "install");
    CHECK_EQ(fake_get_msr(&e.f, DS_MSR_IA32_DS_AREA), (uint64_t)(uintptr_t)&e.area, "DS_AREA = area");
    CHECK_EQ(ds_area_install(&e.ctx), DS_ERR_INSTALLED, "twice");
    CHECK_EQ(ds_area_setup(&e.ctx, &e.cpu, &e.cfg), DS_ERR_INSTALLED, "setup while installed");
    CHECK_EQ(ds_area_uninstall(&e.ctx), DS_OK, "uninstall");
    CHECK_EQ(fake_get_msr(&e.f, DS_MSR_IA32_DS_AREA), 0x1234000, "prior value restored");
    CHECK_EQ(ds_area_uninstall(&e.ctx), DS_ERR_NOT_INSTALLED, "uninstall twice");
}

static void test_setup_fmt4_5_resets(void)
{
    static struct env e;
    fake_icelake(&e.f);
    env_identify(&e, 1);
    e.cfg.pebs_data_cfg = DS_PEBS_DATA_CFG_MEMINFO | DS_PEBS_DATA_CFG_GPRS;
    e.cfg.pebs.bytes = 16 * (32 + 32 + 144);
    CHECK_EQ(ds_area_setup(&e.ctx, &e.cpu, &e.cfg), DS_OK, "icl setup");
    CHECK_EQ(e.ctx.pebs_fmt, DS_PEBS_FMT_4, "fmt4");
    CHECK_EQ(e.ctx.pebs.rec_size, 208, "adaptive record size from data cfg");
    CHECK_EQ(ds_area_set_reset(&e.ctx, DS_CTR_FIXED, 0, 5), DS_OK, "fixed0");
    CHECK_EQ(rd64(&e.area, 0x80), 5, "fmt4: fixed 0 reset at 0x40 + 8*8 = 0x80");
    CHECK_EQ(ds_area_set_reset(&e.ctx, DS_CTR_GP, 7, 9), DS_OK, "gp7");
    CHECK_EQ(rd64(&e.area, 0x78), 9, "gp7 at 0x78");
    CHECK_EQ(ds_area_set_reset(&e.ctx, DS_CTR_FIXED, 4, 1), DS_ERR_RESET_SLOT, "4 fixed counters only");
    /* format 5: fixed m at 32 + m */
    fake_set_msr(&e.f, DS_MSR_IA32_PERF_CAPABILITIES, 0x4000 | 0x2000 | 0x500);
    env_identify(&e, 1);
    e.cfg.pebs.bytes = 16 * 32;
    CHECK_EQ(ds_area_setup(&e.ctx, &e.cpu, &e.cfg), DS_OK, "fmt5 setup");
    CHECK_EQ(e.ctx.pebs_fmt, DS_PEBS_FMT_5, "fmt5");
    CHECK_EQ(ds_area_set_reset(&e.ctx, DS_CTR_FIXED, 2, 0xABC), DS_OK, "fmt5 fixed2");
    CHECK_EQ(rd64(&e.area, 0x40 + 8 * 34), 0xABC, "fmt5 fixed 2 at 0x40 + 8*34 = 0x150");
}

static void test_setup32_netburst(void)
{
    static struct env e;
    fake_netburst(&e.f);
    env_identify(&e, 0);
    CHECK_EQ(ds_area_setup(&e.ctx, &e.cpu, &e.cfg), DS_OK, "nb setup");
    CHECK_EQ(e.ctx.layout, DS_LAYOUT_32, "32-bit layout");
    CHECK_EQ(e.ctx.pebs_fmt, DS_PEBS_FMT_NB32, "NetBurst 40-byte records");
    CHECK_EQ(e.ctx.pebs.rec_size, 40, "40 bytes");
    CHECK_EQ(e.ctx.bts.rec_size, 12, "12-byte BTS");
    /* Reference 32-bit offsets */
    CHECK_EQ(rd32(&e.area, 0x00), 0x20000, "bts base");
    CHECK_EQ(rd32(&e.area, 0x04), 0x20000, "bts index");
    CHECK_EQ(rd32(&e.area, 0x08), 0x20000 + 64 * 12, "bts max");
    CHECK_EQ(rd32(&e.area, 0x0C), 0x20000 + 32 * 12, "bts thresh");
    CHECK_EQ(rd32(&e.area, 0x10), 0x40000, "pebs base");
    CHECK_EQ(rd32(&e.area, 0x14), 0x40000, "pebs index");
    CHECK_EQ(rd32(&e.area, 0x18), 0x40000 + 16 * 40, "pebs max");
    CHECK_EQ(rd32(&e.area, 0x1C), 0x40000 + 40, "pebs thresh");
    CHECK_EQ(ds_area_set_reset(&e.ctx, DS_CTR_GP, 0, 0xFF00000001ull), DS_OK, "40-bit reset");
    CHECK_EQ(rd32(&e.area, 0x20), 0x00000001, "reset low @0x20");
    CHECK_EQ(rd32(&e.area, 0x24), 0xFF, "reset high @0x24");
    CHECK_EQ(ds_area_set_reset(&e.ctx, DS_CTR_GP, 0, 1ull << 40), DS_ERR_RESET_WIDTH, "41 bits");
    CHECK_EQ(ds_area_set_reset(&e.ctx, DS_CTR_GP, 1, 1), DS_ERR_RESET_SLOT, "one slot");
    CHECK_EQ(ds_area_install(&e.ctx), DS_OK, "install");
    CHECK_EQ(fake_get_msr(&e.f, DS_MSR_IA32_DS_AREA), 0x10000, "linear address programmed, not the pointer");
    /* NetBurst in IA-32e mode: 64-bit layout with 144-byte records */
    env_identify(&e, 1);
    CHECK_EQ(ds_area_setup(&e.ctx, &e.cpu, &e.cfg), DS_OK, "nb64 setup");
    CHECK_EQ(e.ctx.pebs_fmt, DS_PEBS_FMT_NB64, "NB64");
    CHECK_EQ(e.ctx.pebs.rec_size, 144, "144 bytes");
    CHECK_EQ(e.ctx.bts.rec_size, 24, "24-byte BTS");
}

/*
 * Issue 10 item 5: the PEBS threshold leaves one record per PEBS-capable
 * counter before the maximum (Linux ds.c pebs_update_threshold: reserved =
 * PEBS counters, + fixed counters with PMU_FL_PEBS_ALL), not a flat 2.
 * Expectations from the fake profiles' CPUID.0AH words (fake_cpu.h) and
 * the SDM's PEBS counter lists: Core 2 fmt0 PMC0 only -> 1; Skylake fmt3
 * PMC0-3 -> 4; Ice Lake fmt4 8 GP + 4 fixed -> 12. BTS keeps 2.
 */
static void test_pebs_margin(void)
{
    static struct env e;
    uint32_t m = 0;
    fake_core2(&e.f); env_identify(&e, 1); /* 16 records */
    CHECK_EQ(ds_pebs_thresh_margin(&e.cpu, DS_PEBS_FMT_0, &m), DS_OK, "core2 margin"); CHECK_EQ(m, 1, "fmt0: PMC0");
    e.cfg.pebs.thresh_records = 15;
    CHECK_EQ(ds_area_setup(&e.ctx, &e.cpu, &e.cfg), DS_OK, "fmt0: 16 - 1 = 15 is the last threshold");
    e.cfg.pebs.thresh_records = 16;
    CHECK_EQ(ds_area_setup(&e.ctx, &e.cpu, &e.cfg), DS_ERR_THRESH_MARGIN, "fmt0: 16 too close");

    fake_skylake_pmu(&e.f); env_identify(&e, 1);
    CHECK_EQ(ds_pebs_thresh_margin(&e.cpu, DS_PEBS_FMT_3, &m), DS_OK, "skl margin"); CHECK_EQ(m, 4, "fmt3: PMC0-3");
    e.cfg.pebs.thresh_records = 12;
    CHECK_EQ(ds_area_setup(&e.ctx, &e.cpu, &e.cfg), DS_OK, "fmt3: 16 - 4 = 12 exactly");
    CHECK_EQ(e.area.a64.pebs_thresh, (uint64_t)(uintptr_t)e.pebs + 12 * 0xC8, "threshold field at 12 records");
    e.cfg.pebs.thresh_records = 13;
    CHECK_EQ(ds_area_setup(&e.ctx, &e.cpu, &e.cfg), DS_ERR_THRESH_MARGIN, "fmt3: 13 leaves 3 < 4");
    e.cfg.pebs.bytes = 4 * 0xC8; e.cfg.pebs.thresh_records = 1;
    CHECK_EQ(ds_area_setup(&e.ctx, &e.cpu, &e.cfg), DS_ERR_BUF_SMALL, "fmt3: 4 records cannot hold 1 + 4");
    e.cfg.pebs.bytes = 5 * 0xC8;
    CHECK_EQ(ds_area_setup(&e.ctx, &e.cpu, &e.cfg), DS_OK, "fmt3: 5 records hold 1 + 4");
    e.cfg.pebs.bytes = 4 * 0xC8; e.cfg.pebs.thresh_records = 0;
    CHECK_EQ(ds_area_setup(&e.ctx, &e.cpu, &e.cfg), DS_OK, "no threshold: no margin needed");
    CHECK_EQ(e.ctx.pebs.thresh_at, (uint64_t)(uintptr_t)e.pebs + 5 * 0xC8,
             "no threshold: thresh_at one record past the maximum (never reached)");
    e.cfg.pebs.bytes = 16 * 0xC8;
    e.cfg.bts.thresh_records = 62;
    CHECK_EQ(ds_area_setup(&e.ctx, &e.cpu, &e.cfg), DS_OK, "BTS: 64 - 2 = 62");

    fake_icelake(&e.f); env_identify(&e, 1); /* 16 basic records of 32 bytes */
    e.cfg.pebs.bytes = 16 * 32;
    CHECK_EQ(ds_pebs_thresh_margin(&e.cpu, DS_PEBS_FMT_4, &m), DS_OK, "icl margin"); CHECK_EQ(m, 12, "fmt4: 8 GP + 4 fixed");
    e.cfg.pebs.thresh_records = 4;
    CHECK_EQ(ds_area_setup(&e.ctx, &e.cpu, &e.cfg), DS_OK, "fmt4: 16 - 12 = 4");
    e.cfg.pebs.thresh_records = 5;
    CHECK_EQ(ds_area_setup(&e.ctx, &e.cpu, &e.cfg), DS_ERR_THRESH_MARGIN, "fmt4: 5 leaves 11 < 12");
    /* Only the counters that exist count: fixed counter 3 absent (CPUID 0AH ECX mask 0x7). */
    set_leaf(&e.f, 0xA, 0x08300805, 0, 0x7, 0x00000603); env_identify(&e, 1);
    CHECK_EQ(ds_pebs_thresh_margin(&e.cpu, DS_PEBS_FMT_4, &m), DS_OK, "icl 3 fixed"); CHECK_EQ(m, 11, "8 + 3");
    CHECK_EQ(ds_pebs_thresh_margin(&e.cpu, DS_PEBS_FMT_NONE, &m), DS_ERR_PEBS_FORMAT, "unknown format");
    CHECK_EQ(ds_pebs_thresh_margin(NULL, DS_PEBS_FMT_4, &m), DS_ERR_NULL, "null");
}

/*
 * Issue 10 item 9: PEBS format 0 (Core 2, Atom) with a buffer above 4 KiB
 * hangs the WRMSR to IA32_PERF_GLOBAL_CTRL (Linux ds.c intel_ds_init, fmt0:
 * "Using >PAGE_SIZE buffers makes the WRMSR to PERF_GLOBAL_CTRL ... hang on
 * Core2"): refused. 144-byte records: 28 (4032 bytes) fit, 29 (4176) not.
 */
static void test_core2_pebs_4k(void)
{
    static struct env e;
    fake_core2(&e.f); env_identify(&e, 1);
    e.cfg.pebs.bytes = 28 * 0x90;
    CHECK_EQ(ds_area_setup(&e.ctx, &e.cpu, &e.cfg), DS_OK, "fmt0: 28 records = 4032 bytes");
    e.cfg.pebs.bytes = 29 * 0x90;
    CHECK_EQ(ds_area_setup(&e.ctx, &e.cpu, &e.cfg), DS_ERR_PEBS_BUF_4K, "fmt0: 29 records = 4176 bytes");
    fake_skylake_pmu(&e.f); env_identify(&e, 1);
    e.cfg.pebs.bytes = 29 * 0xC8;
    CHECK_EQ(ds_area_setup(&e.ctx, &e.cpu, &e.cfg), DS_OK, "fmt3: no 4 KiB limit");
}

/*
 * Issue 11: fixed-counter PEBS reset slots. Formats 4: 8 + m; 5/6: 32 + m;
 * Goldmont Plus (06_7AH, PEBS format 3 with extended PEBS on the fixed
 * counters, Linux PMU_FL_PEBS_ALL): 8 + m as well (Linux
 * intel_pmu_pebs_enable: fixed idx -> MAX_PEBS_EVENTS_FMT4 + m below
 * format 5). Only counters in caps.fixed_mask (CPUID 0AH ECX/EDX rule).
 * Slot offsets: 0x40 + 8 * slot (SDM 64-bit DS area).
 */
static void test_fixed_reset_slots(void)
{
    static struct env e;
    fake_skylake_pmu(&e.f);
    set_leaf(&e.f, 1, 0x000706A1, 0, (1u << 2) | (1u << 4) | (1u << 15), (1u << 5) | (1u << 9) | (1u << 21)); /* 06_7AH */
    env_identify(&e, 1);
    CHECK_EQ(e.cpu.caps.display_model, 0x7A, "Goldmont Plus");
    CHECK_EQ(ds_area_setup(&e.ctx, &e.cpu, &e.cfg), DS_OK, "GLM+ fmt3 setup");
    CHECK_EQ(ds_area_set_reset(&e.ctx, DS_CTR_FIXED, 1, 0x55), DS_OK, "GLM+ fixed 1");
    CHECK_EQ(rd64(&e.area, 0x40 + 8 * 9), 0x55, "GLM+ fixed 1 at slot 8 + 1");
    CHECK_EQ(ds_area_set_reset(&e.ctx, DS_CTR_FIXED, 3, 1), DS_ERR_RESET_SLOT, "GLM+ has fixed 0-2 (EDX 3)");
    fake_skylake_pmu(&e.f); env_identify(&e, 1); /* 06_5EH fmt3: no fixed PEBS */
    ds_area_setup(&e.ctx, &e.cpu, &e.cfg);
    CHECK_EQ(ds_area_set_reset(&e.ctx, DS_CTR_FIXED, 0, 1), DS_ERR_RESET_SLOT, "Skylake fmt3: no fixed slot");
    /* format 4 with a hole in the fixed counters (v5 ECX bitmap 0x5, EDX count 0) */
    fake_icelake(&e.f);
    set_leaf(&e.f, 0xA, 0x08300805, 0, 0x5, 0x00000600);
    env_identify(&e, 1);
    CHECK_EQ(e.cpu.caps.fixed_mask, 0x5, "fixed 0 and 2");
    e.cfg.pebs.bytes = 16 * 32;
    e.cfg.pebs.thresh_records = 0;
    CHECK_EQ(ds_area_setup(&e.ctx, &e.cpu, &e.cfg), DS_OK, "icl setup");
    CHECK_EQ(ds_area_set_reset(&e.ctx, DS_CTR_FIXED, 2, 0x66), DS_OK, "fixed 2 exists");
    CHECK_EQ(rd64(&e.area, 0x40 + 8 * 10), 0x66, "fmt4 fixed 2 at slot 10");
    CHECK_EQ(ds_area_set_reset(&e.ctx, DS_CTR_FIXED, 1, 1), DS_ERR_RESET_SLOT, "fixed 1 absent (hole)");
    CHECK_EQ(rd64(&e.area, 0x40 + 8 * 9), 0, "nothing written for the absent counter");
}

/*
 * Issue 11: counters may be non-contiguous (CPUID.23H.1 EAX/EBX bitmaps,
 * which supersede leaf 0AH's counts). A PEBS counter-reset slot exists only
 * for a counter in the bitmap; the threshold margin counts the bitmap.
 * Profile: Ice Lake fake with leaf 23H: GP 0, 2, 4-7 (0xF5), fixed 0-2.
 */
static void test_reset_slots_bitmap(void)
{
    static struct env e;
    fake_icelake(&e.f);
    set_leaf(&e.f, 0, 0x23, FAKE_INTEL_EBX, FAKE_INTEL_ECX, FAKE_INTEL_EDX);
    fake_set_cpuid(&e.f, 0x23, 0, DS_LEAF23_SUB_COUNTERS, 0, 0, 0);
    fake_set_cpuid(&e.f, 0x23, 1, 0xF5, 0x7, 0, 0);
    env_identify(&e, 1);
    CHECK_EQ(e.cpu.caps.gp_mask, 0xF5, "GP bitmap from 23H.1");
    uint32_t m = 0;
    CHECK_EQ(ds_pebs_thresh_margin(&e.cpu, DS_PEBS_FMT_4, &m), DS_OK, "margin");
    CHECK_EQ(m, 6 + 3, "6 GP + 3 fixed in the bitmaps");
    e.cfg.pebs.bytes = 16 * 32;
    e.cfg.pebs.thresh_records = 0;
    CHECK_EQ(ds_area_setup(&e.ctx, &e.cpu, &e.cfg), DS_OK, "setup");
    CHECK_EQ(ds_area_set_reset(&e.ctx, DS_CTR_GP, 2, 0x22), DS_OK, "GP2 present");
    CHECK_EQ(rd64(&e.area, 0x40 + 8 * 2), 0x22, "slot 2");
    CHECK_EQ(ds_area_set_reset(&e.ctx, DS_CTR_GP, 1, 0x11), DS_ERR_RESET_SLOT, "GP1 absent from the bitmap");
    CHECK_EQ(ds_area_set_reset(&e.ctx, DS_CTR_GP, 3, 0x33), DS_ERR_RESET_SLOT, "GP3 absent from the bitmap");
    CHECK_EQ(rd64(&e.area, 0x40 + 8 * 1), 0, "nothing written for GP1");
    CHECK_EQ(ds_area_set_reset(&e.ctx, DS_CTR_GP, 7, 0x77), DS_OK, "GP7 present");
    CHECK_EQ(ds_area_set_reset(&e.ctx, DS_CTR_FIXED, 3, 1), DS_ERR_RESET_SLOT, "fixed 3 absent from the bitmap");
}

/* ---- table of bad inputs ------------------------------------------------- */

struct bad {
    const char *what;
    int want;
};

static const struct bad bads[] = {
    { "config NULL", DS_ERR_NULL },
    { "cpu not identified", DS_ERR_NOT_IDENTIFIED },
    { "vendor not Intel", DS_ERR_NOT_INTEL },
    { "DS absent", DS_ERR_NO_DS },
    { "BTS_UNAVAILABLE set", DS_ERR_BTS_UNAVAILABLE },
    { "PEBS_UNAVAILABLE set", DS_ERR_PEBS_UNAVAILABLE },
    { "no buffers", DS_ERR_NO_BUFFERS },
    { "area pointer misaligned", DS_ERR_AREA_ALIGN },
    { "area linear misaligned", DS_ERR_AREA_ALIGN },
    { "area linear non-canonical", DS_ERR_AREA_ADDR },
    { "area above 4 GiB in 32-bit layout", DS_ERR_AREA_ADDR },
    { "BTS pointer misaligned", DS_ERR_BUF_ALIGN },
    { "PEBS linear misaligned", DS_ERR_BUF_ALIGN },
    { "BTS linear non-canonical", DS_ERR_BUF_ADDR },
    { "PEBS range crosses the canonical hole", DS_ERR_BUF_ADDR },
    { "BTS beyond 4 GiB in 32-bit layout", DS_ERR_BUF_ADDR },
    { "buffer wraps the address space", DS_ERR_BUF_ADDR },
    { "BTS size not multiple of 24", DS_ERR_BUF_SIZE },
    { "PEBS size 0", DS_ERR_BUF_SIZE },
    { "NetBurst PEBS size not multiple of 40", DS_ERR_BUF_SIZE },
    { "too few records for threshold + margin", DS_ERR_BUF_SMALL },
    { "threshold beyond the buffer", DS_ERR_THRESH_RANGE },
    { "threshold one record short of max", DS_ERR_THRESH_MARGIN },
    { "unknown PEBS format 7", DS_ERR_PEBS_FORMAT },
    { "fmt3 with 32-bit layout", DS_ERR_LAYOUT },
    { "data cfg on fixed format", DS_ERR_DATA_CFG },
    { "data cfg reserved bits", DS_ERR_DATA_CFG },
    { "adaptive groups without baseline", DS_ERR_DATA_CFG },
    { "BTS and PEBS overlap", DS_ERR_OVERLAP },
    { "area inside PEBS buffer (linear)", DS_ERR_OVERLAP },
    { "reset value wider than counter", DS_ERR_RESET_WIDTH },
    { "reset slot for PMC4 on fmt3", DS_ERR_RESET_SLOT },
    { "reset for PMC1 on Core 2 fmt0 (PMC0 only)", DS_ERR_RESET_SLOT },
    { "reset with unknown counter kind", DS_ERR_INVAL },
    { "reset before setup", DS_ERR_NOT_SETUP },
    { "install before setup", DS_ERR_NOT_SETUP },
    { "install: DS_AREA read faults", DS_ERR_MSR_FAULT },
    { "install: DS_AREA write faults", DS_ERR_MSR_FAULT },
    { "uninstall when not installed", DS_ERR_NOT_INSTALLED },
    { "uninstall while BTS enabled", DS_ERR_DS_BUSY },
    { "BTS enable not installed", DS_ERR_NOT_INSTALLED },
    { "BTS enable without BTS buffer", DS_ERR_NO_BTS_BUFFER },
    { "BTS enable unknown flags", DS_ERR_BAD_FLAGS },
    { "BTS OFF_OS without DS-CPL", DS_ERR_NO_DSCPL },
    { "BTS interrupt mode without threshold", DS_ERR_BTS_MODE },
    { "BTS enable: DEBUGCTL read faults", DS_ERR_MSR_FAULT },
    { "PEBS drain without PEBS buffer", DS_ERR_NO_PEBS_BUFFER },
    { "PEBS drain NULL sink", DS_ERR_NULL },
    { "decode: short record", DS_ERR_REC_SHORT },
    { "decode: adaptive size lies", DS_ERR_REC_SIZE },
    { "decode: unknown format", DS_ERR_PEBS_FORMAT },
    { "PMI: streamlined freeze on perfmon v3", DS_ERR_PMI_FREEZE_MODE },
    { "PMI: legacy freeze on NetBurst", DS_ERR_PMI_FREEZE_MODE },
    { "PMI: GLOBAL_CTRL names PMC9", DS_ERR_PMI_CTRL_MASK },
    { "PMI: handle before init", DS_ERR_PMI_NOT_INIT },
    { "PMI: GLOBAL_STATUS read faults", DS_ERR_MSR_FAULT },
    { "PEBS buffer with no PEBS counter present", DS_ERR_PEBS_NO_COUNTERS },
    { "fmt3 threshold 13 of 16 (margin 4 counters)", DS_ERR_THRESH_MARGIN },
    { "Core 2 fmt0 PEBS buffer above 4 KiB", DS_ERR_PEBS_BUF_4K },
    { "decode: adaptive LBR group record misaligned", DS_ERR_REC_ALIGN },
    { "fmt6: GP snapshot mask without the counters bit", DS_ERR_DATA_CFG },
    { "fmt6: snapshot of GP8 on an 8-counter CPU", DS_ERR_DATA_CFG },
    { "fmt6: metrics without PERF_METRICS", DS_ERR_DATA_CFG },
    { "fmt4: counters group bit", DS_ERR_DATA_CFG },
    { "decode fmt6: counters header disagrees with size", DS_ERR_REC_SIZE },
    { "arch PEBS CPU: PEBS buffer in the DS area", DS_ERR_APEBS_DS_AREA },
    { "PEBS_FMT 0xF without CPUID.23H sub-leaves 4/5", DS_ERR_APEBS_NOT_ENUMERATED },
    { "PMI: cfg.apebs not installed", DS_ERR_APEBS_PMI },
    { "event: generic event 0", DS_ERR_EVENT_UNKNOWN },
    { "event: family-6 model outside the table (06_09H)", DS_ERR_EVENT_UARCH },
    { "event: loads on Bonnell (no retired-load event)", DS_ERR_EVENT_NONE },
    { "event: instructions disabled in CPUID.0AH:EBX", DS_ERR_EVENT_UNAVAILABLE },
    { "event: lookup on an AMD CPU", DS_ERR_NOT_INTEL },
    { "IA32_MISC_ENABLE read faults (BTS/PEBS unknown)", DS_ERR_MISC_ENABLE_UNREAD },
    { "PEBS: PERF_CAPABILITIES read faults (format unknown)", DS_ERR_PEBS_CAPS_UNREAD },
    { "BTS buffer of 2^32 records (record count is 32-bit)", DS_ERR_BUF_SIZE },
    { "CPUID.01H:EDX.DS clear, BTS buffer only", DS_ERR_NO_DS },
    { "CPUID.01H:EDX.DS clear, PEBS buffer only", DS_ERR_NO_DS },
};

static int noop_pebs(void *a, const struct ds_pebs_sample *s) { (void)a; (void)s; return 0; }

/* Run bad case @i; returns the error; *counts_as_write tells whether a
 * (faulting) write attempt is inherent to the case. */
static int run_bad(int i, struct env *e, int *write_attempt)
{
    int r = -1;
    *write_attempt = 0;
    fake_skylake_pmu(&e->f);
    env_identify(e, 1);
    struct ds_area_config *c = &e->cfg;
    unsigned char *mis = e->bts + 4;
    switch (i) {
    case 0: return ds_area_setup(&e->ctx, &e->cpu, NULL);
    case 1: { struct ds_cpu raw; ds_cpu_init(&raw, &fake_ops, &e->f); return ds_area_setup(&e->ctx, &raw, c); }
    case 2: e->cpu.caps.vendor = DS_VENDOR_AMD; return ds_area_setup(&e->ctx, &e->cpu, c);
    case 3: e->cpu.caps.ds = false; return ds_area_setup(&e->ctx, &e->cpu, c);
    case 4: fake_set_msr(&e->f, DS_MSR_IA32_MISC_ENABLE, (1u << 7) | (1u << 11)); env_identify(e, 1);
            return ds_area_setup(&e->ctx, &e->cpu, c);
    case 5: fake_set_msr(&e->f, DS_MSR_IA32_MISC_ENABLE, (1u << 7) | (1u << 12)); env_identify(e, 1);
            c->bts.mem = NULL; c->pebs.mem = e->pebs; c->pebs.bytes = 0xC8 * 16;
            return ds_area_setup(&e->ctx, &e->cpu, c);
    case 6: c->bts.mem = NULL; c->pebs.mem = NULL; return ds_area_setup(&e->ctx, &e->cpu, c);
    case 7: c->area = (union ds_area *)(void *)((unsigned char *)&e->area + 4); return ds_area_setup(&e->ctx, &e->cpu, c);
    case 8: c->area_linear = 0x100004; return ds_area_setup(&e->ctx, &e->cpu, c);
    case 9: c->area_linear = 0x0000900000000000ull; return ds_area_setup(&e->ctx, &e->cpu, c);
    case 10: fake_netburst(&e->f); env_identify(e, 0); c->area_linear = 0xFFFFFFF0ull;
             return ds_area_setup(&e->ctx, &e->cpu, c);
    case 11: c->bts.mem = mis; c->bts.bytes = 24 * 8; c->bts.thresh_records = 0; return ds_area_setup(&e->ctx, &e->cpu, c);
    case 12: c->pebs.linear = 0x200004; return ds_area_setup(&e->ctx, &e->cpu, c);
    case 13: c->bts.linear = 0x00F0000000000000ull; return ds_area_setup(&e->ctx, &e->cpu, c);
    case 14: c->pebs.linear = 0x00007FFFFFFFFF00ull; return ds_area_setup(&e->ctx, &e->cpu, c);
    case 15: fake_netburst(&e->f); env_identify(e, 0); c->bts.linear = 0xFFFFFE00ull;
             return ds_area_setup(&e->ctx, &e->cpu, c);
    case 16: c->bts.linear = 0xFFFFFFFFFFFFFF00ull; return ds_area_setup(&e->ctx, &e->cpu, c);
    case 17: c->bts.bytes = 24 * 40 + 8; return ds_area_setup(&e->ctx, &e->cpu, c);
    case 18: c->pebs.bytes = 0; return ds_area_setup(&e->ctx, &e->cpu, c);
    case 19: fake_netburst(&e->f); env_identify(e, 0); c->pebs.bytes = 40 * 10 + 8;
             return ds_area_setup(&e->ctx, &e->cpu, c);
    case 20: c->pebs.bytes = 0xC8 * 2; c->pebs.thresh_records = 1; return ds_area_setup(&e->ctx, &e->cpu, c);
    case 21: c->bts.thresh_records = 65; return ds_area_setup(&e->ctx, &e->cpu, c);
    case 22: c->bts.thresh_records = 63; return ds_area_setup(&e->ctx, &e->cpu, c);
    case 23: fake_set_msr(&e->f, DS_MSR_IA32_PERF_CAPABILITIES, 0x700); env_identify(e, 1);
             c->pebs.mem = e->pebs; c->pebs.bytes = 0xC8 * 4;
             return ds_area_setup(&e->ctx, &e->cpu, c);
    case 24: env_identify(e, 1); ds_cpu_set_ia32e(&e->cpu, false); e->cpu.caps.dtes64 = false;
             return ds_area_setup(&e->ctx, &e->cpu, c);
    case 25: c->pebs_data_cfg = DS_PEBS_DATA_CFG_GPRS; return ds_area_setup(&e->ctx, &e->cpu, c);
    case 26: fake_icelake(&e->f); env_identify(e, 1); c->pebs.bytes = 32 * 16; c->pebs_data_cfg = 1ull << 40;
             return ds_area_setup(&e->ctx, &e->cpu, c);
    case 27: fake_icelake(&e->f); fake_set_msr(&e->f, DS_MSR_IA32_PERF_CAPABILITIES, 0x400); env_identify(e, 1);
             c->pebs.bytes = 64 * 16; c->pebs_data_cfg = DS_PEBS_DATA_CFG_MEMINFO;
             return ds_area_setup(&e->ctx, &e->cpu, c);
    case 28: c->pebs.mem = e->bts + 24 * 8; c->pebs.bytes = 0xC8 * 5; return ds_area_setup(&e->ctx, &e->cpu, c);
    case 29: c->area_linear = (uint64_t)(uintptr_t)e->pebs + 0xC8; return ds_area_setup(&e->ctx, &e->cpu, c);
    case 30: ds_area_setup(&e->ctx, &e->cpu, c); return ds_area_set_reset(&e->ctx, DS_CTR_GP, 0, 1ull << 48);
    case 31: ds_area_setup(&e->ctx, &e->cpu, c); return ds_area_set_reset(&e->ctx, DS_CTR_GP, 4, 1);
    case 32: fake_core2(&e->f); env_identify(e, 1); ds_area_setup(&e->ctx, &e->cpu, c);
             return ds_area_set_reset(&e->ctx, DS_CTR_GP, 1, 1); /* fmt0: PMC0 only */
    case 33: ds_area_setup(&e->ctx, &e->cpu, c); return ds_area_set_reset(&e->ctx, (enum ds_ctr_kind)9, 0, 1);
    case 34: return ds_area_set_reset(&e->ctx, DS_CTR_GP, 0, 1);
    case 35: return ds_area_install(&e->ctx);
    case 36: ds_area_setup(&e->ctx, &e->cpu, c); e->f.fault_on_read = DS_MSR_IA32_DS_AREA;
             return ds_area_install(&e->ctx);
    case 37: ds_area_setup(&e->ctx, &e->cpu, c); e->f.fault_on_write = DS_MSR_IA32_DS_AREA; *write_attempt = 1;
             r = ds_area_install(&e->ctx);
             if (e->ctx.installed) r = -2;
             return r;
    case 38: ds_area_setup(&e->ctx, &e->cpu, c); return ds_area_uninstall(&e->ctx);
    case 39: ds_area_setup(&e->ctx, &e->cpu, c); ds_area_install(&e->ctx); ds_bts_enable(&e->ctx, 0);
             e->f.writes = 0; return ds_area_uninstall(&e->ctx);
    case 40: ds_area_setup(&e->ctx, &e->cpu, c); return ds_bts_enable(&e->ctx, 0);
    case 41: c->bts.mem = NULL; ds_area_setup(&e->ctx, &e->cpu, c); ds_area_install(&e->ctx); e->f.writes = 0;
             return ds_bts_enable(&e->ctx, 0);
    case 42: ds_area_setup(&e->ctx, &e->cpu, c); ds_area_install(&e->ctx); e->f.writes = 0;
             return ds_bts_enable(&e->ctx, 0x80);
    case 43: e->cpu.caps.ds_cpl = false; ds_area_setup(&e->ctx, &e->cpu, c); ds_area_install(&e->ctx); e->f.writes = 0;
             return ds_bts_enable(&e->ctx, DS_BTS_OFF_OS);
    case 44: c->bts.thresh_records = 0; ds_area_setup(&e->ctx, &e->cpu, c); ds_area_install(&e->ctx); e->f.writes = 0;
             return ds_bts_enable(&e->ctx, DS_BTS_INT);
    case 45: ds_area_setup(&e->ctx, &e->cpu, c); ds_area_install(&e->ctx); e->f.writes = 0;
             e->f.fault_on_read = DS_MSR_IA32_DEBUGCTL; return ds_bts_enable(&e->ctx, 0);
    case 46: c->pebs.mem = NULL; ds_area_setup(&e->ctx, &e->cpu, c);
             return ds_pebs_drain(&e->ctx, noop_pebs, NULL, NULL);
    case 47: ds_area_setup(&e->ctx, &e->cpu, c); return ds_pebs_drain(&e->ctx, NULL, NULL, NULL);
    case 48: { struct ds_pebs_sample s; return ds_pebs_decode(DS_PEBS_FMT_3, e->pebs, 0xC7, false, &s); }
    case 49: { struct ds_pebs_sample s; memset(e->pebs, 0, 64); e->pebs[6] = 64; /* size 64, basic only */
               return ds_pebs_decode(DS_PEBS_FMT_4, e->pebs, 64, false, &s); }
    case 50: { struct ds_pebs_sample s; return ds_pebs_decode((enum ds_pebs_fmt)0x107, e->pebs, 4096, false, &s); }
    case 51: { struct ds_pmi p; struct ds_pmi_config pc = { .freeze = DS_FREEZE_STREAMLINED };
               fake_haswell(&e->f); env_identify(e, 1); return ds_pmi_init(&p, &e->cpu, NULL, &pc); }
    case 52: { struct ds_pmi p; struct ds_pmi_config pc = { .freeze = DS_FREEZE_LEGACY };
               fake_netburst(&e->f); env_identify(e, 0); return ds_pmi_init(&p, &e->cpu, NULL, &pc); }
    case 53: { struct ds_pmi p; struct ds_pmi_config pc = { .global_ctrl = 1ull << 9 };
               return ds_pmi_init(&p, &e->cpu, NULL, &pc); }
    case 54: { struct ds_pmi p; memset(&p, 0, sizeof(p)); return ds_pmi_handle(&p, NULL); }
    case 55: { struct ds_pmi p; struct ds_pmi_config pc = { .freeze = DS_FREEZE_STREAMLINED };
               ds_pmi_init(&p, &e->cpu, NULL, &pc); e->f.fault_on_read = DS_MSR_IA32_PERF_GLOBAL_STATUS;
               e->f.writes = 0; return ds_pmi_handle(&p, NULL); }
    case 56: set_leaf(&e->f, 0xA, 0x07300004, 0, 0, 0x00000603); env_identify(e, 1);
             return ds_area_setup(&e->ctx, &e->cpu, c); /* perfmon v4, 0 GP counters */
    case 57: c->pebs.thresh_records = 13; return ds_area_setup(&e->ctx, &e->cpu, c);
    case 58: fake_core2(&e->f); env_identify(e, 1); c->pebs.bytes = 29 * 0x90;
             return ds_area_setup(&e->ctx, &e->cpu, c);
    case 59: { struct ds_pebs_sample s; memset(e->pebs, 0, 64); e->pebs[4] = 8; e->pebs[10] = 56; /* at +4: LBR group, 1 entry, 56 bytes */
               return ds_pebs_decode(DS_PEBS_FMT_4, e->pebs + 4, 60, false, &s); }
    case 60: case 61: case 62: {
        fake_icelake(&e->f);
        fake_set_msr(&e->f, DS_MSR_IA32_PERF_CAPABILITIES, (i == 62 ? 0 : 0x8000) | 0x4000 | 0x2000 | 0x600 | 0x80 | 0x3F);
        env_identify(e, 1);
        c->pebs.bytes = 32 * 64; c->pebs.thresh_records = 0;
        c->pebs_data_cfg = i == 60 ? (0x1ull << 32) : i == 61 ? ((1ull << 4) | (0x100ull << 32)) : (1ull << 5);
        return ds_area_setup(&e->ctx, &e->cpu, c); }
    case 63: fake_icelake(&e->f); env_identify(e, 1); c->pebs.bytes = 48 * 16; c->pebs.thresh_records = 0;
             c->pebs_data_cfg = 1ull << 4; return ds_area_setup(&e->ctx, &e->cpu, c);
    case 64: { struct ds_pebs_sample s; memset(e->pebs, 0, 64); e->pebs[0] = 0x10; e->pebs[6] = 56;
               e->pebs[32] = 0x3; /* two GP values claimed: 64 bytes, size says 56 */
               return ds_pebs_decode(DS_PEBS_FMT_6, e->pebs, 64, false, &s); }
    case 65: case 66: /* PEBS_FMT 0xF (Linux intel_pebs_init: architectural PEBS) */
        fake_icelake(&e->f); set_leaf(&e->f, 0, 0x23, FAKE_INTEL_EBX, FAKE_INTEL_ECX, FAKE_INTEL_EDX);
        fake_set_msr(&e->f, DS_MSR_IA32_PERF_CAPABILITIES, 0xF00 | 0x3F);
        fake_set_cpuid(&e->f, 0x23, 0, i == 65 ? 0x30 : 0, 0, 0, 0); /* EAX[5:4]: sub-leaves 4, 5 */
        fake_set_cpuid(&e->f, 0x23, 4, 0, 0x60060378, 0, 0);
        fake_set_cpuid(&e->f, 0x23, 5, 0xFF, 3, 0xF, 1);
        env_identify(e, 1); c->pebs.mem = e->pebs; c->pebs.bytes = 48 * 16; c->pebs.thresh_records = 0;
        return ds_area_setup(&e->ctx, &e->cpu, c);
    case 67: { static struct ds_arch_pebs ap; struct ds_pmi p; struct ds_pmi_config pc;
               memset(&ap, 0, sizeof(ap)); memset(&pc, 0, sizeof(pc)); pc.apebs = &ap;
               return ds_pmi_init(&p, &e->cpu, NULL, &pc); }
    case 68: case 69: case 70: case 71: case 72: { /* event.h: caps edited after identify (plain data) */
        struct ds_event_desc d;
        enum ds_event ev = i == 68 ? DS_EVENT_NONE : i == 70 ? DS_EVENT_LOADS : DS_EVENT_INSTRUCTIONS;
        if (i == 69)
            e->cpu.caps.display_model = 0x09;
        if (i == 70)
            e->cpu.caps.display_model = 0x1C;
        if (i == 71)
            e->cpu.caps.events_unavailable = 1u << 1; /* EAX[31:24] = 7 on this profile */
        if (i == 72)
            e->cpu.caps.vendor = DS_VENDOR_AMD;
        return ds_event_lookup(&e->cpu, ev, &d); }
    case 73: case 74: /* issue 11: could not read is not "unavailable" / "PDCM is 0" */
        fake_skylake_pmu(&e->f);
        e->f.fault_on_read = i == 73 ? DS_MSR_IA32_MISC_ENABLE : DS_MSR_IA32_PERF_CAPABILITIES;
        env_identify(e, 1); e->f.fault_on_read = 0; e->f.writes = 0;
        c->pebs.mem = e->pebs; c->pebs.bytes = 16 * 0xC8; c->pebs.thresh_records = 1;
        return ds_area_setup(&e->ctx, &e->cpu, c);
    case 75: c->pebs.mem = NULL; c->bts.thresh_records = 0; c->bts.linear = 0x0000100000000000ull;
#if SIZE_MAX > 0xFFFFFFFFu
             c->bts.bytes = (size_t)24 << 32;
#else        /* a 32-bit size_t cannot name 2^32 records: the largest multiple of 24 is < 2^32 records,
              * so the i386 build checks the other end of the same rule (0 records) */
             c->bts.bytes = 0;
#endif
             return ds_area_setup(&e->ctx, &e->cpu, c);
    case 76: case 77: /* a CPU without DS (a KVM guest): NO_DS first, whichever buffer; the
                       * BTS-only request reaches no other DS check (setup_check_facility) */
        for (int k = 0; k < e->f.nleaves; k++)
            if (e->f.leaves[k].leaf == 1)
                e->f.leaves[k].r[3] &= ~(1u << 21); /* SDM CPUID.01H:EDX.DS[21] */
        env_identify(e, 1); e->f.writes = 0;
        if (i == 76) {
            c->pebs.mem = NULL;
        } else {
            c->bts.mem = NULL;
            c->pebs.mem = e->pebs; c->pebs.bytes = 16 * 0xC8; c->pebs.thresh_records = 1;
        }
        return ds_area_setup(&e->ctx, &e->cpu, c);
    }
    return r;
}

static void test_bad_inputs(void)
{
    static struct env e;
    int n = (int)(sizeof(bads) / sizeof(bads[0]));
    CHECK(n >= 30, "at least 30 bad inputs (%d)", n);
    for (int i = 0; i < n; i++) {
        int wa;
        int r = run_bad(i, &e, &wa);
        CHECK(r == bads[i].want, "bad input %d (%s): got %s, want %s", i, bads[i].what, ds_errname(r),
              ds_errname(bads[i].want));
        /* Nothing reached an MSR: no write at all, or the single faulting write. */
        CHECK_EQ(e.f.writes, (unsigned)wa, "bad input %d (%s) wrote no MSR", i, bads[i].what);
        CHECK(strcmp(ds_strerror(r), "unknown libds error") != 0, "bad input %d error documented", i);
    }
}

/*
 * Issue 10 test strength (exact boundaries): the record count is stored in
 * 32 bits (ds_buf_state.nrec), so exactly 0xFFFFFFFF records is the largest
 * buffer accepted (bad-input row 75: 2^32 records is DS_ERR_BUF_SIZE). A
 * buffer that passes makes setup zero it (96 GiB here), so "accepted" is
 * observed through the checks that follow the size check and fail before
 * any memory is written: the threshold margin, then the overlap check.
 */
static void test_max_record_count(void)
{
#if SIZE_MAX > 0xFFFFFFFFu /* 2^32 records of 24 bytes need a 64-bit size_t */
    static struct env e;
    fake_skylake_pmu(&e.f);
    env_identify(&e, 1);
    e.cfg.pebs.mem = NULL;
    e.cfg.bts.linear = 0x0000100000000000ull;
    e.cfg.bts.bytes = (size_t)24 * 0xFFFFFFFFull;
    e.cfg.bts.thresh_records = 0xFFFFFFFFu;
    CHECK_EQ(ds_area_setup(&e.ctx, &e.cpu, &e.cfg), DS_ERR_THRESH_MARGIN,
             "0xFFFFFFFF records pass the size check (threshold at the maximum is what fails)");
    e.cfg.bts.thresh_records = 0;
    e.cfg.area_linear = e.cfg.bts.linear + 24 * 0x80000000ull; /* inside the BTS range */
    CHECK_EQ(ds_area_setup(&e.ctx, &e.cpu, &e.cfg), DS_ERR_OVERLAP, "0xFFFFFFFF records: every buffer check passed");
    e.cfg.bts.bytes += 24;
    CHECK_EQ(ds_area_setup(&e.ctx, &e.cpu, &e.cfg), DS_ERR_BUF_SIZE, "0x100000000 records");
    e.cfg.bts.thresh_records = 0xFFFFFFFFu;
    CHECK_EQ(ds_area_setup(&e.ctx, &e.cpu, &e.cfg), DS_ERR_BUF_SIZE, "0x100000000 records, threshold set");
    CHECK_EQ(e.f.writes, 0, "no MSR written");
#endif
}

/* Three refusals no bad-input row reached (area.h contracts): the PEBS
 * margin of a CPU not identified (no caps to count counters from:
 * DS_ERR_NOT_IDENTIFIED, margin 0), a reset value for a context set up
 * without a PEBS buffer (DS_ERR_NO_PEBS_BUFFER, the BTS-only area left
 * as set up; ds_pebs_pending the same), and MSR_PEBS_DATA_CFG with no
 * PEBS buffer (DS_ERR_DATA_CFG). */
static void test_pebs_less_refusals(void)
{
    static struct env e;
    uint32_t m = 99;
    struct ds_cpu raw;
    fake_skylake_pmu(&e.f);
    ds_cpu_init(&raw, &fake_ops, &e.f);
    CHECK_EQ(ds_pebs_thresh_margin(&raw, DS_PEBS_FMT_3, &m), DS_ERR_NOT_IDENTIFIED, "margin before identify");
    CHECK_EQ(m, 0, "margin 0 on error");
    env_identify(&e, 1);
    e.cfg.pebs.mem = NULL;
    CHECK_EQ(ds_area_setup(&e.ctx, &e.cpu, &e.cfg), DS_OK, "BTS-only setup");
    union ds_area before = e.area;
    CHECK_EQ(ds_area_set_reset(&e.ctx, DS_CTR_GP, 0, 0x1234), DS_ERR_NO_PEBS_BUFFER, "reset without PEBS buffer");
    CHECK(memcmp(&before, &e.area, sizeof(before)) == 0, "area untouched");
    uint64_t pend = 7;
    CHECK_EQ(ds_pebs_pending(&e.ctx, &pend), DS_ERR_NO_PEBS_BUFFER, "pending without PEBS buffer");
    fake_icelake(&e.f);
    env_identify(&e, 1);
    e.cfg.pebs.mem = NULL;
    e.cfg.pebs_data_cfg = DS_PEBS_DATA_CFG_MEMINFO;
    CHECK_EQ(ds_area_setup(&e.ctx, &e.cpu, &e.cfg), DS_ERR_DATA_CFG, "data cfg without PEBS buffer");
}

/* One (kind, index) request against the expected reset slot (-1: refused
 * with DS_ERR_RESET_SLOT and nothing written). Slots at 0x40 + 8 * slot of
 * the 64-bit area (SDM Vol. 3B "DS Save Area"). */
static void want_slot(struct env *e, enum ds_ctr_kind k, uint32_t idx, int slot, const char *what)
{
    uint64_t v = 0x1000 + idx + (k == DS_CTR_FIXED ? 0x100 : 0);
    uint64_t before[48];
    for (unsigned i = 0; i < 48; i++)
        before[i] = rd64(&e->area, 0x40 + 8 * i);
    CHECK_EQ(ds_area_set_reset(&e->ctx, k, idx, v), slot < 0 ? DS_ERR_RESET_SLOT : DS_OK, "%s: %s %u", what,
             k == DS_CTR_GP ? "GP" : "fixed", idx);
    for (unsigned i = 0; i < 48; i++)
        CHECK_EQ(rd64(&e->area, 0x40 + 8 * i), (int)i == slot ? v : before[i], "%s: %s %u, slot %u", what,
                 k == DS_CTR_GP ? "GP" : "fixed", idx, i);
}

/* The reset-slot rules at every boundary of every format (mutants of
 * area.c:440-495 survived: fmt 6 fixed, the NetBurst fixed request, unknown
 * counter widths). Rules from the SDM DS-area layout and Linux
 * intel_pmu_pebs_enable (ds.c): PEBS counter reset for GP i at slot i, up to
 * 4 counters below format 4 (MAX_PEBS_EVENTS_FMT4 = 8 from format 4, 32
 * from format 5); fixed m at 8 + m in format 4 and at 32 + m from format 5
 * (INTEL_PMC_IDX_FIXED); NetBurst: one 40-bit reset value, GP 0 only. A
 * counter CPUID gives no width for (0AH EAX[23:16] or EDX[12:5] = 0) has
 * no usable reset value (ds/area.h). The Ice Lake fake with 10 GP counters
 * (0AH EAX 0x08300A05) separates the format-4 limit from the counter mask. */
static void test_reset_slot_matrix(void)
{
    static struct env e;
    static const struct { uint64_t caps; uint32_t eax, edx, sig; const char *what; } p[] = {
        { 0x4000 | 0x2000 | 0x400, 0x08300A05, 0x604, 0x000706E5, "fmt4, 10 GP" },
        { 0x4000 | 0x2000 | 0x500, 0x08300A05, 0x604, 0x000706E5, "fmt5, 10 GP" },
        { 0x4000 | 0x2000 | 0x600, 0x08300A05, 0x604, 0x000706E5, "fmt6, 10 GP" },
        { 0x4000 | 0x2000 | 0x400, 0x08000805, 0x604, 0x000706E5, "fmt4, GP width 0" },
        { 0x4000 | 0x2000 | 0x400, 0x08300805, 0x004, 0x000706E5, "fmt4, fixed width 0" },
        { 0x4000 | 0x2000 | 0x500, 0x08300805, 0x604, 0x000706A1, "06_7AH with fmt5" },
    };
    for (size_t i = 0; i < sizeof(p) / sizeof(p[0]); i++) {
        fake_icelake(&e.f);
        set_leaf(&e.f, 0xA, p[i].eax, 0, 0xF, p[i].edx);
        set_leaf(&e.f, 1, p[i].sig, 0, (1u << 2) | (1u << 4) | (1u << 15), (1u << 5) | (1u << 9) | (1u << 21));
        fake_set_msr(&e.f, DS_MSR_IA32_PERF_CAPABILITIES, p[i].caps);
        env_identify(&e, 1);
        e.cfg.pebs.bytes = 16 * 32;
        e.cfg.pebs.thresh_records = 0;
        CHECK_EQ(ds_area_setup(&e.ctx, &e.cpu, &e.cfg), DS_OK, "%s: setup", p[i].what);
        unsigned fmt = (unsigned)(p[i].caps >> 8) & 0xF;
        if (i <= 2) {
            want_slot(&e, DS_CTR_GP, 0, 0, p[i].what);
            want_slot(&e, DS_CTR_GP, 7, 7, p[i].what);
            want_slot(&e, DS_CTR_GP, 8, fmt == 4 ? -1 : 8, p[i].what);
            want_slot(&e, DS_CTR_GP, 9, fmt == 4 ? -1 : 9, p[i].what);
            want_slot(&e, DS_CTR_GP, 10, -1, p[i].what);
            for (uint32_t m = 0; m < 4; m++)
                want_slot(&e, DS_CTR_FIXED, m, (fmt == 4 ? 8 : 32) + (int)m, p[i].what);
            want_slot(&e, DS_CTR_FIXED, 4, -1, p[i].what);
            want_slot(&e, DS_CTR_FIXED, 16, -1, p[i].what);
        } else if (i == 3) {
            want_slot(&e, DS_CTR_GP, 0, -1, p[i].what);
            want_slot(&e, DS_CTR_FIXED, 0, 8, p[i].what);
        } else if (i == 4) {
            want_slot(&e, DS_CTR_GP, 0, 0, p[i].what);
            want_slot(&e, DS_CTR_FIXED, 0, -1, p[i].what);
        } else {
            /* Goldmont Plus's 8 + m applies to its own formats (1-3), not to 5 */
            want_slot(&e, DS_CTR_FIXED, 1, 33, p[i].what);
        }
    }
    /* NetBurst: GP 0 only; a fixed-counter request is refused, nothing written */
    fake_netburst(&e.f);
    env_identify(&e, 0);
    CHECK_EQ(ds_area_setup(&e.ctx, &e.cpu, &e.cfg), DS_OK, "nb setup");
    CHECK_EQ(ds_area_set_reset(&e.ctx, DS_CTR_FIXED, 0, 5), DS_ERR_RESET_SLOT, "NetBurst fixed 0");
    CHECK_EQ(ds_area_set_reset(&e.ctx, DS_CTR_FIXED, 1, 5), DS_ERR_RESET_SLOT, "NetBurst fixed 1");
    CHECK(rd32(&e.area, 0x20) == 0 && rd32(&e.area, 0x24) == 0, "NetBurst reset untouched");
}

/* A fixed counter in the CPUID.23H.1 EBX bitmap beyond leaf 0AH's count
 * exists (SDM CPUID leaf 23H: the bitmaps enumerate the counters; Linux
 * update_pmu_cap sets fixed_cntr_mask64 from EBX; ds/area.h: the counter
 * must be in caps.fixed_mask), so it has a reset slot (fixed 4 at 8 + 4 in
 * format 4, 32 + 4 in format 5). Before the fix ds_area_set_reset refused it
 * by leaf 0AH's count (found from the survivor area.c:447 `index >=
 * c->fixed_counters` -> `>`); ds_pmc_fixed_program already accepts it. */
static void test_reset_slot_fixed_beyond_0a_count(void)
{
    static struct env e;
    for (unsigned fmt = 4; fmt <= 5; fmt++) {
        fake_icelake(&e.f);
        set_leaf(&e.f, 0, 0x23, FAKE_INTEL_EBX, FAKE_INTEL_ECX, FAKE_INTEL_EDX);
        fake_set_cpuid(&e.f, 0x23, 0, DS_LEAF23_SUB_COUNTERS, 0, 0, 0);
        fake_set_cpuid(&e.f, 0x23, 1, 0xFF, 0x1F, 0, 0);
        fake_set_msr(&e.f, DS_MSR_IA32_PERF_CAPABILITIES, 0x4000 | 0x2000 | (fmt << 8));
        env_identify(&e, 1);
        CHECK(e.cpu.caps.fixed_mask == 0x1F && e.cpu.caps.fixed_counters == 4, "fmt%u: bitmap 0x1F, 0AH count 4", fmt);
        e.cfg.pebs.bytes = 16 * 32;
        e.cfg.pebs.thresh_records = 0;
        CHECK_EQ(ds_area_setup(&e.ctx, &e.cpu, &e.cfg), DS_OK, "fmt%u setup", fmt);
        want_slot(&e, DS_CTR_FIXED, 4, fmt == 4 ? 12 : 36, "fixed 4 from the 23H bitmap");
        want_slot(&e, DS_CTR_FIXED, 5, -1, "fixed 5 in neither");
    }
}

/* Address and threshold checks at their exact boundaries (survivors of
 * area.c: 64-bit alignment 8 -> 7, the wrap check `||` -> `&&`, the 32-bit
 * area end `> 4 GiB` -> `>=` / `> 4 GiB - 1`, the Goldmont Plus margin's
 * model key, BTS circular iff threshold 0). Expectations: SDM Vol. 3B "DS
 * Save Area" (64-bit fields 8-byte aligned, 32-bit layout below 4 GiB),
 * ds/area.h (the "no threshold" value end + one record must not wrap; BTS
 * threshold 0 = circular, threshold field beyond the maximum), Linux
 * intel_pmu_init INTEL_ATOM_GOLDMONT_PLUS (PMU_FL_PEBS_ALL: the fixed
 * counters are PEBS counters too, pebs_update_threshold). */
static void test_area_boundaries(void)
{
    static struct env e;
    /* 64-bit layout: 8-byte alignment of pointer and linear address */
    static const unsigned offs[] = { 1, 2, 4, 8 };
    for (size_t i = 0; i < sizeof(offs) / sizeof(offs[0]); i++) {
        fake_skylake_pmu(&e.f);
        env_identify(&e, 1);
        e.cfg.bts.mem = e.bts + offs[i];
        CHECK_EQ(ds_area_setup(&e.ctx, &e.cpu, &e.cfg), offs[i] == 8 ? DS_OK : DS_ERR_BUF_ALIGN, "BTS pointer +%u",
                 offs[i]);
        e.cfg.bts.mem = e.bts;
        e.cfg.bts.linear = (uint64_t)(uintptr_t)e.bts + offs[i];
        CHECK_EQ(ds_area_setup(&e.ctx, &e.cpu, &e.cfg), offs[i] == 8 ? DS_OK : DS_ERR_BUF_ALIGN, "BTS linear +%u",
                 offs[i]);
    }
    /* 64-bit: the last byte at 2^64 - 1 leaves no room for end + record */
    fake_skylake_pmu(&e.f);
    env_identify(&e, 1);
    e.cfg.pebs.mem = NULL;
    uint64_t bytes = e.cfg.bts.bytes;
    const struct { uint64_t linear; int want; const char *what; } top[] = {
        { 0 - bytes, DS_ERR_BUF_ADDR, "last byte 2^64 - 1" },
        { 0 - bytes - 24, DS_ERR_BUF_ADDR, "end + record = 2^64" },
        { 0 - bytes - 32, DS_OK, "end + record = 2^64 - 8" },
    };
    for (size_t i = 0; i < sizeof(top) / sizeof(top[0]); i++) {
        e.cfg.bts.linear = top[i].linear;
        CHECK_EQ(ds_area_setup(&e.ctx, &e.cpu, &e.cfg), top[i].want, "%s", top[i].what);
    }
    /* 32-bit layout: the management area may end exactly at 4 GiB */
    fake_netburst(&e.f);
    env_identify(&e, 0);
    static const struct { uint64_t lin; int want; } a32[] = {
        { 0x100000000ull - sizeof(struct ds_area32), DS_OK },
        { 0x100000000ull - sizeof(struct ds_area32) + 4, DS_ERR_AREA_ADDR },
        { 0x100000000ull - sizeof(struct ds_area32) - 4, DS_OK },
    };
    for (size_t i = 0; i < sizeof(a32) / sizeof(a32[0]); i++) {
        e.cfg.area_linear = a32[i].lin;
        CHECK_EQ(ds_area_setup(&e.ctx, &e.cpu, &e.cfg), a32[i].want, "32-bit area at 0x%llx",
                 (unsigned long long)a32[i].lin);
    }
    /* Goldmont Plus 06_7AH (fmt 3): 4 GP + 3 fixed PEBS counters -> margin 7 */
    fake_skylake_pmu(&e.f);
    set_leaf(&e.f, 1, 0x000706A1, 0, (1u << 2) | (1u << 4) | (1u << 15), (1u << 5) | (1u << 9) | (1u << 21));
    env_identify(&e, 1);
    uint32_t m = 0;
    CHECK_EQ(ds_pebs_thresh_margin(&e.cpu, DS_PEBS_FMT_3, &m), DS_OK, "GLM+ margin");
    CHECK_EQ(m, 7, "GLM+: 4 GP + 3 fixed");
    CHECK_EQ(ds_pebs_thresh_margin(&e.cpu, DS_PEBS_FMT_1, &m), DS_OK, "GLM+ margin fmt1");
    CHECK_EQ(m, 7, "GLM+ fmt1: 4 GP + 3 fixed");
    /* BTS threshold 1 record: interrupt mode, field = base + 24; 0: circular, field beyond max */
    fake_skylake_pmu(&e.f);
    env_identify(&e, 1);
    uint64_t b = (uint64_t)(uintptr_t)e.bts;
    e.cfg.bts.thresh_records = 1;
    e.cfg.pebs.mem = NULL;
    CHECK_EQ(ds_area_setup(&e.ctx, &e.cpu, &e.cfg), DS_OK, "BTS threshold 1");
    CHECK_EQ(rd64(&e.area, 0x18), b + 24, "threshold 1: base + one record");
    e.cfg.bts.thresh_records = 0;
    CHECK_EQ(ds_area_setup(&e.ctx, &e.cpu, &e.cfg), DS_OK, "BTS threshold 0");
    CHECK_EQ(rd64(&e.area, 0x18), b + 64 * 24 + 24, "threshold 0: circular, max + one record");
}

/* Canonical addresses at every edge (SDM Vol. 3A "Canonical Addressing":
 * bits 63:47, or 63:56 with 5-level paging, all equal; mutant area.c:15
 * 57 -> 56 survived); the area pointer misaligned by 1 (mutant area.c:270
 * alignment mask - 1 -> - 2); ds_area_uninstall on a context never set up
 * is DS_ERR_NOT_SETUP, not DS_ERR_NOT_INSTALLED (area.h; guard removal at
 * area.c:547 survived). */
static void test_canonical_edges_and_refusals(void)
{
    static const struct { uint64_t a; bool la57, ok; } t[] = {
        { 0x00007FFFFFFFFFFFull, false, true }, { 0x0000800000000000ull, false, false },
        { 0xFFFF800000000000ull, false, true }, { 0xFFFF7FFFFFFFFFFFull, false, false },
        { 0x00FFFFFFFFFFFFFFull, false, false }, { 0, false, true }, { ~0ull, false, true },
        { 0x00FFFFFFFFFFFFFFull, true, true }, { 0x0100000000000000ull, true, false },
        { 0xFF00000000000000ull, true, true }, { 0xFEFFFFFFFFFFFFFFull, true, false },
        { 0x0000800000000000ull, true, true }, { 0x0080000000000000ull, true, true },
        { 0xFF80000000000000ull, true, true }, { 0, true, true }, { ~0ull, true, true },
    };
    for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
        CHECK_EQ(ds_linear_canonical(t[i].a, t[i].la57), t[i].ok, "0x%016llx la57 %d", (unsigned long long)t[i].a,
                 t[i].la57);
    static struct env e;
    fake_skylake_pmu(&e.f);
    env_identify(&e, 1);
    static _Alignas(64) unsigned char raw[sizeof(union ds_area) + 64];
    /* the pointer's alignment is the union's: 8 on x86-64, 4 on i386 (the
     * i386 ABI aligns uint64_t members to 4) */
    for (unsigned off = 1; off < _Alignof(union ds_area); off++) {
        e.cfg.area = (union ds_area *)(void *)(raw + off);
        CHECK_EQ(ds_area_setup(&e.ctx, &e.cpu, &e.cfg), DS_ERR_AREA_ALIGN, "area pointer +%u", off);
        e.cfg.area_linear = 0x00007F0000000000ull; /* aligned linear address: the pointer alone is misaligned */
        CHECK_EQ(ds_area_setup(&e.ctx, &e.cpu, &e.cfg), DS_ERR_AREA_ALIGN, "area pointer +%u, linear aligned", off);
        e.cfg.area_linear = 0;
    }
    struct ds_ctx z;
    memset(&z, 0, sizeof(z));
    CHECK_EQ(ds_area_uninstall(&z), DS_ERR_NOT_SETUP, "uninstall, never set up");
    CHECK_EQ(ds_area_install(&z), DS_ERR_NOT_SETUP, "install, never set up");
}

int main(void)
{
    test_layout_rule();
    test_setup64();
    test_setup_fmt4_5_resets();
    test_setup32_netburst();
    test_pebs_margin();
    test_core2_pebs_4k();
    test_fixed_reset_slots();
    test_reset_slots_bitmap();
    test_bad_inputs();
    test_max_record_count();
    test_pebs_less_refusals();
    test_reset_slot_matrix();
    test_reset_slot_fixed_beyond_0a_count();
    test_area_boundaries();
    test_canonical_edges_and_refusals();
    return check_summary();
}
