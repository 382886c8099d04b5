/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * ctest config.*: one host program, compiled once per ds/config.h setting
 * together with the libds sources built with that same setting. For every
 * facility the setting turns off it calls each entry point with valid
 * arguments on a fake CPU that has the facility, and checks that the call
 * returns DS_ERR_UNSUPPORTED, clears its outputs (poisoned first) and
 * touches no MSR. For the facilities left on it checks that they still work
 * (so a setting cannot "pass" by breaking everything), and it tests the
 * NetBurst raw ESCR/CCCR entry points whenever DS_CONFIG_NETBURST=1.
 */
#include <ds/ds.h>
#include "check.h"
#include "fake_cpu.h"

#define POISON 0xA5
#define POISONED(x) memset(&(x), POISON, sizeof(x))

__attribute__((unused)) static int all_zero(const void *p, size_t n)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++)
        if (b[i])
            return 0;
    return 1;
}
#define ZEROED(x) all_zero(&(x), sizeof(x))

static struct fake_cpu f_sky, f_nb;
static struct ds_cpu sky, nb;

/* DS area and buffers (64-bit layout on the host: DTES64 Skylake). */
static union ds_area area __attribute__((aligned(64)));
static unsigned char bts_buf[24 * 64] __attribute__((aligned(64)));
static unsigned char pebs_buf[0xC8 * 16] __attribute__((aligned(64)));

static void setup_cpus(void)
{
    fake_skylake_pmu(&f_sky);
    CHECK_EQ(ds_cpu_init(&sky, &fake_ops, &f_sky), DS_OK, "init skylake");
    CHECK_EQ(ds_cpu_identify(&sky), DS_OK, "identify skylake");
    CHECK(sky.caps.bts_advertised && sky.caps.pebs_advertised, "skylake has BTS and PEBS");

    fake_netburst(&f_nb);
    CHECK_EQ(ds_cpu_init(&nb, &fake_ops, &f_nb), DS_OK, "init netburst");
    CHECK_EQ(ds_cpu_identify(&nb), DS_OK, "identify netburst");
    /* Identification is not optional: a NetBurst CPU is identified as such in every build. */
    CHECK(nb.caps.netburst, "netburst identified as netburst (every configuration)");
}

static struct ds_area_config area_cfg(bool with_bts, bool with_pebs)
{
    struct ds_area_config c;
    memset(&c, 0, sizeof(c));
    c.area = &area;
    if (with_bts) {
        c.bts.mem = bts_buf;
        c.bts.bytes = sizeof(bts_buf);
    }
    if (with_pebs) {
        c.pebs.mem = pebs_buf;
        c.pebs.bytes = sizeof(pebs_buf);
    }
    return c;
}

__attribute__((unused)) static int sink_pebs(void *a, const struct ds_pebs_sample *s)
{
    (void)a;
    (void)s;
    return 0;
}

__attribute__((unused)) static int sink_bts(void *a, const struct ds_bts_branch *b)
{
    (void)a;
    (void)b;
    return 0;
}

/* --- DS area ----------------------------------------------------------------- */
static void test_area(void)
{
    struct ds_ctx ctx;
    struct ds_area_config cfg = area_cfg(true, false);
    unsigned w = f_sky.writes;
    memset(&ctx, 0, sizeof(ctx));
#if !DS_CONFIG_AREA
    enum ds_layout lay;
    POISONED(lay);
    CHECK_EQ(ds_area_layout(&sky, &lay), DS_ERR_UNSUPPORTED, "AREA=0: ds_area_layout");
    CHECK_EQ(lay, DS_LAYOUT_NONE, "AREA=0: layout cleared");
    POISONED(ctx);
    CHECK_EQ(ds_area_setup(&ctx, &sky, &cfg), DS_ERR_UNSUPPORTED, "AREA=0: ds_area_setup");
    CHECK(ZEROED(ctx), "AREA=0: context cleared (not set up)");
    CHECK_EQ(ds_area_set_reset(&ctx, DS_CTR_GP, 0, 1), DS_ERR_UNSUPPORTED, "AREA=0: ds_area_set_reset");
    CHECK_EQ(ds_area_install(&ctx), DS_ERR_UNSUPPORTED, "AREA=0: ds_area_install");
    CHECK_EQ(ds_area_uninstall(&ctx), DS_ERR_UNSUPPORTED, "AREA=0: ds_area_uninstall");
    CHECK(ds_linear_canonical(0x00007FFFFFFFF000ull, false), "ds_linear_canonical kept (pure helper)");
#else
    enum ds_layout lay;
    CHECK_EQ(ds_area_layout(&sky, &lay), DS_OK, "AREA=1: layout");
    CHECK_EQ(lay, DS_LAYOUT_64, "AREA=1: 64-bit layout");
#if DS_CONFIG_BTS
    CHECK_EQ(ds_area_setup(&ctx, &sky, &cfg), DS_OK, "BTS=1: setup with a BTS buffer");
#else
    CHECK_EQ(ds_area_setup(&ctx, &sky, &cfg), DS_ERR_UNSUPPORTED, "BTS=0: setup with a BTS buffer refused");
#endif
    cfg = area_cfg(false, true);
#if DS_CONFIG_PEBS
    CHECK_EQ(ds_area_setup(&ctx, &sky, &cfg), DS_OK, "PEBS=1: setup with a PEBS buffer");
    CHECK_EQ(ds_area_set_reset(&ctx, DS_CTR_GP, 0, 1), DS_OK, "PEBS=1: set_reset");
#else
    CHECK_EQ(ds_area_setup(&ctx, &sky, &cfg), DS_ERR_UNSUPPORTED, "PEBS=0: setup with a PEBS buffer refused");
    CHECK_EQ(ds_area_set_reset(&ctx, DS_CTR_GP, 0, 1), DS_ERR_UNSUPPORTED, "PEBS=0: ds_area_set_reset");
#endif
#endif
    CHECK_EQ(f_sky.writes, w, "area: no MSR written");
}

