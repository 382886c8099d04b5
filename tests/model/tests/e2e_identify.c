/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * End to end: libds's ds_cpu_identify() against every model profile (and
 * every LBR-table row's signature) through the adapter. Expected values are
 * restated here from shared/reference/, not read from either side.
 */
#include <stdio.h>
#include <string.h>
#include "check.h"
#include "ds_model_ops.h"
#include <ds/cpu.h>
#include <ds/err.h>
#include <ds/probe.h>

struct expect {
    enum dsm_profile p;
    uint16_t fam;
    uint8_t model;
    bool ds, dtes64, ds_cpl, pdcm, netburst, leaf_0a;
    uint8_t ver, ngp, gpw, nfix, fixw;
    int pebs_fmt, lbr_fmt;
    bool bts_adv, pebs_adv, fw_write, baseline;
};

static const struct expect T[] = {
    { DSM_NONE_DS, 0x06, 0xCF, false, false, false, false, false, false, 0, 0, 0, 0, 0, -1, -1, false, false, false, false },
    { DSM_NETBURST_M2, 0x0F, 0x02, true, false, false, false, true, false, 0, 0, 0, 0, 0, -1, -1, true, true, false, false },
    { DSM_NETBURST_M3, 0x0F, 0x03, true, false, false, false, true, false, 0, 0, 0, 0, 0, -1, -1, true, true, false, false },
    { DSM_NETBURST_M4_64, 0x0F, 0x04, true, true, true, false, true, false, 0, 0, 0, 0, 0, -1, -1, true, true, false, false },
    { DSM_CORE2, 0x06, 0x0F, true, true, true, true, false, true, 2, 2, 40, 3, 40, 0, 1, true, true, false, false },
    { DSM_ATOM, 0x06, 0x1C, true, true, true, true, false, true, 3, 2, 40, 3, 40, 0, 1, true, true, false, false },
    { DSM_NEHALEM, 0x06, 0x1A, true, true, true, true, false, true, 3, 4, 48, 3, 48, 1, 3, true, true, false, false },
    { DSM_HASWELL, 0x06, 0x3C, true, true, true, true, false, true, 3, 4, 48, 3, 48, 2, 4, true, true, true, false },
    { DSM_SKYLAKE, 0x06, 0x5E, true, true, true, true, false, true, 4, 4, 48, 3, 48, 3, 5, true, true, true, false },
    { DSM_ICELAKE, 0x06, 0x7E, true, true, true, true, false, true, 5, 8, 48, 4, 48, 4, 5, true, true, true, true },
};

static void test_profiles(void)
{
    for (size_t i = 0; i < sizeof(T) / sizeof(T[0]); i++) {
        const struct expect *x = &T[i];
        const char *n = dsm_profile_name(x->p);
        struct dsm_cpu m;
        struct ds_cpu c;
        CHECK_EQ(dsm_init(&m, x->p, NULL, NULL), DSM_OK, "model init %s", n);
        CHECK_EQ(ds_model_cpu_init(&c, &m), DS_OK, "libds init %s", n);
        CHECK_EQ(ds_cpu_identify(&c), DS_OK, "identify %s", n);
        const struct ds_caps *k = &c.caps;
        CHECK(k->vendor == DS_VENDOR_INTEL, "vendor %s", n);
        CHECK_EQ(k->display_family, x->fam, "family %s", n);
        CHECK_EQ(k->display_model, x->model, "model %s", n);
        CHECK_EQ(k->ds, x->ds, "ds %s", n);
        CHECK_EQ(k->dtes64, x->dtes64, "dtes64 %s", n);
        CHECK_EQ(k->ds_cpl, x->ds_cpl, "ds_cpl %s", n);
        CHECK_EQ(k->pdcm, x->pdcm, "pdcm %s", n);
        CHECK_EQ(k->netburst, x->netburst, "netburst %s", n);
        CHECK_EQ(k->has_leaf_0a, x->leaf_0a, "leaf 0AH %s", n);
        CHECK_EQ(k->perfmon_version, x->ver, "perfmon version %s", n);
        CHECK_EQ(k->gp_counters, x->ngp, "gp counters %s", n);
        CHECK_EQ(k->gp_width, x->gpw, "gp width %s", n);
        CHECK_EQ(k->fixed_counters, x->nfix, "fixed counters %s", n);
        CHECK_EQ(k->fixed_width, x->fixw, "fixed width %s", n);
        CHECK(k->has_misc_enable, "MISC_ENABLE read %s", n);
        CHECK_EQ(k->has_perf_caps, x->pdcm, "PERF_CAPABILITIES read iff PDCM %s", n);
        if (x->pdcm) {
            CHECK_EQ(k->pebs_format, (unsigned)x->pebs_fmt, "pebs format %s", n);
            CHECK_EQ(k->lbr_format, (unsigned)x->lbr_fmt, "lbr format %s", n);
            CHECK_EQ(k->fw_write, x->fw_write, "fw_write %s", n);
            CHECK_EQ(k->pebs_baseline, x->baseline, "baseline %s", n);
        }
        CHECK_EQ(k->bts_advertised, x->bts_adv, "bts advertised %s", n);
        CHECK_EQ(k->pebs_advertised, x->pebs_adv, "pebs advertised %s", n);
        /* identify only reads, and never touches a missing MSR */
        const struct dsm_stats *s = dsm_stats(&m);
        CHECK_EQ(s->wrmsr, 0, "identify writes nothing %s", n);
        CHECK_EQ(s->rdmsr_gp, 0, "identify never faults %s", n);
        uint32_t r, w, f;
        dsm_msr_count(&m, 0x1A0, &r, &w, &f);
        CHECK_EQ(r, 1, "MISC_ENABLE read once %s", n);
        dsm_msr_count(&m, 0x345, &r, &w, &f);
        CHECK_EQ(r, x->pdcm ? 1u : 0u, "PERF_CAPABILITIES read once iff PDCM %s", n);
    }
}

