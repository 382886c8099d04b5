/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * End to end, libds architectural PEBS (arch_pebs.h, chosen through
 * ds_pebs_format_select) against the model's Panther Lake P-core and E-core
 * profiles (dsm_archpebs.c, independent of libds): a deterministic stream of
 * 200000 instructions, GP0 counting INST_RETIRED with CFG_C reload -P;
 * every threshold PMI (GLOBAL_STATUS bit 54) drains with
 * ds_arch_pebs_drain and acknowledges bit 54. Checks: assists ==
 * dsm_pebs_expected(events, P); delivered == written, records + lost ==
 * present; IPs inside the workload, registers/TSC as fed; fragments
 * reassembled; a buffer left to fill reports FULL and loses nothing it
 * holds.
 */
#include <stdio.h>
#include <stdlib.h>
#include "check.h"
#include "ds_model_ops.h"
#include "dsm_stream.h"
#include "model_util.h"
#include <ds/cpu.h>
#include <ds/pebs.h>
#include <ds/arch_pebs.h>
#include <ds/pmc.h>
#include <ds/pmi.h>
#include <ds/probe.h>
#include <string.h>

#define PHYS 0x00200000ull   /* the buffer's "physical" address in the fake memory */
static _Alignas(4096) uint8_t blk[1 << 18];
static struct fake_mem mem;

struct run {
    struct dsm_cpu m; struct ds_cpu c; struct ds_arch_pebs ap; struct ds_pmi pmi;
    uint64_t samples, bad, frag_bad, present, records, lost, pmis; int herr;
    uint32_t want_frags;
    bool want_ymmh;
};
static struct run R;

/* libds gpr[] order (Linux arch_pebs_gprs): ax, cx, dx, bx, sp, bp, si, di, r8-r15 */
static const unsigned gpr_model_index[16] = { DSM_R_AX, DSM_R_CX, DSM_R_DX, DSM_R_BX, DSM_R_SP, DSM_R_BP,
                                              DSM_R_SI, DSM_R_DI, 10, 11, 12, 13, 14, 15, 16, 17 };

static int sink(void *a, const struct ds_pebs_sample *s)
{
    (void)a;
    R.samples++;
    bool ok = s->fmt == DS_PEBS_FMT_ARCH && (s->present & DS_SAMPLE_IP) && s->ip >= 0x400000 && s->ip < 0x500000;
    if ((s->present & DS_SAMPLE_TSC) && s->tsc != 2 * s->ip) /* dsm_stream: TSC = 2 * ip */
        ok = false;
    if ((s->present & DS_SAMPLE_APPLICABLE) && s->counters != 1)
        ok = false;
    if (s->present & DS_SAMPLE_GPRS) {
        for (unsigned k = 0; k < 16; k++)
            if (s->gpr[k] != dsm_stream_reg(s->ip, gpr_model_index[k]))
                ok = false;
        if (s->flags != 0x202)
            ok = false;
    }
    if (R.want_ymmh) { /* XER header (SSE | AVX) + XMM + YMMH; the stream has no vector state: zeros */
        bool v = (s->present & DS_SAMPLE_XMM) && (s->present & DS_SAMPLE_YMMH) && s->xstate == 0x6 && s->ymmh &&
                 s->xmm && !(s->present & (DS_SAMPLE_OPMASK | DS_SAMPLE_ZMMH | DS_SAMPLE_H16ZMM));
        for (unsigned k = 0; v && k < 32; k++)
            v = s->ymmh[k] == 0 && s->xmm->xmm[k] == 0;
        if (!v)
            ok = false;
    } else if (s->present & (DS_SAMPLE_YMMH | DS_SAMPLE_XMM)) {
        ok = false;
    }
    if (s->fragments != R.want_frags)
        R.frag_bad++;
    if (!ok)
        R.bad++;
    return 0;
}