/* --- BTS ----------------------------------------------------------------------- */
static void test_bts(void)
{
    struct ds_ctx ctx;
    struct ds_drain_stats st;
    unsigned w = f_sky.writes;
    memset(&ctx, 0, sizeof(ctx));
#if !DS_CONFIG_BTS
    struct ds_bts_branch arr[4];
    size_t n;
    bool b;
    CHECK_EQ(ds_bts_debugctl_bits(&sky, 0), 0, "BTS=0: ds_bts_debugctl_bits is 0");
    CHECK_EQ(ds_bts_enable(&ctx, 0), DS_ERR_UNSUPPORTED, "BTS=0: ds_bts_enable");
    CHECK_EQ(ds_bts_disable(&ctx), DS_ERR_UNSUPPORTED, "BTS=0: ds_bts_disable");
    POISONED(st);
    CHECK_EQ(ds_bts_drain(&ctx, sink_bts, NULL, &st), DS_ERR_UNSUPPORTED, "BTS=0: ds_bts_drain");
    CHECK(ZEROED(st), "BTS=0: drain stats cleared");
    POISONED(st);
    POISONED(n);
    CHECK_EQ(ds_bts_drain_array(&ctx, arr, 4, &n, &st), DS_ERR_UNSUPPORTED, "BTS=0: ds_bts_drain_array");
    CHECK(n == 0 && ZEROED(st), "BTS=0: drain_array outputs cleared");
    b = true;
    CHECK_EQ(ds_bts_threshold_reached(&ctx, &b), DS_ERR_UNSUPPORTED, "BTS=0: ds_bts_threshold_reached");
    CHECK(!b, "BTS=0: threshold flag cleared");
    CHECK_EQ(f_sky.writes, w, "BTS=0: no MSR written");
#else
    CHECK(ds_bts_debugctl_bits(&sky, 0) == (DS_DEBUGCTL_TR | DS_DEBUGCTL_BTS), "BTS=1: TR|BTS");
    struct ds_area_config cfg = area_cfg(true, false);
    CHECK_EQ(ds_area_setup(&ctx, &sky, &cfg), DS_OK, "BTS=1: setup");
    CHECK_EQ(ds_area_install(&ctx), DS_OK, "BTS=1: install");
    CHECK_EQ(ds_bts_enable(&ctx, 0), DS_OK, "BTS=1: enable");
    CHECK_EQ(ds_bts_drain(&ctx, sink_bts, NULL, &st), DS_OK, "BTS=1: drain");
    CHECK_EQ(ds_bts_disable(&ctx), DS_OK, "BTS=1: disable");
    CHECK_EQ(ds_area_uninstall(&ctx), DS_OK, "BTS=1: uninstall");
    (void)w;
#if !DS_CONFIG_NETBURST
    /* NetBurst MSR_DEBUGCTLA: NetBurst-only, compiled out. */
    struct ds_ctx nctx;
    memset(&nctx, 0, sizeof(nctx));
    w = f_nb.writes;
    CHECK_EQ(ds_bts_debugctl_bits(&nb, 0), 0, "NETBURST=0: no DEBUGCTLA bits");
    CHECK_EQ(ds_area_setup(&nctx, &nb, &cfg), DS_OK, "NETBURST=0: DS area on NetBurst still set up");
    CHECK_EQ(ds_area_install(&nctx), DS_OK, "NETBURST=0: install on NetBurst");
    unsigned w2 = f_nb.writes;
    CHECK_EQ(ds_bts_enable(&nctx, 0), DS_ERR_UNSUPPORTED, "NETBURST=0: BTS enable on NetBurst");
    CHECK_EQ(ds_bts_disable(&nctx), DS_ERR_UNSUPPORTED, "NETBURST=0: BTS disable on NetBurst");
    CHECK_EQ(f_nb.writes, w2, "NETBURST=0: DEBUGCTLA untouched");
    CHECK_EQ(ds_area_uninstall(&nctx), DS_OK, "NETBURST=0: uninstall on NetBurst");
    (void)w;
#else
    CHECK(ds_bts_debugctl_bits(&nb, 0) == (DS_NB_DEBUGCTLA_TR | DS_NB_DEBUGCTLA_BTS), "NETBURST=1: DEBUGCTLA bits");
#endif
#endif
}