static void test_lbr_rows(void)
{
    size_t nrows;
    const struct dsm_lbr_row *rows = dsm_lbr_rows(&nrows);
    for (size_t i = 0; i < nrows; i++) {
        struct dsm_cpu m;
        struct ds_cpu c;
        CHECK_EQ(dsm_init(&m, dsm_profile_for_row(&rows[i]), NULL, NULL), DSM_OK, "init");
        CHECK_EQ(dsm_set_lbr_row(&m, &rows[i]), DSM_OK, "row");
        CHECK_EQ(ds_model_cpu_init(&c, &m), DS_OK, "libds init");
        CHECK_EQ(ds_cpu_identify(&c), DS_OK, "identify");
        CHECK(c.caps.display_family == rows[i].family && c.caps.display_model == rows[i].model,
              "DisplayFamily_DisplayModel %02X_%02XH seen by libds as %02X_%02XH", rows[i].family, rows[i].model,
              c.caps.display_family, c.caps.display_model);
        if (c.caps.has_perf_caps)
            CHECK_EQ(c.caps.lbr_format, rows[i].fmt, "LBR format %02X_%02XH", rows[i].family, rows[i].model);
    }
}

static void test_adapter_faults(void)
{
    struct dsm_cpu m;
    struct ds_cpu c;
    uint64_t v;
    dsm_init(&m, DSM_CORE2, NULL, NULL);
    CHECK_EQ(ds_model_cpu_init(&c, &m), DS_OK, "init");
    CHECK_EQ(ds_msr_read(&c, 0x300, &v), DS_ERR_MSR_FAULT, "model #GP -> DS_ERR_MSR_FAULT (read)");
    CHECK_EQ(ds_msr_write(&c, 0x1D9, 1ull << 2), DS_ERR_MSR_FAULT, "reserved bit -> DS_ERR_MSR_FAULT (write)");
    CHECK_EQ(ds_msr_write(&c, 0x1D9, 1), DS_OK, "valid write");
    CHECK_EQ(ds_msr_read(&c, 0x1D9, &v), DS_OK, "read back");
    CHECK_EQ(v, 1, "value");
    CHECK_EQ(ds_model_msr_ops.read(NULL, 0x1D9, &v), DS_ERR_NULL, "NULL ctx");
    CHECK_EQ(ds_model_msr_ops.write(NULL, 0x1D9, 0), DS_ERR_NULL, "NULL ctx write");
    CHECK_EQ(ds_model_cpu_init(NULL, &m), DS_ERR_NULL, "NULL libds cpu");
    CHECK_EQ(ds_model_cpu_init(&c, NULL), DS_ERR_NULL, "NULL model cpu");
    dsm_init(&m, DSM_NETBURST_M3, NULL, NULL);
    CHECK_EQ(ds_model_cpu_init(&c, &m), DS_OK, "init 32-bit");
    CHECK(!c.ia32e, "32-bit model: libds not in IA-32e");
}