static void account(const struct ds_drain_stats *st)
{
    R.present += st->present;
    R.records += st->records;
    R.lost += st->lost_beyond + st->lost_corrupt + st->lost_rejected + st->lost_race;
}

/* The shared handler: ds_pmi_handle drains on GLOBAL_STATUS bit 54 (cfg.apebs) and acks it. */
static void on_pmi(void *ctx, uint32_t why)
{
    (void)ctx; (void)why;
    struct ds_pmi_result res;
    int e = ds_pmi_handle(&R.pmi, &res);
    if (e)
        R.herr = e;
    if (res.pebs_drained)
        R.pmis++;
    if ((res.acked & (1ull << 54)) == 0 && res.pebs_drained)
        R.herr = -1; /* drained but bit 54 not acknowledged */
    account(&res.pebs);
    uint64_t gs = 0;
    dsm_rdmsr(&R.m, 0x38E, &gs);
    if (gs & (1ull << 54))
        R.herr = -2; /* bit 54 left set */
}

/* @frag: model fragment size (0 none); @pmi: drain on the threshold PMI. */
static void one(enum dsm_profile p, uint64_t P, uint64_t groups, uint32_t frag, unsigned code, bool pmi)
{
    memset(&R, 0, sizeof(R));
    memset(blk, 0, sizeof(blk));
    mem.base = PHYS; mem.buf = blk; mem.size = sizeof(blk);
    const char *n = dsm_profile_name(p);
    CHECK_EQ(dsm_init(&R.m, p, &fm_ops, &mem), 0, "init");
    if (frag)
        CHECK_EQ(dsm_apebs_set_fragment(&R.m, frag), DSM_OK, "fragments");
    R.want_frags = frag ? 2 : 1;
    R.want_ymmh = (groups & DS_APEBS_CFG_YMMH) != 0;
    CHECK_EQ(ds_model_cpu_init(&R.c, &R.m), DS_OK, "dcpu");
    CHECK_EQ(ds_cpu_identify(&R.c), DS_OK, "identify");
    enum ds_pebs_fmt f = DS_PEBS_FMT_NONE;
    CHECK_EQ(ds_pebs_format_select(&R.c, DS_LAYOUT_64, &f), DS_OK, "format %s", n);
    CHECK_EQ(f, DS_PEBS_FMT_ARCH, "architectural PEBS chosen %s", n);
    struct ds_arch_pebs_config cfg = { blk, PHYS, code, 0 };
    CHECK_EQ(ds_arch_pebs_setup(&R.ap, &R.c, &cfg), DS_OK, "setup %s", n);
    CHECK_EQ(ds_arch_pebs_install(&R.ap), DS_OK, "install");
    CHECK_EQ(ds_arch_pebs_counter_enable(&R.ap, DS_CTR_GP, 0, (uint32_t)(0 - P), groups), DS_OK, "CFG_C");
    CHECK_EQ(ds_arch_pebs_enable(&R.ap), DS_OK, "enable");
    struct ds_pmi_config pc;
    memset(&pc, 0, sizeof(pc));
    pc.pebs_sink = sink;
    pc.apebs = &R.ap;
    pc.pebs_counters = 1;
    CHECK_EQ(ds_pmi_init(&R.pmi, &R.c, NULL, &pc), DS_OK, "pmi init %s", n);
    if (pmi)
        dsm_set_pmi(&R.m, on_pmi, NULL);
    /* the counter through pmc.h, as the kernel programs it */
    uint64_t start = 0, reset = 0;
    CHECK_EQ(ds_pmc_gp_period(&R.c, P, &start, &reset), DS_OK, "period");
    CHECK_EQ(start, (0 - P) & 0xFFFFFFFFFFFFull, "48-bit start value");
    int pe = ds_pmc_gp_program(&R.c, 0, DS_EVTSEL(0xC0, 0) | DS_EVTSEL_USR | DS_EVTSEL_EN, start);
    CHECK_EQ(pe, DS_OK, "PMC0 programmed through pmc.h %s", n);
    for (uint32_t k = 0; pe && k < R.m.msr_st_used; k++)
        if (R.m.msr_st[k].faults)
            printf("# faulting MSR 0x%x\n", R.m.msr_st[k].msr);
    CHECK_EQ(ds_pmc_global_ctrl(&R.c, 1), DS_OK, "GLOBAL_CTRL");
    struct dsm_stream st; dsm_stream_init(&st, 7, 0x400000); struct dsm_event ev;
    uint64_t occ = 0;
    for (int i = 0; i < 200000; i++) {
        dsm_stream_next(&st, &ev);
        ev.cpl = 3;
        occ++;
        dsm_retire(&R.m, &ev);
    }
    dsm_wrmsr(&R.m, 0x38F, 0); /* counters off: the final drain is exact */
    struct ds_drain_stats ds;
    CHECK_EQ(ds_arch_pebs_drain(&R.ap, sink, NULL, &ds), DS_OK, "final drain %s", n);
    account(&ds);
    const struct dsm_apebs *a = &R.m.ap;
    printf("# %s P %llu frag %u: events %llu expected %llu written %llu full-dropped %llu samples %llu lost %llu pmis %llu\n",
           n, (unsigned long long)P, frag, (unsigned long long)occ, (unsigned long long)dsm_pebs_expected(occ, P),
           (unsigned long long)a->records, (unsigned long long)a->dropped_full, (unsigned long long)R.samples,
           (unsigned long long)R.lost, (unsigned long long)R.pmis);
    CHECK_EQ(R.herr, 0, "drain errors in the PMI %s", n);
    CHECK_EQ(a->records + a->dropped_full + a->dropped_off, dsm_pebs_expected(occ, P), "assists = events/period %s", n);
    CHECK_EQ(R.records + R.lost, R.present, "records + lost = present %s", n);
    CHECK_EQ(R.present, a->records, "present = written %s", n);
    CHECK_EQ(R.samples, a->records, "delivered = written %s", n);
    CHECK_EQ(R.lost, 0, "nothing lost %s", n);
    CHECK_EQ(R.bad, 0, "IPs inside the workload, TSC, GPRs as fed %s", n);
    CHECK_EQ(R.frag_bad, 0, "fragments per record %u %s", R.want_frags, n);
    if (pmi) {
        CHECK_EQ(a->dropped_full, 0, "drained in time: nothing dropped %s", n);
        CHECK(R.pmis > 0, "threshold PMIs %s", n);
    } else {
        CHECK(a->dropped_full > 0 && (ds.anomalies & DS_DRAIN_FULL), "no PMI: the buffer fills, FULL reported %s", n);
        CHECK_EQ(a->records, (4096ull << code) / 64, "a full buffer of 64-byte records %s", n);
    }
    CHECK_EQ(ds_arch_pebs_uninstall(&R.ap), DS_OK, "uninstall");
}