/* --- PEBS ---------------------------------------------------------------------- */
static void test_pebs(void)
{
    enum ds_pebs_fmt fmt;
    struct ds_pebs_sample s;
    struct ds_drain_stats st;
    struct ds_ctx ctx;
    uint64_t u;
    unsigned char rec[0xC8];
    memset(rec, 0, sizeof(rec));
    memset(&ctx, 0, sizeof(ctx));
#if !DS_CONFIG_PEBS
    struct ds_pebs_sample arr[2];
    size_t n;
    POISONED(fmt);
    CHECK_EQ(ds_pebs_format_select(&sky, DS_LAYOUT_64, &fmt), DS_ERR_UNSUPPORTED, "PEBS=0: format_select");
    CHECK_EQ(fmt, DS_PEBS_FMT_NONE, "PEBS=0: format cleared");
    CHECK_EQ(ds_pebs_record_size(DS_PEBS_FMT_3, 0), 0, "PEBS=0: record_size 0");
    POISONED(s);
    CHECK_EQ(ds_pebs_decode(DS_PEBS_FMT_3, rec, sizeof(rec), false, &s), DS_ERR_UNSUPPORTED, "PEBS=0: decode");
    CHECK(ZEROED(s), "PEBS=0: sample cleared");
    POISONED(u);
    CHECK_EQ(ds_pebs_attribute(&s, 1, &u), DS_ERR_UNSUPPORTED, "PEBS=0: attribute");
    CHECK_EQ(u, 0, "PEBS=0: attribute output cleared");
    POISONED(st);
    CHECK_EQ(ds_pebs_drain(&ctx, sink_pebs, NULL, &st), DS_ERR_UNSUPPORTED, "PEBS=0: drain");
    CHECK(ZEROED(st), "PEBS=0: drain stats cleared");
    POISONED(st);
    POISONED(n);
    CHECK_EQ(ds_pebs_drain_array(&ctx, arr, 2, &n, &st), DS_ERR_UNSUPPORTED, "PEBS=0: drain_array");
    CHECK(n == 0 && ZEROED(st), "PEBS=0: drain_array outputs cleared");
    POISONED(u);
    CHECK_EQ(ds_pebs_pending(&ctx, &u), DS_ERR_UNSUPPORTED, "PEBS=0: pending");
    CHECK_EQ(u, 0, "PEBS=0: pending cleared");
#else
    CHECK_EQ(ds_pebs_format_select(&sky, DS_LAYOUT_64, &fmt), DS_OK, "PEBS=1: format_select");
    CHECK_EQ(fmt, DS_PEBS_FMT_3, "PEBS=1: fmt 3");
    CHECK_EQ(ds_pebs_decode(DS_PEBS_FMT_3, rec, sizeof(rec), false, &s), DS_OK, "PEBS=1: decode");
    (void)st;
    (void)u;
#if !DS_CONFIG_NETBURST
    POISONED(fmt);
    CHECK_EQ(ds_pebs_format_select(&nb, DS_LAYOUT_32, &fmt), DS_ERR_UNSUPPORTED, "NETBURST=0: NetBurst PEBS format");
    CHECK_EQ(fmt, DS_PEBS_FMT_NONE, "NETBURST=0: format cleared");
    CHECK_EQ(ds_pebs_record_size(DS_PEBS_FMT_NB32, 0), 0, "NETBURST=0: NB32 size 0");
    CHECK_EQ(ds_pebs_record_size(DS_PEBS_FMT_NB64, 0), 0, "NETBURST=0: NB64 size 0");
    CHECK_EQ(ds_pebs_decode(DS_PEBS_FMT_NB32, rec, sizeof(rec), false, &s), DS_ERR_UNSUPPORTED,
             "NETBURST=0: NB32 decode");
    s.fmt = DS_PEBS_FMT_NB64;
    CHECK_EQ(ds_pebs_attribute(&s, 1, &u), DS_ERR_UNSUPPORTED, "NETBURST=0: NB64 attribute");
    struct ds_area_config cfg = area_cfg(false, true);
    CHECK_EQ(ds_area_setup(&ctx, &nb, &cfg), DS_ERR_UNSUPPORTED, "NETBURST=0: PEBS buffer on NetBurst refused");
#else
    CHECK_EQ(ds_pebs_format_select(&nb, DS_LAYOUT_32, &fmt), DS_OK, "NETBURST=1: NetBurst PEBS format");
    CHECK_EQ(fmt, DS_PEBS_FMT_NB32, "NETBURST=1: NB32");
#endif
#endif
}

/* --- PMI ----------------------------------------------------------------------- */
static void test_pmi(void)
{
    struct ds_pmi pmi;
    struct ds_pmi_config pc;
    struct ds_pmi_status ps;
    struct ds_pmi_result r;
    uint64_t u;
    unsigned w = f_sky.writes, rd = f_sky.reads;
    memset(&pc, 0, sizeof(pc));
#if !DS_CONFIG_PMI
    POISONED(ps);
    CHECK_EQ(ds_pmi_decode(1, &sky.caps, &ps), DS_ERR_UNSUPPORTED, "PMI=0: decode");
    CHECK(ZEROED(ps), "PMI=0: status cleared");
    CHECK_EQ(ds_pmi_ack_mask(&sky.caps), 0, "PMI=0: ack_mask 0");
    POISONED(pmi);
    CHECK_EQ(ds_pmi_init(&pmi, &sky, NULL, &pc), DS_ERR_UNSUPPORTED, "PMI=0: init");
    CHECK(ZEROED(pmi), "PMI=0: pmi cleared");
    CHECK_EQ(ds_pmi_set_freeze(&pmi), DS_ERR_UNSUPPORTED, "PMI=0: set_freeze");
    POISONED(u);
    CHECK_EQ(ds_pmi_read_status(&pmi, &u), DS_ERR_UNSUPPORTED, "PMI=0: read_status");
    CHECK_EQ(u, 0, "PMI=0: status cleared");
    POISONED(u);
    CHECK_EQ(ds_pmi_ack(&pmi, 1, &u), DS_ERR_UNSUPPORTED, "PMI=0: ack");
    CHECK_EQ(u, 0, "PMI=0: unacked cleared");
    POISONED(r);
    CHECK_EQ(ds_pmi_handle(&pmi, &r), DS_ERR_UNSUPPORTED, "PMI=0: handle");
    CHECK(ZEROED(r) && !r.handled, "PMI=0: result cleared (not handled)");
    CHECK(f_sky.writes == w && f_sky.reads == rd, "PMI=0: no MSR touched");
#else
    (void)ps;
    (void)u;
    (void)w;
    (void)rd;
    CHECK(ds_pmi_ack_mask(&sky.caps) != 0, "PMI=1: ack mask");
    CHECK_EQ(ds_pmi_init(&pmi, &sky, NULL, &pc), DS_OK, "PMI=1: init");
    fake_set_msr(&f_sky, DS_MSR_IA32_PERF_GLOBAL_STATUS, 1);
    CHECK_EQ(ds_pmi_handle(&pmi, &r), DS_OK, "PMI=1: handle");
    CHECK(r.handled && r.acked == 1, "PMI=1: counter 0 overflow acknowledged");
    fake_set_msr(&f_sky, DS_MSR_IA32_PERF_GLOBAL_STATUS, 0);
#if DS_CONFIG_PEBS || DS_CONFIG_BTS
    /* The ISR with a context: only the compiled-in drains can be reached. */
    struct ds_ctx ctx;
    struct ds_area_config cfg = area_cfg(DS_CONFIG_BTS, DS_CONFIG_PEBS);
    memset(&ctx, 0, sizeof(ctx));
    CHECK_EQ(ds_area_setup(&ctx, &sky, &cfg), DS_OK, "PMI=1: area with the compiled-in buffers");
    CHECK_EQ(ds_pmi_init(&pmi, &sky, &ctx, &pc), DS_OK, "PMI=1: init with context");
    fake_set_msr(&f_sky, DS_MSR_IA32_PERF_GLOBAL_STATUS, DS_GSTATUS_OVF_BUF);
    CHECK_EQ(ds_pmi_handle(&pmi, &r), DS_OK, "PMI=1: handle OVF_BUF");
    CHECK_EQ(r.pebs_drained, DS_CONFIG_PEBS, "PMI=1: PEBS drained iff PEBS compiled in");
    fake_set_msr(&f_sky, DS_MSR_IA32_PERF_GLOBAL_STATUS, 0);
#endif
#endif
}