/*
 * Issue 10 item 15 on the reference model: every profile with the MSR CPUID
 * advertises made to #GP (dsm_set_msr_gp): IA32_PERF_CAPABILITIES where PDCM
 * is set, IA32_MISC_ENABLE everywhere. Identification succeeds, that
 * capability is absent with DS_ERR_MSR_FAULT, the rest equals the unfaulted
 * identification, and the probe names the MSR. Before the fix identify
 * returned DS_ERR_MSR_FAULT.
 */
static void test_msr_gp(void)
{
    static const uint32_t msrs[] = {0x345, 0x1A0};
    for (size_t i = 0; i < sizeof(T) / sizeof(T[0]); i++)
        for (size_t k = 0; k < 2; k++) {
            const struct expect *x = &T[i];
            const char *n = dsm_profile_name(x->p);
            if (msrs[k] == 0x345 && !x->pdcm)
                continue; /* not advertised there: libds never reads it */
            struct dsm_cpu m;
            struct ds_cpu c, ref;
            dsm_init(&m, x->p, NULL, NULL);
            ds_model_cpu_init(&ref, &m);
            CHECK_EQ(ds_cpu_identify(&ref), DS_OK, "reference identify %s", n);
            CHECK_EQ(dsm_set_msr_gp(&m, msrs[k]), DSM_OK, "quirk");
            CHECK_EQ(ds_model_cpu_init(&c, &m), DS_OK, "libds init %s", n);
            CHECK_EQ(ds_cpu_identify(&c), DS_OK, "identify %s with MSR 0x%X faulting", n, msrs[k]);
            const struct ds_caps *a = &c.caps, *b = &ref.caps;
            CHECK(c.identified, "identified %s", n);
            if (msrs[k] == 0x345) {
                CHECK(!a->has_perf_caps && a->perf_caps_err == DS_ERR_MSR_FAULT, "PERF_CAPABILITIES absent %s", n);
                CHECK(a->has_misc_enable && a->misc_enable == b->misc_enable, "MISC_ENABLE still read %s", n);
                CHECK_EQ(a->pebs_advertised, b->pebs_advertised, "PEBS advertised unchanged %s", n);
            } else {
                CHECK(!a->has_misc_enable && a->misc_enable_err == DS_ERR_MSR_FAULT, "MISC_ENABLE absent %s", n);
                CHECK(!a->bts_advertised && !a->pebs_advertised, "BTS/PEBS not advertised %s", n);
                CHECK_EQ(a->has_perf_caps, b->has_perf_caps, "PERF_CAPABILITIES unaffected %s", n);
                CHECK_EQ(a->perf_caps, b->perf_caps, "PERF_CAPABILITIES value %s", n);
            }
            CHECK(a->signature == b->signature && a->perfmon_version == b->perfmon_version &&
                  a->gp_mask == b->gp_mask && a->fixed_mask == b->fixed_mask && a->ds == b->ds,
                  "everything else identified %s", n);
            struct ds_probe_result pr;
            char txt[1024];
            CHECK_EQ(ds_probe(&c, NULL, &pr), DS_OK, "probe runs %s", n);
            const struct ds_probe_item *it = msrs[k] == 0x345 ? &pr.perf_caps : &pr.misc_enable;
            CHECK(it->verdict == DS_PROBE_FAULT && it->msr == msrs[k], "probe names MSR 0x%X %s", msrs[k], n);
            CHECK_EQ(ds_probe_format(&pr, txt, sizeof txt), DS_OK, "probe text %s", n);
            CHECK(strstr(txt, msrs[k] == 0x345 ? "perf_capabilities: fault (IA32_PERF_CAPABILITIES (0x345)"
                                               : "misc_enable: fault (IA32_MISC_ENABLE (0x1A0)") != NULL,
                  "probe text %s: %s", n, txt);
        }
    struct dsm_cpu m;
    dsm_init(&m, DSM_SKYLAKE, NULL, NULL);
    CHECK_EQ(dsm_set_msr_gp(&m, 0x345), DSM_OK, "1");
    CHECK_EQ(dsm_set_msr_gp(&m, 0x1A0), DSM_OK, "2");
    CHECK_EQ(dsm_set_msr_gp(&m, 0x600), DSM_EINVAL, "list full");
    uint64_t v;
    CHECK_EQ(dsm_rdmsr(&m, 0x1A0, &v), DSM_GP, "quirk MSR faults");
    CHECK_EQ(dsm_set_msr_gp(&m, 0), DSM_OK, "clear");
    CHECK_EQ(dsm_rdmsr(&m, 0x1A0, &v), DSM_OK, "cleared: reads again");
}

int main(void)
{
    test_profiles();
    test_msr_gp();
    test_lbr_rows();
    test_adapter_faults();
    return check_summary();
}