/* Issue 25 items 4 and 14: IA32_PEBS_ENABLE (3F1H) and MSR_PEBS_DATA_CFG
 * (3F2H) do not exist on architectural-PEBS parts (Linux commit
 * "perf/x86/intel: Initialize architectural PEBS", Dapeng Mi, link
 * 20251029102136.61364-6: "IA32_PEBS_ENABLE and MSR_PEBS_DATA_CFG MSRs are
 * no longer existed for arch-PEBS"): the model's Panther Lake profiles #GP
 * on both, and ds_probe never touches them there. The DS area item holds
 * (BTS only decides "busy"; arch-PEBS does not use the DS area), the
 * arch_pebs item reads IA32_PEBS_INDEX and hold-tests IA32_PEBS_BASE; with
 * INDEX.EN set it is busy and BASE is left alone. Before the fix the probe
 * read 3F1H and reported "ds_area: fault". */
static void probe_ptl(enum dsm_profile p)
{
    struct dsm_cpu *m = &R.m;
    struct ds_cpu *c = &R.c;
    struct ds_probe_result pr;
    char txt[1024];
    uint64_t v;
    const char *n = dsm_profile_name(p);
    memset(&R, 0, sizeof(R));
    mem.base = PHYS; mem.buf = blk; mem.size = sizeof(blk);
    CHECK_EQ(dsm_init(m, p, &fm_ops, &mem), 0, "init");
    CHECK_EQ(dsm_rdmsr(m, 0x3F1, &v), DSM_GP, "IA32_PEBS_ENABLE read #GP %s", n);
    CHECK_EQ(dsm_wrmsr(m, 0x3F1, 0), DSM_GP, "IA32_PEBS_ENABLE write #GP %s", n);
    CHECK_EQ(dsm_rdmsr(m, 0x3F2, &v), DSM_GP, "MSR_PEBS_DATA_CFG read #GP %s", n);
    CHECK_EQ(ds_model_cpu_init(c, m), DS_OK, "dcpu");
    CHECK_EQ(ds_cpu_identify(c), DS_OK, "identify");
    CHECK_EQ(dsm_wrmsr(m, 0x3F4, 0x123000), DSM_OK, "prior BASE");
    CHECK_EQ(ds_probe(c, NULL, &pr), DS_OK, "probe %s", n);
    CHECK_EQ(pr.ds_area.verdict, DS_PROBE_WORKING, "ds_area working %s", n);
    CHECK_EQ(pr.arch_pebs.verdict, DS_PROBE_WORKING, "arch_pebs working %s", n);
    CHECK_EQ(pr.arch_pebs.msr, 0x3F4, "IA32_PEBS_BASE tested %s", n);
    CHECK(pr.arch_pebs.restored, "restored %s", n);
    CHECK_EQ(dsm_rdmsr(m, 0x3F4, &v), DSM_OK, "BASE");
    CHECK_EQ(v, 0x123000, "prior BASE back %s", n);
    CHECK_EQ(ds_probe_format(&pr, txt, sizeof txt), DS_OK, "text");
    CHECK(strstr(txt, "ds_area: working") && strstr(txt, "arch_pebs: working"), "text %s: %s", n, txt);
    CHECK(!strstr(txt, "0x3F1"), "3F1H not named %s", n);
    CHECK_EQ(dsm_wrmsr(m, 0x3F5, 1ull << 32), DSM_OK, "INDEX.EN");
    CHECK_EQ(ds_probe(c, NULL, &pr), DS_OK, "probe busy %s", n);
    CHECK_EQ(pr.arch_pebs.verdict, DS_PROBE_BUSY, "arch-PEBS on: busy %s", n);
    CHECK_EQ(pr.arch_pebs.msr, 0x3F5, "busy: INDEX named %s", n);
    CHECK_EQ(pr.ds_area.verdict, DS_PROBE_WORKING, "DS area not used by arch-PEBS %s", n);
}

int main(void)
{
    const uint64_t gpr = DS_APEBS_CFG_GPR, aux = DS_APEBS_CFG_AUX;
    one(DSM_PTL_P, 97, 0, 0, 1, true);
    one(DSM_PTL_E, 97, 0, 0, 1, true);
    one(DSM_PTL_P, 50, gpr | aux, 0, 2, true);
    one(DSM_PTL_E, 50, gpr | aux, 128, 2, true);   /* each record in two fragments */
    one(DSM_PTL_P, 100, 0, 0, 0, false);           /* no PMI: FULL */
    const uint64_t vec = DS_APEBS_CFG_XMM | DS_APEBS_CFG_YMMH;
    one(DSM_PTL_P, 60, vec | gpr, 0, 2, true);     /* vector group: XER + XMM + YMMH (23H.4 EBX bit 18) */
    one(DSM_PTL_E, 60, vec, 384, 2, true);         /* ... in its own fragment */
    probe_ptl(DSM_PTL_P);
    probe_ptl(DSM_PTL_E);
    return check_summary();
}