/* --- Counters ---------------------------------------------------------------- */
static void test_pmc(void)
{
    uint64_t a, b;
    unsigned w = f_sky.writes;
#if !DS_CONFIG_PMC
    POISONED(a);
    POISONED(b);
    CHECK_EQ(ds_pmc_period_values(48, true, 1000, &a, &b), DS_ERR_UNSUPPORTED, "PMC=0: period_values");
    CHECK(a == 0 && b == 0, "PMC=0: period outputs cleared");
    POISONED(a);
    POISONED(b);
    CHECK_EQ(ds_pmc_gp_period(&sky, 1000, &a, &b), DS_ERR_UNSUPPORTED, "PMC=0: gp_period");
    CHECK(a == 0 && b == 0, "PMC=0: gp_period outputs cleared");
    CHECK_EQ(ds_pmc_gp_program(&sky, 0, 0x4300C0, 0), DS_ERR_UNSUPPORTED, "PMC=0: gp_program");
    CHECK_EQ(ds_pmc_gp_write(&sky, 0, 0), DS_ERR_UNSUPPORTED, "PMC=0: gp_write");
    POISONED(a);
    CHECK_EQ(ds_pmc_gp_read(&sky, 0, &a), DS_ERR_UNSUPPORTED, "PMC=0: gp_read");
    CHECK_EQ(a, 0, "PMC=0: gp_read output cleared");
    CHECK_EQ(ds_pmc_fixed_program(&sky, 0, 3, false, 0), DS_ERR_UNSUPPORTED, "PMC=0: fixed_program");
    CHECK_EQ(ds_pmc_global_ctrl(&sky, 1), DS_ERR_UNSUPPORTED, "PMC=0: global_ctrl");
#else
    CHECK_EQ(ds_pmc_gp_period(&sky, 1000, &a, &b), DS_OK, "PMC=1: gp_period");
    CHECK_EQ(ds_pmc_gp_program(&sky, 0, 0x4300C0, a), DS_OK, "PMC=1: gp_program");
    w = f_sky.writes;
#endif
#if !DS_CONFIG_PMC || !DS_CONFIG_PEBS
    CHECK_EQ(ds_pmc_core2_pebs_event(0x17, 0xC0, 0), DS_ERR_UNSUPPORTED, "PMC/PEBS=0: core2_pebs_event");
    CHECK_EQ(ds_pmc_pebs_enable(&sky, 0, 0x4300C0 & ~(1ull << 20)), DS_ERR_UNSUPPORTED, "PMC/PEBS=0: pebs_enable");
    CHECK_EQ(ds_pmc_pebs_disable(&sky, 1), DS_ERR_UNSUPPORTED, "PMC/PEBS=0: pebs_disable");
    CHECK_EQ(ds_pmc_pebs_ldlat(&sky, 0, 3), DS_ERR_UNSUPPORTED, "PMC/PEBS=0: pebs_ldlat");
    CHECK_EQ(ds_pmc_pebs_data_cfg(&sky, 0), DS_ERR_UNSUPPORTED, "PMC/PEBS=0: pebs_data_cfg");
    CHECK_EQ(f_sky.writes, w, "PMC/PEBS=0: no MSR written");
#else
    CHECK_EQ(ds_pmc_core2_pebs_event(0x17, 0xC0, 0), DS_OK, "PMC+PEBS=1: core2_pebs_event");
    CHECK_EQ(ds_pmc_pebs_enable(&sky, 0, 0x4300C0 & ~(1ull << 20)), DS_OK, "PMC+PEBS=1: pebs_enable");
    CHECK_EQ(ds_pmc_pebs_disable(&sky, 1), DS_OK, "PMC+PEBS=1: pebs_disable");
    (void)w;
#endif
}

/* --- LBR ----------------------------------------------------------------------- */
static void test_lbr(void)
{
    const struct ds_lbr_model *m;
    struct ds_lbr_entry e[32];
    size_t n;
    unsigned fmtv;
    unsigned w = f_sky.writes;
#if !DS_CONFIG_LBR
    struct ds_lbr_model fake_m;
    memset(&fake_m, 0, sizeof(fake_m));
    fake_m.family = 6;
    fake_m.model = 0x5E;
    POISONED(n);
    CHECK(ds_lbr_models(&n) == NULL && n == 0, "LBR=0: no model table");
    POISONED(m);
    CHECK_EQ(ds_lbr_lookup(6, 0x5E, &m), DS_ERR_UNSUPPORTED, "LBR=0: lookup");
    CHECK(m == NULL, "LBR=0: lookup output cleared");
    POISONED(e[0]);
    CHECK_EQ(ds_lbr_decode(DS_LBR_FMT_EIP, 1, 2, 0, &e[0]), DS_ERR_UNSUPPORTED, "LBR=0: decode");
    CHECK(ZEROED(e[0]), "LBR=0: entry cleared");
    POISONED(fmtv);
    CHECK_EQ(ds_lbr_format(&sky, &fake_m, &fmtv), DS_ERR_UNSUPPORTED, "LBR=0: format");
    CHECK_EQ(fmtv, 0, "LBR=0: format cleared");
    CHECK_EQ(ds_lbr_enable(&sky, &fake_m, NULL), DS_ERR_UNSUPPORTED, "LBR=0: enable");
    CHECK_EQ(ds_lbr_disable(&sky, &fake_m), DS_ERR_UNSUPPORTED, "LBR=0: disable");
    CHECK_EQ(ds_lbr_unfreeze(&sky, &fake_m), DS_ERR_UNSUPPORTED, "LBR=0: unfreeze");
    POISONED(n);
    CHECK_EQ(ds_lbr_read(&sky, &fake_m, DS_LBR_FMT_EIP, e, 32, &n), DS_ERR_UNSUPPORTED, "LBR=0: read");
    CHECK_EQ(n, 0, "LBR=0: read count cleared");
    CHECK_EQ(f_sky.writes, w, "LBR=0: no MSR written");
    (void)fmtv;
#else
    (void)e;
    (void)w;
    CHECK(ds_lbr_models(&n) != NULL && n > 0, "LBR=1: model table");
    CHECK_EQ(ds_lbr_lookup(6, 0x5E, &m), DS_OK, "LBR=1: Skylake row");
    CHECK_EQ(ds_lbr_format(&sky, m, &fmtv), DS_OK, "LBR=1: format");
#if !DS_CONFIG_NETBURST
    size_t i;
    const struct ds_lbr_model *all = ds_lbr_models(&n);
    for (i = 0; i < n; i++)
        CHECK(all[i].family != 0x0F, "NETBURST=0: no NetBurst LBR row (%zu)", i);
    POISONED(m);
    CHECK_EQ(ds_lbr_lookup(0x0F, 2, &m), DS_ERR_UNSUPPORTED, "NETBURST=0: NetBurst LBR lookup");
    CHECK(m == NULL, "NETBURST=0: lookup output cleared");
    struct ds_lbr_model nbm;
    memset(&nbm, 0, sizeof(nbm));
    nbm.family = 0x0F;
    nbm.model = 2;
    nbm.depth = 4;
    nbm.flags = DS_LBR_F_NETBURST | DS_LBR_F_PACKED;
    w = f_nb.writes;
    POISONED(fmtv);
    CHECK_EQ(ds_lbr_format(&nb, &nbm, &fmtv), DS_ERR_UNSUPPORTED, "NETBURST=0: NetBurst LBR format");
    CHECK_EQ(fmtv, 0, "NETBURST=0: format cleared");
    CHECK_EQ(ds_lbr_enable(&nb, &nbm, NULL), DS_ERR_UNSUPPORTED, "NETBURST=0: NetBurst LBR enable");
    CHECK_EQ(ds_lbr_disable(&nb, &nbm), DS_ERR_UNSUPPORTED, "NETBURST=0: NetBurst LBR disable");
    CHECK_EQ(ds_lbr_unfreeze(&nb, &nbm), DS_ERR_UNSUPPORTED, "NETBURST=0: NetBurst LBR unfreeze");
    CHECK_EQ(ds_lbr_read(&nb, &nbm, DS_LBR_FMT_32, e, 32, &n), DS_ERR_UNSUPPORTED, "NETBURST=0: NetBurst LBR read");
    CHECK_EQ(f_nb.writes, w, "NETBURST=0: DEBUGCTLA untouched");
#else
    CHECK_EQ(ds_lbr_lookup(0x0F, 2, &m), DS_OK, "NETBURST=1: NetBurst LBR row");
#endif
#endif
}

/* --- NetBurst ------------------------------------------------------------------ */
#define ESCR_CRU0 0x3B8u
#define CCCR12    0x36Cu
#define CTR12     0x30Cu

static void test_netburst(void)
{
    struct ds_nb_alloc a;
    struct ds_nb_request req;
    struct ds_nb_assignment as;
    const struct ds_nb_metric_info *mi;
    size_t n;
    unsigned idx;
    uint32_t m32;
    uint64_t u;
    memset(&req, 0, sizeof(req));
    req.escr = req.counter = -1;
    req.os = true;
    req.mask = 1;
    fake_set_msr(&f_nb, ESCR_CRU0, 0);
    fake_set_msr(&f_nb, CCCR12, 0);
    fake_set_msr(&f_nb, CTR12, 0);
    unsigned w = f_nb.writes;

#if !DS_CONFIG_NETBURST_TABLES
    POISONED(n);
    CHECK(ds_nb_counters(&n) == NULL && n == 0, "TABLES=0: no counter table");
    POISONED(n);
    CHECK(ds_nb_escrs(&n) == NULL && n == 0, "TABLES=0: no ESCR table");
    POISONED(n);
    CHECK(ds_nb_events(&n) == NULL && n == 0, "TABLES=0: no event table");
    POISONED(idx);
    CHECK_EQ(ds_nb_event_find("instr_retired", &idx), DS_ERR_UNSUPPORTED, "TABLES=0: event_find");
    CHECK_EQ(idx, 0, "TABLES=0: event index cleared");
    POISONED(idx);
    CHECK_EQ(ds_nb_escr_find("CRU_ESCR0", &idx), DS_ERR_UNSUPPORTED, "TABLES=0: escr_find");
    CHECK_EQ(idx, 0, "TABLES=0: escr index cleared");
    POISONED(m32);
    CHECK_EQ(ds_nb_mask_parse(0, "DD", &m32), DS_ERR_UNSUPPORTED, "TABLES=0: mask_parse");
    CHECK_EQ(m32, 0, "TABLES=0: mask cleared");
    POISONED(a);
    CHECK_EQ(ds_nb_alloc_init(&a, 2, false), DS_ERR_UNSUPPORTED, "TABLES=0: alloc_init");
    CHECK(ZEROED(a), "TABLES=0: allocator cleared");
    POISONED(as);
    CHECK_EQ(ds_nb_assign(&a, &req, &as), DS_ERR_UNSUPPORTED, "TABLES=0: assign");
    CHECK(ZEROED(as), "TABLES=0: assignment cleared");
    POISONED(as);
    CHECK_EQ(ds_nb_program(&nb, &a, &req, 0, &as), DS_ERR_UNSUPPORTED, "TABLES=0: program");
    CHECK(ZEROED(as), "TABLES=0: program assignment cleared");
    CHECK_EQ(ds_nb_release(&nb, &a, &as), DS_ERR_UNSUPPORTED, "TABLES=0: release");
    CHECK_EQ(f_nb.writes, w, "TABLES=0: no MSR written by the table calls");
#else
    CHECK(ds_nb_escrs(&n) != NULL && n == DS_NB_NUM_ESCRS, "TABLES=1: ESCR table");
    CHECK_EQ(ds_nb_event_find("instr_retired", &idx), DS_OK, "TABLES=1: event_find");
    CHECK_EQ(ds_nb_alloc_init(&a, 2, false), DS_OK, "TABLES=1: alloc_init");
    req.event = idx;
    CHECK_EQ(ds_nb_assign(&a, &req, &as), DS_OK, "TABLES=1: assign");
    (void)m32;
#endif

#if DS_CONFIG_NETBURST
    /* Raw programming: what remains without the tables (and works with them). */
    uint64_t escr = (2ull << DS_NB_ESCR_EVENT_SHIFT) | (1ull << DS_NB_ESCR_EMASK_SHIFT) | DS_NB_ESCR_T0_OS;
    uint64_t cccr = DS_NB_CCCR_ENABLE | (4ull << DS_NB_CCCR_SELECT_SHIFT) |
                    ((uint64_t)DS_NB_CCCR_ACTIVE_ANY << DS_NB_CCCR_ACTIVE_SHIFT);
    CHECK_EQ(ds_nb_program_raw(&nb, 12, ESCR_CRU0, escr, cccr, 0xFFFFFFF000ull), DS_OK, "raw program");
    CHECK_EQ(fake_get_msr(&f_nb, ESCR_CRU0), escr, "raw: ESCR value");
    CHECK_EQ(fake_get_msr(&f_nb, CCCR12), cccr, "raw: CCCR value");
    CHECK_EQ(fake_get_msr(&f_nb, CTR12), 0xFFFFFFF000ull, "raw: counter value");
    CHECK_EQ(fake_writes_to(&f_nb, CTR12, NULL), 2, "raw: counter written twice (erratum N15)");
    CHECK(f_nb.nlog >= 5 && f_nb.log[f_nb.nlog - 5].msr == CCCR12 && f_nb.log[f_nb.nlog - 5].val == 0 &&
              f_nb.log[f_nb.nlog - 1].msr == CCCR12,
          "raw: CCCR stopped first, enabled last");
    w = f_nb.writes;
    CHECK_EQ(ds_nb_program_raw(&nb, 18, ESCR_CRU0, escr, cccr, 0), DS_ERR_NB_BAD_COUNTER, "raw: counter 18");
    CHECK_EQ(ds_nb_program_raw(&nb, 12, 0x3BF, escr, cccr, 0), DS_ERR_NB_BAD_ESCR, "raw: SSU_ESCR1 not in the table");
    CHECK_EQ(ds_nb_program_raw(&nb, 12, 0x3C6, escr, cccr, 0), DS_ERR_NB_BAD_ESCR, "raw: 0x3C6 is no ESCR");
    CHECK_EQ(ds_nb_program_raw(&nb, 12, ESCR_CRU0, escr | (1ull << 31), cccr, 0), DS_ERR_PMC_RESERVED,
             "raw: ESCR reserved bit 31");
    CHECK_EQ(ds_nb_program_raw(&nb, 12, ESCR_CRU0, escr, cccr | 1, 0), DS_ERR_PMC_RESERVED, "raw: CCCR reserved bit 0");
    CHECK_EQ(ds_nb_program_raw(&nb, 12, ESCR_CRU0, escr, cccr | DS_NB_CCCR_OVF, 0), DS_ERR_PMC_RESERVED,
             "raw: CCCR OVF not writable");
    CHECK_EQ(ds_nb_program_raw(&nb, 12, ESCR_CRU0, escr, cccr, 1ull << 40), DS_ERR_PMC_VALUE_WIDE, "raw: 41-bit start");
    CHECK_EQ(ds_nb_program_raw(NULL, 12, ESCR_CRU0, escr, cccr, 0), DS_ERR_NULL, "raw: NULL cpu");
    CHECK_EQ(ds_nb_program_raw(&sky, 12, ESCR_CRU0, escr, cccr, 0), DS_ERR_NB_NOT_NETBURST, "raw: not NetBurst");
    CHECK_EQ(f_nb.writes, w, "raw: refused calls write nothing");
    /* IQ_ESCR0 (0x3BA) exists on models 01H-02H only: the fake is 0F_02H. */
    fake_set_msr(&f_nb, 0x3BA, 0);
    CHECK_EQ(ds_nb_release_raw(&nb, 12, 0x3BA), DS_OK, "raw: IQ_ESCR0 on model 2");
    nb.caps.display_model = 3;
    CHECK_EQ(ds_nb_release_raw(&nb, 12, 0x3BA), DS_ERR_NB_BAD_ESCR, "raw: IQ_ESCR0 not on model 3");
    nb.caps.display_model = 2;
    f_nb.fault_on_write = CTR12;
    CHECK_EQ(ds_nb_program_raw(&nb, 12, ESCR_CRU0, escr, cccr, 0), DS_ERR_MSR_FAULT, "raw: fault");
    CHECK(fake_get_msr(&f_nb, CCCR12) == 0 && fake_get_msr(&f_nb, ESCR_CRU0) == 0, "raw: fault leaves CCCR/ESCR 0");
    f_nb.fault_on_write = 0;
    CHECK_EQ(ds_nb_program_raw(&nb, 12, ESCR_CRU0, escr, cccr, 0), DS_OK, "raw: program again");
    CHECK_EQ(ds_nb_release_raw(&nb, 12, ESCR_CRU0), DS_OK, "raw: release");
    CHECK(fake_get_msr(&f_nb, CCCR12) == 0 && fake_get_msr(&f_nb, ESCR_CRU0) == 0, "raw: release clears CCCR/ESCR");
#if DS_CONFIG_NETBURST_TABLES
    /* The raw address check and the ESCR table name the same 45 MSRs. */
    const struct ds_nb_escr_info *et = ds_nb_escrs(&n);
    for (uint32_t msr = 0x3A0; msr <= 0x3E1; msr++) {
        bool in = false;
        for (size_t i = 0; i < n; i++)
            in |= et[i].msr == msr;
        fake_set_msr(&f_nb, msr, 0);
        int e = ds_nb_release_raw(&nb, 12, msr);
        CHECK_EQ(e, in ? DS_OK : DS_ERR_NB_BAD_ESCR, "raw ESCR check agrees with the table at 0x%x", msr);
    }
#endif
    CHECK_EQ(ds_nb_metric_info(0, &mi), DS_OK, "NETBURST=1: metric table (kept without the event tables)");
    CHECK_EQ(ds_nb_period(100, &u), DS_OK, "NETBURST=1: period");
    CHECK_EQ(u, 0xFFFFFFFF9Cull, "NETBURST=1: period start");
#else
    w = f_nb.writes;
    unsigned r = f_nb.reads;
    CHECK_EQ(ds_nb_program_raw(&nb, 12, ESCR_CRU0, 0, 0, 0), DS_ERR_UNSUPPORTED, "NETBURST=0: program_raw");
    CHECK_EQ(ds_nb_release_raw(&nb, 12, ESCR_CRU0), DS_ERR_UNSUPPORTED, "NETBURST=0: release_raw");
    POISONED(u);
    CHECK_EQ(ds_nb_period(100, &u), DS_ERR_UNSUPPORTED, "NETBURST=0: period");
    CHECK_EQ(u, 0, "NETBURST=0: period cleared");
    POISONED(mi);
    CHECK_EQ(ds_nb_metric_info(0, &mi), DS_ERR_UNSUPPORTED, "NETBURST=0: metric_info");
    CHECK(mi == NULL, "NETBURST=0: metric cleared");
    CHECK_EQ(ds_nb_replay_tag(&nb, 0, true), DS_ERR_UNSUPPORTED, "NETBURST=0: replay_tag");
    CHECK_EQ(ds_nb_replay_untag(&nb), DS_ERR_UNSUPPORTED, "NETBURST=0: replay_untag");
    POISONED(m32);
    CHECK_EQ(ds_nb_pmi_scan(&nb, 1u << 12, &m32), DS_ERR_UNSUPPORTED, "NETBURST=0: pmi_scan");
    CHECK_EQ(m32, 0, "NETBURST=0: overflow set cleared");
    CHECK_EQ(ds_nb_rearm(&nb, 12, 0), DS_ERR_UNSUPPORTED, "NETBURST=0: rearm");
    CHECK(f_nb.writes == w && f_nb.reads == r, "NETBURST=0: no MSR touched");
    /* Probe on a NetBurst CPU: NetBurst counter and BTS paths not tested. */
    struct ds_probe_result pr;
    static unsigned char sbuf[24 * 64] __attribute__((aligned(64)));
    static union ds_area sarea __attribute__((aligned(64)));
    struct ds_probe_bts_scratch sc;
    memset(&sc, 0, sizeof(sc));
    sc.area = &sarea;
    sc.buf = sbuf;
    sc.buf_bytes = sizeof(sbuf);
    CHECK_EQ(ds_probe(&nb, &sc, &pr), DS_OK, "NETBURST=0: probe NetBurst");
    CHECK(pr.counter.verdict == DS_PROBE_NOT_TESTED && pr.counter.reason == DS_ERR_UNSUPPORTED,
          "NETBURST=0: NetBurst counter not tested");
    CHECK(pr.bts.verdict == DS_PROBE_NOT_TESTED && pr.bts.reason == DS_ERR_UNSUPPORTED,
          "NETBURST=0: NetBurst BTS not tested");
#endif
}

/* --- Probe and renderers ---------------------------------------------------- */
static void test_probe_format(void)
{
    struct ds_probe_result pr;
    static unsigned char sbuf[24 * 64] __attribute__((aligned(64)));
    static union ds_area sarea __attribute__((aligned(64)));
    struct ds_probe_bts_scratch sc;
    char buf[2048];
    memset(&sc, 0, sizeof(sc));
    sc.area = &sarea;
    sc.buf = sbuf;
    sc.buf_bytes = sizeof(sbuf);
    CHECK_EQ(ds_probe(&sky, &sc, &pr), DS_OK, "probe");
    CHECK_EQ(pr.ds_area.verdict, DS_PROBE_WORKING, "probe: IA32_DS_AREA holds a value (MSR test only)");
#if DS_CONFIG_BTS
    CHECK(pr.bts.verdict != DS_PROBE_NOT_TESTED || pr.bts.reason != DS_ERR_UNSUPPORTED, "BTS=1: BTS probed");
#else
    CHECK(pr.bts.verdict == DS_PROBE_NOT_TESTED && pr.bts.reason == DS_ERR_UNSUPPORTED, "BTS=0: BTS not tested");
#endif
    /* the arch-PEBS item (issue 25 item 4): detection is compiled with PEBS */
#if DS_CONFIG_PEBS
    CHECK(pr.arch_pebs.verdict == DS_PROBE_NOT_ADVERTISED && pr.arch_pebs.reason == DS_ERR_APEBS_NOT_ENUMERATED,
          "PEBS=1: Skylake has no arch PEBS");
#else
    CHECK(pr.arch_pebs.verdict == DS_PROBE_NOT_TESTED && pr.arch_pebs.reason == DS_ERR_UNSUPPORTED,
          "PEBS=0: arch PEBS not tested");
#endif
#if DS_CONFIG_FORMAT
    CHECK_EQ(ds_caps_format(&sky.caps, buf, sizeof(buf)), DS_OK, "FORMAT=1: caps_format");
    CHECK(strstr(buf, "vendor: GenuineIntel") != NULL, "FORMAT=1: text");
    CHECK_EQ(ds_probe_format(&pr, buf, sizeof(buf)), DS_OK, "FORMAT=1: probe_format");
    CHECK(strstr(buf, "ds_area: working") != NULL, "FORMAT=1: probe text");
#else
    strcpy(buf, "junk");
    CHECK_EQ(ds_caps_format(&sky.caps, buf, sizeof(buf)), DS_ERR_UNSUPPORTED, "FORMAT=0: caps_format");
    CHECK(buf[0] == '\0', "FORMAT=0: caps text empty");
    strcpy(buf, "junk");
    CHECK_EQ(ds_probe_format(&pr, buf, sizeof(buf)), DS_ERR_UNSUPPORTED, "FORMAT=0: probe_format");
    CHECK(buf[0] == '\0', "FORMAT=0: probe text empty");
#endif
    CHECK(strcmp(ds_probe_verdict_name(DS_PROBE_WORKING), "working") == 0, "verdict names kept");
}

/* --- Architectural PEBS (arch_pebs.h, compiled with DS_CONFIG_PEBS) ----------- */
static int sink_apebs(void *a, const struct ds_pebs_sample *s)
{
    (void)a;
    (void)s;
    return 0;
}

static void test_arch_pebs(void)
{
    struct ds_arch_pebs_caps caps;
    struct ds_arch_pebs ap;
    struct ds_arch_pebs_config cfg;
    struct ds_pebs_sample s, arr[2];
    struct ds_drain_stats st;
    unsigned char rec[64];
    uint32_t used;
    size_t n;
    memset(rec, 0, sizeof(rec));
    memset(&cfg, 0, sizeof(cfg));
    cfg.mem = pebs_buf;
    POISONED(caps);
#if !DS_CONFIG_PEBS
    CHECK_EQ(ds_arch_pebs_detect(&sky, &caps), DS_ERR_UNSUPPORTED, "PEBS=0: arch detect");
    CHECK(ZEROED(caps), "PEBS=0: arch caps cleared");
    POISONED(ap);
    CHECK_EQ(ds_arch_pebs_setup(&ap, &sky, &cfg), DS_ERR_UNSUPPORTED, "PEBS=0: arch setup");
    CHECK(ZEROED(ap), "PEBS=0: arch context cleared");
    CHECK_EQ(ds_arch_pebs_install(&ap), DS_ERR_UNSUPPORTED, "PEBS=0: arch install");
    CHECK_EQ(ds_arch_pebs_enable(&ap), DS_ERR_UNSUPPORTED, "PEBS=0: arch enable");
    CHECK_EQ(ds_arch_pebs_disable(&ap), DS_ERR_UNSUPPORTED, "PEBS=0: arch disable");
    CHECK_EQ(ds_arch_pebs_uninstall(&ap), DS_ERR_UNSUPPORTED, "PEBS=0: arch uninstall");
    CHECK_EQ(ds_arch_pebs_cfg_c_msr(DS_CTR_GP, 0), 0, "PEBS=0: cfg_c_msr 0");
    CHECK_EQ(ds_arch_pebs_counter_enable(&ap, DS_CTR_GP, 0, 0, 0), DS_ERR_UNSUPPORTED, "PEBS=0: arch counter");
    CHECK_EQ(ds_arch_pebs_counter_disable(&ap, DS_CTR_GP, 0), DS_ERR_UNSUPPORTED, "PEBS=0: arch counter off");
    POISONED(s);
    POISONED(used);
    CHECK_EQ(ds_arch_pebs_decode(rec, sizeof(rec), &s, &used), DS_ERR_UNSUPPORTED, "PEBS=0: arch decode");
    CHECK(ZEROED(s) && used == 0, "PEBS=0: arch decode outputs cleared");
    POISONED(st);
    CHECK_EQ(ds_arch_pebs_drain(&ap, sink_apebs, NULL, &st), DS_ERR_UNSUPPORTED, "PEBS=0: arch drain");
    CHECK(ZEROED(st), "PEBS=0: arch drain stats cleared");
    POISONED(st);
    POISONED(n);
    CHECK_EQ(ds_arch_pebs_drain_array(&ap, arr, 2, &n, &st), DS_ERR_UNSUPPORTED, "PEBS=0: arch drain_array");
    CHECK(n == 0 && ZEROED(st), "PEBS=0: arch drain_array outputs cleared");
#else
    /* Skylake (PEBS_FMT 3): no architectural PEBS */
    CHECK_EQ(ds_arch_pebs_detect(&sky, &caps), DS_ERR_APEBS_NOT_ENUMERATED, "PEBS=1: arch detect on fmt 3");
    CHECK_EQ(ds_arch_pebs_setup(&ap, &sky, &cfg), DS_ERR_APEBS_NOT_ENUMERATED, "PEBS=1: arch setup on fmt 3");
    CHECK_EQ(ds_arch_pebs_cfg_c_msr(DS_CTR_GP, 1), 0x1907, "PEBS=1: GP1 CFG_C");
    CHECK_EQ(ds_arch_pebs_decode(rec, sizeof(rec), &s, &used), DS_ERR_APEBS_REC_SHORT, "PEBS=1: arch decode");
    (void)arr;
    (void)st;
    (void)n;
    (void)sink_apebs;
#endif
}

int main(void)
{
    printf("# config: AREA=%d BTS=%d PEBS=%d PMI=%d PMC=%d LBR=%d NETBURST=%d NETBURST_TABLES=%d FORMAT=%d\n",
           DS_CONFIG_AREA, DS_CONFIG_BTS, DS_CONFIG_PEBS, DS_CONFIG_PMI, DS_CONFIG_PMC, DS_CONFIG_LBR,
           DS_CONFIG_NETBURST, DS_CONFIG_NETBURST_TABLES, DS_CONFIG_FORMAT);
    setup_cpus();
    test_area();
    test_bts();
    test_pebs();
    test_arch_pebs();
    test_pmi();
    test_pmc();
    test_lbr();
    test_netburst();
    test_probe_format();
    return check_summary();
}
